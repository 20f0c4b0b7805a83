package formatcheck

import (
	"encoding/json"
	"strings"
)

// hermes saves batch runs as ShareGPT trajectories, one per line:
// {conversations: [{from, value}], timestamp, model, completed}. The model
// turn ("gpt") writes each call as <tool_call>{"name", "arguments"}
// </tool_call>, with no id; the "tool" turn that follows answers them with
// one <tool_response> each, in order (docs/formats/hermes.md; hermes-agent,
// https://github.com/NousResearch/hermes-agent).

func countTrajectories(lines []line) Count {
	c := Count{Format: "hermes-trajectory"}
	for _, l := range lines {
		var turns []struct {
			From  string `json:"from"`
			Value string `json:"value"`
		}
		if json.Unmarshal(l["conversations"], &turns) != nil {
			continue
		}
		s := newSession()
		var pending []*call
		for _, t := range turns {
			switch t.From {
			case "gpt":
				pending = pending[:0]
				for _, body := range between(t.Value, "<tool_call>", "</tool_call>") {
					var v struct {
						Name string          `json:"name"`
						Args json.RawMessage `json:"arguments"`
					}
					_ = json.Unmarshal([]byte(strings.TrimSpace(body)), &v)
					pending = append(pending, s.add("", v.Name, rawText(v.Args)))
				}
			case "tool":
				for range between(t.Value, "<tool_response>", "</tool_response>") {
					if len(pending) == 0 {
						break
					}
					pending[0].hasResult = true
					pending = pending[1:]
				}
			}
		}
		c.tally(s)
	}
	return c
}

// between lists the texts between each open and close marker.
func between(s, open, close string) []string {
	var out []string
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return out
		}
		s = s[i+len(open):]
		j := strings.Index(s, close)
		if j < 0 {
			return append(out, s)
		}
		out = append(out, s[:j])
		s = s[j+len(close):]
	}
}
