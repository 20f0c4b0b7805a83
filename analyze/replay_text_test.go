package analyze

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// chatMsg is a message of an OpenAI chat log (a format whose reader keeps
// the model's text).
type chatMsg struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// chatLog writes a chat log of msgs; a "CALL id path" content in an
// assistant message becomes a read_file call (text before it is the
// response's text), a "RESULT id text" one a tool message.
func chatLog(t *testing.T, msgs ...string) string {
	t.Helper()
	var out []chatMsg
	for _, m := range msgs {
		role, body, _ := strings.Cut(m, ": ")
		switch {
		case role == "tool":
			id, text, _ := strings.Cut(body, " ")
			out = append(out, chatMsg{Role: "tool", ToolCallID: id, Content: text})
		case role == "assistant" && strings.Contains(body, "CALL "):
			text, call, _ := strings.Cut(body, "CALL ")
			id, path, _ := strings.Cut(call, " ")
			tc := chatToolCall{ID: id, Type: "function"}
			tc.Function.Name, tc.Function.Arguments = "read_file", `{"path":"`+path+`"}`
			out = append(out, chatMsg{Role: "assistant", Content: text, ToolCalls: []chatToolCall{tc}})
		default:
			out = append(out, chatMsg{Role: role, Content: body})
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "chat.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayModelText replays transcripts with the model's text under the
// presets whose detectors read it: content_loop (gemini-cli, Gemini CLI's
// "should detect a loop when a chunk of content repeats consecutively"
// and its Strike Management, through a transcript) and monologue
// (openhands, test_is_stuck_monologue through a transcript), and a
// session whose format keeps no text, reported as not checked.
func TestReplayModelText(t *testing.T) {
	// loopDetectionService.test.ts's createRepetitiveContent: one
	// sentence repeated, ten 50-character chunks and more.
	loop := strings.Repeat("This is a unique sentence, id=1. ", 20)
	const well = "I'm doing well, thanks for asking."
	tests := []struct {
		name, preset string
		file         string
		// want lists the decisions as call:action:detector:count.
		want []string
		// notes holds a piece each note must contain, in order.
		notes []string
	}{
		{name: "content loop: feedback at the first detection, the turn ends at the second", preset: "gemini-cli",
			file: chatLog(t, "user: go",
				"assistant: "+loop+"CALL c1 a.txt", "tool: c1 one",
				"assistant: "+loop+"CALL c2 b.txt", "tool: c2 two",
				"assistant: done CALL c3 c.txt", "tool: c3 three"),
			want: []string{"1:steer:content_loop:1", "2:halt:content_loop:2", "3:halt:content_loop:2"}},
		{name: "content loop: the count restarts at a new prompt", preset: "gemini-cli",
			file: chatLog(t, "user: go",
				"assistant: "+loop+"CALL c1 a.txt", "tool: c1 one",
				"user: again",
				"assistant: "+loop+"CALL c2 b.txt", "tool: c2 two"),
			want: []string{"1:steer:content_loop:1", "2:steer:content_loop:1"}},
		{name: "content loop: list items restart the tracking", preset: "gemini-cli",
			file: chatLog(t, "user: go",
				"assistant: "+strings.Repeat("* This is a unique sentence, id=1. This is a unique sentence, id=1.\n", 12)+"CALL c1 a.txt", "tool: c1 one")},
		{name: "content loop: a text with no call after it is a note", preset: "gemini-cli",
			file:  chatLog(t, "user: go", "assistant: "+loop),
			notes: []string{"turn 1: content_loop would have steered after the response"}},
		{name: "monologue: the third identical message halts the turn before the next call", preset: "openhands",
			file: chatLog(t, "user: hi",
				"assistant: "+well, "assistant: "+well, "assistant: "+well,
				"assistant: CALL c1 a.txt", "tool: c1 one"),
			want: []string{"1:halt:monologue:3"}},
		{name: "monologue: a call's result between the messages breaks the run", preset: "openhands",
			file: chatLog(t, "user: hi",
				"assistant: "+well, "assistant: "+well,
				"assistant: CALL c1 a.txt", "tool: c1 one",
				"assistant: "+well, "assistant: "+well,
				"assistant: CALL c2 b.txt", "tool: c2 two")},
		{name: "monologue at the end of a turn: a note", preset: "openhands",
			file:  chatLog(t, "user: hi", "assistant: "+well, "assistant: "+well, "assistant: "+well),
			notes: []string{"turn 1: monologue would have halted after the response"}},
		{name: "a format whose text loopgate does not keep: not checked", preset: "openhands",
			file:  "../fixtures/ingest/cline/tasks/1760000000000/api_conversation_history.json",
			notes: []string{"monologue not run: no model text was read from this session"}},
	}
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := rules.Preset(tt.preset)
			if err != nil {
				t.Fatal(err)
			}
			rep := Replay([]string{tt.file}, Options{Rules: r, Tokens: counter, Jobs: 1})
			if len(rep.Sessions) != 1 {
				t.Fatalf("%d sessions, problems %v", len(rep.Sessions), rep.Problems)
			}
			s := rep.Sessions[0]
			var got []string
			for _, d := range s.Decisions {
				if d.Action != guard.Allow {
					got = append(got, strings.Join([]string{strconv.Itoa(d.Call), d.Action.String(), d.Detector, strconv.Itoa(d.Count)}, ":"))
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("decisions %v, want %v", got, tt.want)
			}
			var notes []string
			for _, n := range s.Notes {
				if strings.Contains(n, " not run: ") || strings.Contains(n, " would have ") {
					notes = append(notes, n)
				}
			}
			if len(notes) != len(tt.notes) {
				t.Fatalf("notes %q, want ones holding %q", notes, tt.notes)
			}
			for i, n := range tt.notes {
				if !strings.Contains(notes[i], n) {
					t.Errorf("note %q does not hold %q", notes[i], n)
				}
			}
		})
	}
}
