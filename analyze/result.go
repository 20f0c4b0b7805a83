package analyze

import (
	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/analyze/pipeline"
	"github.com/loopgate/loopgate/ingest"
)

// Problem is an input problem, carried through to the report.
type Problem = ingest.Problem

// Report is the result of a replay: what the report package renders. Its
// JSON form is a contract (docs/architecture.md): fields may be added, never
// renamed or removed.
type Report struct {
	Summary Summary    `json:"summary"`
	Rules   RulesInfo  `json:"rules"`
	Tokens  TokensInfo `json:"tokens"`
	// Sessions are the sessions in memory: all of them unless the replay
	// spilled them to disk (Options.SpillSessions; read them with
	// EachSession).
	Sessions []SessionResult `json:"sessions"`
	Tools    []ToolStat      `json:"tools"`
	Problems []Problem       `json:"problems"`

	// spill holds the sessions written to disk (Options.SpillSessions):
	// Sessions then lists only those kept after the last spill, and
	// EachSession and SessionCount cover both.
	spill *pipeline.SpillFile[SessionResult]
	// spillErr is the first reason sessions could not be spilled (Report.SpillError).
	spillErr error
}

// RulesInfo names the rules a replay ran under.
type RulesInfo struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	// NotChecked lists the parts of the rules' design replay could not
	// check on any session (rules.Rules.NotReplayed).
	NotChecked []string `json:"not_checked,omitempty"`
}

// TokensInfo says how tokens were counted.
type TokensInfo struct {
	// Tokenizer is "o200k_base", "cl100k_base" or "chars4".
	Tokenizer string `json:"tokenizer"`
	// SessionsWithUsage counts sessions whose transcript records usage;
	// SessionsCalibrated those whose usage was enough to calibrate their
	// token counts (their savings use it instead of the tokenizer).
	SessionsWithUsage  int `json:"sessions_with_usage"`
	SessionsCalibrated int `json:"sessions_calibrated"`
	// SessionsUsageUnused counts sessions whose transcript records usage
	// that could not calibrate them (too little or implausible evidence:
	// each such session's usage_unused says which); the tokenizer counted
	// them. Absent when 0.
	SessionsUsageUnused int `json:"sessions_usage_unused,omitempty"`
	// EstimatedTexts counts the texts too long to count whole (over 4 MiB:
	// their tokens are scaled from their first and last 512 KiB,
	// internal/tokens). Absent when 0.
	EstimatedTexts int64 `json:"estimated_texts,omitempty"`
	// RecordedInput and RecordedOutput sum the usage the transcripts record.
	RecordedInput  int64 `json:"recorded_input_tokens"`
	RecordedOutput int64 `json:"recorded_output_tokens"`
}

// Summary totals a replay.
type Summary struct {
	Files    int `json:"files"`
	Sessions int `json:"sessions"`
	Turns    int `json:"turns"`
	Requests int `json:"requests"`
	Calls    int `json:"calls"`
	Steered  int `json:"steered"`
	Blocked  int `json:"blocked"`
	Deduped  int `json:"deduped"`
	Halted   int `json:"halted"`
	// Redundant calls brought the model nothing new (docs/cli.md).
	Redundant int `json:"redundant"`
	// RedundantStopped are redundant calls that were blocked or deduped.
	RedundantStopped int `json:"redundant_stopped"`
	// Harmful stopped calls would have hidden new information.
	Harmful int `json:"harmful"`
	// StoppedActions are blocked or deduped calls that act on the world
	// (a click, a sent message): counted apart from precision, which
	// covers observations only, because only the user can say whether
	// repeating the action was wanted.
	StoppedActions int `json:"stopped_actions"`
	// Precision and Recall are null when their denominator is 0.
	Precision          *float64 `json:"precision"`
	Recall             *float64 `json:"recall"`
	TokensSaved        int64    `json:"tokens_saved"`
	ContextTokensSaved int64    `json:"context_tokens_saved"`
	// SteerTokens is what the steer messages cost: the tokens of each
	// steer message, counted once per steered call. Unlike
	// context_tokens_saved it is not multiplied by the later requests that
	// re-send the message (docs/cli.md, "What the numbers mean").
	SteerTokens int64 `json:"steer_tokens"`
	// Native counts calls that the agent's own guard already blocked,
	// stubbed or warned about in the transcript.
	Native   int `json:"native"`
	Problems int `json:"problems"`
}

// SessionResult is the replay of one session (one agent scope of one file).
type SessionResult struct {
	File   string `json:"file"`
	ID     string `json:"id"`
	Format string `json:"format"`
	Agent  string `json:"agent"`
	// Selector names this session alone among those of its file, for
	// --session: the id, or "ID/AGENT" for a subagent scope
	// (ingest.SessionSelector).
	Selector string `json:"selector"`
	Parent   string `json:"parent,omitempty"`
	Model    string `json:"model,omitempty"`
	// ToolNames says how the rules named this session's tools: "native"
	// (a transcript of the design's own agent: its exact tool names) or
	// "classes" (translated through tool classes).
	ToolNames string `json:"tool_names"`
	// Unattended is true when the rules' unattended variant ran this
	// session (rules.Unattended: hermes' hard stops outside its
	// interactive platforms).
	Unattended bool `json:"unattended,omitempty"`
	// StartedAt and EndedAt are the earliest and latest times the
	// transcript records for the session (RFC 3339, UTC, to the second);
	// absent when it records none.
	StartedAt          string `json:"started_at,omitempty"`
	EndedAt            string `json:"ended_at,omitempty"`
	Turns              int    `json:"turns"`
	Requests           int    `json:"requests"`
	Calls              int    `json:"calls"`
	Steered            int    `json:"steered"`
	Blocked            int    `json:"blocked"`
	Deduped            int    `json:"deduped"`
	Halted             int    `json:"halted"`
	Redundant          int    `json:"redundant"`
	RedundantStopped   int    `json:"redundant_stopped"`
	Harmful            int    `json:"harmful"`
	StoppedActions     int    `json:"stopped_actions"`
	Native             int    `json:"native"`
	TokensSaved        int64  `json:"tokens_saved"`
	ContextTokensSaved int64  `json:"context_tokens_saved"`
	SteerTokens        int64  `json:"steer_tokens"`
	HasUsage           bool   `json:"has_usage"`
	// TokensFrom says how this session's tokens were counted: the
	// tokenizer's name, or "usage" when its recorded usage calibrated a
	// bytes-per-token ratio (BytesPerToken).
	TokensFrom    string  `json:"tokens_from"`
	BytesPerToken float64 `json:"bytes_per_token,omitempty"`
	// UsageUnused says why the session's recorded usage was not used to
	// count its tokens (too little evidence, an implausible ratio); absent
	// when the session records no usage or its usage was used.
	UsageUnused    string     `json:"usage_unused,omitempty"`
	RecordedInput  int64      `json:"recorded_input_tokens,omitempty"`
	RecordedOutput int64      `json:"recorded_output_tokens,omitempty"`
	Timeline       string     `json:"timeline"`
	Decisions      []Decision `json:"decisions"`
	// Notes are the reader's facts about the session (ingest.Session.Notes:
	// items not replayed, the format's limits), absent when none.
	Notes []string `json:"notes,omitempty"`
}

// NoteUsage adds one session's usage facts that Aggregator does not total
// (sessions whose recorded usage was not used) to t.
func (t *TokensInfo) NoteUsage(s *SessionResult) {
	if s.UsageUnused != "" {
		t.SessionsUsageUnused++
	}
}

// Decision is one call that the guard acted on, that was redundant, or that
// the agent's own guard had already acted on.
type Decision struct {
	Turn int `json:"turn"`
	// Call is the 1-based index of the call in its session.
	Call   int    `json:"call"`
	Line   int    `json:"line"`
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	Class  string `json:"class"`
	// Args is abbreviated (and redacted by the report).
	Args     string       `json:"args"`
	Action   guard.Action `json:"action"`
	Detector string       `json:"detector"`
	Count    int          `json:"count"`
	Message  string       `json:"message"`
	// Redundant: the call brought nothing new (truth, independent of rules).
	Redundant bool `json:"redundant"`
	// Harmful: stopped, yet its real result was new to the guard's key
	// (observations only).
	Harmful bool `json:"harmful"`
	// StoppedAction: a call that acts on the world, blocked or deduped.
	StoppedAction      bool  `json:"stopped_action"`
	TokensSaved        int64 `json:"tokens_saved"`
	ContextTokensSaved int64 `json:"context_tokens_saved"`
	// Native names the agent's own guard intervention seen in the
	// transcript ("hermes-warning", "nanobot-block", ...), or "".
	Native string `json:"native,omitempty"`
	// Repeats is the index of the earlier call this one counted against
	// (the "most recent earlier call with the same guard key"):
	// for a call the guard acted on, the most recent earlier call with the
	// same guard key (same scope) that ran; for a redundant call it let
	// run, the most recent earlier call with the same tool, arguments and
	// result. 0 (absent) when there is none.
	Repeats int `json:"repeats,omitempty"`
	// RepeatsLine is the line of that call (0, absent, when unknown).
	RepeatsLine int `json:"repeats_line,omitempty"`
}

// ToolStat totals one tool name over a replay.
type ToolStat struct {
	Tool        string `json:"tool"`
	Class       string `json:"class"`
	Calls       int    `json:"calls"`
	Redundant   int    `json:"redundant"`
	Steered     int    `json:"steered"`
	Blocked     int    `json:"blocked"`
	Deduped     int    `json:"deduped"`
	Harmful     int    `json:"harmful"`
	TokensSaved int64  `json:"tokens_saved"`
}

// Timeline marks, one per call.
const (
	MarkAllow     = '.'
	MarkRedundant = 'r' // allowed, but brought nothing new (a miss)
	MarkSteer     = 's'
	MarkBlock     = 'B'
	MarkDedup     = 'D'
	MarkHalt      = 'H'
	MarkHarmful   = '!' // stopped, but it would have hidden new information
	MarkNative    = 'n' // the agent's own guard acted here
	TurnSeparator = '|'
)
