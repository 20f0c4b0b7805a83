package guard

import (
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// A failed read is usually not worth remembering: a retry may work (a busy
// file, a denied permission the user grants next time, an environment
// still starting). One failure is different: the path does not exist. That
// is an observation of the file system, as stable as a file's content: it
// changes only when something creates the path, and whatever may create
// it (a write naming it, an act of unknown reach) clears the call under
// scope.write_clears_reads like a write clears a read. dedup's
// answer_missing keeps such failures to answer from, and two more that
// stay until something changes: a call that cannot run as written (a
// regular expression or a command line that does not parse fails the
// same way every time, whatever the files hold), and a reading command
// that found nothing (exit code 1 with no output: grep's and rg's "no
// match", test's "false", cmp's "differ"), which is as much an
// observation of the files as a match is.
//
// hermes-agent reports the two apart on purpose (tools/file_operations.py
// at 000429aaab, _probe_regular_file: a shell that did not run is
// "Terminal environment unavailable ... Retry shortly.", never "File not
// found", so that the model can trust a "not found"); the texts below are
// the ones that say the path is absent, nothing else.

// missingTexts are lower-cased texts that say a path does not exist:
//   - "no such file or directory": strerror(ENOENT), what cat, ls, grep,
//     Node (ENOENT: no such file or directory, open '...') and Python
//     ([Errno 2] No such file or directory) print;
//   - "file not found": nanobot's read_file ("Error: File not found: PATH",
//     nanobot/agent/tools/filesystem.py at 3852956a, HKUDS/nanobot) and
//     hermes' read_file ({"error": "File not found: PATH", ...}:
//     _suggest_similar_files in the hermes-agent file named above);
//   - "directory not found": nanobot's list_dir (the same file);
//   - "file does not exist": Claude Code's Read ("File does not exist.",
//     seen in its transcripts);
//   - "does not exist. please provide a valid path": the str_replace_editor
//     of Anthropic's computer-use demo, which OpenHands' editor follows
//     ("The path PATH does not exist. Please provide a valid path.",
//     computer-use-demo/computer_use_demo/tools/edit.py at a10bd57a,
//     anthropics/anthropic-quickstarts).
var missingTexts = []string{
	"no such file or directory",
	"file not found",
	"directory not found",
	"file does not exist",
	"does not exist. please provide a valid path",
	// Windows' messages for ERROR_FILE_NOT_FOUND and ERROR_PATH_NOT_FOUND,
	// which Rust programs (rg: "... The system cannot find the file
	// specified. (os error 2)") and cmd.exe print.
	"the system cannot find the file specified",
	"the system cannot find the path specified",
}

// malformedTexts are lower-cased texts that say the call cannot run as
// written: it fails again, unchanged, until the call changes, whatever the
// files hold. A program that is not installed is not among them: the user
// may install it between two messages, and nothing in the session shows
// it (a user's message keeps the observations of paths it does not name).
//   - "regex parse error": ripgrep's report of a pattern its regex crate
//     does not parse ("rg: regex parse error:\n    (?:...)\n error:
//     unrecognized escape sequence", seen in Codex rollouts on Windows);
//   - ": parsererror:": PowerShell's CategoryInfo line for a command line
//     it does not parse ("+ CategoryInfo : ParserError: (:) [], ...");
//   - bash's "syntax error near unexpected token" and "unexpected EOF
//     while looking for matching";
//   - GNU grep's reports of a pattern it does not parse ("grep: Unmatched
//     ( or \(", "grep: Invalid regular expression", "grep: Invalid
//     preceding regular expression", "grep: Trailing backslash").
var malformedTexts = []string{
	"regex parse error",
	": parsererror:",
	"syntax error near unexpected token",
	"unexpected eof while looking for matching",
	"grep: unmatched ",
	"grep: invalid regular expression",
	"grep: invalid preceding regular expression",
	"grep: trailing backslash",
}

// missingWindow bounds where the texts are looked for: an error result is
// short, and a long result that mentions a missing file somewhere (a grep
// through logs) says nothing about the path the call names.
const missingWindow = ResultHeadBytes

// ResultHeadBytes is the most of a result's head the detectors read,
// beyond dedup's text (which a caller that holds less reads through
// Guard.SetResultSource) and whether the result is blank: a caller may
// give a result's first ResultHeadBytes or more alone, its length in
// CallEvent.ResultBytes, when the result is not blank and neither is that
// head.
const ResultHeadBytes = 512

// saysMissing reports whether a failed call's result says that a path
// does not exist (missingTexts, in its first missingWindow bytes, any
// case).
func saysMissing(result string) bool {
	return missingIn(head(result))
}

// missingIn is saysMissing of a lower-cased head.
func missingIn(low string) bool {
	return containsAny(low, missingTexts) || powerShellMissing(low)
}

// saysStable reports whether a failed call's result is one that stays
// until something changes what the call reads: the path is missing
// (saysMissing), the call cannot run as written (malformedTexts), or a
// shell command found nothing (foundNothing; only the shell class's exit
// code 1 says that, and only a result known whole can be seen to be
// empty: a caller may give its head alone, or none of it, with its
// length in ResultBytes).
func saysStable(ev *CallEvent, shell bool) bool {
	if h := head(ev.Result); missingIn(h) || containsAny(h, malformedTexts) {
		return true
	}
	return shell && ev.ResultBytes <= len(ev.Result) && foundNothing(ev.Result, ev.ExitCode)
}

// shellClass selects the shell class's tools, whose failure with no
// output is a command's exit code 1.
var shellClass = []string{"class:shell"}

// head is the result's first missingWindow bytes, lower-cased.
func head(result string) string {
	if len(result) > missingWindow {
		result = result[:missingWindow]
	}
	return strings.ToLower(result)
}

func containsAny(low string, texts []string) bool {
	for _, t := range texts {
		if strings.Contains(low, t) {
			return true
		}
	}
	return false
}

// powerShellMissing reports PowerShell's "Cannot find path 'P' because it
// does not exist." (Get-Content, Get-ChildItem and Set-Location on a path
// that is not there), in a lower-cased head.
func powerShellMissing(low string) bool {
	i := strings.Index(low, "cannot find path '")
	return i >= 0 && strings.Contains(low[i:], "' because it does not exist")
}

// foundNothing reports whether a failed shell result says exit code 1 and
// holds no output, in the shapes agents write it:
//   - nothing, or OpenCode's "(no output)", and the exit code 1 learnt
//     apart (CallEvent.ExitCode: Codex hands its hooks the output alone,
//     OpenCode the exit code in the result's metadata);
//   - "Exit code 1" (Claude Code's Bash) or "Exit code: 1" (nanobot's exec,
//     its output then the line); pi's "(no output)\n\nCommand exited with
//     code 1"; Cline CLI's "[Command exited with code 1]" (the agent lab:
//     pi 0.73.1, Cline 3.0.65);
//   - Gemini CLI's and Qwen Code's lines (packages/core/src/tools/shell.ts:
//     "Output: (empty)" and "Exit Code: 1", with the command, directory,
//     "Error: (none)", "Signal: (none)" and the process lines around
//     them, in Gemini CLI 0.61 inside <untrusted_context>);
//   - Codex's text header ("Exit code: 1" or "Process exited with code 1",
//     then "Output:" and nothing after it);
//   - a JSON object with an empty "output" and "exit_code" 1, at its top
//     level (hermes' terminal) or in "metadata" (Codex's structured shell
//     output), and no "error" but null or "".
//
// Only exit code 1 says "nothing found": grep, rg, test, cmp and diff
// report an error with 2, and a timeout or a signal has codes and texts
// of its own.
func foundNothing(result string, exitCode int) bool {
	r := strings.TrimSpace(unwrapEnvelope(result))
	switch {
	case r == "", r == "(no output)":
		// A failure that says nothing (or OpenCode's "(no output)") says
		// not which by itself: a timeout (exit code 124) prints nothing
		// either.
		return exitCode == 1
	case r == "Exit code 1", r == "Exit code: 1", r == "(no output)\n\nCommand exited with code 1", r == "[Command exited with code 1]":
		return true
	case r[0] == '{':
		f := jsonx.TopLevelFields(r, "output", "exit_code", "metadata", "error")
		if f[0] != `""` || f[3] != "" && f[3] != "null" && f[3] != `""` {
			// Output, or an error beside the exit code (a sandbox's, a
			// timeout's): more than "nothing found".
			return false
		}
		if f[1] == "1" {
			return true
		}
		return f[2] != "" && jsonx.TopLevelFields(f[2], "exit_code")[0] == "1"
	}
	if geminiFoundNothing(r) {
		return true
	}
	header, out, ok := strings.Cut(r, "\nOutput:")
	if !ok || strings.TrimSpace(out) != "" {
		return false
	}
	for line := range strings.SplitSeq(header, "\n") {
		if line == "Exit code: 1" || line == "Process exited with code 1" {
			return true
		}
	}
	return false
}

// geminiFoundNothing reads Gemini CLI's and Qwen Code's shell result
// (foundNothing): every line one the tool writes, the output "(empty)",
// no error, and the exit code 1.
func geminiFoundNothing(r string) bool {
	r = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(r, "<untrusted_context>"), "</untrusted_context>"))
	empty, one := false, false
	for line := range strings.SplitSeq(r, "\n") {
		switch {
		case line == "Output: (empty)":
			empty = true
		case line == "Exit Code: 1":
			one = true
		case line == "Error: (none)", line == "Signal: (none)",
			strings.HasPrefix(line, "Command: "), strings.HasPrefix(line, "Directory: "),
			strings.HasPrefix(line, "Background PIDs: "), strings.HasPrefix(line, "Process Group PGID: "):
		default:
			return false
		}
	}
	return empty && one
}
