package analyze

import (
	"fmt"

	"github.com/loopgate/loopgate/ingest"
)

// Calibration from recorded usage (guards.md §6.2). A tokenizer only
// estimates what the model's own tokenizer counts (Claude's is not
// available offline at all). When a transcript records usage, the prompt of
// request k+1 minus the prompt of request k minus the output of request k is
// what was added in between, in the model's own tokens: the results of
// request k's calls, and the user message when a new turn starts. Summed
// over a session, those tokens and the bytes of the added text give the
// session's bytes per token, and savings in that session are counted with
// it instead of the tokenizer.

const (
	// calibrationMinTokens and calibrationMinBytes: below these sums the
	// ratio says more about noise (system prompts re-sent, cache effects)
	// than about the text, and the tokenizer is used.
	calibrationMinTokens = 200
	calibrationMinBytes  = 800
	// The ratio is kept within what real tokenizers give (JSON-heavy text
	// ~3.5 bytes/token, prose ~4.5, CJK lower); outside it, the usage
	// numbers are not describing the added text and are not used.
	calibrationMinRatio = 1.5
	calibrationMaxRatio = 8.0
)

// calibration returns the session's bytes per token from its recorded
// usage, or 0 and the reason the usage could not be used, as a clause for a
// report ("" when the session records no usage).
func calibration(s *ingest.Session) (float64, string) {
	var tokens, bytes int64
	pairs := 0
	var prev *ingest.Request
	for _, t := range s.Turns {
		if t.CompactedBefore {
			prev = nil // a compaction rebuilds the prompt: no delta across it
		}
		for ri := range t.Requests {
			r := &t.Requests[ri]
			if r.Usage == nil {
				prev = nil
				continue
			}
			if prev != nil {
				added := int64(0)
				for _, c := range prev.Calls {
					added += int64(c.ResultLen())
				}
				if ri == 0 {
					added += int64(t.UserChars)
				}
				// Saturating: counts near the int64 maximum are read, and
				// their differences and sums must not wrap.
				delta := ingest.SaturatingAdd(r.Usage.Input, -ingest.SaturatingAdd(prev.Usage.Input, prev.Usage.Output))
				if delta > 0 && added > 0 {
					tokens = ingest.SaturatingAdd(tokens, delta)
					bytes += added
					pairs++
				}
			}
			prev = r
		}
	}
	if pairs == 0 {
		return 0, "no two consecutive requests with usage show the prompt growing by added text"
	}
	if tokens < calibrationMinTokens || bytes < calibrationMinBytes {
		return 0, fmt.Sprintf("too little evidence: the prompt grew by %d tokens for %d bytes of added text over %s (calibration needs at least %d tokens and %d bytes)",
			tokens, bytes, plural(pairs, "request pair"), calibrationMinTokens, calibrationMinBytes)
	}
	ratio := float64(bytes) / float64(tokens)
	if ratio < calibrationMinRatio || ratio > calibrationMaxRatio {
		return 0, fmt.Sprintf("implausible ratio: the prompt grew by %d tokens for %d bytes (%.2f bytes per token, outside %.1f-%.1f)",
			tokens, bytes, ratio, calibrationMinRatio, calibrationMaxRatio)
	}
	return ratio, ""
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
