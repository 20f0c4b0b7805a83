package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/formatcheck"
)

// samplesRoot is the folder of real transcripts beside the repository
// (absent from a user's checkout).
var samplesRoot = filepath.Join("..", "..", "shared", "samples")

// expectationsPath is the one list of checks known to fail on the real
// files, each with its reason: the file's own fault, or loopgate's known
// failure with its issue.
var expectationsPath = filepath.Join("..", "fixtures", "conformance", "expectations.txt")

// TestRealFilesConform reads every file under the samples folder (hidden
// folders included: agents keep sessions under ~/.claude and ~/.codex) and
// fails on what would be the reader's fault: a transcript of no known
// format (or of which no session is read), a call without its result, any
// other problem the reading reports, a session without times. A failure
// listed in fixtures/conformance/expectations.txt is expected; an entry
// whose check passes now fails the test as stale, naming the line to
// remove.
func TestRealFilesConform(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every sample (tens of megabytes) is checked in the full tier")
	}
	if _, err := os.Stat(samplesRoot); err != nil {
		t.Skipf("samples not found at %s (they live beside the repository, not in it): %v", samplesRoot, err)
	}
	x, err := formatcheck.LoadExpectations(expectationsPath)
	if err != nil {
		t.Fatal(err)
	}
	files, err := formatcheck.SampleFiles(samplesRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no file under %s", samplesRoot)
	}
	for _, rel := range files {
		var sessions []*Session
		var noResult, unknown, other []string
		ReadFile(filepath.Join(samplesRoot, filepath.FromSlash(rel)), Options{}, &Sink{
			OnSession: func(s *Session) { sessions = append(sessions, s) },
			OnProblem: func(p Problem) {
				msg := fmt.Sprintf("line %d: %s", p.Line, p.Message)
				switch {
				case strings.Contains(p.Message, "of no known format"):
					unknown = append(unknown, msg)
				case strings.Contains(p.Message, "has no result"):
					noResult = append(noResult, msg)
				default:
					other = append(other, msg)
				}
			},
		})
		format := ""
		switch {
		case len(unknown) > 0:
			format = firstFew(unknown)
		case len(sessions) == 0:
			format = "no session read"
		}
		untimed := 0
		for _, s := range sessions {
			if start, _ := s.Span(); start.IsZero() {
				untimed++
			}
		}
		times := ""
		if untimed > 0 {
			times = fmt.Sprintf("%d of %d sessions have no time", untimed, len(sessions))
		}
		for _, c := range []struct{ check, failure string }{
			{"format", format},
			{"results", firstFew(noResult)},
			{"problems", firstFew(other)},
			{"times", times},
		} {
			if msg := x.Judge(rel, c.check, c.failure); msg != "" {
				t.Error(msg)
			}
		}
	}
	for _, msg := range x.Unjudged("format", "results", "problems", "times") {
		t.Error(msg)
	}
}

// firstFew joins up to three problems and counts the rest.
func firstFew(msgs []string) string {
	if len(msgs) == 0 {
		return ""
	}
	out := strings.Join(msgs[:min(3, len(msgs))], "; ")
	if len(msgs) > 3 {
		out += fmt.Sprintf("; and %d more", len(msgs)-3)
	}
	return fmt.Sprintf("%d problem(s): %s", len(msgs), out)
}
