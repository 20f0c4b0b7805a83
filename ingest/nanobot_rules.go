package ingest

// nanobot_rules.go holds the pure decisions of the nanobot ingester: where a
// turn begins, how a session id is derived from a file, which format version
// a file's features point to, and how text is measured. They are kept apart
// from the record loop (nanobot.go) so that each can be tested by a table.
// docs/formats/nanobot.md says which versions there are, where turns start
// and how the files are read.

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/loopgate/loopgate/internal/lazyre"
)

// Texts nanobot writes itself; the transcripts are matched against them.
const (
	// nbRuntimeContextF3 starts the runtime-context block that v0.1.4.post2
	// (F3) left at the end of every persisted user message.
	nbRuntimeContextF3 = "\n\n[Runtime Context]\nCurrent Time:"
	// nbRuntimeContextTagged starts the later, tagged form of that block.
	nbRuntimeContextTagged = "\n\n[Runtime Context — metadata only, not instructions]"
	// nbSubagentPrefix opens a subagent result delivered as a user record
	// (F1–F3); it is a separate run (reference §5).
	nbSubagentPrefix = "[System: subagent]"
	// nbErrorHint is appended by nanobot to every result it treats as an
	// error (v0.1.4.post2+), including guard-blocked calls.
	nbErrorHint = "\n\n[Analyze the error above and try a different approach.]"
	// nbTruncatedSuffix ends a tool result that nanobot cut before saving.
	nbTruncatedSuffix = "\n... (truncated)"
	// nbOffloadPrefix opens the stub of a result offloaded to a file (v0.1.5+).
	nbOffloadPrefix = "[tool output persisted]"
	// nbDedupPrefix is read_file's unchanged-file stub (v0.1.5.post1+).
	nbDedupPrefix = "[File unchanged since last read:"
	// nbInterruptedTool is the result nanobot writes for a call that was
	// pending when the process stopped (added on the next load).
	nbInterruptedTool = "Error: Task interrupted before this tool finished."
)

// nbContinuationPrefixes are synthetic user prompts that continue the
// current run instead of starting one (reference §5, items 2 and 3).
var nbContinuationPrefixes = []struct {
	prefix string
	kind   nbUserKind
}{
	{"Output limit reached. Continue exactly where you left off", nbLengthRecovery},
	{"The previous assistant response was cut off. Continue the same response", nbLengthRecovery},
	{"You have an active sustained goal", nbGoalContinue},
}

// nbGuardBlocks are the result prefixes of calls nanobot's own guards
// already blocked (guards.md §1.1–§1.3), with the guard's name.
var nbGuardBlocks = []struct{ prefix, guard string }{
	{"Error: repeated external lookup blocked.", "external-lookup guard"},
	{"Error: refusing repeated workspace-bypass attempts.", "workspace-violation guard"},
	{"Error: repeated identical tool call blocked.", "repeated-call guard of PR #3701"},
}

// nbUserKind is what a user record means for turn boundaries.
type nbUserKind int

const (
	// nbTurnStart: a genuine inbound message; a new turn (a new run).
	nbTurnStart nbUserKind = iota
	// nbInjection: a follow-up the user sent while tools ran, drained into
	// the same run right after a tool record (v0.1.5.post1+).
	nbInjection
	// nbLengthRecovery: the synthetic "continue" prompt after a response cut
	// at the output limit.
	nbLengthRecovery
	// nbGoalContinue: the sustained-goal continuation prompt.
	nbGoalContinue
	// nbInjectedEvent: a subagent result injected into the run
	// (_hidden_history / injected_event).
	nbInjectedEvent
	// nbCommand: a slash command (_command); not part of any run.
	nbCommand
)

// nbUserFacts are the facts of one user record that decide its kind.
type nbUserFacts struct {
	Text       string // content text as written (runtime context included)
	Command    bool   // _command: true
	Injected   bool   // _hidden_history or injected_event
	Automation bool   // _automation_turn, the legacy cron flag, cron_job_id
}

// nbPrevious is what came just before a user record (slash-command records
// are transparent: they are handled outside any run).
type nbPrevious struct {
	// Role of the previous message record: "", "user", "assistant", "tool".
	Role string
	// Continued is true when the previous record was a user record that
	// continued its turn (injections arrive up to 3 at a time).
	Continued bool
	// ToolInterrupted is true when the previous tool record is nanobot's
	// "interrupted" result, written on reload after a crash: the run it
	// belongs to is over, so what follows is a new inbound message.
	ToolInterrupted bool
}

// nbClassifyUser decides whether a user record starts a turn. The order of
// the rules matters and follows reference §5/§13:
//   - _command records are skipped (slash commands run outside any run);
//   - "[System: subagent] …" records are separate runs (F1–F3);
//   - _hidden_history / injected_event records continue the run;
//   - automation triggers (cron, local trigger) are separate inbound messages;
//   - length-recovery and goal-continuation prompts continue the run;
//   - F3 records (runtime-context suffix) always start a turn: v0.1.4.post2
//     saved no final answers, so its turns end at a tool record, and mid-run
//     injections did not exist before v0.1.5.post1;
//   - a user record right after a tool record (or after such an injected
//     record) is a mid-run injection;
//   - anything else starts a turn.
func nbClassifyUser(u nbUserFacts, prev nbPrevious) nbUserKind {
	switch {
	case u.Command:
		return nbCommand
	case strings.HasPrefix(u.Text, nbSubagentPrefix):
		return nbTurnStart
	case u.Injected:
		return nbInjectedEvent
	case u.Automation:
		return nbTurnStart
	}
	for _, c := range nbContinuationPrefixes {
		if strings.HasPrefix(u.Text, c.prefix) {
			return c.kind
		}
	}
	if strings.Contains(u.Text, nbRuntimeContextF3) {
		return nbTurnStart
	}
	if prev.Role == "tool" && !prev.ToolInterrupted {
		return nbInjection
	}
	if prev.Role == "user" && prev.Continued {
		return nbInjection
	}
	return nbTurnStart
}

// nbStripRuntimeContext removes runtime context that nanobot appended to a
// user message, so that UserChars measures what the user wrote. marker is
// the record's _runtime_context (v0.3.0+), whose "suffix" names the exact
// appended text; without it the F3 block (and its later tagged form) is cut
// at its start. It reports whether the F3 block was found.
func nbStripRuntimeContext(text string, markerSuffix string) (string, bool) {
	if markerSuffix != "" {
		if text == markerSuffix {
			return "", false
		}
		if strings.HasSuffix(text, "\n\n"+markerSuffix) {
			return text[:len(text)-len(markerSuffix)-2], false
		}
	}
	if i := strings.LastIndex(text, nbRuntimeContextF3); i >= 0 {
		return text[:i], true
	}
	if i := strings.LastIndex(text, nbRuntimeContextTagged); i >= 0 {
		return text[:i], false
	}
	return text, false
}

// nbIsErrorResult reads nanobot's error convention: a result is an error
// when it starts with "Error" (the test nanobot itself applies before it
// appends its retry hint) or when it ends with that hint (newer structured
// errors get the hint without the prefix). Guard-blocked calls match too.
func nbIsErrorResult(text string) bool {
	return strings.HasPrefix(text, "Error") || strings.HasSuffix(strings.TrimRight(text, " \n"), strings.TrimPrefix(nbErrorHint, "\n\n"))
}

// nbSessionID derives the session id. The metadata key (v0.1.4.post1+) is
// exact; without it a base64url file name (v0.3.0+) is decoded; otherwise
// the safe_key file name is used as it is (lossy: ':' became '_'). how says
// which source was used, for a note.
func nbSessionID(key, fileName string) (id, how string) {
	if key != "" {
		return key, "key"
	}
	stem := nbStem(fileName)
	if dec, ok := nbDecodeBase64Name(stem); ok {
		return dec, "base64"
	}
	return stem, "safe_key"
}

// nbStem is the file name without its .jsonl/.json ending.
func nbStem(name string) string {
	name = filepath.Base(name)
	for _, ext := range []string{".jsonl", ".json"} {
		if strings.HasSuffix(name, ext) {
			return strings.TrimSuffix(name, ext)
		}
	}
	return name
}

// nbPlainKey is what a session key without a channel looks like
// ("heartbeat"); other keys are "channel:chat_id".
var nbPlainKey = lazyre.New(`^[a-z][a-z0-9_.-]*$`)

// nbDecodeBase64Name decodes a v0.3.0+ file stem (base64url of the key, no
// padding). Like nanobot it accepts a name only when re-encoding gives the
// same stem; to keep a legacy safe_key name such as "cli_direct" (which is
// also valid base64url) from decoding into noise, the result must be
// printable text that looks like a session key.
func nbDecodeBase64Name(stem string) (string, bool) {
	if stem == "" {
		return "", false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(stem)
	if err != nil || base64.RawURLEncoding.EncodeToString(b) != stem || !utf8.Valid(b) {
		return "", false
	}
	s := string(b)
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return "", false
		}
	}
	if strings.Contains(s, ":") || nbPlainKey.Get().MatchString(s) {
		return s, true
	}
	return "", false
}

// nbIsWorkspaceIDDir reports whether a directory name is a workspace id (32
// lowercase hex characters): the F6 layout <config-dir>/sessions/<id>/.
func nbIsWorkspaceIDDir(dir string) bool {
	if len(dir) != 32 {
		return false
	}
	for _, r := range dir {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// nbFeatures are the facts of a file that point to its format version
// (reference §4.7: the files carry no version field).
type nbFeatures struct {
	HasKey, HasLastConsolidated bool
	ToolsUsed                   bool // a tools_used key on some assistant record
	ToolCalls                   bool // some tool_calls or tool record
	RuntimeSuffix               bool // the F3 "[Runtime Context]" suffix in user text
	RuntimeMarker               bool // a _runtime_context marker (v0.3.0+)
	Latency                     bool // latency_ms (v0.2.0+)
	Command                     bool // _command records (v0.2.0+)
	Cut500                      bool // a result cut at exactly 500 characters (v0.1.4.post2–post4)
	Base64Name                  bool // the file stem is base64url of a key (v0.3.0+)
	WorkspaceDir                bool // parent directory is a 32-hex workspace id (F6)
	ProviderState               bool // a provider_state record (F6)
	LastUsage                   bool // metadata._last_usage (F6)
}

// nbVersion names the format version the features point to, with the
// evidence, e.g. "nanobot F4 (full tool history, v0.2.0–v0.2.2); from: ...".
func nbVersion(f nbFeatures) string {
	var ev []string
	add := func(ok bool, what string) {
		if ok {
			ev = append(ev, what)
		}
	}
	var label string
	switch {
	case f.WorkspaceDir || f.ProviderState || f.LastUsage:
		label = "nanobot F6 (sessions outside the workspace, main after v0.3.0)"
		add(f.WorkspaceDir, "workspace-id folder")
		add(f.ProviderState, "provider_state record")
		add(f.LastUsage, "_last_usage")
		add(f.Base64Name, "base64url file name")
	case f.Base64Name || f.RuntimeMarker:
		label = "nanobot F5 (base64url file names, v0.3.0)"
		add(f.Base64Name, "base64url file name")
		add(f.RuntimeMarker, "_runtime_context marker")
	case f.RuntimeSuffix:
		label = "nanobot F3 (first full tool history, v0.1.4.post2)"
		ev = append(ev, "[Runtime Context] suffix in user text")
	case f.ToolsUsed:
		label = "nanobot F2 (tool names only, v0.1.3.post7–v0.1.4.post1)"
		ev = append(ev, "tools_used")
		add(f.HasKey, "metadata key (v0.1.4.post1)")
	case !f.HasKey && !f.HasLastConsolidated && !f.ToolCalls:
		label = "nanobot F1 (text only, v0.1.3.post4–post6)"
		ev = append(ev, "metadata without key or last_consolidated", "no tools_used")
	case !f.HasKey && !f.ToolCalls:
		label = "nanobot F2 (tool names only, v0.1.4)"
		ev = append(ev, "metadata with last_consolidated but no key")
	case !f.ToolCalls && !f.Latency && !f.Command:
		// A text-only file with a key: nothing tells F4 from F5/F6 when
		// the name is not base64url (a legacy name kept by a later version).
		label = "nanobot F4 or later (v0.1.4.post3+; no tool calls to tell the version by)"
		ev = append(ev, "metadata key", "no tools_used")
	default:
		switch {
		case f.Latency || f.Command:
			label = "nanobot F4 (full tool history, v0.2.0–v0.2.2)"
		case f.Cut500:
			label = "nanobot F4 (full tool history, v0.1.4.post3–post4)"
		default:
			label = "nanobot F4 (full tool history, v0.1.4.post3–v0.2.2)"
		}
		add(f.ToolCalls, "tool_calls records")
		add(f.Latency, "latency_ms (v0.2.0+)")
		add(f.Command, "_command records (v0.2.0+)")
		add(f.Cut500, "results cut at 500 characters (v0.1.4.post2–post4)")
	}
	if len(ev) == 0 {
		return "format: " + label
	}
	return fmt.Sprintf("format: %s; from: %s", label, strings.Join(ev, ", "))
}

// nbLines renders line numbers for a note ("lines 5, 9").
func nbLines(lines []int) string {
	parts := make([]string, len(lines))
	for i, n := range lines {
		parts[i] = fmt.Sprint(n)
	}
	if len(lines) == 1 {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ", ")
}

// isoTimeLayouts are the layouts nanobot and hermes timestamps are read
// with, in order: with a zone, then naive local time ("T" or " ").
var isoTimeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"}

// nbTimeLayouts returns the isoTimeLayouts worth trying for s: all of them,
// or all but RFC3339Nano when s cannot match it because it has no zone (no
// 'Z', '+' or '-' after the date, which is its first 10 bytes). Both tools
// write naive local times, and each failed time.Parse allocates its error:
// skipping the one that must fail gives the same time for less.
func nbTimeLayouts(s string) []string {
	if len(s) > 10 && !strings.ContainsAny(s[10:], "Zz+-") {
		return isoTimeLayouts[1:]
	}
	return isoTimeLayouts
}

// nbNaiveTime reads the timestamps nanobot writes, datetime.isoformat() of
// a naive local time ("2006-01-02T15:04:05", then ".ffffff" unless the
// microseconds are zero; " " for "T" is taken too), without time.Parse,
// which walks its layout for every value and was the largest cost of a
// record after its decoding. ok is false for anything else, even what
// time.Parse accepts (a one-digit hour, a comma before the fraction): the
// caller then parses s as before. The time is the one the nbTimeLayouts of
// s give, in UTC like time.Parse's naive times (TestNanobotNaiveTime).
func nbNaiveTime(s string) (time.Time, bool) {
	if len(s) < 19 || len(s) > 29 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	ok := true
	num := func(from, to int) int {
		n := 0
		for i := from; i < to; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				ok = false
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(0, 4), num(5, 7), num(8, 10)
	hour, minute, sec := num(11, 13), num(14, 16), num(17, 19)
	nsec := 0
	if len(s) > 19 {
		// A fraction of one to nine digits, scaled to nanoseconds.
		if s[19] != '.' || len(s) == 20 {
			return time.Time{}, false
		}
		nsec = num(20, len(s))
		for range 29 - len(s) {
			nsec *= 10
		}
	}
	if !ok || month < 1 || month > 12 || day < 1 || day > nbDaysIn(time.Month(month), year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

// nbDaysIn is the number of days in month of year, the bound time.Parse
// holds a day to.
func nbDaysIn(month time.Month, year int) int {
	if month == time.February && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		return 29
	}
	return [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
}
