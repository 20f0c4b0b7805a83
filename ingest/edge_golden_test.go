package ingest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// The edge inputs below are lines and documents of shapes the one-pass
// decoders read less often: repeated, case-folded and escaped keys, members
// of other types, null where a value is expected, nesting at the depth
// limit. Each reader decodes such a member generically where its one-pass
// decoder declines it; TestEdgeGolden holds everything read from them,
// sessions and problems, to fixtures/ingest-edge/*.golden (rewrite with
// -update and review the diff).

// edgeInput is one edge input and the formats it is read as ("" detects).
type edgeInput struct {
	name    string
	data    []byte
	formats []string
}

func edgeSets() map[string][]edgeInput {
	sets := map[string][]edgeInput{}
	add := func(set, name string, data []byte, formats ...string) {
		sets[set] = append(sets[set], edgeInput{name, data, formats})
	}
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

	for i, f := range ccEdgeFiles {
		add("claude-code", "claude_"+strconv.Itoa(i)+".jsonl", []byte(f), "", formatClaudeCode)
	}
	for _, n := range []int{jsonx.MaxDepth - 4, jsonx.MaxDepth - 3} {
		add("claude-code", "claude_deep_"+strconv.Itoa(n)+".jsonl", []byte(
			`{"type":"user","uuid":"u1","message":{"role":"user","content":"a"}}`+"\n"+
				`{"type":"assistant","uuid":"a1","message":{"id":"m","model":"c","content":[{"type":"tool_use","id":"t","name":"X","input":{"d":`+deep(n)+`}}]}}`+"\n"), "", formatClaudeCode)
	}

	for p, data := range cxEdgeFiles() {
		add("codex", filepath.Base(p), data, "", formatCodex)
	}

	for i, rec := range oaEdgeRecords {
		add("openai", "openai_"+string(rune('a'+i))+".jsonl", []byte(rec+"\n"), "", "openai-chat", "openai-responses")
	}
	for _, n := range []int{jsonx.MaxDepth - 2, jsonx.MaxDepth - 1} {
		add("openai", "openai_deep_"+strconv.Itoa(n)+".jsonl", []byte(`{"input":[{"type":"message","role":"user","content":"a","x":`+deep(n)+"}]}\n"), "", "openai-chat", "openai-responses")
	}

	for p, data := range ohEdgeInputs() {
		add("openhands", filepath.Base(p), data, "", formatOpenHands)
	}
	for _, n := range []int{jsonx.MaxDepth - 3, jsonx.MaxDepth - 2, jsonx.MaxDepth - 1} {
		event := `{"id": 1, "source": "agent", "action": "run", "args": {"x": ` + deep(n) + `}}`
		add("openhands", "openhands_deep_"+strconv.Itoa(n)+".json", []byte("["+event+"]\n"), "", formatOpenHands)
		add("openhands", "openhands_deep_"+strconv.Itoa(n)+".jsonl", []byte(`{"instance_id": "d", "history": [`+event+"]}\n"), "", formatOpenHands)
	}

	hermesFormats := []string{""}
	for _, id := range FormatIDs() {
		if strings.HasPrefix(id, "hermes") {
			hermesFormats = append(hermesFormats, id)
		}
	}
	for i, rec := range hermesEdgeRecords {
		add("hermes", fmt.Sprintf("20260413_083748_5a617929_%d.jsonl", i), []byte(rec+"\n"), hermesFormats...)
	}
	for i, doc := range hermesEdgeSnapshots {
		add("hermes", fmt.Sprintf("session_20260413_083748_%06d.json", i), []byte(doc), hermesFormats...)
	}

	add("nanobot", "cli_direct.jsonl", []byte(nbEdgeFile), "", "nanobot")
	return sets
}

// TestEdgeGolden reads every edge input under each of its formats and
// compares the sessions and problems, in full, with the set's golden file.
func TestEdgeGolden(t *testing.T) {
	for set, inputs := range edgeSets() {
		t.Run(set, func(t *testing.T) {
			sort.Slice(inputs, func(i, j int) bool { return inputs[i].name < inputs[j].name })
			var b strings.Builder
			for _, in := range inputs {
				for _, format := range in.formats {
					sessions, problems := readBytes(in.data, in.name, format)
					parsePendingArgs(sessions)
					var what any = map[string]any{"sessions": sessions, "problems": problems}
					if strings.Contains(in.name, "_deep_") {
						// The arguments nested to the limit would fill the
						// file: the calls' count and ids say what was read.
						var calls []string
						for _, s := range sessions {
							for _, turn := range s.Turns {
								for _, r := range turn.Requests {
									for _, c := range r.Calls {
										calls = append(calls, c.ID+" "+c.Tool)
									}
								}
							}
						}
						what = map[string]any{"sessions": len(sessions), "calls": calls, "problems": problems}
					}
					out, err := json.MarshalIndent(what, "", " ")
					if err != nil {
						t.Fatal(err)
					}
					fmt.Fprintf(&b, "=== %s as %q\n%s\n", in.name, format, out)
				}
			}
			checkGolden(t, filepath.Join("..", "fixtures", "ingest-edge", set+".golden"), []byte(b.String()))
		})
	}
}

// checkEdgeRead reads data as format and checks what must hold of any
// read (checkReadInvariants): the edge fuzz targets' check, seeded with
// the edge inputs of their format.
func checkEdgeRead(t *testing.T, data []byte, name, format string) {
	t.Helper()
	sessions, problems := readBytes(data, name, format)
	checkReadInvariants(t, data, name, format, sessions, problems)
}

// parsePendingArgs parses the arguments a reader left pending (Call.
// ArgsPending), as their consumers see them (Call.ArgsValue), so that the
// golden files show the parsed arguments of every call.
func parsePendingArgs(sessions []*Session) {
	for _, s := range sessions {
		for ti := range s.Turns {
			for ri := range s.Turns[ti].Requests {
				for ci := range s.Turns[ti].Requests[ri].Calls {
					c := &s.Turns[ti].Requests[ri].Calls[ci]
					// Every call gets a value, an empty one for arguments
					// that are not JSON, so that the dump shows the same
					// fields for each.
					v := c.ArgsValue()
					c.Args, c.ArgsPending = &v, false
				}
			}
		}
	}
}
