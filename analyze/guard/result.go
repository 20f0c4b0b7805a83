package guard

import (
	"hash/maphash"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/resultmembers"
)

// How the guard reads a call's result before comparing it with others:
// the agent's own guard notes are removed (a result with a warning
// appended is still "the same result"), and a result shaped like an error
// is a failure. Replay (analyze.Prepare) and the live hook read every
// result this way (ResultFacts), so both feed the guard the same facts.

// ResultFacts returns a result as the guard compares it (the agent's
// own guard notes and trailing white space removed) and whether the call
// failed (the error flag, or an error-shaped result).
func ResultFacts(result string, isError bool) (norm string, failed bool) {
	return normalizeFailed(result, isError, nil)
}

// resultWindow bounds where appended guard notes are looked for: at the
// tail of a result, so that a multi-megabyte result is not scanned whole.
const resultWindow = 4096

// resultTail returns the last resultWindow bytes of s and their offset.
func resultTail(s string) (string, int) {
	if len(s) > resultWindow {
		return s[len(s)-resultWindow:], len(s) - resultWindow
	}
	return s, 0
}

// guardSuffixes are notes agents append to real results; they are removed
// before results are compared, so that a result with a warning appended is
// still "the same result". hermes' out-of-band user message (formats-hermes.md
// §2.3) is not a guard note, but it is appended the same way to a result
// that is otherwise unchanged (guards.md §2.4 strips it before hashing).
var guardSuffixes = []string{
	"\n\n[Tool loop warning:",
	"\n\n[Tool loop hard stop:",
	"\n\n[hermes note:",
	"\n\n[Analyze the error above and try a different approach.]",
	"\n\n[Repeated ",
	"\n\n[OUT-OF-BAND USER MESSAGE",
}

// guardSuffixStart begins every guardSuffixes entry (TestGuardSuffixStart).
const guardSuffixStart = "\n\n["

// cutGuardSuffix cuts the result at the first guardSuffixes entry in its
// tail. Every entry starts with guardSuffixStart, so the first place
// where one starts is the first '[' after "\n\n" that is followed by the
// rest of one: one pass looking for a byte that is rare in most results,
// instead of one substring search of the tail per entry.
func cutGuardSuffix(result string) string {
	t, offset := resultTail(result)
	// Every suffix opens with a blank line and "[": looked for whole, as
	// a "[" alone is common in code and data.
	for i := 0; ; i++ {
		j := strings.Index(t[i:], "\n\n[")
		if j < 0 {
			return result
		}
		i += j
		if hasGuardSuffix(t[i:]) {
			return result[:offset+i]
		}
	}
}

// hasGuardSuffix reports whether s starts with one of guardSuffixes.
func hasGuardSuffix(s string) bool {
	for _, g := range guardSuffixes {
		if strings.HasPrefix(s, g) {
			return true
		}
	}
	return false
}

// normalizeFailed returns the result as the guard compares it (guard
// notes cut from the tail, cutGuardSuffix; hermes' "_warning" member
// removed, stripWarning; trailing white space trimmed) and Failed of that. Both read the top-level members of a JSON object result
// (stripWarning its "_warning", Failed its "error", "success" and
// "exit_code"); here one pass over the top level (jsonx.TopLevelFields)
// serves both. When there is no top-level "_warning", normalizing only
// trims the result's trailing white space, and Failed reads the very
// members read here: TopLevelFields skips the leading white space and
// stops at the object's end, so the trimmed text has the same members.
// With a "_warning", the two run as written.
//
// members, when not nil, are what TopLevelFields gives for result
// (ingest.Call.ResultMembers: a reader wrote result as compact JSON and
// noted them). A compact text holds no white space or line break outside
// its strings, where a guard note would have to begin ("\n\n[", written
// as escapes inside a string), so cutGuardSuffix and the trimming leave
// it as it is, and without a "_warning" the members are all there is to
// read.
func normalizeFailed(result string, isError bool, members *resultmembers.Members) (string, bool) {
	if members != nil && members[resultmembers.Warning] == "" {
		return result, isError || failedMembers(members[resultmembers.Error], members[resultmembers.Success], members[resultmembers.ExitCode])
	}
	r := cutNotes(result)
	if t := trimJSONSpaceLeft(r); t != "" && t[0] == '{' {
		f := jsonx.TopLevelFields(r, resultmembers.Keys[:]...)
		if f[resultmembers.Warning] == "" {
			return trimJSONSpaceRight(r), isError || failedMembers(f[resultmembers.Error], f[resultmembers.Success], f[resultmembers.ExitCode])
		}
	}
	norm := trimJSONSpaceRight(stripWarning(r))
	return norm, Failed(norm, isError)
}

// warningKey is the member hermes' read/search guard adds to the JSON
// result of the 3rd consecutive identical read or search (guards.md §2.1):
// the result is the same dict with "_warning" set last, dumped again.
const warningKey = `"_warning"`

// stripWarning removes a top-level "_warning" member from a JSON object
// result, with its separating comma, keeping the rest of the text byte for
// byte: the same read without the warning is then the same text, whatever
// the JSON's spacing. Anything else is returned unchanged.
func stripWarning(r string) string {
	t := trimJSONSpaceLeft(r)
	if t == "" || t[0] != '{' || !strings.Contains(r, warningKey) {
		return r
	}
	raw := jsonx.TopLevelFields(r, "_warning")[0]
	if raw == "" {
		return r
	}
	// The member is the occurrence of the key followed by its top-level
	// value; a nested "_warning" with the very same value text would also
	// match, so a candidate is kept only if the top-level member is gone
	// after the cut. hermes adds the member last: look from the end.
	for end := len(r); ; {
		i := strings.LastIndex(r[:end], warningKey)
		if i < 0 {
			return r
		}
		end = i
		j := i + len(warningKey)
		j += len(r[j:]) - len(trimJSONSpaceLeft(r[j:]))
		if j >= len(r) || r[j] != ':' {
			continue
		}
		j++
		j += len(r[j:]) - len(trimJSONSpaceLeft(r[j:]))
		if !strings.HasPrefix(r[j:], raw) {
			continue
		}
		j += len(raw)
		// Remove the comma before the member, or else the one after it.
		start := i
		before := trimJSONSpaceRight(r[:i])
		if strings.HasSuffix(before, ",") {
			start = len(before) - 1
		} else {
			after := trimJSONSpaceLeft(r[j:])
			if strings.HasPrefix(after, ",") {
				j = len(r) - len(after) + 1
				j += len(r[j:]) - len(trimJSONSpaceLeft(r[j:]))
			}
		}
		out := r[:start] + r[j:]
		if jsonx.TopLevelFields(out, "_warning")[0] == "" && jsonx.Valid(jsonx.ReadOnlyBytes(out)) {
			return out
		}
	}
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
	return failedMembers(f[0], f[1], f[2])
}

// failedMembers classifies a JSON object result by the raw JSON of its
// top-level "error", "success" and "exit_code" members ("" when absent).
func failedMembers(e, success, code string) bool {
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

// trimJSONSpaceLeft is strings.TrimLeft(s, " \t\r\n"), JSON's white
// space, without building the cut set at every call: Prepare trims every
// result this way, some of them several times.
func trimJSONSpaceLeft(s string) string {
	i := 0
	for i < len(s) && isJSONSpace(s[i]) {
		i++
	}
	return s[i:]
}

// trimJSONSpaceRight is strings.TrimRight(s, " \t\r\n").
func trimJSONSpaceRight(s string) string {
	i := len(s)
	for i > 0 && isJSONSpace(s[i-1]) {
		i--
	}
	return s[:i]
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// nonZeroExitLine reports whether the text's last line is "Exit code: N"
// with N a whole number other than 0. The text is trimmed (Failed), so
// such a line ends the text with a digit: most texts are ruled out by
// their last byte, before their last line is looked for.
func nonZeroExitLine(r string) bool {
	if r == "" || r[len(r)-1] < '0' || r[len(r)-1] > '9' {
		return false
	}
	return lastLineNonZeroExit(r)
}

// lastLineNonZeroExit is nonZeroExitLine without the test of the last
// byte, for any text.
func lastLineNonZeroExit(r string) bool {
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
