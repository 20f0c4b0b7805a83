package ingest

// hermes-agent request dumps (~/.hermes/sessions/request_dump_<session>_<ts>.json):
// the API request hermes was making when the provider refused it, written
// by AIAgent._dump_api_request_debug (run_agent.py; later
// agent_runtime_helpers.dump_api_request_debug): {"timestamp",
// "session_id", "reason", "request": {"method", "url", "headers", "body"},
// "error"}, the body being the API call's keyword arguments: Chat
// Completions messages, or Responses input items in hermes' codex mode.
// Format reference: docs/formats/hermes-request-dump.md.
//
// Reading taken: the body is read as the OpenAI request it is (openai.go),
// the conversation up to the failed call: its user messages are turns
// (a compaction summary is not: hermesDumpCompaction), its assistant tool
// calls and tool results the calls. The request that failed
// has no response, so the dump adds no request of its own. Results are
// hermes' own, so hermes' error convention marks them (a JSON object whose
// top-level "error" is a non-empty string, hermesResultIsError), as it does
// the same conversation in the session's transcript.

import "strings"

const formatHermesRequestDump = "hermes-request-dump"

func init() {
	register(&Format{
		ID:        formatHermesRequestDump,
		Family:    "hermes",
		Reads:     "hermes-agent request dumps sessions/request_dump_<session>_<timestamp>.json: the failed API request's body (messages, or Responses input items).",
		Detection: "A JSON object with request.body holding messages or input, and hermes' session_id or reason (or a request_dump_ file name).",
		Priority:  25,
		Sniff:     sniffHermesRequestDump,
		ParseDoc: func(doc []byte, h *Head, out *Sink) {
			sink := renamed(out, formatHermesRequestDump)
			emit := sink.OnSession
			sink.OnSession = func(s *Session) {
				hermesDumpCompaction(s)
				hermesMarkErrors(s)
				emit(s)
			}
			parseOpenAIDoc(doc, h, sink)
		},
	})
}

func sniffHermesRequestDump(h *Head) bool {
	if h.Array || !(h.Has("session_id") || h.Has("reason") || strings.HasPrefix(h.Name, "request_dump_")) {
		return false
	}
	body := keysOf(keysOf(h.Keys["request"])["body"])
	return rawIsArray(body["messages"]) || rawIsArray(body["input"])
}

// hermesDumpCompaction reads a compaction summary as the hermes readers do
// (hermesConv.compaction): hermes sends it as a user message at the head
// of the compacted context ("[CONTEXT COMPACTION — REFERENCE ONLY] ..."),
// so every dump taken after a compaction starts with it. It is no user's
// message: the turn it opened is marked CompactedBefore with no prompt,
// and when no request follows it before the next user message it opens
// no turn, the next one being marked instead.
func hermesDumpCompaction(s *Session) {
	turns := s.Turns[:0]
	pending := false
	for _, t := range s.Turns {
		if isHermesCompaction(t.UserText) {
			if len(t.Requests) == 0 && len(t.Notices) == 0 {
				pending = true
				continue
			}
			t.UserText, t.UserChars, t.CompactedBefore = "", 0, true
		}
		if pending {
			t.CompactedBefore, pending = true, false
		}
		turns = append(turns, t)
	}
	s.Turns = turns
}

// hermesMarkErrors sets IsError on the results that hermes' error
// convention calls errors (hermesResultIsError).
func hermesMarkErrors(s *Session) {
	for ti := range s.Turns {
		for ri := range s.Turns[ti].Requests {
			for ci := range s.Turns[ti].Requests[ri].Calls {
				c := &s.Turns[ti].Requests[ri].Calls[ci]
				if c.HasResult && !c.IsError {
					c.IsError = hermesResultIsError(c.Result)
				}
			}
		}
	}
}
