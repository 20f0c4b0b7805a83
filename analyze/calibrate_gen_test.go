package analyze

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/corpusgen"
)

// TestGeneratedClaudeCodeUsageCalibrates: the generator's Claude Code
// sessions carry usage that tells the story of a growing prompt, as real
// ones do, so their usage is used, not rejected as implausible. Before,
// each record drew its usage at random, and 1,021 of 1,022 generated
// sessions' usage was rejected. Sessions too short to calibrate stay
// "too little evidence", which is right.
func TestGeneratedClaudeCodeUsageCalibrates(t *testing.T) {
	dir := t.TempDir()
	if _, err := corpusgen.Generate(dir, corpusgen.Config{Seed: 3, TotalBytes: 3 << 20, MaxFileBytes: 512 << 10, MaxResultBytes: 16 << 10, Formats: []string{corpusgen.FormatClaudeCode}}); err != nil {
		t.Fatal(err)
	}
	files := ingest.Expand([]string{dir}, func(p ingest.Problem) { t.Error(p.Message) })
	sessions, calibrated := 0, 0
	for _, f := range files {
		ingest.ReadFile(f, ingest.Options{}, &ingest.Sink{
			OnSession: func(s *ingest.Session) {
				sessions++
				ratio, why := calibration(s)
				switch {
				case ratio > 0:
					calibrated++
				case !strings.HasPrefix(why, "too little evidence"):
					t.Errorf("%s session %s: usage not used: %s", filepath.Base(f), s.ID, why)
				}
			},
		})
	}
	if sessions < 20 || calibrated < sessions/3 {
		t.Errorf("%d of %d generated sessions calibrated; want at least a third", calibrated, sessions)
	}
}
