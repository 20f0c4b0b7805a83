package ingest

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestForcedFormatThatCannotRead: --input-format X on a file X cannot read
// gave one problem per line, or nothing at all; it gives one problem that
// names the format, and no session.
func TestForcedFormatThatCannotRead(t *testing.T) {
	codex := filepath.Join("..", "fixtures", "ingest", "codex", "2026", "02", "04", "rollout-2026-02-04T09-00-00-0c0c0c0c-0000-4000-8000-00000000c0de.jsonl")
	for _, format := range []string{"nanobot", "claude-code", "hermes-export", "openai-chat", "openai-responses", "hermes-gateway"} {
		var problems []Problem
		sessions := 0
		ReadFile(codex, Options{Format: format}, &Sink{
			OnSession: func(*Session) { sessions++ },
			OnProblem: func(p Problem) { problems = append(problems, p) },
		})
		if sessions != 0 || len(problems) != 1 || !strings.Contains(problems[0].Message, "--input-format "+format+" cannot read this file") || problems[0].File != codex {
			t.Errorf("%s: %d sessions, problems %+v; want none and one problem naming the format", format, sessions, problems)
		}
	}
	// The format that reads the file keeps its own problems, each on its line.
	var problems []Problem
	sessions := 0
	ReadFile(codex, Options{Format: "codex"}, &Sink{
		OnSession: func(*Session) { sessions++ },
		OnProblem: func(p Problem) { problems = append(problems, p) },
	})
	if sessions == 0 {
		t.Errorf("codex read no session of its own file")
	}
	for _, p := range problems {
		if strings.Contains(p.Message, "--input-format") {
			t.Errorf("codex on its own file: %+v", p)
		}
	}
}
