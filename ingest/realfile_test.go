package ingest

// Helpers of the tests that read one real third-party file each (the
// samples are not part of this repository: the tests skip without them).

import (
	"os"
	"path/filepath"
	"testing"
)

// thirdPartySample is the path of a file of ../shared/samples/third-party,
// or skips the test when the samples are absent.
func thirdPartySample(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "shared", "samples", "third-party", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("sample %s not available (%v): this test needs shared/samples/third-party", p, err)
	}
	return p
}

// joinCounts counts a session list's calls, those with a result, those
// flagged as errors, and the calls that repeat an earlier call of their
// session with the same arguments and the same result text.
type joinCounts struct{ calls, joined, errors, sameAgain int }

func countJoins(sessions []*Session) joinCounts {
	var n joinCounts
	for _, s := range sessions {
		seen := map[string]bool{}
		for _, t := range s.Turns {
			for _, r := range t.Requests {
				for _, c := range r.Calls {
					n.calls++
					if !c.HasResult {
						continue
					}
					n.joined++
					if c.IsError {
						n.errors++
					}
					k := c.Tool + "\x00" + c.ArgsRaw + "\x00" + c.Result
					if seen[k] {
						n.sameAgain++
					}
					seen[k] = true
				}
			}
		}
	}
	return n
}

// inputTokens sums the recorded input tokens of a session list.
func inputTokens(sessions []*Session) int64 {
	var sum int64
	for _, s := range sessions {
		for _, t := range s.Turns {
			for _, r := range t.Requests {
				if r.Usage != nil {
					sum += r.Usage.Input
				}
			}
		}
	}
	return sum
}
