package corpusgen_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/corpusgen"
)

// readFormatsB reads a file of the later formats (write_formats_b.go), for
// readCorpus, by their own structure (not loopgate's readers): ok is
// false for a file of another format.
func readFormatsB(t *testing.T, f corpusgen.FileInfo, data []byte) (rsession, bool) {
	t.Helper()
	switch f.Format {
	case corpusgen.FormatHermesRequestDump:
		var rec struct {
			SessionID string `json:"session_id"`
			Request   struct {
				Body struct {
					Messages []chatMsg `json:"messages"`
				} `json:"body"`
			} `json:"request"`
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		return chatSession(t, f.Path, rec.SessionID, rec.Request.Body.Messages), true
	case corpusgen.FormatSWEAgent:
		var rec struct {
			History []struct {
				chatMsg
				ToolCallIDs []string `json:"tool_call_ids"`
			} `json:"history"`
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		var msgs []chatMsg
		for _, m := range rec.History {
			if len(m.ToolCallIDs) == 1 {
				m.ToolCallID = m.ToolCallIDs[0]
			}
			msgs = append(msgs, m.chatMsg)
		}
		return chatSession(t, f.Path, strings.TrimSuffix(stem(f.Path), ".traj"), msgs), true
	case corpusgen.FormatATIF:
		var rec struct {
			SessionID string `json:"session_id"`
			Steps     []struct {
				Source    string `json:"source"`
				ToolCalls []struct {
					ID        string          `json:"tool_call_id"`
					Name      string          `json:"function_name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"tool_calls"`
				Observation struct {
					Results []struct {
						ID      string `json:"source_call_id"`
						Content string `json:"content"`
					} `json:"results"`
				} `json:"observation"`
			} `json:"steps"`
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		s := rsession{id: rec.SessionID}
		for i, st := range rec.Steps {
			if st.Source == "user" {
				s.turns++
			}
			results := map[string]string{}
			for _, r := range st.Observation.Results {
				results[r.ID] = r.Content
			}
			for _, tc := range st.ToolCalls {
				a, fo := canonString(t, fmt.Sprintf("%s step %d", f.Path, i+1), string(tc.Arguments))
				res, ok := results[tc.ID]
				if !ok {
					t.Errorf("%s step %d: call %s has no result in its step", f.Path, i+1, tc.ID)
				}
				s.calls = append(s.calls, rcall{tool: tc.Name, args: a, folded: fo, turn: s.turns, result: normalize(res)})
			}
		}
		return s, true
	}
	return rsession{}, false
}
