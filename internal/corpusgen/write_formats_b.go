package corpusgen

// Writers for later formats: hermes request dumps,
// SWE-agent trajectories and ATIF trajectories. Each file holds one
// session, written as one pretty-printed document (docs/formats/
// hermes-request-dump.md, swe-agent.md, atif.md say the shapes).

import (
	"math/rand/v2"
)

// chatToolCalls writes an OpenAI tool_calls list: compact, or as Python's
// json.dumps spaces it (py), with the arguments in the same style.
func chatToolCalls(lw *lineWriter, calls []*call, py bool) {
	sep, colon := ",", ":"
	if py {
		sep, colon = ", ", ": "
	}
	lw.raw(`[`)
	for i, c := range calls {
		if i > 0 {
			lw.raw(sep)
		}
		lw.raw(`{"id"` + colon)
		lw.str(c.id)
		lw.raw(sep + `"type"` + colon + `"function"` + sep + `"function"` + colon + `{"name"` + colon)
		lw.str(c.tool)
		lw.raw(sep + `"arguments"` + colon)
		lw.str(objString(c.args, py))
		lw.raw("}}")
	}
	lw.raw("]")
}

type requestDumpWriter struct {
	r   *rand.Rand
	sid string
}

// session writes a request dump: the conversation so far as the body of
// the chat request the provider refused.
func (w *requestDumpWriter) session(lw *lineWriter, s *session) []written {
	msgs := flatten(s, w.r, func() string { return hermesCallID(w.r) })
	lw.raw("{\n  \"timestamp\": ")
	lw.str(isoLocal(s.end))
	lw.raw(",\n  \"session_id\": ")
	lw.str(w.sid)
	lw.raw(",\n  \"reason\": \"non_retryable_client_error\",\n  \"request\": {\n    \"method\": \"POST\",\n    \"url\": \"https://openrouter.ai/api/v1/chat/completions\",\n    \"headers\": {\"Authorization\": \"Bearer sk-or-v1...")
	lw.raw(randString(w.r, alnum, 4))
	lw.raw("\", \"Content-Type\": \"application/json\"},\n    \"body\": {\n      \"model\": ")
	lw.str(s.model)
	lw.raw(",\n      \"messages\": [\n        {\"role\": \"system\", \"content\": ")
	lw.str(hermesSystemPrompt)
	lw.raw("}")
	for _, m := range msgs {
		lw.raw(",\n        ")
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
		case "tool":
			lw.raw(`{"role": "tool", "tool_call_id": `)
			lw.str(m.res.id)
			lw.raw(`, "content": `)
			lw.str(m.res.result)
		}
		lw.raw("}")
	}
	lw.raw("\n      ]\n    }\n  },\n  \"error\": {\"type\": \"BadRequestError\", \"message\": \"Error code: 400 - context length exceeded\"}\n}\n")
	return []written{{s: s, id: w.sid, line: 0}}
}

type sweAgentWriter struct {
	r    *rand.Rand
	stem string
}

// session writes a function-calling SWE-agent trajectory: the history
// (with agent and message_type on every message, tool messages naming
// their calls in tool_call_ids) and an empty trajectory.
func (w *sweAgentWriter) session(lw *lineWriter, s *session) []written {
	msgs := flatten(s, w.r, func() string { return "call_" + randString(w.r, alnum, 24) })
	lw.raw("{\n  \"environment\": \"swe_main\",\n  \"trajectory\": [],\n  \"history\": [\n    {\"role\": \"system\", \"content\": \"SETTING: You are an autonomous programmer working in a command line.\", \"agent\": \"main\", \"message_type\": \"system_prompt\"}")
	first := true
	for _, m := range msgs {
		lw.raw(",\n    ")
		switch m.role {
		case "user":
			kind := "user"
			if first {
				kind = "observation" // the problem statement, as SWE-agent names it
			}
			first = false
			lw.raw(`{"role": "user", "content": `)
			lw.str(m.content)
			lw.raw(`, "agent": "main", "message_type": "` + kind + `"}`)
		case "assistant":
			lw.raw(`{"role": "assistant", "content": `)
			lw.str(m.content)
			lw.raw(`, "thought": `)
			lw.str(m.content)
			lw.raw(`, "action": `)
			action := ""
			if len(m.calls) > 0 {
				action = m.calls[0].tool
			}
			lw.str(action)
			lw.raw(`, "agent": "main"`)
			if len(m.calls) > 0 {
				lw.raw(`, "tool_calls": `)
				chatToolCalls(lw, m.calls, false)
			}
			lw.raw(`, "message_type": "action"}`)
		case "tool":
			lw.raw(`{"role": "tool", "content": `)
			lw.str(m.res.result)
			lw.raw(`, "agent": "main", "message_type": "observation", "tool_call_ids": [`)
			lw.str(m.res.id)
			lw.raw(`]}`)
		}
	}
	lw.raw("\n  ],\n  \"info\": {\"exit_status\": \"submitted\", \"model_stats\": {\"api_calls\": ")
	lw.raw(itoa(len(msgs)))
	lw.raw("}},\n  \"replay_config\": \"{}\"\n}\n")
	return []written{{s: s, id: w.stem, line: 0}}
}

type atifWriter struct {
	r *rand.Rand
}

// session writes an ATIF-v1.4 trajectory: a system step, a user step per
// prompt, an agent step per model response holding its tool calls and
// their results, with metrics.
func (w *atifWriter) session(lw *lineWriter, s *session) []written {
	id := uuid4(w.r)
	lw.raw("{\n  \"schema_version\": \"ATIF-v1.4\",\n  \"session_id\": ")
	lw.str(id)
	lw.raw(",\n  \"agent\": {\"name\": \"terminus-2\", \"version\": \"2.0.0\", \"model_name\": ")
	lw.str(s.model)
	lw.raw("},\n  \"steps\": [\n    {\"step_id\": 1, \"source\": \"system\", \"message\": \"You are an AI assistant solving tasks in a terminal.\"}")
	step := 1
	prompt := 6000 + w.r.IntN(4000)
	// head opens the next step, up to its message.
	head := func(at int64, source, message string) {
		step++
		lw.raw(",\n    {\"step_id\": ")
		lw.raw(itoa(step))
		lw.raw(`, "timestamp": `)
		lw.str(isoMillis(at))
		lw.raw(`, "source": "` + source + `", "message": `)
		lw.str(message)
	}
	agent := func(at int64, text, reasoning string, calls []*call) {
		head(at, "agent", text)
		if reasoning != "" {
			lw.raw(`, "reasoning_content": `)
			lw.str(reasoning)
		}
		if len(calls) > 0 {
			lw.raw(`, "tool_calls": [`)
			for i, c := range calls {
				if i > 0 {
					lw.raw(", ")
				}
				lw.raw(`{"tool_call_id": `)
				lw.str(c.id)
				lw.raw(`, "function_name": `)
				lw.str(c.tool)
				lw.raw(`, "arguments": `)
				lw.val(c.args, false)
				lw.raw("}")
			}
			lw.raw(`], "observation": {"results": [`)
			for i, c := range calls {
				if i > 0 {
					lw.raw(", ")
				}
				lw.raw(`{"source_call_id": `)
				lw.str(c.id)
				lw.raw(`, "content": `)
				lw.str(c.result)
				lw.raw("}")
			}
			lw.raw("]}")
		}
		out := (len(text)+len(reasoning))/4 + 10
		lw.raw(`, "metrics": {"prompt_tokens": `)
		lw.raw(itoa(prompt))
		lw.raw(`, "completion_tokens": `)
		lw.raw(itoa(out))
		lw.raw("}}")
		prompt += out
		for _, c := range calls {
			prompt += len(c.result)/4 + 1
		}
	}
	for _, t := range s.turns {
		at := t.at
		head(at, "user", t.user)
		lw.raw("}")
		prompt += len(t.user)/4 + 1
		for _, st := range t.steps {
			at += int64(300_000 + w.r.IntN(4_000_000))
			for _, c := range st.calls {
				if c.id == "" {
					c.id = "call_" + randString(w.r, alnum, 24)
				}
			}
			agent(at, st.text, st.reasoning, st.calls)
		}
		agent(at+int64(500_000), t.final, "", nil)
	}
	lw.raw("\n  ],\n  \"final_metrics\": {\"total_steps\": ")
	lw.raw(itoa(step))
	lw.raw("}\n}\n")
	return []written{{s: s, id: id, line: 0}}
}
