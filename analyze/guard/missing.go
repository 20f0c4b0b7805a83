package guard

import "strings"

// A failed read is usually not worth remembering: a retry may work (a busy
// file, a denied permission the user grants next time, an environment
// still starting). One failure is different: the path does not exist. That
// is an observation of the file system, as stable as a file's content: it
// changes only when something creates the path, and whatever may create
// it (a write naming it, an act of unknown reach) clears the call under
// scope.write_clears_reads like a write clears a read. dedup's
// answer_missing keeps such failures to answer from.
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
	if len(result) > missingWindow {
		result = result[:missingWindow]
	}
	low := strings.ToLower(result)
	for _, t := range missingTexts {
		if strings.Contains(low, t) {
			return true
		}
	}
	return false
}
