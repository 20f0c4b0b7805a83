package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A saved chat (/chat save) as older Gemini CLIs wrote it: the history
// bare, the environment context first with the CLI's canned answer, calls
// answered by functionResponse parts (an id, or none in older releases).
const geminiCheckpointHistory = `[
  {"role": "user", "parts": [{"text": "This is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Monday."}]},
  {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]},
  {"role": "user", "parts": [{"text": "list the files"}]},
  {"role": "model", "parts": [{"functionCall": {"id": "ls-1", "name": "list_directory", "args": {"dir_path": "."}}}]},
  {"role": "user", "parts": [{"functionResponse": {"id": "ls-1", "name": "list_directory", "response": {"output": "a.go\nb.go"}}}]},
  {"role": "model", "parts": [{"functionCall": {"name": "read_file", "args": {"absolute_path": "/w/a.go"}}}]},
  {"role": "user", "parts": [{"functionResponse": {"name": "read_file", "response": {"error": "File not found"}}}]},
  {"role": "model", "parts": [{"text": "Two files; a.go is gone."}]},
  {"role": "user", "parts": [{"text": "/quit"}]}
]`

func TestGeminiCheckpoint(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"bare history", geminiCheckpointHistory},
		{"Checkpoint object", `{"history": ` + geminiCheckpointHistory + `, "authType": "oauth-personal"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sessions, problems := readText(t, "checkpoint-mytag.json", tc.text)
			if len(problems) != 0 || len(sessions) != 1 || sessions[0].Format != formatGeminiCheckpoint {
				t.Fatalf("sessions %d, problems %v; want one gemini-checkpoint session", len(sessions), problems)
			}
			s := sessions[0]
			if len(s.Turns) != 1 || len(s.Turns[0].Requests) != 3 {
				t.Fatalf("turns %d; want 1 turn of 3 requests (the canned answer is none)", len(s.Turns))
			}
			var got []string
			for _, r := range s.Turns[0].Requests {
				for _, c := range r.Calls {
					got = append(got, c.Tool+"="+c.Result)
					if c.Tool == "read_file" && !c.IsError {
						t.Errorf("read_file's error response not read as an error")
					}
				}
			}
			if strings.Join(got, "|") != "list_directory=a.go\nb.go|read_file=File not found" {
				t.Errorf("calls %q", got)
			}
		})
	}
}

// TestGeminiLogs: logs.json holds every session's inputs; one session per
// sessionId, slash commands counted apart, no requests.
func TestGeminiLogs(t *testing.T) {
	text := `[
  {"sessionId": "s1", "messageId": 0, "type": "user", "message": "fix the build", "timestamp": "2026-06-11T13:40:23.814Z"},
  {"sessionId": "s1", "messageId": 1, "type": "user", "message": "/compress", "timestamp": "2026-06-11T13:45:00.000Z"},
  {"sessionId": "s1", "messageId": 2, "type": "user", "message": "now the tests", "timestamp": "2026-06-11T13:50:00.000Z"},
  {"sessionId": "s2", "messageId": 0, "type": "user", "message": "/quit", "timestamp": "2026-06-12T09:00:00.000Z"},
  {"sessionId": "s3", "messageId": 0, "type": "user", "message": "hello", "timestamp": "2026-06-12T10:00:00.000Z"}
]`
	sessions, problems := readText(t, "logs.json", text)
	if len(problems) != 0 {
		t.Fatalf("problems %v", problems)
	}
	var got []string
	for _, s := range sessions {
		if s.Format != formatGeminiLogs {
			t.Errorf("format %q", s.Format)
		}
		got = append(got, s.ID+":"+itoaTest(len(s.Turns)))
	}
	if strings.Join(got, " ") != "s1:2 s3:1" {
		t.Errorf("sessions %q; want s1 with 2 turns, s3 with 1 (s2 holds only a command)", got)
	}
}

// TestGeminiRestatedInWalk: in Gemini CLI's project folder, a walk reads
// the recordings in chats/ and leaves logs.json and the saved chats (the
// same prompts and chats) alone; without a chats folder beside them, or
// named on their own, they are read.
func TestGeminiRestatedInWalk(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs.json")
	cp := filepath.Join(dir, "checkpoint-a.json")
	for _, p := range []string{logs, cp} {
		if err := os.WriteFile(p, []byte("[]"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if ReadWithAnother(logs) || ReadWithAnother(cp) {
		t.Errorf("left to another without a chats folder")
	}
	if err := os.Mkdir(filepath.Join(dir, "chats"), 0o700); err != nil {
		t.Fatal(err)
	}
	if !ReadWithAnother(logs) || !ReadWithAnother(cp) || ReadWithAnother(filepath.Join(dir, "other.json")) {
		t.Errorf("with a chats folder: want logs.json and checkpoint-a.json left to it, nothing else")
	}
}
