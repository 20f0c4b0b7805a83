package ingest

import "testing"

// TestKeepText reads a fixture of each format whose reader records the
// model's text, with and without Options.KeepText: without it no text is
// held and no session says it was kept; with it every session says so,
// some response holds text, and only responses that had text (TextChars)
// hold any.
func TestKeepText(t *testing.T) {
	tests := []struct {
		file, format string
	}{
		{"../fixtures/ingest/claude-code/session.jsonl", formatClaudeCode},
		{"../fixtures/ingest/codex/2026/02/03/rollout-2026-02-03T10-00-00-0a0a0a0a-0000-4000-8000-00000000abcd.jsonl", formatCodex},
		{"../fixtures/ingest/gemini-cli/3f2a9c1e/chats/session-2025-09-01T12-00-0a1b2c3d.json", formatGemini},
		{"../fixtures/ingest/gemini-stream-json/headless-run.jsonl", formatGeminiStream},
		{"../fixtures/ingest/hermes/export/sessions_export.jsonl", "hermes-export"},
		{"../fixtures/ingest/hermes/gateway/20260421_055527_49457147.jsonl", "hermes-gateway"},
		{"../fixtures/ingest/hermes/snapshot/session_20260305_142233_9f8e7d.json", "hermes-snapshot"},
		{"../fixtures/ingest/nanobot/f4_v0.2.2_full_turns/telegram_31337.jsonl", "nanobot"},
		{"../fixtures/ingest/qwen-code/projects/-home-u-calc/chats/6f1e2d3c-0000-4000-8000-00000000q001.jsonl", formatQwen},
		{"../fixtures/ingest/openai/chat-choices.jsonl", formatOpenAIChat},
		{"../fixtures/ingest/openhands/trajectory.json", formatOpenHands},
		{"../fixtures/ingest/pi/--home-dev-app--/2026-03-14T10-00-00-000Z_0c9d7a10-5b1e-4a7e-9f8e-2d1c3b4a5e6f.jsonl", formatPi},
		{"../fixtures/ingest/copilot-cli/session-state/4f0e2b6a-8c1d-4e3f-9a7b-5d2c1e0f9a8b/events.jsonl", formatCopilot},
		{"../fixtures/ingest/kimi-cli/sessions/5d41402abc4b2a76b9719d911017c592/3c9e1a7b-2f4d-4b8e-9a1c-6d5e4f3a2b1c/context.jsonl", formatKimi},
		{"../fixtures/ingest/opencode/storage/session/4b825dc642cb6eb9a060e54bf8d69288fbee4904/ses_5b2c3d4e5ffeLegacyAbCdEf1.json", formatOpenCodeStorage},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			if f := LookupFormat(tt.format); f == nil || !f.Text {
				t.Fatalf("format %s does not say its reader keeps text (Format.Text)", tt.format)
			}
			for _, keep := range []bool{false, true} {
				var sessions []*Session
				ReadFile(tt.file, Options{KeepText: keep}, &Sink{OnSession: func(s *Session) { sessions = append(sessions, s) }})
				if len(sessions) == 0 {
					t.Fatalf("%s: no session read", tt.file)
				}
				texts := 0
				for _, s := range sessions {
					if s.Format != tt.format {
						t.Fatalf("%s read as %s, want %s", tt.file, s.Format, tt.format)
					}
					if s.TextKept != keep {
						t.Errorf("KeepText %v: session %s TextKept %v", keep, s.ID, s.TextKept)
					}
					for _, tr := range s.Turns {
						for _, r := range tr.Requests {
							if r.Text == "" {
								continue
							}
							texts++
							if !keep {
								t.Errorf("KeepText off, yet line %d kept text %q", r.Line, r.Text)
							}
							if r.TextChars == 0 {
								t.Errorf("line %d: text %q kept for a response of no text", r.Line, r.Text)
							}
						}
					}
				}
				if keep && texts == 0 {
					t.Errorf("KeepText on: no response of %s kept its text", tt.file)
				}
			}
		})
	}
}
