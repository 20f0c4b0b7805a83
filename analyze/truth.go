package analyze

import (
	"hash/maphash"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// This file holds what a transcript tells us regardless of any rules: which
// results are the agent's own guard speaking, what a result is once those
// notes are removed, and whether a call failed.

// nativeMarker is a text that an agent's own loop guard puts into a tool
// result (guards.md §1.1-1.3, §2.1-2.4, §3.11). Stops are calls the agent's
// guard did not run (blocked or answered from a stub); the others ran and
// got a note appended.
type nativeMarker struct {
	name   string
	text   string
	prefix bool // must start the (trimmed) result
	stops  bool
}

var nativeMarkers = []nativeMarker{
	{"nanobot-block", "Error: repeated external lookup blocked.", true, true},
	{"nanobot-block", "Error: repeated identical tool call blocked.", true, true},
	{"nanobot-block", "Error: refusing repeated workspace-bypass attempts.", true, true},
	{"nanobot-dedup", "[File unchanged since last read:", true, true},
	{"hermes-block", `"guardrail": {"action": "block"`, false, true},
	{"hermes-block", `"guardrail":{"action":"block"`, false, true},
	{"hermes-block", "BLOCKED: You have", false, true},
	{"hermes-dedup", `"dedup": true`, false, true},
	{"pi-block", "LoopGuard: ", true, true},
	{"hermes-halt", "[Tool loop hard stop:", false, false},
	{"hermes-warning", "[Tool loop warning:", false, false},
	{"hermes-note", "[hermes note:", false, false},
	{"nanobot-note", "result: this exact output has already been returned in this turn.", false, false},
}

// noteWindow bounds where guard texts are looked for: an agent's guard
// replaces a result with a short text (found at the head) or appends a note
// to it (found at the tail), so a multi-megabyte result is not scanned
// whole, once per marker.
const noteWindow = 4096

// head and tail return the parts of s where guard texts can be.
func head(s string) string {
	if len(s) > noteWindow {
		return s[:noteWindow]
	}
	return s
}

func tail(s string) (string, int) {
	if len(s) > noteWindow {
		return s[len(s)-noteWindow:], len(s) - noteWindow
	}
	return s, 0
}

// NativeIntervention names the agent's own guard intervention visible in a
// result ("" when none) and whether the agent's guard stopped the call.
func NativeIntervention(result string) (name string, stopped bool) {
	if result == "" {
		return "", false
	}
	h := strings.TrimSpace(head(result))
	t, _ := tail(result)
	for _, m := range nativeMarkers {
		if m.prefix {
			if strings.HasPrefix(h, m.text) {
				return m.name, m.stops
			}
			continue
		}
		if strings.Contains(h, m.text) || (len(result) > noteWindow && strings.Contains(t, m.text)) {
			return m.name, m.stops
		}
	}
	return "", false
}

// guardSuffixes are notes agents append to real results; they are removed
// before results are compared, so that a result with a warning appended is
// still "the same result".
var guardSuffixes = []string{
	"\n\n[Tool loop warning:",
	"\n\n[Tool loop hard stop:",
	"\n\n[hermes note:",
	"\n\n[Analyze the error above and try a different approach.]",
	"\n\n[Repeated ",
}

// NormalizeResult removes the agent's own guard notes (appended at the end)
// and trailing white space from a result.
func NormalizeResult(result string) string {
	t, offset := tail(result)
	cut := -1
	for _, s := range guardSuffixes {
		if i := strings.Index(t, s); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		result = result[:offset+cut]
	}
	return strings.TrimRight(result, " \t\r\n")
}

// unwrapEnvelope returns the content of hermes' untrusted-result envelope
// (guards.md §2.4): `<untrusted_tool_result source="...">`, a preamble
// line, a blank line, the tool's own output, and the closing tag. Other
// text is returned as is.
func unwrapEnvelope(s string) string {
	const open, close = "<untrusted_tool_result", "</untrusted_tool_result>"
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, open) {
		return s
	}
	_, body, ok := strings.Cut(t, "\n\n")
	if !ok {
		return s
	}
	return strings.TrimSuffix(strings.TrimSpace(body), close)
}

// hashSeed keys HashString for this process.
var hashSeed = maphash.MakeSeed()

// HashString hashes results and signatures for equality tests within one
// run (maphash: hardware-accelerated, several GB/s). The values differ from
// run to run and are never written to a report, so reports stay
// byte-identical; two different texts share a hash with probability 2^-64.
func HashString(s string) uint64 {
	return maphash.String(hashSeed, s)
}

// Signature is the rules-independent identity of a call used for truth:
// tool name plus arguments with keys sorted at every level (or the raw text
// when the arguments are not JSON).
func Signature(tool string, args jsonx.Value, argsOK bool, raw string) string {
	var b []byte
	b = append(b, tool...)
	b = append(b, 0)
	if argsOK {
		b = args.Append(b, jsonx.Sorted)
	} else {
		b = append(b, raw...)
	}
	return string(b)
}

// Failed classifies a result as a failure: the transcript's own error flag,
// or a result shaped like an error. The shape rules follow hermes'
// _detect_tool_failure loosely (guards.md §2.2) but stay generic: a text
// starting with "Error", a JSON object with a non-empty "error", with
// "success": false, or with a non-zero "exit_code", or a text whose last
// line is "Exit code: N" with N not 0 (nanobot's exec, formats-nanobot.md
// §6: nanobot does not flag it as an error, but the command failed, and a
// retry of it that later works must not be blocked as "nothing new").
func Failed(result string, isError bool) bool {
	if isError {
		return true
	}
	r := strings.TrimSpace(unwrapEnvelope(result))
	if r == "" {
		return false
	}
	if strings.HasPrefix(r, "Error") || strings.HasPrefix(r, "ERROR") || strings.HasPrefix(r, "error:") {
		return true
	}
	if r[0] != '{' {
		return nonZeroExitLine(r)
	}
	// Only three top-level members matter; read them in one pass without
	// building the (possibly large) object.
	f := jsonx.TopLevelFields(r, "error", "success", "exit_code")
	e, success, code := f[0], f[1], f[2]
	switch {
	case len(e) > 0 && (e[0] == '{' || e[0] == '['):
		return true
	case e == "true":
		return true
	case len(e) > 2 && e[0] == '"':
		return true
	case success == "false":
		return true
	case code != "" && code != "0" && code != "null" && code[0] != '"':
		return true
	}
	return false
}

// nonZeroExitLine reports whether the text's last line is "Exit code: N"
// with N a whole number other than 0.
func nonZeroExitLine(r string) bool {
	last := r
	if i := strings.LastIndexByte(r, '\n'); i >= 0 {
		last = r[i+1:]
	}
	code, ok := strings.CutPrefix(strings.TrimSpace(last), "Exit code: ")
	if !ok || code == "" {
		return false
	}
	if code[0] == '-' {
		code = code[1:]
	}
	if code == "" || strings.Trim(code, "0123456789") != "" {
		return false
	}
	return strings.Trim(code, "0") != ""
}
