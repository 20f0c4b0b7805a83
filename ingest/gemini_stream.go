package ingest

// Gemini CLI's headless output `gemini -p ... --output-format stream-json`
// (google-gemini/gemini-cli packages/core/src/output/types.ts, the
// JsonStreamEvent union, and packages/cli/src/nonInteractiveCli.ts, which
// emits them): one event per line, each with `type` and `timestamp`:
//   - init {session_id, model}: a run starts;
//   - message {role: user|assistant, content, delta}: the prompt, and the
//     model's text streamed in pieces (delta: true);
//   - tool_use {tool_name, tool_id, parameters}: a call the model asked for;
//   - tool_result {tool_id, status: success|error, output, error}: its
//     result, emitted after the response's calls have all run;
//   - error {severity, message}: a warning or error of the CLI's own (loop
//     detected, turns exhausted, invalid stream);
//   - result {status, error, stats}: the run ends; stats are the run's
//     token totals.
// Docs: docs/formats/gemini-stream-json.md.
//
// Readings taken:
//   - Each init opens a session (a capture may hold several runs); events
//     before the first init belong to the first session.
//   - A user message opens a turn. Every Gemini CLI event carries a
//     timestamp: a record without one was written by whoever captured the
//     output (a harness echoing its prompt), and is counted in a note, not
//     read.
//   - A request is the model's response to one round: the assistant text
//     and tool_use events from the prompt or the last tool_result up to the
//     next tool_result (the CLI runs a response's calls only once the
//     response has streamed).
//   - A tool_result's text is its output (the tool's resultDisplay, what
//     the CLI shows), else the error's message; status "error" marks it an
//     error.
//   - The result event's stats are the run's totals, not one request's: they
//     are kept as the usage of the session's last request (input_tokens
//     with the cache included, cached, and as output the rest of
//     total_tokens: output_tokens plus the thoughts).

import (
	"strings"
	"unicode/utf8"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatGeminiStream = "gemini-stream-json"

func init() {
	register(&Format{
		ID:         formatGeminiStream,
		Text:       true,
		Family:     "gemini",
		Reads:      "Gemini CLI headless output `--output-format stream-json`: init, message, tool_use, tool_result, error and result events, one per line.",
		Detection:  "First record's `type` is `init` (with `session_id`), `tool_use` (`tool_id`), `tool_result` (`tool_id`, `status`), `result` (`stats`) or `message` with a string `content` and a `timestamp` (or a capture's `ts`).",
		Priority:   26,
		Sniff:      sniffGeminiStream,
		ParseLines: parseGeminiStream,
	})
}

func sniffGeminiStream(h *Head) bool {
	if h.Array || h.Has("id") || h.Has("message") {
		return false
	}
	switch h.String("type") {
	case "init":
		return h.Has("session_id", "model")
	case "tool_use":
		return h.Has("tool_id", "tool_name")
	case "tool_result":
		return h.Has("tool_id", "status")
	case "result":
		return h.Has("status", "stats")
	case "message":
		c := h.Keys["content"]
		return h.Has("role") && len(c) > 0 && c[0] == '"' && (h.Has("timestamp") || h.Has("ts"))
	}
	return false
}

type geminiStreamEvent struct {
	Type       string           `json:"type"`
	Timestamp  string           `json:"timestamp"`
	SessionID  string           `json:"session_id"`
	Model      string           `json:"model"`
	Role       string           `json:"role"`
	Content    string           `json:"content"`
	ToolName   string           `json:"tool_name"`
	ToolID     string           `json:"tool_id"`
	Parameters jsonx.RawMessage `json:"parameters"`
	Status     string           `json:"status"`
	Output     *string          `json:"output"`
	Severity   string           `json:"severity"`
	Message    string           `json:"message"`
	Error      *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Stats *struct {
		TotalTokens  int64 `json:"total_tokens"`
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
		Cached       int64 `json:"cached"`
	} `json:"stats"`
}

// geminiStreamRun is one run (one init) being read.
type geminiStreamRun struct {
	s       *Session
	b       *convBuilder
	inited  bool
	open    bool // a request is open: the next text or tool_use joins it
	noStamp int  // records without a timestamp, skipped
	cliMsgs int  // error events
	ended   string
}

func parseGeminiStream(lr *LineReader, h *Head, out *Sink) {
	fallbackID := fileStem(h.Name)
	if dir := parentDirName(h.Path); dir != "" {
		fallbackID = dir
	}
	var run *geminiStreamRun
	// Records without a timestamp come before the run they belong to (a
	// capture's prompt before the init): they are counted in the next run.
	noStamp := 0
	start := func(n int) {
		s := &Session{Format: formatGeminiStream, ID: fallbackID, Line: n}
		run = &geminiStreamRun{s: s, b: newConvBuilder(s, out)}
	}
	finish := func() {
		if run == nil {
			return
		}
		run.b.finish()
		noteSkipped(run.s, run.noStamp, "record(s) without a timestamp (not Gemini CLI's own: a capture's) not read")
		noteSkipped(run.s, run.cliMsgs, "Gemini CLI error or warning event(s) (loop detected, turns exhausted, invalid stream) not read as messages")
		if run.ended != "" {
			run.s.Notes = append(run.s.Notes, run.ended)
		}
		out.Session(run.s)
		run = nil
	}
	eachJSONLine(lr, h, out, func(line []byte, n int) {
		var e geminiStreamEvent
		if err := jsonx.Unmarshal(line, &e); err != nil {
			out.Problemf(n, "not a Gemini CLI stream-json event: %s; skipped", decodeErr(err))
			return
		}
		if e.Timestamp == "" && e.Type != "init" {
			noStamp++
			return
		}
		if e.Type == "init" && (run == nil || run.inited) {
			finish()
			start(n)
		}
		if run == nil {
			start(n)
		}
		r := run
		r.noStamp += noStamp
		noStamp = 0
		t := isoTime(e.Timestamp)
		switch e.Type {
		case "init":
			r.inited = true
			r.s.Line = n
			if e.SessionID != "" {
				r.s.ID = e.SessionID
			}
			r.s.Model = e.Model
		case "message":
			switch e.Role {
			case "user":
				r.b.turn(n, t, len(e.Content))
				keepUserText(r.b.s, e.Content)
				r.open = false
			case "assistant":
				if !r.open {
					r.b.request(n, t, 0, nil)
					r.open = true
				}
				rq := r.b.lastRequest()
				rq.TextChars += len(e.Content)
				if out.KeepText {
					rq.addDelta(e.Content)
				}
			default:
				out.Problemf(n, "message with unknown role %q; skipped", e.Role)
			}
		case "tool_use":
			if !r.open {
				r.b.request(n, t, 0, nil)
				r.open = true
			}
			c := Call{ID: e.ToolID, Tool: e.ToolName, Line: n, Time: t}
			c.SetArgsField(e.Parameters)
			r.b.call(c)
		case "tool_result":
			r.open = false
			text := ""
			if e.Output != nil {
				text = *e.Output
			} else if e.Error != nil {
				text = e.Error.Message
			}
			r.b.result(e.ToolID, "", text, e.Status == "error", n, t)
		case "error":
			r.cliMsgs++
		case "result":
			r.open = false
			if e.Stats != nil {
				// total_tokens also counts the thoughts, which output_tokens
				// (candidates) leaves out: the output is the rest.
				out := e.Stats.OutputTokens
				if e.Stats.TotalTokens > e.Stats.InputTokens+out {
					out = e.Stats.TotalTokens - e.Stats.InputTokens
				}
				u := &Usage{Input: e.Stats.InputTokens, Output: out, CacheRead: e.Stats.Cached}
				if rq := geminiStreamLastRequest(r.s); rq != nil {
					rq.Usage = u
					r.s.Notes = append(r.s.Notes, "token usage is the run's total (the result event's stats), kept on its last request")
				} else {
					r.b.request(n, t, 0, u)
				}
			}
			if e.Status == "error" && e.Error != nil {
				r.ended = "the run ended with an error: " + firstLineOf(e.Error.Message)
			}
		default:
			out.Problemf(n, "event of unknown type %q; skipped", e.Type)
		}
	})
	if noStamp > 0 {
		if run == nil {
			start(0)
		}
		run.noStamp += noStamp
	}
	finish()
}

// geminiStreamLastRequest is the session's last request, or nil.
func geminiStreamLastRequest(s *Session) *Request {
	for i := len(s.Turns) - 1; i >= 0; i-- {
		if rs := s.Turns[i].Requests; len(rs) > 0 {
			return &rs[len(rs)-1]
		}
	}
	return nil
}

// firstLineOf is the first line of s, cut to 200 bytes.
func firstLineOf(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) <= 200 {
		return s
	}
	cut := 200
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
