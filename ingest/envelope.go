package ingest

// A result's envelope: what the agent wrote around the tool's output that
// changes from one run of the same call to the next (a wall time, a
// duration, an id of the run), so that two runs with the same output
// differ. Each format says which parts of its results are envelope
// (Format.Envelope; the rule of each format is in its docs/formats page);
// the truth model and loopgate's own detectors compare the output, the
// presets that follow an upstream guard compare what that guard compares
// (rules: results.envelope).

import (
	"iter"
	"strconv"
	"strings"
)

// SplitEnvelope returns the tool's output in a result of the given format
// and the envelope taken out of it ("" and result itself when the format
// declares no envelope, or the result has none).
func SplitEnvelope(format, result string) (output, envelope string) {
	if f := LookupFormat(format); f != nil && f.Envelope != nil {
		if out, env := f.Envelope(result); env != "" {
			return out, env
		}
	}
	return result, ""
}

// HookResultOf is the format's HookResult, nil when its hooks get the
// recorded result.
func HookResultOf(format string) func(string) string {
	if f := LookupFormat(format); f != nil {
		return f.HookResult
	}
	return nil
}

// codexExitCode is the exit code in a shell result's header or in the
// metadata of its structured output; 0 when it says none.
func codexExitCode(result string) int {
	if _, exit, hasExit, ok := CodexShellOutput(result); ok && hasExit {
		return exit
	}
	if exit, ok := codexStructuredExit(result); ok {
		return exit
	}
	return 0
}

// codexHookResult is what Codex hands its PostToolUse hook of a shell
// command: the output after the header (CodexShellOutput).
func codexHookResult(result string) string {
	out, _, _, _ := CodexShellOutput(result)
	return out
}

// EnvelopeOf is the envelope rule of a format, nil when its results are
// the tool's output whole.
func EnvelopeOf(format string) func(string) (output, envelope string) {
	if f := LookupFormat(format); f != nil {
		return f.Envelope
	}
	return nil
}

// codexEnvelope is the envelope of Codex's shell results, in rollouts and
// in sessions converted to other formats:
//   - the freeform exec output (codex-rs/core/src/tools/mod.rs,
//     format_exec_output_for_model_freeform, openai/codex at 019402a8):
//     "Exit code: N\nWall time: S seconds\n[Total output lines: N\n]
//     Output:\n<output>": the wall time is envelope;
//   - unified exec, exec_command and write_stdin
//     (codex-rs/core/src/tools/handlers/unified_exec.rs, format_response,
//     at 010d3e62): "Chunk ID: X\nWall time: S seconds\n[Process exited
//     with code N\n][Process running with session ID N\n][Original token
//     count: N\n]Output:\n<output>": the chunk id, the wall time and the
//     number of the running process are envelope (newer builds write a
//     "Command: <command>" line first, as the real rollouts of 2026 show:
//     the tool's, like the exit code);
//   - the structured exec output (format_exec_output_for_model_structured):
//     {"output": ..., "metadata": {"exit_code": N, "duration_seconds": S}}:
//     the duration is envelope.
//
// The exit code, the line counts and the output are the tool's.
func codexEnvelope(result string) (output, envelope string) {
	if strings.HasPrefix(result, `{"output":`) {
		return codexDurationMember(result)
	}
	if !strings.HasPrefix(result, "Exit code: ") && !strings.HasPrefix(result, "Chunk ID: ") && !strings.HasPrefix(result, "Wall time: ") &&
		!strings.HasPrefix(result, "Command: ") {
		return result, ""
	}
	// The header ends at the line "Output:".
	end := strings.Index(result, "\nOutput:\n")
	if end < 0 {
		if !strings.HasSuffix(result, "\nOutput:") {
			return result, ""
		}
		end = len(result) - len("\nOutput:")
	}
	header := result[:end]
	var kept, taken []string
	command, header := codexCommandLine(header)
	if command != "" {
		kept = append(kept, command)
	}
	for line := range codexHeaderSeq(header) {
		switch {
		case strings.HasPrefix(line, "Wall time: "), strings.HasPrefix(line, "Chunk ID: "):
			taken = append(taken, line)
		case strings.HasPrefix(line, codexRunningPrefix):
			kept = append(kept, strings.TrimSpace(codexRunningPrefix))
			taken = append(taken, line)
		case strings.HasPrefix(line, "Exit code: "), strings.HasPrefix(line, "Process exited with code "), strings.HasPrefix(line, "Command: "),
			strings.HasPrefix(line, "Original token count: "), strings.HasPrefix(line, "Total output lines: "):
			kept = append(kept, line)
		default:
			// Not Codex's header: the whole result is the output.
			return result, ""
		}
	}
	if len(taken) == 0 {
		return result, ""
	}
	kept = append(kept, result[end+1:])
	return strings.Join(kept, "\n"), strings.Join(taken, "\n")
}

// CodexShellOutput reads Codex's text header of a shell result (the
// freeform exec output or unified exec's, codexEnvelope): the command's
// output after the "Output:" line, and its exit code from "Exit code: N"
// or "Process exited with code N" (hasExit false when the header names
// none: a process still running). ok is false when result does not start
// with Codex's header. Codex 0.171.0 hands its PostToolUse hook the output
// alone, without the header (the agent lab: tool_response "lab-loop\n"
// where the rollout's function_call_output holds the header), so the
// reader takes a failure from the exit code, as the hook takes it from
// the rollout's CommandExecution item.
func CodexShellOutput(result string) (output string, exit int, hasExit, ok bool) {
	if !strings.HasPrefix(result, "Exit code: ") && !strings.HasPrefix(result, "Chunk ID: ") && !strings.HasPrefix(result, "Wall time: ") &&
		!strings.HasPrefix(result, "Command: ") {
		return result, 0, false, false
	}
	header, body, found := strings.Cut(result, "\nOutput:\n")
	if !found {
		if !strings.HasSuffix(result, "\nOutput:") {
			return result, 0, false, false
		}
		header, body = strings.TrimSuffix(result, "\nOutput:"), ""
	}
	_, header = codexCommandLine(header)
	for line := range codexHeaderSeq(header) {
		var num string
		switch {
		case strings.HasPrefix(line, "Exit code: "):
			num = strings.TrimPrefix(line, "Exit code: ")
		case strings.HasPrefix(line, "Process exited with code "):
			num = strings.TrimPrefix(line, "Process exited with code ")
		case strings.HasPrefix(line, "Wall time: "), strings.HasPrefix(line, "Chunk ID: "), strings.HasPrefix(line, codexRunningPrefix),
			strings.HasPrefix(line, "Command: "), strings.HasPrefix(line, "Original token count: "), strings.HasPrefix(line, "Total output lines: "):
			continue
		default:
			return result, 0, false, false
		}
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil {
			return result, 0, false, false
		}
		exit, hasExit = n, true
	}
	return body, exit, hasExit, true
}

// codexCommandLine splits the "Command: " section off the start of Codex's
// shell header (the rest of the header after it; "" and the header whole
// when it has none). The command is written as the shell received it, so a
// command with a newline in it (a here-document, a quoted newline) runs on
// over several lines: its section ends where the lines Codex writes after
// it begin, those to the end of the header being all of Codex's own.
func codexCommandLine(header string) (command, rest string) {
	if !strings.HasPrefix(header, "Command: ") {
		return "", header
	}
	end := len(header) // the command's end: rest is header[end+1:]
	for end > 0 {
		i := strings.LastIndexByte(header[:end], '\n')
		if i < 0 || !codexHeaderAfterCommand(header[i+1:end]) {
			break
		}
		end = i
	}
	if end == len(header) {
		return header, ""
	}
	return header[:end], header[end+1:]
}

// codexHeaderSeq yields the lines of a header (none when it is empty: all
// of it was the command).
func codexHeaderSeq(header string) iter.Seq[string] {
	if header == "" {
		return func(func(string) bool) {}
	}
	return strings.SplitSeq(header, "\n")
}

// codexHeaderAfterCommand reports whether line is one of the lines of
// Codex's shell header that follow its "Command: " line.
func codexHeaderAfterCommand(line string) bool {
	for _, p := range [...]string{"Chunk ID: ", "Wall time: ", "Exit code: ", "Process exited with code ", codexRunningPrefix,
		"Original token count: ", "Total output lines: "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// codexRunningPrefix begins the line of a process still running, whose
// number changes from run to run.
const codexRunningPrefix = "Process running with session ID "

// codexStructuredExit reads the exit code of Codex's structured exec
// output, {"output": ..., "metadata": {"exit_code": N, "duration_seconds":
// S}[, "hint": ...]} (codex-rs/core/src/tools/mod.rs,
// format_exec_output_for_model_structured: the shell tool's result, in
// rollouts of Codex 0.44 to 0.121 at least), which carries no success
// flag: a timed-out command is exit code 124 there. The metadata member follows the output
// (the struct's field order), and a quote inside a JSON string is escaped,
// so the last unescaped metadata key is the real one. ok is false for any
// other result.
func codexStructuredExit(result string) (exit int, ok bool) {
	const key = `,"metadata":{"exit_code":`
	if !strings.HasPrefix(result, `{"output":`) {
		return 0, false
	}
	i := strings.LastIndex(result, key)
	if i < 0 {
		return 0, false
	}
	num := result[i+len(key):]
	j := 0
	if j < len(num) && num[j] == '-' {
		j++
	}
	for j < len(num) && num[j] >= '0' && num[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(num[:j])
	if err != nil || j == len(num) || (num[j] != ',' && num[j] != '}') {
		return 0, false
	}
	return n, true
}

// codexDurationMember takes the "duration_seconds" member out of the
// structured exec output's metadata.
func codexDurationMember(result string) (output, envelope string) {
	const key = `"duration_seconds":`
	i := strings.LastIndex(result, key)
	if i < 0 || !strings.Contains(result[:i], `"metadata":{`) {
		return result, ""
	}
	j := i + len(key)
	for j < len(result) && strings.IndexByte("+-.0123456789eE", result[j]) >= 0 {
		j++
	}
	member := result[i:j]
	start := i
	if start > 0 && result[start-1] == ',' {
		start--
	} else if j < len(result) && result[j] == ',' {
		j++
	}
	return result[:start] + result[j:], member
}
