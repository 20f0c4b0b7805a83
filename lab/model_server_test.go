package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Call is one tool call the scripted model makes: a tool name as the agent
// knows it and its arguments.
type Call struct {
	Name string
	Args map[string]any
}

// Turn is one model response: tool calls (several are parallel calls of one
// response) or, with no calls, a text answer that ends the agent's turn.
type Turn struct {
	Text  string
	Calls []Call
}

// Script is what the model says in one conversation: Turns[k] answers the
// request whose history already holds k model responses. The conversation is
// recognized by its Marker, a word the first user message carries (a
// subagent's prompt carries a marker of its own).
type Script struct {
	Marker string
	Turns  []Turn
}

// Request is one request the server received, as it arrived.
type Request struct {
	API    string // anthropic, responses, chat, gemini
	Path   string
	Body   []byte
	Marker string // the script it was matched to ("" for a side request)
	Step   int    // the model responses already in its history
	Tools  bool   // whether it offered tools
	Played string // what the server answered: "turn N", "text", "end"
}

// Strings is every string value of the request's JSON body, in document
// order: what an assertion searches for a text the model was sent.
func (r *Request) Strings() []string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return []string{string(r.Body)}
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
			// Some agents send a JSON document as a string (arguments,
			// a tool result's body): its strings are searched too.
			if len(x) > 1 && (x[0] == '{' || x[0] == '[') {
				var inner any
				if json.Unmarshal([]byte(x), &inner) == nil {
					walk(inner)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(v)
	return out
}

// Contains says whether some string of the request holds text.
func (r *Request) Contains(text string) bool {
	for _, s := range r.Strings() {
		if strings.Contains(s, text) {
			return true
		}
	}
	return false
}

// Server is the scripted model. Start it with Start; it serves until Close.
type Server struct {
	URL     string // http://127.0.0.1:PORT
	scripts []Script
	// SideText answers requests that offer no tools or match no script
	// (titles, summaries, an agent's own checks). It is valid JSON so that
	// the checks that parse it (Gemini CLI's next speaker) read "the user".
	SideText string

	ln   net.Listener
	srv  *http.Server
	mu   sync.Mutex
	log  []*Request
	last time.Time // when the last request arrived
}

// Start listens on a free loopback port and serves scripts.
func Start(scripts ...Script) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{
		URL:      "http://" + ln.Addr().String(),
		scripts:  scripts,
		SideText: `{"next_speaker": "user", "reasoning": "lab"}`,
		ln:       ln,
		last:     time.Now(),
	}
	s.srv = &http.Server{Handler: s}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.log...)
}

// Conversation returns the requests matched to marker's script, in order.
func (s *Server) Conversation(marker string) []*Request {
	var out []*Request
	for _, r := range s.Requests() {
		if r.Marker == marker {
			out = append(out, r)
		}
	}
	return out
}

// AtStep returns the first request of marker's conversation whose history
// held step model responses, or nil.
func (s *Server) AtStep(marker string, step int) *Request {
	for _, r := range s.Conversation(marker) {
		if r.Step == step {
			return r
		}
	}
	return nil
}

// MaxStep is the highest step a request of marker's conversation reached
// (-1 for none): a halt at step k leaves it at k.
func (s *Server) MaxStep(marker string) int {
	m := -1
	for _, r := range s.Conversation(marker) {
		m = max(m, r.Step)
	}
	return m
}

func (s *Server) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	path := hr.URL.Path
	var api string
	switch {
	case strings.HasSuffix(path, "/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 100})
		return
	case strings.HasSuffix(path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 100})
		return
	case strings.HasSuffix(path, "/models") || strings.Contains(path, "/models/") && hr.Method == http.MethodGet:
		writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "lab-model", "object": "model", "owned_by": "lab"}}, "models": []any{}})
		return
	case strings.HasSuffix(path, "/messages"):
		api = "anthropic"
	case strings.HasSuffix(path, "/responses"):
		api = "responses"
	case strings.HasSuffix(path, "/chat/completions"):
		api = "chat"
	case strings.Contains(path, ":streamGenerateContent") || strings.Contains(path, ":generateContent"):
		api = "gemini"
	default:
		// Telemetry, update checks and anything else: accepted and
		// recorded, never answered with a model turn.
		s.record(&Request{API: "other", Path: hr.URL.String(), Body: body, Played: "404"})
		http.NotFound(w, hr)
		return
	}
	var doc map[string]any
	_ = json.Unmarshal(body, &doc)
	req := &Request{API: api, Path: hr.URL.String(), Body: body}
	req.Tools = hasTools(api, doc)
	req.Step = modelTurns(api, doc)
	req.Marker = s.match(body)
	turn := Turn{Text: s.SideText}
	req.Played = "text"
	if req.Marker != "" && req.Tools {
		sc := s.script(req.Marker)
		if req.Step < len(sc.Turns) {
			turn = sc.Turns[req.Step]
			req.Played = fmt.Sprintf("turn %d", req.Step)
		} else {
			turn = Turn{Text: "Done."}
			req.Played = "end"
		}
	}
	n := s.record(req)
	stream := doc["stream"] == true || api == "gemini" && strings.Contains(path, ":streamGenerateContent") || api == "responses" && doc["stream"] != false
	id := fmt.Sprintf("%d", n)
	model, _ := doc["model"].(string)
	if model == "" {
		model = "lab-model"
	}
	switch api {
	case "anthropic":
		writeAnthropic(w, id, model, turn, stream)
	case "responses":
		writeResponses(w, id, model, turn, stream)
	case "chat":
		writeChat(w, id, model, turn, stream, doc)
	case "gemini":
		writeGemini(w, model, turn, stream)
	}
}

// Quiet is how long the server has had no request (since it started, when
// it has had none).
func (s *Server) Quiet() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Since(s.last)
}

func (s *Server) record(r *Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = time.Now()
	s.log = append(s.log, r)
	return len(s.log)
}

func (s *Server) script(marker string) Script {
	for _, sc := range s.scripts {
		if sc.Marker == marker {
			return sc
		}
	}
	return Script{}
}

// match finds the script whose marker occurs first in the body: a main
// conversation holds its own marker before any subagent prompt it wrote,
// and a subagent's conversation holds only its own.
func (s *Server) match(body []byte) string {
	best, at := "", -1
	for _, sc := range s.scripts {
		i := bytes.Index(body, []byte(sc.Marker))
		if i >= 0 && (at < 0 || i < at) {
			best, at = sc.Marker, i
		}
	}
	return best
}

func hasTools(api string, doc map[string]any) bool {
	switch api {
	case "gemini":
		tools, _ := doc["tools"].([]any)
		for _, t := range tools {
			if m, ok := t.(map[string]any); ok {
				if fd, ok := m["functionDeclarations"].([]any); ok && len(fd) > 0 {
					return true
				}
			}
		}
		return false
	default:
		tools, _ := doc["tools"].([]any)
		return len(tools) > 0
	}
}

// modelTurns counts the model responses already in a request's history.
// Each API has its own shape; a run of the model's items (Responses) or one
// model message (the others) is one response.
func modelTurns(api string, doc map[string]any) int {
	n := 0
	switch api {
	case "anthropic", "chat":
		msgs, _ := doc["messages"].([]any)
		for _, m := range msgs {
			if mm, ok := m.(map[string]any); ok && mm["role"] == "assistant" {
				n++
			}
		}
	case "gemini":
		contents, _ := doc["contents"].([]any)
		for _, c := range contents {
			if cm, ok := c.(map[string]any); ok && cm["role"] == "model" {
				n++
			}
		}
	case "responses":
		items, _ := doc["input"].([]any)
		inModel := false
		for _, it := range items {
			m, _ := it.(map[string]any)
			typ, _ := m["type"].(string)
			model := typ == "function_call" || typ == "reasoning" || typ == "custom_tool_call" || typ == "local_shell_call" ||
				(typ == "message" || typ == "") && m["role"] == "assistant"
			if model && !inModel {
				n++
			}
			inModel = model
		}
	}
	return n
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func argsJSON(c Call) string {
	if c.Args == nil {
		return "{}"
	}
	b, _ := json.Marshal(c.Args)
	return string(b)
}

type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w, f}
}

func (s *sse) event(name string, v any) {
	b, _ := json.Marshal(v)
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if s.f != nil {
		s.f.Flush()
	}
}

func (s *sse) raw(data string) {
	fmt.Fprintf(s.w, "data: %s\n\n", data)
	if s.f != nil {
		s.f.Flush()
	}
}

// writeAnthropic answers in the Messages API's shape
// (https://docs.anthropic.com/en/api/messages-streaming).
func writeAnthropic(w http.ResponseWriter, id, model string, t Turn, stream bool) {
	var content []map[string]any
	if t.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": t.Text})
	}
	for i, c := range t.Calls {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_lab%s_%d", id, i), "name": c.Name, "input": c.Args})
	}
	stop := "end_turn"
	if len(t.Calls) > 0 {
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	msgID := "msg_lab" + id
	if !stream {
		writeJSON(w, map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": model, "content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	s := newSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, b := range content {
		if b["type"] == "text" {
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		} else {
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			if b["input"] == nil {
				in = []byte("{}")
			}
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

// writeResponses answers in the Responses API's shape
// (https://platform.openai.com/docs/api-reference/responses-streaming).
func writeResponses(w http.ResponseWriter, id, model string, t Turn, stream bool) {
	var output []map[string]any
	if t.Text != "" {
		output = append(output, map[string]any{"type": "message", "id": "msg_lab" + id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": t.Text, "annotations": []any{}}}})
	}
	for i, c := range t.Calls {
		output = append(output, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_lab%s_%d", id, i), "call_id": fmt.Sprintf("call_lab%s_%d", id, i),
			"name": c.Name, "arguments": argsJSON(c), "status": "completed"})
	}
	usage := map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens": 10,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}
	resp := map[string]any{"id": "resp_lab" + id, "object": "response", "model": model, "status": "completed", "output": output, "usage": usage}
	if !stream {
		writeJSON(w, resp)
		return
	}
	s := newSSE(w)
	s.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_lab" + id, "object": "response", "model": model, "status": "in_progress", "output": []any{}}})
	for i, it := range output {
		s.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		if it["type"] == "message" {
			s.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": it["id"], "output_index": i, "content_index": 0, "delta": t.Text})
		}
		s.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	s.event("response.completed", map[string]any{"type": "response.completed", "response": resp})
}

// writeChat answers in the Chat Completions shape
// (https://platform.openai.com/docs/api-reference/chat-streaming).
func writeChat(w http.ResponseWriter, id, model string, t Turn, stream bool, doc map[string]any) {
	finish := "stop"
	if len(t.Calls) > 0 {
		finish = "tool_calls"
	}
	var calls []map[string]any
	for i, c := range t.Calls {
		calls = append(calls, map[string]any{"index": i, "id": fmt.Sprintf("call_lab%s_%d", id, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": argsJSON(c)}})
	}
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	cid := "chatcmpl-lab" + id
	if !stream {
		msg := map[string]any{"role": "assistant", "content": t.Text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		writeJSON(w, map[string]any{"id": cid, "object": "chat.completion", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	s := newSSE(w)
	chunk := func(delta map[string]any, fin any) map[string]any {
		return map[string]any{"id": cid, "object": "chat.completion.chunk", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fin}}}
	}
	s.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if t.Text != "" {
		s.event("", chunk(map[string]any{"content": t.Text}, nil))
	}
	for _, c := range calls {
		s.event("", chunk(map[string]any{"tool_calls": []any{c}}, nil))
	}
	s.event("", chunk(map[string]any{}, finish))
	if so, ok := doc["stream_options"].(map[string]any); ok && so["include_usage"] == true {
		s.event("", map[string]any{"id": cid, "object": "chat.completion.chunk", "created": 1, "model": model, "choices": []any{}, "usage": usage})
	}
	s.raw("[DONE]")
}

// writeGemini answers in the Gemini API's GenerateContentResponse shape
// (https://ai.google.dev/api/generate-content).
func writeGemini(w http.ResponseWriter, model string, t Turn, stream bool) {
	var parts []any
	if t.Text != "" {
		parts = append(parts, map[string]any{"text": t.Text})
	}
	for _, c := range t.Calls {
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": args}})
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		"modelVersion":  model,
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	newSSE(w).event("", resp)
}
