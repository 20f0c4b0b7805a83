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
// the conversation up to the failed call: its user messages are turns, its
// assistant tool calls and tool results the calls. The request that failed
// has no response, so the dump adds no request of its own.

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
			parseOpenAIDoc(doc, h, renamed(out, formatHermesRequestDump))
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
