package corpusgen

import (
	"math/rand/v2"
	"time"
)

// Writers for two coding agents' own session files: Claude Code
// (~/.claude/projects/<encoded cwd>/<sessionId>.jsonl, formats-other.md)
// and the OpenAI Codex CLI (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).
// Both hold one session per file.
//
// Their sessions are built with the OpenAI harness's tools (plain-text
// results) and then renamed to the agent's own tools and argument schemas
// (claudeCodeTool, codexTool) before they are written. The renaming is
// one to one, so calls that were the same stay the same and calls that
// differed still differ; the ground truth is worked out after it
// (number), on the calls as written.

// isoMillis is the timestamp both agents write: UTC, milliseconds, "Z".
func isoMillis(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000Z")
}

// uuid4 is a random version-4 UUID in its text form.
func uuid4(r *rand.Rand) string {
	const hex = "0123456789abcdef"
	b := []byte(randString(r, hex, 32))
	b[12] = '4'
	b[16] = "89ab"[r.IntN(4)]
	return string(b[0:8]) + "-" + string(b[8:12]) + "-" + string(b[12:16]) + "-" + string(b[16:20]) + "-" + string(b[20:32])
}

// renameCalls gives every call of s the name and arguments rename returns.
func renameCalls(s *session, rename func(c *call)) {
	for _, t := range s.turns {
		for _, st := range t.steps {
			for _, c := range st.calls {
				rename(c)
			}
		}
	}
}

// argString is the string member k of args ("" when absent).
func argString(args []kv, k string) string {
	for _, m := range args {
		if m.k == k {
			if s, ok := m.v.(string); ok {
				return s
			}
		}
	}
	return ""
}

// claudeCodeTool renames an OpenAI-harness call to Claude Code's tools.
func claudeCodeTool(c *call) {
	a := c.args
	switch c.tool {
	case "read_file":
		c.tool, c.args = "Read", []kv{{"file_path", "/home/dev/project/" + argString(a, "path")}}
	case "grep":
		c.tool, c.args = "Grep", []kv{{"pattern", argString(a, "pattern")}, {"path", argString(a, "path")}, {"output_mode", "content"}}
	case "bash":
		c.tool, c.args = "Bash", []kv{{"command", argString(a, "command")}}
	case "write_file":
		c.tool, c.args = "Write", []kv{{"file_path", "/home/dev/project/" + argString(a, "path")}, {"content", argString(a, "content")}}
	case "web_search":
		c.tool, c.args = "WebSearch", []kv{{"query", argString(a, "query")}}
	case "web_fetch":
		c.tool, c.args = "WebFetch", []kv{{"url", argString(a, "url")}, {"prompt", "Summarize what this page says about the question."}}
	case "job_start":
		c.tool, c.args = "Bash", []kv{{"command", argString(a, "command")}, {"run_in_background", true}}
	case "job_get_result":
		c.tool, c.args = "BashOutput", []kv{{"bash_id", argString(a, "job_id")}}
	}
}

// codexTool renames an OpenAI-harness call to the Codex CLI's tools: shell
// commands through exec_command (reads with sed, searches with rg), polls
// through write_stdin, writes through apply_patch. web_search and
// web_fetch stay function tools of their own (an MCP server's, say): a
// query or address folded into a curl command line would no longer differ
// from a repeat only by case and surrounding white space (Loop.Folded).
func codexTool(c *call) {
	a := c.args
	switch c.tool {
	case "read_file":
		c.tool, c.args = "exec_command", []kv{{"cmd", "sed -n '1,400p' " + argString(a, "path")}}
	case "grep":
		c.tool, c.args = "exec_command", []kv{{"cmd", "rg -n '" + argString(a, "pattern") + "' " + argString(a, "path")}}
	case "bash":
		c.tool, c.args = "exec_command", []kv{{"cmd", argString(a, "command")}}
	case "write_file":
		c.tool, c.args = "apply_patch", []kv{{"input", "*** Begin Patch\n*** Add File: " + argString(a, "path") + "\n+" + argString(a, "content") + "\n*** End Patch"}}
	case "job_start":
		c.tool, c.args = "exec_command", []kv{{"cmd", argString(a, "command")}, {"yield_time_ms", 1000}}
	case "job_get_result":
		c.tool, c.args = "write_stdin", []kv{{"session_id", argString(a, "job_id")}, {"chars", ""}, {"yield_time_ms", 15000}}
	}
}

type claudeCodeWriter struct {
	r   *rand.Rand
	cwd string
}

// session writes one Claude Code session: a user record per prompt, one
// assistant record per content block (thinking, text, tool_use) sharing the
// response's message id and request id, as Claude Code streams them, and a
// user record per tool_result. Records chain by uuid/parentUuid.
func (w *claudeCodeWriter) session(lw *lineWriter, s *session) []written {
	renameCalls(s, claudeCodeTool)
	parent := ""
	at := s.start
	line := func(typ string, ts int64, body func()) {
		u := uuid4(w.r)
		lw.raw(`{"parentUuid":`)
		if parent == "" {
			lw.raw("null")
		} else {
			lw.str(parent)
		}
		lw.raw(`,"isSidechain":false,"userType":"external","cwd":`)
		lw.str(w.cwd)
		lw.raw(`,"sessionId":`)
		lw.str(s.id)
		lw.raw(`,"version":"2.1.3","type":`)
		lw.str(typ)
		body()
		lw.raw(`,"uuid":`)
		lw.str(u)
		lw.raw(`,"timestamp":`)
		lw.str(isoMillis(ts))
		lw.raw("}\n")
		parent = u
	}
	tick := func() int64 { at += int64(200_000 + w.r.IntN(3_000_000)); return at }
	// The prompt grows as a real one does (ccPrompt): each response's usage
	// is drawn once and every record of the response carries it.
	prompt := newCCPrompt(w.r)
	var u ccUsage
	assistant := func(msgID, reqID, stop string, block func()) {
		line("assistant", tick(), func() {
			lw.raw(`,"requestId":`)
			lw.str(reqID)
			lw.raw(`,"message":{"id":`)
			lw.str(msgID)
			lw.raw(`,"type":"message","role":"assistant","model":`)
			lw.str(s.model)
			lw.raw(`,"content":[`)
			block()
			lw.raw(`],"stop_reason":`)
			if stop == "" {
				lw.raw("null")
			} else {
				lw.str(stop)
			}
			lw.raw(`,"usage":{"input_tokens":`)
			lw.raw(itoa(u.input))
			lw.raw(`,"cache_creation_input_tokens":`)
			lw.raw(itoa(u.cacheWrite))
			lw.raw(`,"cache_read_input_tokens":`)
			lw.raw(itoa(u.cacheRead))
			lw.raw(`,"output_tokens":`)
			out := u.output
			if stop == "" && u.partialOutput > 0 {
				out = u.partialOutput
			}
			lw.raw(itoa(out))
			lw.raw("}}")
		})
	}
	for _, t := range s.turns {
		at = t.at
		prompt.add(len(t.user))
		line("user", at, func() {
			lw.raw(`,"message":{"role":"user","content":`)
			lw.str(t.user)
			lw.raw("}")
		})
		for _, st := range t.steps {
			msgID := "msg_01" + randString(w.r, alnum, 22)
			reqID := "req_011C" + randString(w.r, alnum, 20)
			written := len(st.reasoning) + len(st.text)
			records := len(st.calls)
			for _, c := range st.calls {
				written += len(c.tool) + len(objString(c.args, false))
			}
			if st.reasoning != "" {
				records++
			}
			if st.text != "" {
				records++
			}
			u = prompt.response(written, records > 1)
			if st.reasoning != "" {
				assistant(msgID, reqID, "", func() {
					lw.raw(`{"type":"thinking","thinking":`)
					lw.str(st.reasoning)
					lw.raw(`,"signature":`)
					lw.str(randString(w.r, alnum, 40))
					lw.raw("}")
				})
			}
			if st.text != "" {
				assistant(msgID, reqID, "", func() {
					lw.raw(`{"type":"text","text":`)
					lw.str(st.text)
					lw.raw("}")
				})
			}
			for i, c := range st.calls {
				if c.id == "" {
					c.id = "toolu_01" + randString(w.r, alnum, 22)
				}
				stop := ""
				if i == len(st.calls)-1 {
					stop = "tool_use"
				}
				assistant(msgID, reqID, stop, func() {
					lw.raw(`{"type":"tool_use","id":`)
					lw.str(c.id)
					lw.raw(`,"name":`)
					lw.str(c.tool)
					lw.raw(`,"input":`)
					lw.val(c.args, false)
					lw.raw("}")
				})
			}
			for _, c := range st.calls {
				prompt.add(len(c.result))
				line("user", tick(), func() {
					lw.raw(`,"message":{"role":"user","content":[{"tool_use_id":`)
					lw.str(c.id)
					lw.raw(`,"type":"tool_result","content":`)
					lw.str(c.result)
					if c.isErr {
						lw.raw(`,"is_error":true`)
					}
					lw.raw("}]}")
				})
			}
		}
		u = prompt.response(len(t.final), false)
		assistant("msg_01"+randString(w.r, alnum, 22), "req_011C"+randString(w.r, alnum, 20), "end_turn", func() {
			lw.raw(`{"type":"text","text":`)
			lw.str(t.final)
			lw.raw("}")
		})
	}
	return []written{{s: s, id: s.id, line: 1}}
}

// ccPrompt follows the size of a Claude Code session's prompt, in tokens,
// so that the usage the generated records carry tells the same story as a
// real session's: the next response's prompt is this one's plus its output
// plus the text added in between (results, the next prompt), which is what
// loopgate's calibration reads (analyze/calibrate.go). Usage drawn per
// record, as before, made the prompt jump at random: 1,021 of 1,022
// generated sessions had their usage rejected as implausible.
type ccPrompt struct {
	r      *rand.Rand
	tokens int // the prompt as the next response will see it
	cached int // the prefix the last response cached
	// bytesPerToken is the session's tokenizer ratio, drawn once.
	bytesPerToken float64
}

// ccUsage is one response's usage, written on each of its records.
type ccUsage struct {
	input, cacheWrite, cacheRead, output int
	// partialOutput, when not 0, is the output_tokens of the records
	// before the response's last one: in a few real messages (7 of 94
	// multi-record ones in the third-party samples) the streamed records
	// carry a smaller output than the last; input and cache never differ.
	partialOutput int
}

func newCCPrompt(r *rand.Rand) *ccPrompt {
	// A system prompt and tool definitions of Claude Code's size.
	return &ccPrompt{r: r, tokens: 9000 + r.IntN(9000), bytesPerToken: 3.2 + r.Float64()}
}

// add grows the prompt by text of n bytes.
func (p *ccPrompt) add(n int) {
	p.tokens += p.count(n)
}

func (p *ccPrompt) count(n int) int {
	if n == 0 {
		return 0
	}
	return max(1, int(float64(n)/p.bytesPerToken+0.5))
}

// response draws the usage of a response of n bytes whose prompt is the
// current one, and adds its output to the prompt.
func (p *ccPrompt) response(n int, multiRecord bool) ccUsage {
	u := ccUsage{cacheRead: p.cached, output: p.count(n) + 4 + p.r.IntN(30)}
	fresh := p.tokens - p.cached
	u.input = min(fresh, 1+p.r.IntN(12))
	u.cacheWrite = fresh - u.input
	if multiRecord && p.r.IntN(13) == 0 {
		u.partialOutput = 1 + p.r.IntN(u.output)
	}
	p.cached = p.tokens
	p.tokens += u.output
	return u
}

type codexWriter struct {
	r *rand.Rand
}

// session writes one Codex CLI rollout: session_meta, then per turn a
// turn_context, the user message (as an event and as a response item, as
// the CLI records both), reasoning summaries, function_call and
// function_call_output items, token counts, and the answer (again as an
// event and an item).
func (w *codexWriter) session(lw *lineWriter, s *session) []written {
	renameCalls(s, codexTool)
	at := s.start
	rec := func(ts int64, typ string, payload func()) {
		lw.raw(`{"timestamp":`)
		lw.str(isoMillis(ts))
		lw.raw(`,"type":`)
		lw.str(typ)
		lw.raw(`,"payload":`)
		payload()
		lw.raw("}\n")
	}
	tick := func() int64 { at += int64(100_000 + w.r.IntN(3_000_000)); return at }
	rec(at, "session_meta", func() {
		lw.raw(`{"id":`)
		lw.str(s.id)
		lw.raw(`,"timestamp":`)
		lw.str(isoMillis(at))
		lw.raw(`,"cwd":"/home/dev/project","originator":"codex_cli_rs","cli_version":"0.128.0","source":"cli","model_provider":"openai"}`)
	})
	input, cached, output := 0, 0, 0
	tokens := func() {
		in, out := 3000+w.r.IntN(20000), 20+w.r.IntN(500)
		input, cached, output = input+in, cached+in*3/4, output+out
		rec(tick(), "event_msg", func() {
			lw.raw(`{"type":"token_count","info":{"total_token_usage":{"input_tokens":`)
			lw.raw(itoa(input))
			lw.raw(`,"cached_input_tokens":`)
			lw.raw(itoa(cached))
			lw.raw(`,"output_tokens":`)
			lw.raw(itoa(output))
			lw.raw(`},"last_token_usage":{"input_tokens":`)
			lw.raw(itoa(in))
			lw.raw(`,"cached_input_tokens":`)
			lw.raw(itoa(in * 3 / 4))
			lw.raw(`,"output_tokens":`)
			lw.raw(itoa(out))
			lw.raw(`},"model_context_window":272000}}`)
		})
	}
	for n, t := range s.turns {
		at = t.at
		rec(at, "turn_context", func() {
			lw.raw(`{"turn_id":`)
			lw.str("t" + itoa(n+1))
			lw.raw(`,"cwd":"/home/dev/project","model":`)
			lw.str(s.model)
			// summary is the reasoning summary setting, a string, as Codex
			// writes it (a reader once took it for a reasoning summary).
			lw.raw(`,"effort":"medium","summary":"auto","approval_policy":"on-request","sandbox_policy":{"type":"workspace-write"}}`)
		})
		rec(tick(), "event_msg", func() {
			lw.raw(`{"type":"user_message","message":`)
			lw.str(t.user)
			lw.raw(`,"images":[]}`)
		})
		rec(at, "response_item", func() {
			lw.raw(`{"type":"message","role":"user","content":[{"type":"input_text","text":`)
			lw.str(t.user)
			lw.raw("}]}")
		})
		for _, st := range t.steps {
			if st.reasoning != "" {
				rec(tick(), "response_item", func() {
					lw.raw(`{"type":"reasoning","summary":[{"type":"summary_text","text":`)
					lw.str(st.reasoning)
					lw.raw(`}],"encrypted_content":`)
					lw.str("gAAAAA" + randString(w.r, alnum, 48))
					lw.raw("}")
				})
			}
			for _, c := range st.calls {
				if c.id == "" {
					c.id = "call_" + randString(w.r, alnum, 24)
				}
				rec(tick(), "response_item", func() {
					lw.raw(`{"type":"function_call","name":`)
					lw.str(c.tool)
					lw.raw(`,"arguments":`)
					lw.str(objString(c.args, false))
					lw.raw(`,"call_id":`)
					lw.str(c.id)
					lw.raw("}")
				})
			}
			tokens()
			for _, c := range st.calls {
				rec(tick(), "response_item", func() {
					lw.raw(`{"type":"function_call_output","call_id":`)
					lw.str(c.id)
					lw.raw(`,"output":`)
					lw.str(c.result)
					if c.isErr {
						lw.raw(`,"success":false`)
					}
					lw.raw("}")
				})
			}
		}
		end := tick()
		rec(end, "event_msg", func() {
			lw.raw(`{"type":"agent_message","message":`)
			lw.str(t.final)
			lw.raw("}")
		})
		rec(end, "response_item", func() {
			lw.raw(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":`)
			lw.str(t.final)
			lw.raw("}]}")
		})
		tokens()
	}
	return []written{{s: s, id: s.id, line: 1}}
}

// openHandsTool renames an OpenAI-harness call to OpenHands' CodeAct tools
// and gives the action and observation types its events carry.
func openHandsTool(c *call) (action, observation string) {
	a := c.args
	switch c.tool {
	case "read_file":
		c.tool, c.args = "str_replace_editor", []kv{{"command", "view"}, {"path", "/workspace/" + argString(a, "path")}}
		return "read", "read"
	case "grep":
		c.tool, c.args = "execute_bash", []kv{{"command", "grep -rn '" + argString(a, "pattern") + "' " + argString(a, "path")}}
		return "run", "run"
	case "bash":
		c.tool, c.args = "execute_bash", []kv{{"command", argString(a, "command")}}
		return "run", "run"
	case "write_file":
		c.tool, c.args = "str_replace_editor", []kv{{"command", "create"}, {"path", "/workspace/" + argString(a, "path")}, {"file_text", argString(a, "content")}}
		return "edit", "edit"
	case "web_fetch":
		c.tool, c.args = "web_read", []kv{{"url", argString(a, "url")}}
		return "browse", "browse"
	}
	// web_search and anything else: a tool of an MCP server, as is. (Jobs
	// come only with poll loops, which OpenHands sessions do not get:
	// builder.noPoll.)
	return "call_tool_mcp", "mcp"
}

// openHandsWriter writes OpenHands trajectories (formats-other.md): a JSON
// array of events for a small one-session file, else evaluation output,
// one record per line (instance_id, instruction, history, metrics). An
// action event per call carries tool_call_metadata (function name, call
// id, and the model response with every call of that response, listed on
// the first of its actions, as OpenHands does); an observation event per
// result names its action by cause.
type openHandsWriter struct {
	r    *rand.Rand
	doc  bool
	stem string
	line int
}

func (w *openHandsWriter) session(lw *lineWriter, s *session) []written {
	w.line++
	id := w.stem
	sep := ", "
	if w.doc {
		lw.raw("[\n  ")
		sep = ",\n  "
	} else {
		id = word(w.r) + "__" + word(w.r) + "-" + itoa(100+w.r.IntN(9000))
		lw.raw(`{"instance_id": `)
		lw.str(id)
		lw.raw(`, "instruction": `)
		if len(s.turns) > 0 {
			lw.str(s.turns[0].user)
		} else {
			lw.str("")
		}
		lw.raw(`, "history": [`)
	}
	ev := 0
	first := true
	event := func(ts int64, source, message string, body func()) int {
		if !first {
			lw.raw(sep)
		}
		first = false
		lw.raw(`{"id": `)
		lw.raw(itoa(ev))
		lw.raw(`, "timestamp": `)
		lw.str(isoLocal(ts))
		lw.raw(`, "source": `)
		lw.str(source)
		lw.raw(`, "message": `)
		lw.str(message)
		body()
		lw.raw("}")
		ev++
		return ev - 1
	}
	for _, t := range s.turns {
		at := t.at
		tick := func() int64 { at += int64(200_000 + w.r.IntN(3_000_000)); return at }
		event(at, "user", t.user, func() {
			lw.raw(`, "action": "message", "args": {"content": `)
			lw.str(t.user)
			lw.raw(`, "image_urls": null, "wait_for_response": false}`)
		})
		for _, st := range t.steps {
			kinds := make([][2]string, len(st.calls))
			for i, c := range st.calls {
				if c.id == "" {
					c.id = "toolu_" + randString(w.r, alnum, 24)
				}
				action, obs := openHandsTool(c)
				kinds[i] = [2]string{action, obs}
			}
			respID := "chatcmpl-" + randString(w.r, alnum, 20)
			ts := tick()
			actions := make([]int, len(st.calls))
			for i, c := range st.calls {
				actions[i] = event(ts, "agent", "Running "+c.tool, func() {
					lw.raw(`, "action": `)
					lw.str(kinds[i][0])
					lw.raw(`, "args": `)
					lw.val(append(append([]kv(nil), c.args...), kv{"thought", ""}), true)
					lw.raw(`, "tool_call_metadata": {"function_name": `)
					lw.str(c.tool)
					lw.raw(`, "tool_call_id": `)
					lw.str(c.id)
					lw.raw(`, "total_calls_in_response": `)
					lw.raw(itoa(len(st.calls)))
					lw.raw(`, "model_response": {"id": `)
					lw.str(respID)
					lw.raw(`, "object": "chat.completion", "model": `)
					lw.str(s.model)
					lw.raw(`, "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": `)
					lw.str(st.text)
					lw.raw(`, "tool_calls": [`)
					if i == 0 {
						for k, d := range st.calls {
							if k > 0 {
								lw.raw(", ")
							}
							lw.raw(`{"index": `)
							lw.raw(itoa(k + 1))
							lw.raw(`, "id": `)
							lw.str(d.id)
							lw.raw(`, "type": "function", "function": {"name": `)
							lw.str(d.tool)
							lw.raw(`, "arguments": `)
							lw.str(objString(d.args, true))
							lw.raw("}}")
						}
					}
					lw.raw(`]}}], "usage": {"completion_tokens": `)
					lw.raw(itoa(20 + w.r.IntN(500)))
					lw.raw(`, "prompt_tokens": `)
					lw.raw(itoa(3000 + w.r.IntN(30000)))
					lw.raw("}}}")
				})
			}
			for i, c := range st.calls {
				event(tick(), "agent", "Observed "+c.tool, func() {
					lw.raw(`, "cause": `)
					lw.raw(itoa(actions[i]))
					lw.raw(`, "observation": `)
					if c.isErr {
						lw.str("error")
					} else {
						lw.str(kinds[i][1])
					}
					lw.raw(`, "content": `)
					lw.str(c.result)
					lw.raw(`, "extras": {}`)
				})
			}
		}
		event(tick(), "agent", t.final, func() {
			lw.raw(`, "action": "message", "args": {"content": `)
			lw.str(t.final)
			lw.raw(`, "image_urls": null, "wait_for_response": true}`)
		})
	}
	if w.doc {
		lw.raw("\n]\n")
		return []written{{s: s, id: id, line: 0}}
	}
	lw.raw(`], "metrics": {"accumulated_cost": `)
	lw.val(flt(float64(w.r.IntN(400))/100), true)
	lw.raw("}}\n")
	return []written{{s: s, id: id, line: w.line}}
}
