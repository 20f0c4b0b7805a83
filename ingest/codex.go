package ingest

// OpenAI Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl):
// one {"timestamp","type","payload"} record per line. Format reference:
// docs/formats/other.md.
//
// Readings taken:
//   - A turn starts at event_msg user_message, as Codex itself rebuilds a
//     thread's turns from its rollout (codex-rs/app-server-protocol/src/
//     protocol/thread_history.rs: handle_user_message opens a turn, and
//     handle_response_item takes nothing from a role-user message but a
//     hook prompt). Role-user response_items are the model's input: the
//     typed text again, and injected context (AGENTS.md, environment). Only
//     in a file with no user_message event at all (older builds, whose
//     resume replayed the items) do they open turns, and never when they
//     are injected context. The file is read once, so a role-user item
//     opens a turn as it comes; finish folds those turns back into the one
//     before them when the file turns out to have user_message events.
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
//   - Only the file's first session_meta is the session's own: a rollout
//     starts with its thread's meta, and a later one is another thread's
//     (a forked or spawned thread's history, a resumed thread's meta
//     written again) embedded in it. Later ones relabel nothing; a note
//     counts them.

import (
	"bytes"
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
		Text:       true,
		Envelope:   codexEnvelope,
		HookResult: codexHookResult,
		Family:     "codex",
		Reads:      "OpenAI Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).",
		Detection:  "JSONL whose first record has a payload and a type of session_meta, turn_context, response_item, event_msg or compacted, or (older rollouts) is a meta line with id, timestamp and instructions.",
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
	return !h.Array && h.Has("type", "payload") && codexTypes[h.String("type")] || sniffCodexLegacy(h)
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
	// itemTurns are the indexes of the turns role-user items opened.
	itemTurns []int
	compacted bool
	prevTotal *codexTokens
	unknown   map[string]int
	skipped   map[string]int
	usageOnly int
	// metas counts the session_meta lines read (the first is the
	// session's own); metaTime is the first one's time.
	metas    int
	metaTime time.Time
}

func parseCodex(lr *LineReader, h *Head, out *Sink) {
	r := &codexReader{out: out, unknown: map[string]int{}, skipped: map[string]int{}}
	r.b = newSessionBuilder(&Session{Format: formatCodex}, callsHint(h.size))
	eachRecord(lr.Next, lr, h, decodeCodexRecord, func(lines *LineReader, line []byte, n int, rec *codexRecord) {
		if rec.err != nil {
			if rec.valid {
				out.Problemf(n, "record is not a Codex rollout line (%s); skipped", decodeText(rec.err))
			} else {
				out.BadLine(lines, n, rec.err)
			}
			return
		}
		if r.b.s.Line == 0 {
			r.b.s.Line = n
		}
		if rec.payloadErr != nil {
			out.Problemf(n, "%s payload is not readable (%s); skipped", rec.l.Type, strings.TrimPrefix(rec.payloadErr.Error(), "json: "))
			return
		}
		r.record(rec.l, rec.p, n)
	})
	s := r.b.s
	if s.ID == "" {
		s.ID = fileStem(h.Name)
	}
	if r.sawUserEvent {
		r.foldItemTurns()
	}
	s.Notes = append(s.Notes, countNotes(r.unknown, "line(s) of unknown type %s skipped")...)
	s.Notes = append(s.Notes, countNotes(r.skipped, "%s item(s) not replayed (no call loopgate can replay)")...)
	if r.usageOnly > 0 {
		s.Notes = append(s.Notes, strconv.Itoa(r.usageOnly)+" token_count(s) with no response in this file kept as usage-only request(s)")
	}
	if r.metas > 1 {
		s.Notes = append(s.Notes, strconv.Itoa(r.metas-1)+" later session_meta line(s) of other threads embedded in the file; the first one names the session")
	}
	// An older rollout's lines have no time: its meta's time starts the
	// session.
	if len(s.Turns) > 0 && s.Turns[0].Time.IsZero() {
		s.Turns[0].Time = r.metaTime
	}
	s.Time = r.metaTime
	r.b.finish(out)
}

// codexRecord is a line decoded (decodeCodexRecord), before the reader
// applies it: decoding needs nothing of the lines before, so it may run
// ahead of the reader on other cores (eachRecord).
type codexRecord struct {
	l codexLine
	p codexPayload
	// err is why neither reading could decode the line (valid: the line
	// is JSON all the same); payloadErr why its payload could not be.
	err, payloadErr error
	valid           bool
}

// decodeCodexRecord decodes a line in one pass (decodeCodexLine), else
// generically (codexDecodeGeneric).
func decodeCodexRecord(_ *LineReader, line []byte, _ int, rec *codexRecord) {
	rec.err, rec.payloadErr, rec.valid = nil, nil, false
	if decodeCodexLine(line, &rec.l, &rec.p) {
		return
	}
	if rec.err, rec.payloadErr = codexDecodeGeneric(line, &rec.l, &rec.p); rec.err != nil {
		rec.valid = jsonx.Valid(line)
		return
	}
	if newer := codexLegacyLine(line, &rec.l); newer != nil {
		decodeCodexRecord(nil, newer, 0, rec)
	}
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
	Namespace string           `json:"namespace"`
	Arguments jsonx.RawMessage `json:"arguments"`
	Input     jsonx.RawMessage `json:"input"`
	CallID    string           `json:"call_id"`
	Output    jsonx.RawMessage `json:"output"`
	Success   *bool            `json:"success"`
	Action    jsonx.RawMessage `json:"action"`
	// Tools is a tool_search_output's list of the tools found, its result.
	Tools jsonx.RawMessage `json:"tools"`
	// Timestamp is a session_meta's own time (SessionMeta's timestamp in
	// codex-rs/protocol/src/protocol.rs; rollouts of Codex 0.104 carry it
	// beside the line's), the session's time when its line has none.
	Timestamp string `json:"timestamp"`
	// Summary is a reasoning item's list of summary parts, kept raw and
	// read only for those items (codexSummaryChars): turn_context
	// payloads carry a summary member too, the reasoning summary setting,
	// a string ("auto"), and a list type here made every one of them
	// unreadable.
	Summary jsonx.RawMessage `json:"summary"`
	Info    *codexInfo       `json:"info"`

	// What record reads, decoded by decodeAt where the members lie, or
	// from the raw members above by the generic decoding (decoded): text
	// is userText of content, output contentText of output, and input and
	// message the strings Unmarshal makes of those members (else "").
	text, output, input, message string
	// args is the arguments string; argsRaw, when args is nil, the
	// arguments member of another kind (nil for null or absent), for
	// Call.SetArgsField.
	args    *string
	argsRaw jsonx.RawMessage
}

// codexInfo names the type of Info for the one-pass reading. It is an alias
// of an unnamed struct type, not a type of its own, because Unmarshal's
// errors, which problems quote, spell out the type of the member at fault.
type codexInfo = struct {
	Total *codexTokens `json:"total_token_usage"`
	Last  *codexTokens `json:"last_token_usage"`
}

// codexDecodeGeneric is the generic decoding of a line decodeCodexLine
// declines (a repeated, escaped or case-folded key, a member of another
// type, no payload object): Unmarshal into l, then, when the type has one,
// of its payload into p, into what decodeCodexLine makes of them. lineErr
// is the line's error, payloadErr the payload's; their texts word the
// problems.
func codexDecodeGeneric(line []byte, l *codexLine, p *codexPayload) (lineErr, payloadErr error) {
	*l, *p = codexLine{}, codexPayload{}
	if err := jsonx.Unmarshal(line, l); err != nil {
		return err, nil
	}
	if !codexTypes[l.Type] {
		return nil, nil
	}
	if err := jsonx.Unmarshal(l.Payload, p); err != nil {
		return nil, err
	}
	p.text, _ = userText(p.Content)
	p.output, _ = contentText(p.Output)
	_ = jsonx.Unmarshal(p.Input, &p.input)
	_ = jsonx.Unmarshal(p.Message, &p.message)
	p.argsRaw = p.Arguments
	return nil, nil
}

// record reads a line whose payload is decoded.
func (r *codexReader) record(l codexLine, p codexPayload, n int) {
	t := parseTime(l.Timestamp)
	s := r.b.s
	switch l.Type {
	case "session_meta":
		r.metas++
		if r.metas > 1 {
			return
		}
		r.metaTime = t
		if t.IsZero() {
			r.metaTime = parseTime(p.Timestamp)
		}
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
	case codexLegacyState:
		// An older rollout's state line: nothing of the conversation.
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
	r.b.s.Turns[len(r.b.s.Turns)-1].UserText = text
	if r.compacted {
		r.b.s.Turns[len(r.b.s.Turns)-1].CompactedBefore = true
		r.compacted = false
	}
	r.open = false
}

// foldItemTurns undoes the turns role-user items opened, in a file that has
// user_message events: each one's requests go to the turn before it (a
// leading one becomes the turn of calls made before any user message, or
// goes when it has none), and its compaction mark to the turn after it. It
// runs once the file is read: the callRefs that join results index turns.
func (r *codexReader) foldItemTurns() {
	if len(r.itemTurns) == 0 {
		return
	}
	fold := map[int]bool{}
	for _, i := range r.itemTurns {
		fold[i] = true
	}
	var kept []Turn
	compacted := false
	for i, t := range r.b.s.Turns {
		switch {
		case !fold[i]:
			t.CompactedBefore = t.CompactedBefore || compacted
			compacted = false
			kept = append(kept, t)
		case len(kept) > 0:
			kept[len(kept)-1].Requests = append(kept[len(kept)-1].Requests, t.Requests...)
			compacted = compacted || t.CompactedBefore
		case len(t.Requests) > 0:
			kept = append(kept, Turn{Requests: t.Requests, CompactedBefore: t.CompactedBefore})
		default:
			compacted = compacted || t.CompactedBefore
		}
	}
	r.b.s.Turns = kept
}

func (r *codexReader) event(p codexPayload, n int, t time.Time) {
	switch p.Type {
	case "user_message":
		r.sawUserEvent = true
		r.userTurn(p.message, n, t)
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
		text := p.text
		switch p.Role {
		case "user":
			r.open = false
			if r.sawUserEvent || codexInjected(text) || strings.TrimSpace(text) == "" {
				return
			}
			r.userTurn(text, n, t)
			r.itemTurns = append(r.itemTurns, len(r.b.s.Turns)-1)
		case "assistant":
			r.modelRequest(n, t)
			req := r.b.lastRequest(n, t)
			req.TextChars += len(text)
			if r.out.KeepText {
				req.addText(text)
			}
		}
	case "reasoning":
		r.modelRequest(n, t)
		chars, ok := codexSummaryChars(p.Summary)
		if !ok {
			r.out.Problemf(n, "reasoning summary is not a list of text parts; its text is not counted")
		}
		r.b.lastRequest(n, t).TextChars += chars
	case "function_call", "custom_tool_call", "local_shell_call":
		r.modelRequest(n, t)
		c := Call{ID: p.CallID, Tool: CodexToolName(p.Namespace, p.Name), Time: t, Line: n}
		switch p.Type {
		case "function_call":
			if p.args != nil {
				c.SetArgs(*p.args)
			} else {
				c.SetArgsField(p.argsRaw) // null or absent: no arguments
			}
		case "custom_tool_call":
			c.SetArgsValue(inputArgs(p.input))
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
		text := p.output
		failed := p.Success != nil && !*p.Success
		// A shell command that exited non-zero: Codex records it with no
		// success flag, the exit code in the output's header (or, in the
		// structured output of older builds, in its metadata). The code
		// is kept beside the result too: the hook, which gets the output
		// alone, reads it from the rollout (Call.ExitCode).
		exit := codexExitCode(text)
		if exit != 0 || strings.HasPrefix(text, codexPatchRejected) {
			failed = true
		}
		if c := r.b.result(p.CallID, text, failed, n, t, r.out); c != nil {
			c.ExitCode = int32(exit)
			if !failed && !strings.HasPrefix(c.Tool, "mcp__") && codexToolFailure(text) {
				c.IsError = true
			}
		}
	case "tool_search_call":
		// The model's search of the tools Codex defers (MCP and app tools
		// whose definitions it sends only when found), run by Codex
		// ("execution": "client") and answered by a tool_search_output of
		// the same call_id, whose result is the list of tools found
		// (ResponseItem::ToolSearchCall and ToolSearchOutput,
		// codex-rs/protocol/src/models.rs). Its arguments are an object.
		r.modelRequest(n, t)
		c := Call{ID: p.CallID, Tool: codexToolSearch, Time: t, Line: n}
		if p.args != nil {
			c.SetArgs(*p.args)
		} else {
			c.SetArgsField(p.argsRaw)
		}
		if c.ID == "" {
			r.out.Problemf(n, "tool_search_call has no call_id; its result cannot be joined")
		}
		r.b.call(c, r.out)
	case "tool_search_output":
		r.open = false
		r.b.result(p.CallID, string(p.Tools), false, n, t, r.out)
	case "compaction":
		r.compaction()
	default:
		r.skipped[p.Type]++
	}
}

// codexHistory reports whether a file's first record is a line of Codex's
// prompt history, ~/.codex/history.jsonl ({"session_id", "ts", "text"}:
// codex-rs/core/src/message_history.rs, HistoryEntry): the prompts typed,
// no transcript, which a walk of ~/.codex does not enter (it reads
// sessions/) but a file named on the command line may be.
func codexHistory(h *Head) bool {
	return !h.Array && len(h.Keys) == 3 && h.Has("session_id", "ts", "text")
}

// codexPatchRejected begins the result of an apply_patch call whose patch
// does not apply: Codex answers the model with an error
// (codex-rs/core/src/tools/handlers/apply_patch.rs,
// MaybeApplyPatchVerified::CorrectnessError ->
// FunctionCallError::RespondToModel("apply_patch verification failed:
// ..."); the rollout keeps the text alone, without the success flag.
const codexPatchRejected = "apply_patch verification failed: "

// codexToolSearch names a tool_search_call: the name Codex gives the tool
// (TOOL_SEARCH_TOOL_NAME, openai/codex codex-rs/tools/src/tool_discovery.rs).
const codexToolSearch = "tool_search"

// codexFailurePrefixes begin the answers Codex gives the model in place of
// a tool's output when its own handling of the call fails: an error
// returned as FunctionCallError::RespondToModel, which the rollout keeps as
// the output text alone (FunctionCallOutputPayload does not write its
// success flag). A tool's real output never begins so: exec_command's and
// write_stdin's begin "Chunk ID:", "Wall time:" or "Command:", the shell
// tools' "Exit code:" or {"output":...}, apply_patch's likewise. In
// openai/codex:
//   - "exec_command failed: " and "write_stdin failed: " (the process could
//     not start: sandbox denial, rejected approval; stdin closed):
//     codex-rs/core/src/tools/handlers/unified_exec.rs at 010d3e62; later
//     "exec_command failed for `CMD`: " (handlers/unified_exec/
//     exec_command.rs);
//   - "exec command rejected" (the user declined; "exec command rejected by
//     user"), "patch rejected" and "execution error: " (ToolError::Codex):
//     codex-rs/core/src/tools/events.rs, ToolEmitter::finish;
//   - "failed in sandbox " (older builds' sandbox denial under approval
//     policy never or on-request: codex-rs/core/src/codex.rs,
//     handle_sandbox_error);
//   - "failed to parse function arguments: ": handlers/mod.rs,
//     parse_arguments;
//   - "approval policy is ": a request for escalated permissions the
//     policy forbids ("...; reject command — ..."), unified_exec.rs;
//   - "aborted by user after " and "Wall time: S seconds\naborted by user":
//     a call the user interrupted (codex-rs/core/src/tools/parallel.rs,
//     abort_message);
//   - "request_user_input is unavailable in ": the tool called in a mode
//     that has none (request_user_input_unavailable_message);
//   - "Script failed\nWall time ": a code-mode script (the exec tool's
//     JavaScript, or the wait for it) that ended in an error, which Codex
//     answers with success false (codex-rs/core/src/tools/code_mode/mod.rs
//     at 066f172c, format_script_status and prepend_script_status; its
//     other states, "Script completed", "Script running with cell ID N"
//     and "Script terminated", are successes there).
var codexFailurePrefixes = []string{
	"exec_command failed",
	"write_stdin failed: ",
	"exec command rejected",
	"patch rejected",
	"execution error: ",
	"failed in sandbox ",
	"failed to parse function arguments: ",
	"approval policy is ",
	"aborted by user after ",
	"request_user_input is unavailable in ",
	"Script failed\nWall time ",
}

// codexToolFailure reports whether a Codex result is one of the answers
// Codex gives when its own handling of a call fails (codexFailurePrefixes),
// an interrupted shell call, or a command its exec policy forbids
// ("`CMD` rejected: REASON", codex-rs/core/src/exec_policy.rs): the call
// did not do what it asked.
func codexToolFailure(text string) bool {
	for _, p := range codexFailurePrefixes {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	if rest, ok := strings.CutPrefix(text, "Wall time: "); ok {
		head, tail, _ := strings.Cut(rest, "\n")
		return strings.HasSuffix(head, " seconds") && tail == "aborted by user"
	}
	if strings.HasPrefix(text, "`") {
		// The command may span lines (a here-document).
		return strings.Contains(text[1:], "` rejected: ")
	}
	return false
}

// CodexToolName is the name the model called a Codex tool by, from a
// function call's name and namespace: newer rollouts write an MCP tool's
// call as its namespace ("mcp__SERVER__", or "mcp__SERVER") beside its own
// name, where the model sees one flat name. Codex joins the two as
// ToolName::canonical_flat_name does (openai/codex
// codex-rs/protocol/src/tool_name.rs at 9b1033c4): the namespace without
// trailing _, "__", the name without leading _; and its hooks name an MCP
// call the same way, mcp__ prefixed when missing (McpHandler's
// hook_tool_name, codex-rs/core/src/tools/handlers/mcp.rs at 1dfb3660),
// so replay and the live hook key and class it alike. No namespace, an
// empty one, or "functions" (the namespace of Codex's top-level tools,
// DEFAULT_FUNCTION_NAMESPACE in later versions of tool_name.rs): the name
// alone.
func CodexToolName(namespace, name string) string {
	if namespace == "" || namespace == "functions" {
		return name
	}
	return strings.TrimRight(namespace, "_") + "__" + strings.TrimLeft(name, "_")
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
	if u.Input < 0 || u.Output < 0 || u.Cached < 0 || u.CacheW < 0 {
		// A negative count as written (a difference of totals that went
		// down was taken whole above): a problem, not usage.
		r.out.Problemf(n, "token usage holds a negative count (input %d, output %d, cached %d, cache write %d); the record's usage is not counted", u.Input, u.Output, u.Cached, u.CacheW)
		return
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

// decodeCodexLine reads line into l and p as codexDecodeGeneric would, in
// one pass: the payload is read where it lies (codexPayload.decodeAt). It
// reads the payload of any type, which the generic decoding leaves
// undecoded for an unknown type; record does not look at it then. false
// (a line that is not an object, has no payload or a payload that is not
// an object, or anything jsonx.DecodeObjectNested declines) leaves the
// line to codexDecodeGeneric, which words the problem; l and p may be
// partly written.
func decodeCodexLine(line []byte, l *codexLine, p *codexPayload) bool {
	*l, *p = codexLine{}, codexPayload{}
	read := false
	fields := [...]jsonx.Field{
		{Name: "timestamp", Str: &l.Timestamp},
		{Name: "type", Str: &l.Type},
	}
	nested := [...]jsonx.Nested{{Name: "payload", Read: func(data []byte, pos, depth int) (int, bool) {
		read = true
		return p.decodeAt(data, pos, depth)
	}}}
	end, ok := jsonx.DecodeObjectNested(line, 0, 0, fields[:], nested[:])
	return ok && read && jsonx.AtEnd(line, end)
}

// decodeAt reads the payload object at data[pos], depth levels deep, into
// p (zero) as Unmarshal would, but for content, output, input, message and
// arguments, which it decodes into what record reads (text, output, ...)
// instead of keeping them raw, whatever their kind. A string member is
// read as a string rather than a pointer: the decoder declines a repeated
// member, so null leaves the "" that Unmarshal leaves. Source and action,
// rare, are kept raw as copies.
func (p *codexPayload) decodeAt(data []byte, pos, depth int) (end int, ok bool) {
	// The common members first: a key is looked up in order.
	fields := [...]jsonx.Field{
		{Name: "type", Str: &p.Type},
		{Name: "call_id", Str: &p.CallID},
		{Name: "name", Str: &p.Name},
		{Name: "namespace", Str: &p.Namespace},
		{Name: "role", Str: &p.Role},
		{Name: "success", BoolPtr: &p.Success},
		{Name: "id", Str: &p.ID},
		{Name: "model", Str: &p.Model},
		{Name: "source", Raw: &p.Source},
		{Name: "action", Raw: &p.Action},
		{Name: "timestamp", Str: &p.Timestamp},
		// Read by record before the next line, as the line's other views.
		{Name: "summary", Raw: &p.Summary, View: true},
		{Name: "tools", Raw: &p.Tools, View: true},
	}
	nested := [...]jsonx.Nested{
		{Name: "arguments", Read: p.argumentsAt},
		{Name: "message", Read: codexStringAt(&p.message)},
		{Name: "input", Read: codexStringAt(&p.input)},
		{Name: "output", Read: codexTextAt(&p.output, true)},
		{Name: "content", Read: codexTextAt(&p.text, false)},
		{Name: "info", Read: p.infoAt},
	}
	return jsonx.DecodeObjectNested(data, pos, depth, fields[:], nested[:])
}

// argumentsAt reads the arguments member: a string into args, another
// value (null aside) into argsRaw, a view of the line.
func (p *codexPayload) argumentsAt(data []byte, pos, depth int) (int, bool) {
	s, raw, isString, end, ok := jsonx.StringOrValueAt(data, pos, depth)
	switch {
	case !ok:
		return 0, false
	case isString:
		p.args = &s
	case data[pos] != 'n':
		p.argsRaw = raw
	}
	return end, true
}

// codexStringAt returns the reading of a member that *s takes when it is a
// string, as Unmarshal into a string would (another kind leaves "").
func codexStringAt(dst *string) func(data []byte, pos, depth int) (int, bool) {
	return func(data []byte, pos, depth int) (int, bool) {
		s, raw, isString, end, ok := jsonx.StringOrValueAt(data, pos, depth)
		if !ok {
			return 0, false
		}
		if isString {
			*dst = s
		} else {
			_ = jsonx.Unmarshal(raw, dst)
		}
		return end, true
	}
}

// codexTextAt returns the reading of a content or output member at
// data[pos] that sets *text to what contentTextOf (with placeholders or
// not) gives for it, in the same pass when it is a string or a list of
// parts (nearly always). Anything else, and a string or list those
// readings decline, is skipped and handed to contentTextOf as it stands,
// as the generic decoding hands it.
func codexTextAt(text *string, placeholders bool) func(data []byte, pos, depth int) (int, bool) {
	return func(data []byte, pos, depth int) (int, bool) {
		switch data[pos] {
		case '"':
			if s, end, ok := jsonx.DecodeStringAt(data, pos); ok {
				*text = s
				return end, true
			}
		case '[':
			if s, end, ok := codexPartsText(data, pos, depth, placeholders); ok {
				*text = s
				return end, true
			}
		}
		_, end, ok := jsonx.SkipValue(data, pos, depth)
		if !ok {
			return 0, false
		}
		*text, _ = contentTextOf(data[pos:end], placeholders)
		return end, true
	}
}

// codexPartsText is contentTextOf of the list of parts at data[pos], read
// in one pass: each part as Unmarshal reads it into contentTextOf's part
// struct, the texts joined as contentTextOf joins them. It declines any
// part DecodeObjectNested declines (null, an object with a member of
// another type, ...): contentTextOf then reads the whole list.
func codexPartsText(data []byte, pos, depth int, placeholders bool) (string, int, bool) {
	var b strings.Builder
	end, ok := jsonx.DecodeArrayEach(data, pos, depth, func(data []byte, pos, depth int) (int, bool) {
		var typ string
		var text *string
		var nested jsonx.RawMessage
		fields := [...]jsonx.Field{
			{Name: "type", Str: &typ},
			{Name: "text", Ptr: &text},
			{Name: "content", Raw: &nested, View: true},
		}
		end, ok := jsonx.DecodeObjectNested(data, pos, depth, fields[:], nil)
		if !ok {
			return 0, false
		}
		var t string
		switch {
		case text != nil:
			t = *text
		case nested != nil:
			t, _ = contentTextOf(nested, placeholders)
		case placeholders:
			t = "[" + typ + "]"
		default:
			return end, true
		}
		// As contentTextOf: a newline only after some text.
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t)
		return end, true
	})
	return b.String(), end, ok
}

// codexSummaryChars is the length of the text of a reasoning summary: a
// list of parts ({"type": "summary_text", "text": ...}), read where it
// lies when it can be, else by Unmarshal. Null or absent is no text; ok
// is false for anything that is not a list of parts.
func codexSummaryChars(raw jsonx.RawMessage) (chars int, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, true
	}
	end, ok := jsonx.DecodeArrayEach(raw, 0, 0, func(data []byte, pos, depth int) (int, bool) {
		var text string
		fields := [...]jsonx.Field{{Name: "text", Str: &text}}
		end, ok := jsonx.DecodeObjectNested(data, pos, depth, fields[:], nil)
		chars += len(text)
		return end, ok
	})
	if ok && jsonx.AtEnd(raw, end) {
		return chars, true
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if jsonx.Unmarshal(raw, &parts) != nil {
		return 0, false
	}
	chars = 0
	for _, p := range parts {
		chars += len(p.Text)
	}
	return chars, true
}

// infoAt reads a token_count's info object into p.Info; null leaves it
// nil, as Unmarshal does.
func (p *codexPayload) infoAt(data []byte, pos, depth int) (int, bool) {
	if data[pos] == 'n' {
		_, end, ok := jsonx.SkipValue(data, pos, depth)
		return end, ok
	}
	info := &codexInfo{}
	nested := [...]jsonx.Nested{
		{Name: "total_token_usage", Read: codexTokensAt(&info.Total)},
		{Name: "last_token_usage", Read: codexTokensAt(&info.Last)},
	}
	p.Info = info
	return jsonx.DecodeObjectNested(data, pos, depth, nil, nested[:])
}

// codexTokensAt returns the reading of a token usage object into *t: a new
// codexTokens, or nil for null, as Unmarshal into the pointer gives.
func codexTokensAt(t **codexTokens) func(data []byte, pos, depth int) (int, bool) {
	return func(data []byte, pos, depth int) (int, bool) {
		if data[pos] == 'n' {
			_, end, ok := jsonx.SkipValue(data, pos, depth)
			return end, ok
		}
		u := &codexTokens{}
		fields := [...]jsonx.Field{
			{Name: "input_tokens", Int: &u.Input},
			{Name: "cached_input_tokens", Int: &u.Cached},
			{Name: "cache_write_input_tokens", Int: &u.CacheW},
			{Name: "output_tokens", Int: &u.Output},
			{Name: "reasoning_output_tokens", Int: &u.Reasoning},
			{Name: "total_tokens", Int: &u.Total},
		}
		*t = u
		return jsonx.DecodeObjectNested(data, pos, depth, fields[:], nil)
	}
}
