package corpusgen

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Writers for hermes-agent files (docs/formats/hermes.md): the
// `hermes sessions export` dump (§3.B, one session row plus its messages per
// line), the gateway transcript (§3.D, a session_meta line then one message
// per line) and the ShareGPT trajectory (§3.E, one conversation per line).

// msg is one chat message of a session, the model all three chat-shaped
// formats (hermes export and gateway, nanobot, OpenAI chat) share.
type msg struct {
	role      string // user, assistant, tool
	content   string
	reasoning string
	calls     []*call // assistant tool calls
	res       *call   // tool result
	at        int64   // unix microseconds
	turnAt    int64
	final     bool
	latency   int64 // microseconds from the user message (final answers)
}

// flatten lists a session's messages in order, giving calls their ids.
func flatten(s *session, r *rand.Rand, newID func() string) []msg {
	var out []msg
	for _, t := range s.turns {
		at := t.at
		tick := func() int64 { at += int64(300_000 + r.IntN(4_000_000)); return at }
		out = append(out, msg{role: "user", content: t.user, at: t.at, turnAt: t.at})
		for _, st := range t.steps {
			for _, c := range st.calls {
				if c.id == "" {
					c.id = newID()
				}
			}
			out = append(out, msg{role: "assistant", content: st.text, reasoning: st.reasoning, calls: st.calls, at: tick(), turnAt: t.at})
			for _, c := range st.calls {
				out = append(out, msg{role: "tool", res: c, at: tick(), turnAt: t.at})
			}
		}
		end := tick()
		out = append(out, msg{role: "assistant", content: t.final, at: end, turnAt: t.at, final: true, latency: end - t.at})
	}
	return out
}

func hermesCallID(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return "toolu_bdrk_01" + randString(r, alnum, 22)
	}
	return "call_" + randString(r, alnum, 24)
}

func epoch(us int64) flt { return flt(float64(us) / 1e6) }

// isoLocal is Python's naive datetime.isoformat(): microseconds only when
// not zero.
func isoLocal(us int64) string {
	t := time.UnixMicro(us).UTC()
	if t.Nanosecond() == 0 {
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04:05.000000")
}

func newFormatWriter(pl filePlan, r *rand.Rand) fileWriter {
	switch pl.format {
	case FormatHermesExport:
		return &hermesExport{r: r, nextID: 1_000_000 + int(r.IntN(500_000))}
	case FormatHermesGateway:
		return &hermesGateway{r: r}
	case FormatHermesTrajectory:
		return &hermesTrajectory{r: r, completed: !strings.HasSuffix(pl.path, "failed_trajectories.jsonl"), stem: strings.TrimSuffix(pl.path[strings.LastIndex(pl.path, "/")+1:], ".jsonl")}
	case FormatHermesBatch:
		stem := stemOf(pl.path)
		n, _ := strconv.Atoi(strings.TrimPrefix(stem, "batch_"))
		return &hermesBatch{hermesTrajectory: hermesTrajectory{r: r, stem: stem}, batch: n, prompt: -1}
	case FormatHermesSnapshot:
		return &hermesSnapshot{hermesTrajectory{r: r}}
	case FormatNanobot:
		return &nanobotWriter{r: r}
	case FormatOpenAIChat:
		return &openaiChat{r: r, doc: pl.single, stem: stemOf(pl.path)}
	case FormatClaudeCode:
		return &claudeCodeWriter{r: r, cwd: "/home/dev/" + pl.path[len("claude/projects/-home-dev-"):strings.LastIndex(pl.path, "/")]}
	case FormatCodex:
		return &codexWriter{r: r}
	case FormatPi:
		dir := pl.path[len("pi/agent/sessions/--"):strings.LastIndex(pl.path, "--/")]
		return &piWriter{r: r, cwd: "/" + strings.ReplaceAll(dir, "-", "/")}
	case FormatOpenHands:
		return &openHandsWriter{r: r, doc: pl.single, stem: stemOf(pl.path)}
	case FormatHermesRequestDump:
		return &requestDumpWriter{r: r, sid: pl.sid}
	case FormatSWEAgent:
		return &sweAgentWriter{r: r, stem: strings.TrimSuffix(stemOf(pl.path), ".traj")}
	case FormatATIF:
		return &atifWriter{r: r}
	default:
		return &openaiResponses{r: r, doc: pl.single, stem: stemOf(pl.path)}
	}
}

func stemOf(path string) string {
	base := path[strings.LastIndex(path, "/")+1:]
	return strings.TrimSuffix(strings.TrimSuffix(base, ".jsonl"), ".json")
}

const hermesSystemPrompt = "You are Hermes Agent, an assistant that works in the user's project with tools. Be brief and check your work."

// hermesToolCalls writes the parsed tool_calls list of an assistant message.
func hermesToolCalls(lw *lineWriter, calls []*call) {
	lw.raw("[")
	for i, c := range calls {
		if i > 0 {
			lw.raw(", ")
		}
		lw.raw(`{"id": `)
		lw.str(c.id)
		lw.raw(`, "call_id": `)
		lw.str(c.id)
		lw.raw(`, "response_item_id": `)
		lw.str("fc_" + c.id[len(c.id)-12:])
		lw.raw(`, "type": "function", "function": {"name": `)
		lw.str(c.tool)
		lw.raw(`, "arguments": `)
		lw.str(objString(c.args, true))
		lw.raw("}}")
	}
	lw.raw("]")
}

type hermesExport struct {
	r      *rand.Rand
	nextID int
	line   int
}

func (w *hermesExport) session(lw *lineWriter, s *session) []written {
	var out []written
	for _, d := range s.children { // a subagent started later, so it is listed first
		out = append(out, w.one(lw, d.child))
	}
	return append(out, w.one(lw, s))
}

func (w *hermesExport) one(lw *lineWriter, s *session) written {
	w.line++
	msgs := flatten(s, w.r, func() string { return hermesCallID(w.r) })
	w.nextID -= len(msgs) // ids grow with time; the file lists the newest first
	calls, requests := 0, 0
	for _, m := range msgs {
		calls += len(m.calls)
		if m.role == "assistant" {
			requests++
		}
	}
	modelConfig := `{"max_iterations": 90, "reasoning_config": null, "max_tokens": null}`
	var parent any
	if s.source == "subagent" {
		modelConfig = `{"max_iterations": 50, "reasoning_config": null, "max_tokens": null, "_delegate_from": "` + s.parent + `"}`
		parent = s.parent
	}
	lw.b = appendObj(lw.b, []kv{
		{"id", s.id}, {"source", s.source}, {"user_id", nil}, {"model", s.model}, {"model_config", modelConfig},
		{"system_prompt", hermesSystemPrompt}, {"parent_session_id", parent},
		{"started_at", epoch(s.start)}, {"ended_at", epoch(s.end)}, {"end_reason", "cli_close"},
		{"message_count", len(msgs)}, {"tool_call_count", calls},
		{"input_tokens", requests * (2000 + w.r.IntN(9000))}, {"output_tokens", requests * (60 + w.r.IntN(400))},
		{"cache_read_tokens", 0}, {"cache_write_tokens", 0}, {"reasoning_tokens", 0},
		{"title", nil}, {"api_call_count", requests},
	}, true)
	lw.b = lw.b[:len(lw.b)-1] // reopen the object to add messages
	lw.raw(`, "messages": [`)
	for i, m := range msgs {
		if i > 0 {
			lw.raw(", ")
		}
		lw.raw(`{"id": `)
		lw.raw(itoa(w.nextID + i + 1))
		lw.raw(`, "session_id": `)
		lw.str(s.id)
		lw.raw(`, "role": `)
		lw.str(m.role)
		lw.raw(`, "content": `)
		switch m.role {
		case "tool":
			lw.str(m.res.result)
			lw.raw(`, "tool_call_id": `)
			lw.str(m.res.id)
			lw.raw(`, "tool_calls": null, "tool_name": `)
			lw.str(m.res.tool)
		case "assistant":
			lw.str(m.content)
			lw.raw(`, "tool_call_id": null, "tool_calls": `)
			if len(m.calls) > 0 {
				hermesToolCalls(lw, m.calls)
			} else {
				lw.raw("null")
			}
			lw.raw(`, "tool_name": null`)
		default:
			lw.str(m.content)
			lw.raw(`, "tool_call_id": null, "tool_calls": null, "tool_name": null`)
		}
		lw.raw(`, "timestamp": `)
		lw.val(epoch(m.at), true)
		lw.raw(`, "token_count": null, "finish_reason": `)
		switch {
		case m.role != "assistant":
			lw.raw("null")
		case len(m.calls) > 0:
			lw.raw(`"tool_calls"`)
		default:
			lw.raw(`"stop"`)
		}
		lw.raw(`, "reasoning": `)
		if m.reasoning != "" {
			lw.str(m.reasoning)
		} else {
			lw.raw("null")
		}
		lw.raw(`, "active": 1}`)
	}
	lw.raw("]}\n")
	return written{s: s, id: s.id, line: w.line}
}

type hermesGateway struct {
	r *rand.Rand
}

var hermesTools = []string{"read_file", "search_files", "terminal", "patch", "write_file", "web_search", "web_extract", "process", "delegate_task"}

func toolSchemas(names []string) []any {
	var out []any
	for _, n := range names {
		out = append(out, []kv{{"type", "function"}, {"function", []kv{{"name", n}, {"description", "The " + n + " tool."},
			{"parameters", []kv{{"type", "object"}, {"properties", []kv{}}}}}}})
	}
	return out
}

func (w *hermesGateway) session(lw *lineWriter, s *session) []written {
	platform := []string{"telegram", "discord", "slack"}[w.r.IntN(3)]
	lw.b = appendObj(lw.b, []kv{{"role", "session_meta"}, {"tools", toolSchemas(hermesTools)}, {"model", s.model}, {"platform", platform}, {"timestamp", isoLocal(s.start)}}, true)
	lw.raw("\n")
	msgs := flatten(s, w.r, func() string { return hermesCallID(w.r) })
	firstUser := true
	for _, m := range msgs {
		ts := isoLocal(m.turnAt) // every message of a gateway turn carries the turn time
		switch m.role {
		case "user":
			lw.raw(`{"role": "user", "content": `)
			lw.str("[" + title(word(w.r)) + "] " + m.content)
			lw.raw(`, "timestamp": `)
			lw.str(ts)
			if firstUser {
				lw.raw(`, "message_id": `)
				lw.str(itoa(1_700_000_000+w.r.IntN(99_999_999)) + ".0001")
				firstUser = false
			}
		case "assistant":
			lw.raw(`{"role": "assistant", "content": `)
			lw.str(m.content)
			lw.raw(`, "reasoning": `)
			if m.reasoning != "" {
				lw.str(m.reasoning)
			} else {
				lw.raw("null")
			}
			if len(m.calls) > 0 {
				lw.raw(`, "finish_reason": "tool_calls", "tool_calls": `)
				hermesToolCalls(lw, m.calls)
			} else {
				lw.raw(`, "finish_reason": "stop"`)
			}
			lw.raw(`, "timestamp": `)
			lw.str(ts)
		case "tool":
			lw.raw(`{"role": "tool", "content": `)
			lw.str(m.res.result)
			lw.raw(`, "tool_call_id": `)
			lw.str(m.res.id)
			lw.raw(`, "name": `)
			lw.str(m.res.tool)
			lw.raw(`, "timestamp": `)
			lw.str(ts)
		}
		lw.raw("}\n")
	}
	return []written{{s: s, id: s.id, line: 1}}
}

type hermesTrajectory struct {
	r         *rand.Rand
	completed bool
	stem      string
	line      int
	scratch   []byte
}

func (w *hermesTrajectory) systemValue() string {
	var b []byte
	b = append(b, "You are a function calling AI model. You are provided with function signatures within <tools> </tools> XML tags. Call one or more functions to help with the user's query.\n<tools>\n"...)
	var tools []any
	for _, n := range hermesTools {
		tools = append(tools, []kv{{"name", n}, {"description", "The " + n + " tool."}, {"parameters", []kv{{"type", "object"}, {"properties", []kv{}}}}, {"required", nil}})
	}
	b = appendValue(b, tools, true)
	b = append(b, "\n</tools>\nFor each function call return a JSON object with the function name and arguments within <tool_call> </tool_call> tags."...)
	return string(b)
}

func (w *hermesTrajectory) session(lw *lineWriter, s *session) []written {
	w.line++
	lw.raw(`{"conversations": `)
	w.conversations(lw, s, w.systemValue(), "[", ", ", "]")
	lw.raw(`, "timestamp": `)
	lw.str(isoLocal(s.end))
	lw.raw(`, "model": `)
	lw.str(s.model)
	lw.raw(`, "completed": `)
	lw.val(w.completed, true)
	lw.raw("}\n")
	return []written{{s: s, id: w.stem + ":" + itoa(w.line), line: w.line}}
}

// conversations writes s as a ShareGPT conversations list (formats-hermes.md
// §3.E), entries separated by sep: the system prompt, each user message,
// each model response (a <think> block, its text, a <tool_call> block per
// call), the tool turn after it (a <tool_response> block per call, JSON
// results embedded parsed, as hermes writes them), the final answer, the
// list opened by open and closed by close. The trajectory, batch and
// snapshot writers share it.
func (w *hermesTrajectory) conversations(lw *lineWriter, s *session, system, open, sep, close string) {
	lw.raw(open + `{"from": "system", "value": `)
	lw.str(system)
	lw.raw("}")
	for _, t := range s.turns {
		lw.raw(sep + `{"from": "human", "value": `)
		lw.str(t.user)
		lw.raw("}")
		for _, st := range t.steps {
			b := w.scratch[:0]
			b = append(b, "<think>\n"...)
			if st.reasoning != "" {
				b = append(b, st.reasoning...)
				b = append(b, '\n')
			}
			b = append(b, "</think>\n"...)
			b = append(b, st.text...)
			for i, c := range st.calls {
				if c.id == "" {
					c.id = "call_" + randString(w.r, alnum, 24)
				}
				if i > 0 || st.text != "" {
					b = append(b, '\n')
				}
				b = append(b, "<tool_call>\n"...)
				b = appendObj(b, []kv{{"name", c.tool}, {"arguments", c.args}}, true)
				b = append(b, "\n</tool_call>"...)
			}
			lw.raw(sep + `{"from": "gpt", "value": `)
			lw.str(string(b))
			lw.raw("}")
			b = b[:0]
			for i, c := range st.calls {
				if i > 0 {
					b = append(b, '\n')
				}
				b = append(b, "<tool_response>\n"...)
				var content any = c.result
				if c.resultJSON {
					content = raw(c.result) // hermes parses JSON-looking content
				}
				b = appendObj(b, []kv{{"tool_call_id", c.id}, {"name", c.tool}, {"content", content}}, true)
				b = append(b, "\n</tool_response>"...)
			}
			lw.raw(sep + `{"from": "tool", "value": `)
			lw.str(string(b))
			lw.raw("}")
			w.scratch = b[:0]
		}
		lw.raw(sep + `{"from": "gpt", "value": `)
		lw.str("<think>\n</think>\n" + t.final)
		lw.raw("}")
	}
	lw.raw(close)
}

// hermesBatch writes hermes' batch-runner output (formats-hermes.md,
// batch_runner.py): one record per prompt, the conversation with the run's
// statistics, numbered by prompt_index.
type hermesBatch struct {
	hermesTrajectory
	batch  int
	prompt int
}

func (w *hermesBatch) session(lw *lineWriter, s *session) []written {
	w.line++
	w.prompt += 1 + w.r.IntN(3)
	lw.raw(`{"prompt_index": `)
	lw.raw(itoa(w.prompt))
	lw.raw(`, "conversations": `)
	w.conversations(lw, s, "You are a function calling AI model.", "[", ", ", "]")
	// Per tool: calls, successes, failures; the toolsets they belong to.
	type stat struct{ count, fail int }
	stats := map[string]*stat{}
	var order []string
	sets := map[string]bool{}
	var setOrder []string
	apiCalls := 0
	for _, t := range s.turns {
		apiCalls += len(t.steps) + 1
		for _, st := range t.steps {
			for _, c := range st.calls {
				if stats[c.tool] == nil {
					stats[c.tool] = &stat{}
					order = append(order, c.tool)
				}
				stats[c.tool].count++
				if c.isErr {
					stats[c.tool].fail++
				}
				if set := hermesToolset(c.tool); !sets[set] {
					sets[set] = true
					setOrder = append(setOrder, set)
				}
			}
		}
	}
	var toolStats, errCounts []kv
	for _, name := range order {
		st := stats[name]
		toolStats = append(toolStats, kv{name, []kv{{"count", st.count}, {"success", st.count - st.fail}, {"failure", st.fail}}})
		errCounts = append(errCounts, kv{name, st.fail})
	}
	lw.raw(`, "metadata": `)
	lw.val([]kv{{"batch_num", w.batch}, {"timestamp", isoLocal(s.end)}, {"model", s.model}}, true)
	lw.raw(`, "completed": true, "partial": false, "api_calls": `)
	lw.raw(itoa(apiCalls))
	lw.raw(`, "toolsets_used": `)
	lw.val(setOrder, true)
	lw.raw(`, "tool_stats": `)
	lw.val(toolStats, true)
	lw.raw(`, "tool_error_counts": `)
	lw.val(errCounts, true)
	lw.raw("}\n")
	return []written{{s: s, id: w.stem + ":prompt_" + itoa(w.prompt), line: w.line}}
}

// hermesToolset is the hermes toolset a tool belongs to.
func hermesToolset(tool string) string {
	switch tool {
	case "terminal", "process":
		return "terminal"
	case "web_search", "web_extract":
		return "web"
	case "delegate_task":
		return "delegation"
	}
	return "file"
}

// hermesSnapshot writes a per-session JSON snapshot, session_<id>.json, in
// its early ShareGPT form (formats-hermes.md): the session's id, model and
// times, and its conversations, indented as hermes dumps them.
type hermesSnapshot struct {
	hermesTrajectory
}

func (w *hermesSnapshot) session(lw *lineWriter, s *session) []written {
	lw.raw("{\n  \"session_id\": ")
	lw.str(s.id)
	lw.raw(",\n  \"model\": ")
	lw.str(s.model)
	lw.raw(",\n  \"session_start\": ")
	lw.str(isoLocal(s.start))
	lw.raw(",\n  \"last_updated\": ")
	lw.str(isoLocal(s.end))
	n := 1
	for _, t := range s.turns {
		n += 2 + 2*len(t.steps)
	}
	lw.raw(",\n  \"message_count\": ")
	lw.raw(itoa(n))
	lw.raw(",\n  \"conversations\": ")
	w.conversations(lw, s, "You are a function calling AI model. You are provided with function signatures within <tools> </tools> XML tags.", "[\n    ", ",\n    ", "\n  ]")
	lw.raw("\n}\n")
	return []written{{s: s, id: s.id, line: 0}}
}
