package ingest

import (
	"path/filepath"
	"testing"
	"time"
)

// TestChatMetadataTimes: exports converted from other agents' sessions
// carry a _metadata.timestamp per message (RFC 3339 text or Unix
// milliseconds) and OpenCode's tokens on the model's messages; the
// session is timed by them and the tokens are its usage.
func TestChatMetadataTimes(t *testing.T) {
	cases := []struct {
		path       string
		start, end string
		input      int64
	}{
		{filepath.Join("..", "fixtures", "ingest", "openai", "chat-converted-codex.json"), "2026-03-24T13:01:26Z", "2026-03-24T13:02:00Z", 1200},
		// meta.token_counts (Codex token_count events): input with the cache,
		// summed over the responses by hand (9,476,819).
		{thirdPartySample(t, "openai-chat/Eyob-smax-Anju-Medical-Appointment-System/trajectory.json"), "2026-03-24T13:01:26Z", "2026-03-25T06:12:05Z", 9476819},
		// Unix milliseconds, and tokens: input + cache read + cache written
		// summed over the assistant messages by hand (1,938,069).
		{thirdPartySample(t, "openai-chat/Amansolo9-HarborSuite/sessions/develop-1.json"), "2026-03-26T16:54:38Z", "2026-03-26T17:17:56Z", 1938069},
	}
	for _, c := range cases {
		sessions, _ := readAll(t, c.path, Options{})
		if len(sessions) != 1 {
			t.Fatalf("%s: %d sessions", c.path, len(sessions))
		}
		start, end := sessions[0].Span()
		got := [2]string{start.UTC().Truncate(time.Second).Format(time.RFC3339), end.UTC().Truncate(time.Second).Format(time.RFC3339)}
		if got != [2]string{c.start, c.end} {
			t.Errorf("%s: span %v, want %s to %s", c.path, got, c.start, c.end)
		}
		if in := inputTokens(sessions); in != c.input {
			t.Errorf("%s: input tokens %d, want %d", c.path, in, c.input)
		}
	}
}
