package analyze

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/ingest"
)

// sessionsOf reads a file's sessions.
func sessionsOf(t *testing.T, path string) []*ingest.Session {
	t.Helper()
	var out []*ingest.Session
	ingest.ReadFile(path, ingest.Options{}, &ingest.Sink{OnSession: func(s *ingest.Session) { out = append(out, s) }})
	if len(out) == 0 {
		t.Fatalf("%s: no sessions", path)
	}
	return out
}

// TestTruthIgnoresEnvelope: a Codex shell call run again with the same
// output is the same result though its wall time differs: in a fixture
// of a Codex session converted to chat messages, and in a real one, whose
// four re-reads of one unchanged file all have the same output (before:
// the one whose wall time happened to match).
func TestTruthIgnoresEnvelope(t *testing.T) {
	fx := sessionsOf(t, filepath.Join("..", "fixtures", "ingest", "openai", "chat-converted-codex.json"))[0]
	p := Prepare(fx)
	if len(p.Calls) != 2 || !p.Calls[1].SameResult || p.Calls[1].Repeats != 1 {
		t.Fatalf("fixture: the second run of the same command is not the same result: %+v", p.Calls)
	}
	if p.Calls[0].Event.ResultHash == p.Calls[1].Event.ResultHash || p.Calls[0].Event.OutputHash != p.Calls[1].Event.OutputHash {
		t.Error("fixture: the results should differ as recorded and agree as outputs")
	}

	real := filepath.Join("..", "..", "shared", "samples", "third-party", "openai-chat", "Eyob-smax-Anju-Medical-Appointment-System", "trajectory.json")
	if _, err := os.Stat(real); err != nil {
		t.Skipf("sample %s not available (%v)", real, err)
	}
	p = Prepare(sessionsOf(t, real)[0])
	reads, same := 0, 0
	seen := map[string]uint64{}
	for _, c := range p.Calls {
		args := c.Event.ArgsRaw
		if !strings.Contains(args, "Get-Content -Raw") || !strings.Contains(args, ".java") {
			continue
		}
		if out, ok := seen[args]; ok {
			reads++
			if c.Event.OutputHash == out {
				same++
			}
		}
		seen[args] = c.Event.OutputHash
	}
	// Whether each is redundant depends also on the acts between them
	// (invalidate.go): the envelope's part is that the outputs agree.
	if reads != 4 || same != 4 {
		t.Errorf("%d re-reads of a Java file, %d of them with the same output; want 4 and 4", reads, same)
	}
}

// TestTruthIgnoresEnvelopeRollout: in a real Codex rollout, two polls of a
// running process (write_stdin) that read the same output under a new
// chunk id and wall time are the same result (before: none was).
func TestTruthIgnoresEnvelopeRollout(t *testing.T) {
	real := filepath.Join("..", "..", "shared", "samples", "third-party", "codex", "Xu-Wentao-dotfile", ".codex", "sessions", "2026", "04", "08",
		"rollout-2026-04-08T22-02-46-019d6d67-1952-7e83-93ef-94497e3c15b6.jsonl")
	if _, err := os.Stat(real); err != nil {
		t.Skipf("sample %s not available (%v)", real, err)
	}
	p := Prepare(sessionsOf(t, real)[0])
	same, enveloped := 0, 0
	for _, c := range p.Calls {
		if c.SameResult {
			same++
			if c.Event.Tool != "write_stdin" {
				t.Errorf("call %d (%s) is the same result; only the two polls are", c.Event.Index, c.Event.Tool)
			}
		}
		if c.Event.ResultHash != c.Event.OutputHash {
			enveloped++
		}
	}
	if same != 2 {
		t.Errorf("%d calls repeat an earlier call and result, want 2", same)
	}
	if enveloped == 0 {
		t.Error("no result of the rollout has an envelope")
	}
}
