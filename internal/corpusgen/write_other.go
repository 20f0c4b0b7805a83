package corpusgen

import (
	"math/rand/v2"
)

// Writers for nanobot session files (docs/formats/nanobot.md: a
// metadata line, then chat messages whose tool_calls carry `arguments` as a
// JSON string, and tool records with tool_call_id and name) and for OpenAI
// transcripts (formats-other.md §1 and §3): a bare messages or items array
// for small one-conversation files, else a JSONL log of request bodies, one
// conversation per line, carrying its id in `metadata.session_id`.

type nanobotWriter struct {
	r *rand.Rand
}

// The nanobot files follow the v0.1.5-era record shape (grep and glob
// tools). Reading taken: nanobot's own guards (the external-lookup block,
// the read_file dedup stub) and its result offload are not simulated, as in
// a build with them off and maxToolResultChars raised, so that planted
// loops stay whole; error results carry nanobot's retry hint.
func (w *nanobotWriter) session(lw *lineWriter, s *session) []written {
	msgs := flatten(s, w.r, func() string { return "call_" + randString(w.r, alnum, 9) })
	updated := s.start
	if len(msgs) > 0 {
		updated = msgs[len(msgs)-1].at
	}
	lw.b = appendObj(lw.b, []kv{{"_type", "metadata"}, {"key", s.key}, {"created_at", isoLocal(s.start)}, {"updated_at", isoLocal(updated)}, {"metadata", []kv{}}, {"last_consolidated", 0}}, true)
	lw.raw("\n")
	for _, m := range msgs {
		switch m.role {
		case "user":
			lw.raw(`{"role": "user", "content": `)
			lw.str(m.content)
		case "assistant":
			lw.raw(`{"role": "assistant", "content": `)
			lw.str(m.content)
			if len(m.calls) > 0 {
				lw.raw(`, "tool_calls": `)
				chatToolCalls(lw, m.calls, true)
			}
			if m.reasoning != "" {
				lw.raw(`, "reasoning_content": `)
				lw.str(m.reasoning)
			}
		case "tool":
			lw.raw(`{"role": "tool", "tool_call_id": `)
			lw.str(m.res.id)
			lw.raw(`, "name": `)
			lw.str(m.res.tool)
			lw.raw(`, "content": `)
			lw.str(m.res.result)
		}
		lw.raw(`, "timestamp": `)
		lw.str(isoLocal(m.at))
		if m.final {
			lw.raw(`, "latency_ms": `)
			lw.raw(itoa(int(m.latency / 1000)))
		}
		lw.raw("}\n")
	}
	return []written{{s: s, id: s.key, line: 1}}
}

func openaiSessionID(r *rand.Rand) string { return "conv_" + randString(r, "0123456789abcdef", 16) }

type openaiChat struct {
	r    *rand.Rand
	doc  bool
	stem string
	line int
}

const openaiSystem = "You are a careful coding assistant. Use the tools to inspect the project before answering."

func (w *openaiChat) session(lw *lineWriter, s *session) []written {
	w.line++
	msgs := flatten(s, w.r, func() string { return "call_" + randString(w.r, alnum, 24) })
	id := w.stem
	sep := ","
	if w.doc {
		lw.raw("[\n  ")
		sep = ",\n  "
	} else {
		id = openaiSessionID(w.r)
		lw.raw(`{"model":`)
		lw.str(s.model)
		lw.raw(`,"metadata":{"session_id":`)
		lw.str(id)
		lw.raw(`},"messages":[`)
	}
	lw.raw(`{"role":"system","content":`)
	lw.str(openaiSystem)
	lw.raw("}")
	for _, m := range msgs {
		lw.raw(sep)
		switch m.role {
		case "user":
			lw.raw(`{"role":"user","content":`)
			lw.str(m.content)
			lw.raw("}")
		case "assistant":
			lw.raw(`{"role":"assistant","content":`)
			if len(m.calls) > 0 && m.content == "" {
				lw.raw("null")
			} else {
				lw.str(m.content)
			}
			if len(m.calls) > 0 {
				lw.raw(`,"tool_calls":`)
				chatToolCalls(lw, m.calls, false)
			}
			lw.raw("}")
		case "tool":
			lw.raw(`{"role":"tool","tool_call_id":`)
			lw.str(m.res.id)
			lw.raw(`,"content":`)
			lw.str(m.res.result)
			lw.raw("}")
		}
	}
	if w.doc {
		lw.raw("\n]\n")
		return []written{{s: s, id: id, line: 0}}
	}
	lw.raw("]}\n")
	return []written{{s: s, id: id, line: w.line}}
}

type openaiResponses struct {
	r    *rand.Rand
	doc  bool
	stem string
	line int
}

func (w *openaiResponses) session(lw *lineWriter, s *session) []written {
	w.line++
	id := w.stem
	sep := ","
	if w.doc {
		lw.raw("[\n  ")
		sep = ",\n  "
	} else {
		id = openaiSessionID(w.r)
		lw.raw(`{"model":`)
		lw.str(s.model)
		lw.raw(`,"metadata":{"session_id":`)
		lw.str(id)
		lw.raw(`},"input":[`)
	}
	first := true
	item := func() {
		if !first {
			lw.raw(sep)
		}
		first = false
	}
	for _, t := range s.turns {
		item()
		lw.raw(`{"type":"message","role":"user","content":[{"type":"input_text","text":`)
		lw.str(t.user)
		lw.raw("}]}")
		for _, st := range t.steps {
			if st.reasoning != "" {
				item()
				lw.raw(`{"type":"reasoning","id":`)
				lw.str("rs_" + randString(w.r, "0123456789abcdef", 24))
				lw.raw(`,"summary":[{"type":"summary_text","text":`)
				lw.str(st.reasoning)
				lw.raw("}]}")
			}
			for _, c := range st.calls {
				if c.id == "" {
					c.id = "call_" + randString(w.r, alnum, 24)
				}
				item()
				lw.raw(`{"type":"function_call","id":`)
				lw.str("fc_" + randString(w.r, "0123456789abcdef", 24))
				lw.raw(`,"call_id":`)
				lw.str(c.id)
				lw.raw(`,"name":`)
				lw.str(c.tool)
				lw.raw(`,"arguments":`)
				lw.str(objString(c.args, false))
				lw.raw(`,"status":"completed"}`)
			}
			for _, c := range st.calls {
				item()
				lw.raw(`{"type":"function_call_output","call_id":`)
				lw.str(c.id)
				lw.raw(`,"output":`)
				lw.str(c.result)
				lw.raw("}")
			}
		}
		item()
		lw.raw(`{"type":"message","id":`)
		lw.str("msg_" + randString(w.r, "0123456789abcdef", 24))
		lw.raw(`,"role":"assistant","status":"completed","content":[{"type":"output_text","text":`)
		lw.str(t.final)
		lw.raw(`,"annotations":[]}]}`)
	}
	if w.doc {
		lw.raw("\n]\n")
		return []written{{s: s, id: id, line: 0}}
	}
	lw.raw("]}\n")
	return []written{{s: s, id: id, line: w.line}}
}
