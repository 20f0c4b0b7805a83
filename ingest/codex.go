package ingest

// OpenAI Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl):
// one {"timestamp","type","payload"} record per line. Format reference:
// docs/formats/other.md.
//
// Readings taken:
//   - A turn starts at event_msg user_message. The role-user response_item
//     carries the same text plus injected context (environment, AGENTS.md),
//     so it only opens a turn in a file that has no user_message events
//     (older builds), and never when it is injected context.
//   - A request is a run of consecutive model items (reasoning, assistant
//     message, calls); a call output, a user message or a token_count ends it.
//   - token_count usage: last_token_usage when present, else the difference
//     of the cumulative total_token_usage (the total itself when it went
//     down: a resumed process restarts it); a repeated total (the CLI emits
//     it again at turn ends) adds nothing. Usage goes to the open request, else
//     to the latest request without usage, else to a request of its own (the
//     tokens were spent on a response this file does not hold).
//   - Unknown line types (newer builds add some) are skipped without a
//     problem: the session's notes count them by type.
//   - A session_meta whose source is an object (a spawned subagent thread)
//     makes the session a subagent scope: Agent is its id, Parent the
//     parent_thread_id found inside source.

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatCodex = "codex"

func init() {
	register(&Format{
		ID:         formatCodex,
		Family:     "codex",
		Reads:      "OpenAI Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).",
		Detection:  "JSONL whose first record has a payload and a type of session_meta, turn_context, response_item, event_msg or compacted.",
		Priority:   31,
		Sniff:      sniffCodex,
		ParseLines: parseCodex,
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			parseCodex(docLineReader(doc, h), h, out)
		},
	})
}

var codexTypes = map[string]bool{"session_meta": true, "turn_context": true, "response_item": true, "event_msg": true, "compacted": true}

func sniffCodex(h *Head) bool {
	return !h.Array && h.Has("type", "payload") && codexTypes[h.String("type")]
}

type codexLine struct {
	Timestamp string           `json:"timestamp"`
	Type      string           `json:"type"`
	Payload   jsonx.RawMessage `json:"payload"`
}

type codexTokens struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	CacheW    int64 `json:"cache_write_input_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_output_tokens"`
	Total     int64 `json:"total_tokens"`
}

func (t codexTokens) minus(o codexTokens) codexTokens {
	return codexTokens{t.Input - o.Input, t.Cached - o.Cached, t.CacheW - o.CacheW, t.Output - o.Output, t.Reasoning - o.Reasoning, t.Total - o.Total}
}

func (t codexTokens) usage() *Usage {
	return &Usage{Input: t.Input, Output: t.Output, CacheRead: t.Cached, CacheWrite: t.CacheW}
}

type codexReader struct {
	out          *Sink
	b            *sessionBuilder
	open         bool // a request is open (model items are being added to it)
	sawUserEvent bool
	lastUser     string
	turnFromItem bool
	compacted    bool
	prevTotal    *codexTokens
	unknown      map[string]int
	skipped      map[string]int
	usageOnly    int
}

func parseCodex(lr *LineReader, h *Head, out *Sink) {
	r := &codexReader{out: out, unknown: map[string]int{}, skipped: map[string]int{}}
	r.b = newSessionBuilder(&Session{Format: formatCodex})
	for {
		line, n, ok := lr.Next()
		if !ok {
			break
		}
		var l codexLine
		if err := jsonx.Unmarshal(line, &l); err != nil {
			if jsonx.Valid(line) {
				out.Problemf(n, "record is not a Codex rollout line (%s); skipped", strings.TrimPrefix(err.Error(), "json: "))
			} else {
				out.BadLine(lr, n, err)
			}
			continue
		}
		if r.b.s.Line == 0 {
			r.b.s.Line = n
		}
		r.line(l, n)
	}
	s := r.b.s
	if s.ID == "" {
		s.ID = fileStem(h.Name)
	}
	s.Notes = append(s.Notes, countNotes(r.unknown, "line(s) of unknown type %s skipped")...)
	s.Notes = append(s.Notes, countNotes(r.skipped, "%s item(s) not replayed (no call loopgate can replay)")...)
	if r.usageOnly > 0 {
		s.Notes = append(s.Notes, strconv.Itoa(r.usageOnly)+" token_count(s) with no response in this file kept as usage-only request(s)")
	}
	r.b.finish(out)
}

// countNotes words per-type counts as notes, sorted by type.
func countNotes(counts map[string]int, format string) []string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var notes []string
	for _, k := range keys {
		notes = append(notes, strconv.Itoa(counts[k])+" "+strings.Replace(format, "%s", k, 1))
	}
	return notes
}

type codexPayload struct {
	Type      string           `json:"type"`
	ID        string           `json:"id"`
	Model     string           `json:"model"`
	Source    jsonx.RawMessage `json:"source"`
	Role      string           `json:"role"`
	Content   jsonx.RawMessage `json:"content"`
	Message   jsonx.RawMessage `json:"message"`
	Name      string           `json:"name"`
	Arguments jsonx.RawMessage `json:"arguments"`
	Input     jsonx.RawMessage `json:"input"`
	CallID    string           `json:"call_id"`
	Output    jsonx.RawMessage `json:"output"`
	Success   *bool            `json:"success"`
	Action    jsonx.RawMessage `json:"action"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Info *struct {
		Total *codexTokens `json:"total_token_usage"`
		Last  *codexTokens `json:"last_token_usage"`
	} `json:"info"`
}

func (r *codexReader) line(l codexLine, n int) {
	t := parseTime(l.Timestamp)
	var p codexPayload
	if codexTypes[l.Type] {
		if err := jsonx.Unmarshal(l.Payload, &p); err != nil {
			r.out.Problemf(n, "%s payload is not readable (%s); skipped", l.Type, strings.TrimPrefix(err.Error(), "json: "))
			return
		}
	}
	s := r.b.s
	switch l.Type {
	case "session_meta":
		if s.ID == "" {
			s.ID = p.ID
		}
		if rawIsObject(p.Source) {
			if parent := findString(p.Source, "parent_thread_id", 0); parent != "" {
				s.Agent, s.Parent = p.ID, parent
			}
		}
	case "turn_context":
		if s.Model == "" {
			s.Model = p.Model
		}
	case "compacted":
		r.compaction()
	case "event_msg":
		r.event(p, n, t)
	case "response_item":
		r.item(p, n, t)
	default:
		r.unknown[l.Type]++
	}
}

func (r *codexReader) compaction() {
	r.compacted = true
	r.open = false
}

func (r *codexReader) userTurn(text string, n int, t time.Time) {
	r.b.turn(n, t, len(text))
	if r.compacted {
		r.b.s.Turns[len(r.b.s.Turns)-1].CompactedBefore = true
		r.compacted = false
	}
	r.lastUser = text
	r.open = false
}

// turnIsEmpty reports whether the current turn has no request yet.
func (r *codexReader) turnIsEmpty() bool {
	ts := r.b.s.Turns
	return len(ts) > 0 && len(ts[len(ts)-1].Requests) == 0
}

func (r *codexReader) event(p codexPayload, n int, t time.Time) {
	switch p.Type {
	case "user_message":
		var text string
		_ = jsonx.Unmarshal(p.Message, &text)
		r.sawUserEvent = true
		if r.turnFromItem && r.lastUser == text && r.turnIsEmpty() {
			// The response_item of this message came first and opened the turn.
			r.turnFromItem = false
			return
		}
		r.turnFromItem = false
		r.userTurn(text, n, t)
	case "context_compacted":
		r.compaction()
	case "token_count":
		r.tokens(p, n, t)
	}
}

// codexInjected tells context the CLI injects as role-user messages from
// what the user typed.
func codexInjected(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range []string{"<environment_context>", "<user_instructions>", "<INSTRUCTIONS>", "# AGENTS.md", "<permissions", "<user_shell_command>", "<turn_aborted>"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func (r *codexReader) modelRequest(n int, t time.Time) {
	if !r.open {
		r.b.request(n, t, 0, nil)
		r.open = true
	}
}

func (r *codexReader) item(p codexPayload, n int, t time.Time) {
	switch p.Type {
	case "message":
		text, _ := userText(p.Content)
		switch p.Role {
		case "user":
			r.open = false
			if r.sawUserEvent || codexInjected(text) || strings.TrimSpace(text) == "" {
				return
			}
			if r.lastUser == text && r.turnIsEmpty() {
				return // the user_message event already opened this turn
			}
			r.userTurn(text, n, t)
			r.turnFromItem = true
		case "assistant":
			r.modelRequest(n, t)
			r.b.lastRequest(n, t).TextChars += len(text)
		}
	case "reasoning":
		r.modelRequest(n, t)
		req := r.b.lastRequest(n, t)
		for _, s := range p.Summary {
			req.TextChars += len(s.Text)
		}
	case "function_call", "custom_tool_call", "local_shell_call":
		r.modelRequest(n, t)
		c := Call{ID: p.CallID, Tool: p.Name, Time: t, Line: n}
		switch p.Type {
		case "function_call":
			c.SetArgsField(p.Arguments)
		case "custom_tool_call":
			var s string
			_ = jsonx.Unmarshal(p.Input, &s)
			c.SetArgsValue(inputArgs(s))
		case "local_shell_call":
			c.Tool = "local_shell"
			c.SetArgsField(p.Action)
		}
		if c.ID == "" {
			r.out.Problemf(n, "%s %s has no call_id; its result cannot be joined", p.Type, p.Name)
		}
		r.b.call(c, r.out)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		r.open = false
		text, _ := contentText(p.Output)
		r.b.result(p.CallID, text, p.Success != nil && !*p.Success, n, t, r.out)
	case "compaction":
		r.compaction()
	default:
		r.skipped[p.Type]++
	}
}

func (r *codexReader) tokens(p codexPayload, n int, t time.Time) {
	if p.Info == nil || (p.Info.Total == nil && p.Info.Last == nil) {
		return // rate limits only
	}
	var u codexTokens
	switch {
	case p.Info.Total != nil && r.prevTotal != nil && *p.Info.Total == *r.prevTotal:
		return // the same total again: no new response
	case p.Info.Last != nil:
		u = *p.Info.Last
	case r.prevTotal != nil:
		u = p.Info.Total.minus(*r.prevTotal)
		if u.Input < 0 || u.Output < 0 || u.Cached < 0 {
			u = *p.Info.Total // the totals restarted (a resumed process)
		}
	default:
		u = *p.Info.Total
	}
	if p.Info.Total != nil {
		tot := *p.Info.Total
		r.prevTotal = &tot
	}
	var req *Request
	if r.open {
		req = r.b.lastRequest(n, t)
	} else if len(r.b.s.Turns) > 0 {
		tr := &r.b.s.Turns[len(r.b.s.Turns)-1]
		if k := len(tr.Requests); k > 0 && tr.Requests[k-1].Usage == nil {
			req = &tr.Requests[k-1]
		}
	}
	if req == nil {
		req = r.b.request(n, t, 0, nil)
		r.usageOnly++
	}
	req.Usage = u.usage()
	r.open = false
}

// findString finds the first string member named key anywhere in a JSON
// object (the subagent source's exact shape is not documented).
func findString(raw jsonx.RawMessage, key string, depth int) string {
	if depth > 8 {
		return ""
	}
	m := keysOf(raw)
	if m == nil {
		return ""
	}
	if s := firstString(m, key); s != "" {
		return s
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if s := findString(m[k], key, depth+1); s != "" {
			return s
		}
	}
	return ""
}
