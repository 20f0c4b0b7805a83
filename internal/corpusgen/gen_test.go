package corpusgen_test

// These tests read the generated files back with encoding/json only, through
// a reader written here independently of the generator's writers, and hold
// the manifest to what the files really contain.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/corpusgen"
)

func generate(t *testing.T, cfg corpusgen.Config) (string, *corpusgen.Manifest) {
	t.Helper()
	dir := t.TempDir()
	m, err := corpusgen.Generate(dir, cfg)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return dir, m
}

// tree hashes every file under dir by relative path.
func tree(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = sha256.Sum256(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDeterminism(t *testing.T) {
	cfg := corpusgen.Config{Seed: 7, TotalBytes: 2 << 20, MaxFileBytes: 512 << 10, MaxResultBytes: 64 << 10, Loops: true}
	tests := []struct {
		name string
		seed int64
		same bool
	}{
		{"same seed gives identical bytes", 7, true},
		{"another seed gives other bytes", 8, false},
	}
	dirA, _ := generate(t, cfg)
	a := tree(t, dirA)
	if len(a) < 10 {
		t.Fatalf("only %d files written", len(a))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cfg
			c.Seed = tt.seed
			dirB, _ := generate(t, c)
			b := tree(t, dirB)
			identical := len(a) == len(b)
			for p, h := range a {
				if b[p] != h {
					identical = false
					if tt.same {
						t.Errorf("%s differs between two runs with seed %d", p, tt.seed)
					}
				}
			}
			if identical != tt.same {
				t.Errorf("identical = %v, want %v", identical, tt.same)
			}
		})
	}
}

func TestSizeSpread(t *testing.T) {
	const total, maxFile = 5_000_000, 1_000_000
	dir, m := generate(t, corpusgen.Config{Seed: 3, TotalBytes: total, MaxFileBytes: maxFile, MaxResultBytes: 256 << 10, Loops: true})
	var sum int64
	small, tail := 0, 0
	for _, f := range m.Files {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() != f.Bytes {
			t.Errorf("%s: manifest says %d bytes, file has %d", f.Path, f.Bytes, st.Size())
		}
		if f.Bytes > maxFile {
			t.Errorf("%s: %d bytes, over MaxFileBytes %d", f.Path, f.Bytes, maxFile)
		}
		if f.Bytes < 20_000 {
			small++
		}
		if f.Bytes > 200_000 {
			tail++
		}
		sum += f.Bytes
	}
	if sum < total*85/100 || sum > total*110/100 {
		t.Errorf("corpus is %d bytes, want about %d", sum, total)
	}
	if small*2 < len(m.Files) {
		t.Errorf("%d of %d files under 20 KB, want most files small", small, len(m.Files))
	}
	if tail == 0 {
		t.Errorf("no file over 200 KB: no long tail")
	}
	if m.Totals.Bytes != sum || m.Totals.Files != len(m.Files) {
		t.Errorf("totals %d bytes in %d files, files sum to %d in %d", m.Totals.Bytes, m.Totals.Files, sum, len(m.Files))
	}
	formats := map[string]bool{}
	for _, f := range m.Files {
		formats[f.Format] = true
	}
	for _, f := range corpusgen.Formats {
		if !formats[f] {
			t.Errorf("no file of format %s", f)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  corpusgen.Config
		want string
	}{
		{"no size", corpusgen.Config{Seed: 1}, "TotalBytes"},
		{"unknown format", corpusgen.Config{Seed: 1, TotalBytes: 10_000, Formats: []string{"claude"}}, `unknown format "claude"`},
		{"tiny files", corpusgen.Config{Seed: 1, TotalBytes: 10_000, MaxFileBytes: 100}, "MaxFileBytes"},
		{"loop rate without loops", corpusgen.Config{Seed: 1, TotalBytes: 10_000, LoopRate: 50}, "LoopRate needs Loops"},
		{"loop rate over 100", corpusgen.Config{Seed: 1, TotalBytes: 10_000, Loops: true, LoopRate: 101}, "LoopRate is a percent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := corpusgen.Generate(t.TempDir(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

// --- an independent reader of the eleven formats ---

type rcall struct {
	tool   string
	args   string // canonical: encoding/json re-marshal (sorted keys)
	folded string // args with string values strip().lower()-ed
	result string
	turn   int
}

type rsession struct {
	id    string
	calls []rcall
	turns int
}

func canon(t *testing.T, where string, v any) (string, string) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return string(b), string(b)
	}
	f := map[string]any{}
	for k, x := range m {
		if s, ok := x.(string); ok {
			x = strings.ToLower(strings.TrimSpace(s))
		}
		f[k] = x
	}
	fb, _ := json.Marshal(f)
	return string(b), string(fb)
}

func canonString(t *testing.T, where, s string) (string, string) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: arguments are not JSON: %v", where, err)
	}
	return canon(t, where, v)
}

// normalize is the replay's result normalization for these files: nanobot's
// retry hint and trailing white space removed.
func normalize(s string) string {
	s, _, _ = strings.Cut(s, "\n\n[Analyze the error above and try a different approach.]")
	return strings.TrimRight(s, " \t\r\n")
}

type chatMsg struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// chatSession reads an OpenAI-style message list (hermes export and
// gateway, nanobot, OpenAI chat).
func chatSession(t *testing.T, where, id string, msgs []chatMsg) rsession {
	t.Helper()
	s := rsession{id: id}
	pending := map[string]int{}
	for i, m := range msgs {
		switch m.Role {
		case "user":
			s.turns++
		case "assistant":
			for _, tc := range m.ToolCalls {
				a, f := canonString(t, fmt.Sprintf("%s message %d", where, i+1), tc.Function.Arguments)
				pending[tc.ID] = len(s.calls)
				s.calls = append(s.calls, rcall{tool: tc.Function.Name, args: a, folded: f, turn: s.turns})
			}
		case "tool":
			k, ok := pending[m.ToolCallID]
			if !ok {
				t.Fatalf("%s message %d: result for unknown call %q", where, i+1, m.ToolCallID)
			}
			c, _ := m.Content.(string)
			s.calls[k].result = normalize(c)
			delete(pending, m.ToolCallID)
		}
	}
	if len(pending) > 0 {
		t.Errorf("%s: %d calls without a result", where, len(pending))
	}
	return s
}

var (
	toolCallOpen     = "<tool_call>\n"
	toolResponseOpen = "<tool_response>\n"
)

func blocks(s, open, close string) []string {
	var out []string
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return out
		}
		s = s[i+len(open):]
		j := strings.Index(s, close)
		if j < 0 {
			return out
		}
		out = append(out, s[:j])
		s = s[j+len(close):]
	}
}

func trajectorySession(t *testing.T, where, id string, rec map[string]any) rsession {
	t.Helper()
	s := rsession{id: id}
	conv, _ := rec["conversations"].([]any)
	var open []int
	for i, e := range conv {
		m, _ := e.(map[string]any)
		v, _ := m["value"].(string)
		switch m["from"] {
		case "human":
			s.turns++
		case "gpt":
			open = nil
			for _, b := range blocks(v, toolCallOpen, "\n</tool_call>") {
				var tc struct {
					Name      string `json:"name"`
					Arguments any    `json:"arguments"`
				}
				if err := json.Unmarshal([]byte(b), &tc); err != nil {
					t.Fatalf("%s entry %d: tool_call block: %v", where, i+1, err)
				}
				a, f := canon(t, where, tc.Arguments)
				open = append(open, len(s.calls))
				s.calls = append(s.calls, rcall{tool: tc.Name, args: a, folded: f, turn: s.turns})
			}
		case "tool":
			rs := blocks(v, toolResponseOpen, "\n</tool_response>")
			if len(rs) != len(open) {
				t.Fatalf("%s entry %d: %d responses for %d calls", where, i+1, len(rs), len(open))
			}
			for k, b := range rs {
				var tr struct {
					Name    string          `json:"name"`
					Content json.RawMessage `json:"content"`
				}
				if err := json.Unmarshal([]byte(b), &tr); err != nil {
					t.Fatalf("%s entry %d: tool_response block: %v", where, i+1, err)
				}
				var str string
				if json.Unmarshal(tr.Content, &str) != nil {
					var v any
					_ = json.Unmarshal(tr.Content, &v)
					b, _ := json.Marshal(v)
					str = string(b)
				}
				s.calls[open[k]].result = normalize(str)
			}
		}
	}
	return s
}

func responsesSession(t *testing.T, where, id string, items []map[string]any) rsession {
	t.Helper()
	s := rsession{id: id}
	byID := map[string]int{}
	for i, it := range items {
		switch it["type"] {
		case "message":
			if it["role"] == "user" {
				s.turns++
			}
		case "function_call":
			args, _ := it["arguments"].(string)
			a, f := canonString(t, fmt.Sprintf("%s item %d", where, i+1), args)
			cid, _ := it["call_id"].(string)
			name, _ := it["name"].(string)
			byID[cid] = len(s.calls)
			s.calls = append(s.calls, rcall{tool: name, args: a, folded: f, turn: s.turns})
		case "function_call_output":
			cid, _ := it["call_id"].(string)
			k, ok := byID[cid]
			if !ok {
				t.Fatalf("%s item %d: output for unknown call %q", where, i+1, cid)
			}
			out, _ := it["output"].(string)
			s.calls[k].result = normalize(out)
		}
	}
	return s
}

// openHandsSession reads OpenHands events: a user message opens a turn,
// an agent action with tool_call_metadata is a call (its arguments as the
// model response listed them), an observation answers the action it names
// by cause.
func openHandsSession(t *testing.T, where, id string, events []map[string]any) rsession {
	t.Helper()
	s := rsession{id: id}
	argsOf := map[string]string{}
	byEvent := map[float64]int{}
	for i, e := range events {
		str := func(k string) string { v, _ := e[k].(string); return v }
		switch {
		case str("action") == "message" && str("source") == "user":
			s.turns++
		case e["tool_call_metadata"] != nil:
			meta, _ := e["tool_call_metadata"].(map[string]any)
			if mr, ok := meta["model_response"].(map[string]any); ok {
				choices, _ := mr["choices"].([]any)
				for _, ch := range choices {
					msg, _ := ch.(map[string]any)["message"].(map[string]any)
					tcs, _ := msg["tool_calls"].([]any)
					for _, tc := range tcs {
						m, _ := tc.(map[string]any)
						fn, _ := m["function"].(map[string]any)
						id, _ := m["id"].(string)
						argsOf[id], _ = fn["arguments"].(string)
					}
				}
			}
			callID, _ := meta["tool_call_id"].(string)
			name, _ := meta["function_name"].(string)
			raw, ok := argsOf[callID]
			if !ok {
				t.Fatalf("%s event %d: call %s has no arguments in a model response", where, i+1, callID)
			}
			a, f := canonString(t, fmt.Sprintf("%s event %d", where, i+1), raw)
			evID, _ := e["id"].(float64)
			byEvent[evID] = len(s.calls)
			s.calls = append(s.calls, rcall{tool: name, args: a, folded: f, turn: s.turns})
		case str("observation") != "":
			cause, _ := e["cause"].(float64)
			k, ok := byEvent[cause]
			if !ok {
				t.Fatalf("%s event %d: observation of unknown event %v", where, i+1, cause)
			}
			s.calls[k].result = normalize(str("content"))
			delete(byEvent, cause)
		}
	}
	if len(byEvent) > 0 {
		t.Errorf("%s: %d calls without an observation", where, len(byEvent))
	}
	return s
}

func stem(p string) string {
	b := filepath.Base(p)
	return strings.TrimSuffix(strings.TrimSuffix(b, ".jsonl"), ".json")
}

// readCorpus reads every file in the manifest; it fails on any line that is
// not JSON. Sessions are keyed by file and session id.
func readCorpus(t *testing.T, dir string, m *corpusgen.Manifest) map[string]rsession {
	t.Helper()
	out := map[string]rsession{}
	add := func(file string, s rsession) {
		k := file + "\x00" + s.id
		if _, dup := out[k]; dup {
			t.Errorf("%s: session id %s appears twice", file, s.id)
		}
		out[k] = s
	}
	for _, f := range m.Files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f.Path, ".json") || strings.HasSuffix(f.Path, ".traj") {
			if !json.Valid(data) {
				t.Fatalf("%s is not valid JSON", f.Path)
			}
			if s, ok := readFormatsB(t, f, data); ok {
				add(f.Path, s)
			} else if f.Format == corpusgen.FormatOpenHands {
				var events []map[string]any
				if err := json.Unmarshal(data, &events); err != nil {
					t.Fatalf("%s: %v", f.Path, err)
				}
				add(f.Path, openHandsSession(t, f.Path, stem(f.Path), events))
			} else if f.Format == corpusgen.FormatHermesSnapshot {
				var rec map[string]any
				if err := json.Unmarshal(data, &rec); err != nil {
					t.Fatalf("%s: %v", f.Path, err)
				}
				id, _ := rec["session_id"].(string)
				add(f.Path, trajectorySession(t, f.Path, id, rec))
			} else if f.Format == corpusgen.FormatOpenAIChat {
				var msgs []chatMsg
				if err := json.Unmarshal(data, &msgs); err != nil {
					t.Fatalf("%s: %v", f.Path, err)
				}
				add(f.Path, chatSession(t, f.Path, stem(f.Path), msgs))
			} else {
				var items []map[string]any
				if err := json.Unmarshal(data, &items); err != nil {
					t.Fatalf("%s: %v", f.Path, err)
				}
				add(f.Path, responsesSession(t, f.Path, stem(f.Path), items))
			}
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<30)
		var single []chatMsg
		singleID := ""
		// Claude Code and Codex: one session per file, read record by
		// record into agent, its calls' results found by id.
		var agent *rsession
		agentCalls := map[string]int{}
		n := 0
		for sc.Scan() {
			n++
			line := sc.Bytes()
			where := fmt.Sprintf("%s:%d", f.Path, n)
			if !json.Valid(line) {
				t.Fatalf("%s: line is not valid JSON", where)
			}
			switch f.Format {
			case corpusgen.FormatHermesExport:
				var rec struct {
					ID       string    `json:"id"`
					Messages []chatMsg `json:"messages"`
				}
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				add(f.Path, chatSession(t, where, rec.ID, rec.Messages))
			case corpusgen.FormatHermesTrajectory:
				var rec map[string]any
				_ = json.Unmarshal(line, &rec)
				add(f.Path, trajectorySession(t, where, stem(f.Path)+":"+fmt.Sprint(n), rec))
			case corpusgen.FormatOpenHands:
				var rec struct {
					InstanceID string           `json:"instance_id"`
					History    []map[string]any `json:"history"`
				}
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				add(f.Path, openHandsSession(t, where, rec.InstanceID, rec.History))
			case corpusgen.FormatHermesBatch:
				var rec map[string]any
				_ = json.Unmarshal(line, &rec)
				idx, ok := rec["prompt_index"].(float64)
				if !ok {
					t.Fatalf("%s: batch record without prompt_index", where)
				}
				add(f.Path, trajectorySession(t, where, stem(f.Path)+":prompt_"+fmt.Sprint(int(idx)), rec))
			case corpusgen.FormatHermesGateway, corpusgen.FormatNanobot:
				var head struct {
					Role string `json:"role"`
					Type string `json:"_type"`
					Key  string `json:"key"`
				}
				_ = json.Unmarshal(line, &head)
				if n == 1 {
					if f.Format == corpusgen.FormatNanobot && head.Type != "metadata" {
						t.Fatalf("%s: nanobot file does not start with its metadata record", where)
					}
					if f.Format == corpusgen.FormatHermesGateway && head.Role != "session_meta" {
						t.Fatalf("%s: gateway file does not start with session_meta", where)
					}
					singleID = head.Key
					if f.Format == corpusgen.FormatHermesGateway {
						singleID = stem(f.Path)
					}
					continue
				}
				var msg chatMsg
				_ = json.Unmarshal(line, &msg)
				single = append(single, msg)
			case corpusgen.FormatOpenAIChat:
				var rec struct {
					Metadata struct {
						SessionID string `json:"session_id"`
					} `json:"metadata"`
					Messages []chatMsg `json:"messages"`
				}
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				add(f.Path, chatSession(t, where, rec.Metadata.SessionID, rec.Messages))
			case corpusgen.FormatOpenAIResponses:
				var rec struct {
					Metadata struct {
						SessionID string `json:"session_id"`
					} `json:"metadata"`
					Input []map[string]any `json:"input"`
				}
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				add(f.Path, responsesSession(t, where, rec.Metadata.SessionID, rec.Input))
			case corpusgen.FormatClaudeCode:
				var rec struct {
					Type      string `json:"type"`
					SessionID string `json:"sessionId"`
					Message   struct {
						Content json.RawMessage `json:"content"`
					} `json:"message"`
				}
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				if agent == nil {
					agent = &rsession{id: rec.SessionID}
				} else if rec.SessionID != agent.id {
					t.Fatalf("%s: session %s in the file of session %s", where, rec.SessionID, agent.id)
				}
				var text string
				if json.Unmarshal(rec.Message.Content, &text) == nil {
					if rec.Type == "user" {
						agent.turns++
					}
					continue
				}
				var blocks []struct {
					Type      string         `json:"type"`
					ID        string         `json:"id"`
					Name      string         `json:"name"`
					Input     map[string]any `json:"input"`
					ToolUseID string         `json:"tool_use_id"`
					Content   string         `json:"content"`
				}
				if err := json.Unmarshal(rec.Message.Content, &blocks); err != nil {
					t.Fatalf("%s: content: %v", where, err)
				}
				for _, b := range blocks {
					switch b.Type {
					case "tool_use":
						a, fo := canon(t, where, b.Input)
						agentCalls[b.ID] = len(agent.calls)
						agent.calls = append(agent.calls, rcall{tool: b.Name, args: a, folded: fo, turn: agent.turns})
					case "tool_result":
						k, ok := agentCalls[b.ToolUseID]
						if !ok {
							t.Fatalf("%s: result for unknown call %q", where, b.ToolUseID)
						}
						agent.calls[k].result = normalize(b.Content)
						delete(agentCalls, b.ToolUseID)
					}
				}
			case corpusgen.FormatPi:
				var rec struct {
					Type    string `json:"type"`
					ID      string `json:"id"`
					Message struct {
						Role       string          `json:"role"`
						Content    json.RawMessage `json:"content"`
						ToolCallID string          `json:"toolCallId"`
					} `json:"message"`
				}
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				if n == 1 {
					if rec.Type != "session" {
						t.Fatalf("%s: pi session does not start with its header", where)
					}
					agent = &rsession{id: rec.ID}
					continue
				}
				var blocks []struct {
					Type      string         `json:"type"`
					Text      string         `json:"text"`
					ID        string         `json:"id"`
					Name      string         `json:"name"`
					Arguments map[string]any `json:"arguments"`
				}
				switch rec.Message.Role {
				case "user":
					agent.turns++
				case "assistant", "toolResult":
					if err := json.Unmarshal(rec.Message.Content, &blocks); err != nil {
						t.Fatalf("%s: content: %v", where, err)
					}
				}
				for _, b := range blocks {
					switch {
					case b.Type == "toolCall":
						a, fo := canon(t, where, b.Arguments)
						agentCalls[b.ID] = len(agent.calls)
						agent.calls = append(agent.calls, rcall{tool: b.Name, args: a, folded: fo, turn: agent.turns})
					case rec.Message.Role == "toolResult":
						k, ok := agentCalls[rec.Message.ToolCallID]
						if !ok {
							t.Fatalf("%s: result for unknown call %q", where, rec.Message.ToolCallID)
						}
						agent.calls[k].result = normalize(b.Text)
						delete(agentCalls, rec.Message.ToolCallID)
					}
				}
			case corpusgen.FormatCodex:
				var rec struct {
					Type    string         `json:"type"`
					Payload map[string]any `json:"payload"`
				}
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				if n == 1 {
					if rec.Type != "session_meta" {
						t.Fatalf("%s: rollout does not start with session_meta", where)
					}
					id, _ := rec.Payload["id"].(string)
					agent = &rsession{id: id}
					continue
				}
				if rec.Type != "response_item" {
					continue
				}
				str := func(k string) string { v, _ := rec.Payload[k].(string); return v }
				switch str("type") {
				case "message":
					if str("role") == "user" {
						agent.turns++
					}
				case "function_call":
					a, fo := canonString(t, where, str("arguments"))
					agentCalls[str("call_id")] = len(agent.calls)
					agent.calls = append(agent.calls, rcall{tool: str("name"), args: a, folded: fo, turn: agent.turns})
				case "function_call_output":
					k, ok := agentCalls[str("call_id")]
					if !ok {
						t.Fatalf("%s: output for unknown call %q", where, str("call_id"))
					}
					agent.calls[k].result = normalize(str("output"))
					delete(agentCalls, str("call_id"))
				}
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if single != nil || singleID != "" {
			add(f.Path, chatSession(t, f.Path, singleID, single))
		}
		if agent != nil {
			if len(agentCalls) > 0 {
				t.Errorf("%s: %d calls without a result", f.Path, len(agentCalls))
			}
			add(f.Path, *agent)
		}
	}
	return out
}

// truth recounts the redundant calls (docs/cli.md) and the re-calls that brought
// new information in one session.
// A repeat is redundant only when it observes and no act since changed
// what it observes (corpusgen.Effects).
func truth(s rsession) (redundant, newInfo []int) {
	// seen maps a signature to its results, each with the latest call
	// that returned it.
	seen := map[string]map[string]int{}
	var fx corpusgen.Effects
	for i, c := range s.calls {
		sig := c.tool + "\x00" + c.args
		prev, ok := seen[sig]
		var args map[string]any
		_ = json.Unmarshal([]byte(c.args), &args)
		last := prev[c.result]
		red := fx.Redundant(i+1, c.tool, args, last)
		switch {
		case last > 0 && red:
			redundant = append(redundant, i+1)
		case ok && last == 0:
			newInfo = append(newInfo, i+1)
		}
		if !ok {
			prev = map[string]int{}
			seen[sig] = prev
		}
		prev[c.result] = i + 1
	}
	return redundant, newInfo
}

// varietySeed is a seed whose 3 MB corpus has subagents, healthy sessions
// and every loop shape: a property of the seed, checked only for it. It
// was 11 until pi files joined the plan, then 12 until the later formats
// (write_formats_b.go) did (each new format changes the draws).
const varietySeed = 14

func TestManifestMatchesFiles(t *testing.T) {
	seed := testSeed(varietySeed)
	dir, m := generate(t, corpusgen.Config{Seed: seed, TotalBytes: 3 << 20, MaxFileBytes: 768 << 10, MaxResultBytes: 128 << 10, Loops: true})
	sessions := readCorpus(t, dir, m)

	// Totals recounted from the files.
	calls, redundant, newInfo := 0, 0, 0
	for _, s := range sessions {
		r, n := truth(s)
		calls += len(s.calls)
		redundant += len(r)
		newInfo += len(n)
	}
	if len(sessions) != m.Totals.Sessions || calls != m.Totals.Calls || redundant != m.Totals.Redundant || newInfo != m.Totals.NewInfo {
		t.Errorf("files hold %d sessions, %d calls, %d redundant, %d new-info; manifest says %d, %d, %d, %d",
			len(sessions), calls, redundant, newInfo, m.Totals.Sessions, m.Totals.Calls, m.Totals.Redundant, m.Totals.NewInfo)
	}
	if m.Totals.MaxResultBytes > m.Config.MaxResultBytes {
		t.Errorf("a result of %d bytes, over MaxResultBytes %d", m.Totals.MaxResultBytes, m.Config.MaxResultBytes)
	}
	if seed == varietySeed && (m.Totals.Redundant == 0 || m.Totals.Subagents == 0 || m.Totals.HealthySessions == 0) {
		t.Errorf("corpus lacks variety: %+v", m.Totals)
	}
	for _, sh := range corpusgen.Shapes {
		if seed == varietySeed && m.Totals.LoopsByShape[sh] == 0 { // a property of this seed, not of every small corpus
			t.Errorf("no planted loop of shape %s", sh)
		}
	}

	// Every redundant call of the corpus belongs to a planted loop: the
	// background traffic never repeats.
	plantedRedundant := 0
	for _, l := range m.Loops {
		plantedRedundant += len(l.Redundant)
	}
	if plantedRedundant != redundant {
		t.Errorf("planted loops account for %d redundant calls, files hold %d", plantedRedundant, redundant)
	}

	for i, l := range m.Loops {
		name := fmt.Sprintf("loop %d (%s %s in %s session %s)", i, l.Shape, l.Variant, l.File, l.Session)
		s, ok := sessions[l.File+"\x00"+l.Session]
		if !ok {
			t.Errorf("%s: session not found in the file", name)
			continue
		}
		cs := make([]rcall, len(l.Calls))
		for k, idx := range l.Calls {
			if idx < 1 || idx > len(s.calls) {
				t.Fatalf("%s: call %d out of range (session has %d calls)", name, idx, len(s.calls))
			}
			cs[k] = s.calls[idx-1]
			if cs[k].tool != l.Tools[k] {
				t.Errorf("%s: call %d is %s, manifest says %s", name, idx, cs[k].tool, l.Tools[k])
			}
		}
		if cs[0].turn != l.Turn {
			t.Errorf("%s: first call in turn %d, manifest says %d", name, cs[0].turn, l.Turn)
		}
		same := func(a, b rcall) bool { return a.tool == b.tool && a.args == b.args }
		checkShape(t, name, l, cs, same)

		// The loop's truth lists are the session truth restricted to it.
		r, n := truth(s)
		var wantR, wantN []int
		for _, idx := range l.Calls {
			if slices.Contains(r, idx) {
				wantR = append(wantR, idx)
			}
			if slices.Contains(n, idx) {
				wantN = append(wantN, idx)
			}
		}
		if !slices.Equal(wantR, nonNil(l.Redundant)) || !slices.Equal(wantN, nonNil(l.NewInfo)) {
			t.Errorf("%s: manifest redundant %v new-info %v, files say %v %v", name, l.Redundant, l.NewInfo, wantR, wantN)
		}
	}
}

func nonNil(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	return s
}

// checkShape holds each shape to its definition.
func checkShape(t *testing.T, name string, l corpusgen.Loop, cs []rcall, same func(a, b rcall) bool) {
	t.Helper()
	idx := l.Calls
	switch l.Shape {
	case corpusgen.ShapeRepeat, corpusgen.ShapeSearchRepeat:
		for k := range cs {
			if !same(cs[k], cs[0]) || cs[k].result != cs[0].result {
				t.Errorf("%s: call %d is not the same call with the same result", name, idx[k])
			}
		}
		if !slices.Equal(l.Redundant, idx[1:]) {
			t.Errorf("%s: redundant %v, want every repeat %v", name, l.Redundant, idx[1:])
		}
	case corpusgen.ShapeAlternate, corpusgen.ShapeCycle3:
		period := 2
		if l.Shape == corpusgen.ShapeCycle3 {
			period = 3
		}
		if len(cs) < 2*period || len(cs)%period != 0 {
			t.Errorf("%s: %d calls, not whole cycles of %d", name, len(cs), period)
		}
		for k := range cs {
			if !same(cs[k], cs[k%period]) || cs[k].result != cs[k%period].result {
				t.Errorf("%s: call %d breaks the period-%d pattern", name, idx[k], period)
			}
		}
		if same(cs[0], cs[1]) {
			t.Errorf("%s: the cycle's calls are all the same call", name)
		}
		// A cycle through a command that acts (go test) has nothing
		// redundant: the command may change what the others read.
		want := idx[period:]
		for _, c := range cs[:period] {
			var args map[string]any
			_ = json.Unmarshal([]byte(c.args), &args)
			if corpusgen.Acts(c.tool, args) {
				want = nil
			}
		}
		if !slices.Equal(nonNil(l.Redundant), nonNil(want)) {
			t.Errorf("%s: redundant %v, want %v", name, l.Redundant, want)
		}
	case corpusgen.ShapeFailingRetry:
		last := len(cs) - 1
		for k := range cs {
			if !same(cs[k], cs[0]) {
				t.Errorf("%s: call %d is not a retry of the first", name, idx[k])
			}
		}
		var args map[string]any
		_ = json.Unmarshal([]byte(cs[0].args), &args)
		acts := corpusgen.Acts(cs[0].tool, args)
		if acts {
			// A command that acts (npm install) is never redundant.
			if len(l.Redundant) != 0 {
				t.Errorf("%s: a retried command that acts is never redundant (redundant %v)", name, l.Redundant)
			}
			if l.Variant == "last-succeeds" && !slices.Equal(l.NewInfo, idx[last:]) {
				t.Errorf("%s: a retry that worked must be new information (new %v)", name, l.NewInfo)
			}
		} else if l.Variant == "last-succeeds" {
			if cs[last].result == cs[0].result || !slices.Equal(l.NewInfo, idx[last:]) || !slices.Equal(l.Redundant, idx[1:last]) {
				t.Errorf("%s: a retry that worked must be new information (new %v, redundant %v)", name, l.NewInfo, l.Redundant)
			}
		} else if !slices.Equal(l.Redundant, idx[1:]) || len(l.NewInfo) != 0 {
			t.Errorf("%s: every failed retry is redundant (redundant %v, new %v)", name, l.Redundant, l.NewInfo)
		}
	case corpusgen.ShapePoll:
		for k := 2; k < len(cs); k++ {
			if !same(cs[k], cs[1]) || cs[k].result == cs[k-1].result {
				t.Errorf("%s: poll %d must repeat the arguments with a new result", name, idx[k])
			}
		}
		if len(l.Redundant) != 0 || !slices.Equal(l.NewInfo, idx[2:]) {
			t.Errorf("%s: polls are new information, never redundant (redundant %v, new %v)", name, l.Redundant, l.NewInfo)
		}
	case corpusgen.ShapeRereadWrite:
		if !same(cs[0], cs[2]) || same(cs[0], cs[1]) || cs[0].result == cs[2].result {
			t.Errorf("%s: want read A, write A, read A with new content", name)
		}
		want := idx[3:]
		if !slices.Equal(l.NewInfo, idx[2:3]) || !slices.Equal(nonNil(l.Redundant), nonNil(want)) {
			t.Errorf("%s: new %v redundant %v, want new %v redundant %v", name, l.NewInfo, l.Redundant, idx[2:3], want)
		}
	case corpusgen.ShapeWebRepeat:
		differ := false
		for k := range cs {
			if cs[k].tool != cs[0].tool || cs[k].folded != cs[0].folded {
				t.Errorf("%s: call %d does not fold to the first call's arguments", name, idx[k])
			}
			differ = differ || cs[k].args != cs[0].args
		}
		if !differ || !l.Folded {
			t.Errorf("%s: a web-repeat must vary the query's case or spacing (folded=%v)", name, l.Folded)
		}
		if len(l.NewInfo) != 0 {
			t.Errorf("%s: new information %v in a web-repeat", name, l.NewInfo)
		}
		if (l.Variant == "with-exact-repeat") != (len(l.Redundant) > 0) {
			t.Errorf("%s: redundant %v: only an exact repeat of the query is redundant", name, l.Redundant)
		}
	default:
		t.Errorf("%s: unknown shape", name)
	}
}

func TestNoLoopsMeansNoRedundancy(t *testing.T) {
	dir, m := generate(t, corpusgen.Config{Seed: 5, TotalBytes: 1 << 20, MaxFileBytes: 256 << 10, Formats: []string{corpusgen.FormatNanobot, corpusgen.FormatOpenAIResponses}})
	sessions := readCorpus(t, dir, m)
	for k, s := range sessions {
		if r, n := truth(s); len(r)+len(n) > 0 {
			t.Errorf("%q: %d redundant, %d repeated calls without loops planted", k, len(r), len(n))
		}
	}
	if len(m.Loops) != 0 || m.Totals.Redundant != 0 || m.Totals.HealthySessions != m.Totals.Sessions {
		t.Errorf("without Loops: %d loops, totals %+v", len(m.Loops), m.Totals)
	}
	for _, f := range m.Files {
		if f.Format != corpusgen.FormatNanobot && f.Format != corpusgen.FormatOpenAIResponses {
			t.Errorf("%s has format %s, not asked for", f.Path, f.Format)
		}
	}
}

// TestLoopRate: a loop planted in place of half the ordinary steps makes a
// corpus where far more of the calls are redundant, every one of them in a
// planted loop, as the manifest says and an independent reading confirms.
func TestLoopRate(t *testing.T) {
	base := corpusgen.Config{Seed: 3, TotalBytes: 1 << 20, MaxFileBytes: 256 << 10, Loops: true,
		Formats: []string{corpusgen.FormatClaudeCode, corpusgen.FormatNanobot}}
	_, plain := generate(t, base)
	heavy := base
	heavy.LoopRate = 50
	dir, m := generate(t, heavy)
	share := func(m *corpusgen.Manifest) float64 { return float64(m.Totals.Redundant) / float64(m.Totals.Calls) }
	if share(m) < 0.2 || share(m) < 3*share(plain) {
		t.Errorf("redundant share %.3f with LoopRate 50, %.3f without: want at least 0.2 and three times as much", share(m), share(plain))
	}
	redundant, planted := 0, 0
	for _, s := range readCorpus(t, dir, m) {
		r, _ := truth(s)
		redundant += len(r)
	}
	for _, l := range m.Loops {
		planted += len(l.Redundant)
	}
	if redundant != m.Totals.Redundant || planted != redundant {
		t.Errorf("files hold %d redundant calls, planted loops %d, manifest %d", redundant, planted, m.Totals.Redundant)
	}
}

// testSeed is def, or GEN_TEST_SEED when set: a way to shake out other seeds
// by hand (for s in $(seq 100 160); do GEN_TEST_SEED=$s go test ...; done).
func testSeed(def int64) int64 {
	if s := os.Getenv("GEN_TEST_SEED"); s != "" {
		if _, err := fmt.Sscan(s, &def); err != nil {
			panic("GEN_TEST_SEED: " + err.Error())
		}
	}
	return def
}
