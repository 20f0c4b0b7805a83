package corpusgen

import "math/rand/v2"

// Writer for the pi coding agent's session files
// (~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl, docs/formats/pi.md):
// a version-3 header, then one entry per message, each naming the one
// before it as its parent (a session without branches). Sessions are built
// with the OpenAI harness's tools and renamed to pi's own (piTool), one to
// one, as the Claude Code writer does.

// piTool renames an OpenAI-harness call to pi's tools: read, grep, bash,
// write, and the web tools of pi's extensions (web_search, fetch_content).
// Background jobs have no pi tool: a job start is a bash command with a
// background member, and pi sessions get no poll loops (builder.noPoll).
func piTool(c *call) {
	a := c.args
	switch c.tool {
	case "read_file":
		c.tool, c.args = "read", []kv{{"path", argString(a, "path")}}
	case "grep":
		c.tool, c.args = "grep", []kv{{"pattern", argString(a, "pattern")}, {"path", argString(a, "path")}}
	case "bash":
		c.tool, c.args = "bash", []kv{{"command", argString(a, "command")}}
	case "write_file":
		c.tool, c.args = "write", []kv{{"path", argString(a, "path")}, {"content", argString(a, "content")}}
	case "web_fetch":
		c.tool, c.args = "fetch_content", []kv{{"url", argString(a, "url")}}
	case "job_start":
		c.tool, c.args = "bash", []kv{{"command", argString(a, "command")}, {"background", true}}
	case "job_get_result":
		c.tool, c.args = "bash", []kv{{"command", "cat /tmp/pi-jobs/" + argString(a, "job_id") + ".log"}}
	}
}

type piWriter struct {
	r   *rand.Rand
	cwd string
}

func (w *piWriter) session(lw *lineWriter, s *session) []written {
	renameCalls(s, piTool)
	const hex = "0123456789abcdef"
	at := s.start
	tick := func() int64 { at += int64(200_000 + w.r.IntN(3_000_000)); return at }
	lw.raw(`{"type":"session","version":3,"id":`)
	lw.str(s.id)
	lw.raw(`,"timestamp":`)
	lw.str(isoMillis(s.start))
	lw.raw(`,"cwd":`)
	lw.str(w.cwd)
	lw.raw("}\n")
	parent := ""
	entry := func(ts int64, body func()) {
		id := randString(w.r, hex, 8)
		lw.raw(`{"type":"message","id":`)
		lw.str(id)
		lw.raw(`,"parentId":`)
		if parent == "" {
			lw.raw("null")
		} else {
			lw.str(parent)
		}
		lw.raw(`,"timestamp":`)
		lw.str(isoMillis(ts))
		lw.raw(`,"message":`)
		body()
		lw.raw("}\n")
		parent = id
	}
	assistant := func(ts int64, stop string, blocks func()) {
		entry(ts, func() {
			lw.raw(`{"role":"assistant","content":[`)
			blocks()
			lw.raw(`],"api":"anthropic-messages","provider":"anthropic","model":`)
			lw.str(s.model)
			lw.raw(`,"stopReason":`)
			lw.str(stop)
			lw.raw(`,"timestamp":`)
			lw.raw(itoa(int(ts / 1000)))
			lw.raw("}")
		})
	}
	text := func(kind, key, s string, first bool) {
		if !first {
			lw.raw(",")
		}
		lw.raw(`{"type":"` + kind + `","` + key + `":`)
		lw.str(s)
		lw.raw("}")
	}
	for _, t := range s.turns {
		at = t.at
		entry(at, func() {
			lw.raw(`{"role":"user","content":`)
			lw.str(t.user)
			lw.raw(`,"timestamp":`)
			lw.raw(itoa(int(at / 1000)))
			lw.raw("}")
		})
		for _, st := range t.steps {
			assistant(tick(), "toolUse", func() {
				first := true
				if st.reasoning != "" {
					text("thinking", "thinking", st.reasoning, first)
					first = false
				}
				if st.text != "" {
					text("text", "text", st.text, first)
					first = false
				}
				for _, c := range st.calls {
					if c.id == "" {
						c.id = "toolu_01" + randString(w.r, alnum, 22)
					}
					if !first {
						lw.raw(",")
					}
					first = false
					lw.raw(`{"type":"toolCall","id":`)
					lw.str(c.id)
					lw.raw(`,"name":`)
					lw.str(c.tool)
					lw.raw(`,"arguments":`)
					lw.val(c.args, false)
					lw.raw("}")
				}
			})
			for _, c := range st.calls {
				ts := tick()
				entry(ts, func() {
					lw.raw(`{"role":"toolResult","toolCallId":`)
					lw.str(c.id)
					lw.raw(`,"toolName":`)
					lw.str(c.tool)
					lw.raw(`,"content":[{"type":"text","text":`)
					lw.str(c.result)
					lw.raw(`}],"isError":`)
					if c.isErr {
						lw.raw("true")
					} else {
						lw.raw("false")
					}
					lw.raw(`,"timestamp":`)
					lw.raw(itoa(int(ts / 1000)))
					lw.raw("}")
				})
			}
		}
		assistant(tick(), "stop", func() { text("text", "text", t.final, true) })
	}
	return []written{{s: s, id: s.id, line: 1}}
}
