package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// cx builds one Codex rollout line.
func cx(typ, payload string) string {
	return `{"timestamp":"2026-01-05T09:00:00Z","type":"` + typ + `","payload":` + payload + `}`
}

func cxTokens(total, last string) string {
	p := `{"type":"token_count","info":{"total_token_usage":` + total
	if last != "" {
		p += `,"last_token_usage":` + last
	}
	return cx("event_msg", p+`}}`)
}

func tok(in, cached, out int) string {
	return fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":%d}`, in, cached, out, in+out)
}

func TestCodexReading(t *testing.T) {
	userEvent := cx("event_msg", `{"type":"user_message","message":"go"}`)
	userItem := cx("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}`)
	call := func(id string) string {
		return cx("response_item", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"`+id+`"}`)
	}
	output := func(id string) string {
		return cx("response_item", `{"type":"function_call_output","call_id":"`+id+`","output":"ok"}`)
	}
	tests := []struct {
		name  string
		lines []string
		turns int
		reqs  string // per request: number of calls and usage "in/cached/out" or "-"
	}{
		{
			name:  "event before item: one turn",
			lines: []string{userEvent, userItem, call("c1"), output("c1")},
			turns: 1, reqs: "1:-",
		},
		{
			name:  "item before event: still one turn",
			lines: []string{userItem, userEvent, call("c1"), output("c1")},
			turns: 1, reqs: "1:-",
		},
		{
			name:  "injected context is not a turn",
			lines: []string{cx("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}`), userEvent, call("c1"), output("c1")},
			turns: 1, reqs: "1:-",
		},
		{
			name:  "parallel calls are one request; last_token_usage is per request",
			lines: []string{userEvent, call("c1"), call("c2"), cxTokens(tok(100, 50, 10), tok(100, 50, 10)), output("c2"), output("c1"), call("c3"), cxTokens(tok(300, 150, 30), tok(200, 100, 20)), output("c3")},
			turns: 1, reqs: "2:100/50/10 1:200/100/20",
		},
		{
			name:  "without last_token_usage the totals' difference is used; a repeated total adds nothing",
			lines: []string{userEvent, call("c1"), cxTokens(tok(100, 0, 10), ""), output("c1"), call("c2"), cxTokens(tok(250, 64, 25), ""), cxTokens(tok(250, 64, 25), ""), output("c2")},
			turns: 1, reqs: "1:100/0/10 1:150/64/15",
		},
		{
			name:  "a total that went down (resumed process) is taken as is",
			lines: []string{userEvent, call("c1"), cxTokens(tok(900, 0, 90), ""), output("c1"), call("c2"), cxTokens(tok(120, 0, 12), ""), output("c2")},
			turns: 1, reqs: "1:900/0/90 1:120/0/12",
		},
		{
			// As Codex rebuilds turns (thread_history.rs: "EventMsg::UserMessage(payload)
			// => self.handle_user_message(payload)"), role-user items that are
			// not the typed text (AGENTS.md, redacted context) open no turn.
			name: "role-user items whose text differs from the event's open no turn",
			lines: []string{cx("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"[REDACTED len=3017]"}]}`),
				cx("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"[REDACTED len=108]"}]}`),
				cx("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"[REDACTED len=115]"}]}`),
				cx("event_msg", `{"type":"user_message","message":"[REDACTED_MESSAGE len=115]"}`), call("c1"), output("c1")},
			turns: 1, reqs: "1:-",
		},
		{
			name:  "a role-user item after the first event opens no turn",
			lines: []string{userEvent, call("c1"), output("c1"), cx("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"injected later"}]}`), call("c2"), output("c2")},
			turns: 1, reqs: "1:- 1:-",
		},
		{
			name:  "with no user_message event at all, role-user items open turns",
			lines: []string{userItem, call("c1"), output("c1"), cx("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"again"}]}`), call("c2"), output("c2")},
			turns: 2, reqs: "1:- 1:-",
		},
		{
			name:  "calls answered before the first event stay, in a turn of their own",
			lines: []string{userItem, call("c1"), output("c1"), userEvent, call("c2"), output("c2")},
			turns: 2, reqs: "1:- 1:-",
		},
		{
			name:  "a user message between calls starts a new turn",
			lines: []string{userEvent, call("c1"), output("c1"), cx("event_msg", `{"type":"user_message","message":"again"}`), call("c2"), output("c2")},
			turns: 2, reqs: "1:- 1:-",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sessions, problems := readText(t, "rollout.jsonl", strings.Join(tc.lines, "\n")+"\n")
			if len(problems) != 0 {
				t.Errorf("problems: %s", problemSummary(problems))
			}
			if len(sessions) != 1 || sessions[0].Format != formatCodex {
				t.Fatalf("want one codex session, got %d", len(sessions))
			}
			s := sessions[0]
			if len(s.Turns) != tc.turns {
				t.Errorf("turns = %d, want %d", len(s.Turns), tc.turns)
			}
			var got []string
			for _, tr := range s.Turns {
				for _, r := range tr.Requests {
					u := "-"
					if r.Usage != nil {
						u = fmt.Sprintf("%d/%d/%d", r.Usage.Input, r.Usage.CacheRead, r.Usage.Output)
					}
					got = append(got, fmt.Sprintf("%d:%s", len(r.Calls), u))
				}
			}
			if g := strings.Join(got, " "); g != tc.reqs {
				t.Errorf("requests = %q, want %q", g, tc.reqs)
			}
		})
	}
}
