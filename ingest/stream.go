// Package ingest turns agent transcripts on disk into loopgate's normalized
// stream: sessions made of turns, turns made of model requests, requests made
// of tool calls. It is what every command that reads transcripts calls
// (analyze's replay, the CLI's inspect and formats), and it knows nothing of
// guard rules: tool names are kept exactly as written, and their classes are
// looked up later by package rules. Of loopgate's packages it imports
// internal/jsonx and internal/lazyre only; beyond the standard library, the
// SQLite driver.
//
// Reading a file is three steps: open.go opens it (gzip, the record limit,
// databases by path), detect.go sniffs its format from its first record,
// read.go dispatches it to that format's reader. walk.go finds the files;
// lines.go reads lines of any length.
//
// Each format has one reader (its family's files: hermes*.go, nanobot*.go,
// openai*.go, claudecode.go, codex.go, ...). The busy readers decode a record
// in one pass where it lies (jsonx.DecodeObjectNested); what that decoder
// declines (a repeated, escaped or case-folded key, a member of another type)
// is decoded generically into the same record, whose error words the problem.
// A new format is a file that registers a Format in its init function. The
// helpers several readers share are in shared.go, content.go (content
// flattening), usage.go and sessionbuilder.go (calls joined to results).
// resultcut.go lets a caller hold a long result as its head alone
// (Options.CutResult) and read the whole again from its file (ResultFile).
//
// Ingesters never hold more than one session in memory (a whole-file JSON
// format holds that file), and never drop a line silently: every line is
// either part of a session or reported as a Problem with its file and line.
package ingest

import (
	"bytes"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/resultmembers"
)

// Session is one conversation of one agent scope, as recorded in one file.
type Session struct {
	// File is the path the session was read from ("-" for standard input).
	File string
	// Format is the format id, e.g. "hermes-export" or "nanobot".
	Format string
	// ID is the session id the transcript gives, or one derived from the
	// file name when it gives none.
	ID string
	// Agent is "main", or the id of a subagent scope.
	Agent string
	// Parent is the parent session or agent id of a subagent, else "".
	Parent string
	// Model is the model name, when the transcript records it.
	Model string
	// Platform is where the session ran, when the transcript says (hermes:
	// cli, telegram, cron, ...; its export's "source"). A guard may act
	// differently when no one watches the session (rules.Unattended).
	Platform string
	// Line is the line where the session starts (1-based, 0 when unknown).
	Line int
	// Time is when the session was recorded, for a session none of whose
	// turns, requests or calls has a time of its own: a Claude Code session
	// of local commands only (/exit), a rollout whose one time is its meta
	// line's. Span falls back on it; a reader sets it from the earliest
	// time its lines record. (Left out of a dump when zero: the edge
	// goldens dump sessions whole.)
	Time time.Time `json:",omitzero"`
	// Turns in order. A session may have calls before its first genuine user
	// message (a trimmed file, a subagent prompt): they go in a turn too.
	Turns []Turn
	// Notes are facts about the session worth showing in inspect (format
	// version, what the format cannot record), not problems.
	Notes []string
	// TextKept says the reader recorded each response's visible text in
	// Request.Text (Options.KeepText, and the format's reader records it:
	// Format.Text). False: the responses' Text is empty whatever the model
	// wrote, and a detector that reads it cannot run on the session.
	TextKept bool `json:",omitempty"`
	// Others are calls that other agents of the same session made while
	// this one ran (subagents working beside it, the agent that started
	// it), read from their own scopes and files (docs/formats: each
	// format's page says where), in the order they ended (or began, for
	// one whose end is not known). A replay lets what they changed clear
	// this agent's observations: a listing repeated after a sibling wrote
	// into the directory returned something new. Only the calls that may
	// matter are kept: those that ended after this session's first call
	// and began before its last. (Left out of a dump when empty.)
	Others []OtherCall `json:",omitempty"`
}

// OtherCall is a call of another agent of the session (Session.Others).
type OtherCall struct {
	Agent   string
	Tool    string
	ArgsRaw string
	// Start is when the call was made; End when its result came, zero
	// when the transcript has none.
	Start, End time.Time
}

// At is when the call's effect is complete as far as the transcript says:
// its end, or its start when its end is not known.
func (o *OtherCall) At() time.Time {
	if o.End.IsZero() {
		return o.Start
	}
	return o.End
}

// Turn begins at a genuine user message (each format's rule is documented in
// docs/formats.md) and holds the model requests made to answer it.
type Turn struct {
	// Index is the 1-based index of the turn within its session.
	Index int
	// Line is the line of the user message that opened the turn (0 if none).
	Line int
	// Time of the user message, if known.
	Time time.Time
	// UserChars is the size of the user message text in bytes.
	UserChars int
	// UserText is what the user wrote (and the paths of the files they
	// attached), without what the agent put around it (editor state, the
	// text of mentioned files, reminders): each format's page in
	// docs/formats says what is kept. "" when the format records no text
	// (OpenTelemetry GenAI spans, loopgate's decision log) or the message
	// is not the user's (a compaction summary). A guard under
	// scope.reset: mentioned clears the observations of the paths it
	// names (docs/rules.md); "" clears them all.
	UserText string `json:"-"`
	// Continued is true when the turn opens at a summary of the
	// conversation before a compaction that the format records as a user
	// message (CompactedBefore is then true too): the agent's text, not
	// the user's, so a guard hears of the compaction and of no message.
	Continued bool `json:"-"`
	Requests  []Request
	// CompactedBefore is true when a context compaction happened just
	// before this turn (the model's context was rebuilt).
	CompactedBefore bool
	// Notices are the messages the agent's harness wrote as the user's
	// inside the turn, that nobody typed and that open no turn, in order.
	Notices []Notice `json:"-"`
}

// Notice is a message an agent's harness puts in the conversation as the
// user's that is not a user's message: Claude Code's <task-notification>
// (a background command or agent ended) and a command the user ran in its
// bash mode with its output. It opens no turn, but it says the world
// changed (a background job ran and wrote its output file; a command ran),
// so a guard hears it as it hears a user's message (scope.reset:
// mentioned clears the observations of the paths its text names).
type Notice struct {
	// Request is the index in the turn's Requests of the first request
	// after the notice (len(Requests) when none came after it).
	Request int
	// Line of the notice (0 if unknown).
	Line int
	Time time.Time
	Text string
	// Compaction says the notice is no message: the agent's context was
	// compacted here, inside the turn (Claude Code compacts automatically
	// when the context fills, mid-task); what the model read before it
	// is a summary now. A guard hears a compaction (guard.Compaction),
	// and Text is "".
	Compaction bool
}

// Request is one model response.
type Request struct {
	// Line of the response (0 if unknown).
	Line int
	Time time.Time
	// TextChars is the size of the response's text (content plus
	// reasoning), in bytes.
	TextChars int
	// Text is the response's visible text (not its reasoning), kept only
	// when the reader was asked to (Options.KeepText) and its format
	// records it (Format.Text; Session.TextKept says so): replay feeds it
	// to the guards that read the model's text, and otherwise it would
	// only hold memory.
	Text string `json:",omitempty"`
	// Usage is the token usage the transcript records for this response,
	// or nil.
	Usage *Usage
	// Calls issued by this response, in order.
	Calls []Call
}

// Usage is token usage as recorded by the transcript, normalized so that
// Input includes cached tokens (Anthropic's input + cache_creation +
// cache_read).
type Usage struct {
	Input      int64
	Output     int64
	CacheRead  int64
	CacheWrite int64
}

// Call is one tool call and its result.
type Call struct {
	// ID is the call id (tool_call_id, call_id, ...), or "" when the format
	// has none.
	ID string
	// Tool is the tool name as written.
	Tool string
	// ArgsRaw is the arguments as the model wrote them: the JSON text of an
	// arguments string, or the compact JSON of an arguments object.
	ArgsRaw string
	// Args is ArgsRaw parsed with key order kept, or nil when it is not
	// parsed (ArgsPending) or not valid JSON (ArgsOK false: then guards key
	// on the raw text). It is a pointer because a Call is copied and
	// scanned in every replay: a parsed value held in place made every
	// call longer, and the memory a call takes showed in a replay's
	// time (docs/performance.md, "A call's size"). Read it
	// through ArgsValue.
	Args   *jsonx.Value
	ArgsOK bool
	// ArgsCompact says ArgsRaw is Args as Value.String writes it (compact,
	// strings escaped as jsonx.AppendQuoted escapes them): SetArgsValue,
	// and readers that write the arguments with jsonx.CompactString, set
	// it. The replay then takes a call's key from ArgsRaw when its objects
	// are in key order, instead of writing Args out again. False says
	// nothing.
	ArgsCompact bool `json:"-"`
	// ArgsPending says Args is not parsed: ArgsRaw is valid JSON written
	// compact (ArgsOK and ArgsCompact hold), and ArgsValue parses it. The
	// Claude Code reader leaves its calls' arguments so: a replay keys
	// calls on their text and parses few of them (guard.CallEvent.
	// ArgsPending), and parsing every call's was a tenth of its time.
	ArgsPending bool `json:"-"`
	// Result is the result text as the model saw it, or only its head
	// when Cut is not nil (Options.CutResult).
	Result string
	// Cut, when not nil, says Result holds the head of the result only,
	// and what stays of the whole (Call.CutResult; ResultFile reads it
	// again).
	Cut *ResultCut `json:"-"`
	// HasResult is false for a call whose result is missing.
	HasResult bool
	// IsError is true when the transcript marks the result as an error.
	IsError bool
	// ExitCode is a shell command's exit code where the agent's hook gets
	// it apart from the result's text (Codex's hook the output alone, the
	// code read from the rollout; OpenCode's metadata.exit; OpenHands'
	// exit_code); 0 when the transcript says none (or it was 0).
	ExitCode int32 `json:",omitempty"`
	// ResultMembers, when not nil, are the raw texts of Result's top-level
	// resultmembers.Keys members ("" for one that is absent), exactly as
	// jsonx.TopLevelFields(Result, resultmembers.Keys[:]...) gives them. A
	// reader sets it when it wrote Result itself as the compact text of a
	// JSON object and noted the members on the way (hermes' ShareGPT
	// responses): the replay then reads them without walking the result
	// again. nil says nothing about Result. It is read from Result, so
	// serialized calls leave it out.
	ResultMembers *resultmembers.Members `json:"-"`
	// Time of the call (or of its result), if known.
	Time time.Time
	// Line is the JSONL line of the call (0 for a multi-line JSON
	// document, whose problems name the element lines instead).
	Line int
	// ResultLine is the JSONL line of the result (0 if unknown).
	ResultLine int
}

// ArgsValue returns the parsed arguments: Args, or ArgsRaw parsed when
// they are pending (ArgsPending). It does not keep what it parsed: a Call
// may be read by several goroutines at once.
func (c *Call) ArgsValue() jsonx.Value {
	if c.Args != nil {
		return *c.Args
	}
	if c.ArgsPending {
		v, _ := jsonx.ParseStringShared(c.ArgsRaw) // valid: ArgsPending's promise
		return v
	}
	return jsonx.Value{}
}

// SetArgs fills ArgsRaw, Args and ArgsOK from the raw argument text.
func (c *Call) SetArgs(raw string) {
	c.ArgsRaw, c.ArgsCompact, c.ArgsPending = raw, false, false
	// The parsed strings may share raw's memory: the call keeps raw as
	// long as its parsed arguments.
	c.Args, c.ArgsOK = nil, false
	if v, err := jsonx.ParseStringShared(raw); err == nil {
		c.Args, c.ArgsOK = &v, true
	}
}

// SetArgsField fills the arguments from an "arguments" member as it stands
// in a JSON record: a JSON string holding the argument text (the OpenAI wire
// form), an object that a harness or proxy already parsed, or null/missing
// (empty arguments). Anything else is kept as its raw text.
func (c *Call) SetArgsField(raw jsonx.RawMessage) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		c.SetArgs("")
		return
	case raw[0] == '"':
		var s string
		if jsonx.Unmarshal(raw, &s) == nil {
			c.SetArgs(s)
			return
		}
	default:
		if v, err := jsonx.Parse(raw); err == nil {
			c.SetArgsValue(v)
			return
		}
	}
	c.SetArgs(string(raw))
}

// SetArgsValue fills the arguments from an already parsed value.
func (c *Call) SetArgsValue(v jsonx.Value) {
	c.Args, c.ArgsOK = &v, true
	c.ArgsRaw, c.ArgsCompact, c.ArgsPending = v.String(), true, false
}

// Problem is something wrong in the input: a line that is not JSON, a
// result with no call, a file of no known format. The run goes on.
//
// Line is 1-based: the JSONL line of the record at fault, or, in a
// whole-file JSON document, the line where the element at fault starts
// (docpos.go). It is 0 only for problems that have no line to name: a file
// that cannot be opened or read, an empty file, a format that cannot read
// the file at all.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// NumCalls counts the calls of the session.
func (s *Session) NumCalls() int {
	n := 0
	for _, t := range s.Turns {
		for _, r := range t.Requests {
			n += len(r.Calls)
		}
	}
	return n
}

// NumRequests counts the model requests of the session.
func (s *Session) NumRequests() int {
	n := 0
	for _, t := range s.Turns {
		n += len(t.Requests)
	}
	return n
}

// addText appends a piece of a response's visible text to Text, a line
// apart from what it holds. The piece is copied: a reader's strings may be
// views of a line buffer that the next line overwrites.
func (r *Request) addText(s string) {
	switch {
	case s == "":
	case r.Text == "":
		r.Text = strings.Clone(s)
	default:
		r.Text += "\n" + s
	}
}

// addDelta appends a delta of a streamed text to Text as it came, copied
// as addText copies.
func (r *Request) addDelta(s string) {
	if r.Text == "" {
		r.Text = strings.Clone(s)
		return
	}
	r.Text += s
}
