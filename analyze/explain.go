package analyze

import (
	"fmt"
	"strings"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/analyze/guard/replayfast"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/rules"
)

// Link is one call of the chain a decision counted: an earlier call with
// the same guard key, or the call itself (the last link).
type Link struct {
	Call   int          `json:"call"`
	Turn   int          `json:"turn"`
	Line   int          `json:"line"`
	Tool   string       `json:"tool"`
	Args   string       `json:"args"`
	Action guard.Action `json:"action"`
	// Result is the first line of the call's result ("" without one).
	Result string `json:"result"`
	// Counted marks the links inside the detector's count: the last Count
	// calls of the chain.
	Counted bool `json:"counted"`
}

// Explanation says why the guard did what it did with one call.
type Explanation struct {
	Session string `json:"session"`
	// Selector names the session alone in its file (SessionResult.Selector).
	Selector string   `json:"selector"`
	Decision Decision `json:"decision"`
	// Key is the guard key the calls share ("" for a call without one).
	Key   string `json:"key"`
	Chain []Link `json:"chain"`
	// Why is the detector's reason in words.
	Why string `json:"why"`
}

// Explain replays p under r and explains its call number call (1-based,
// as Decision.Call): the earlier calls with the same guard key, each with
// what the guard did and the first line of its result, and why the
// detector fired.
func Explain(p *PreparedSession, r *rules.Rules, tc *TokenCache, call int) (Explanation, error) {
	if call < 1 || call > len(p.Calls) {
		return Explanation{}, fmt.Errorf("session %s has %d calls; there is no call %d", p.ID, len(p.Calls), call)
	}
	res, _ := Run(p, r, tc)
	actions := make(map[int]guard.Action, len(res.Decisions))
	ex := Explanation{Session: p.ID, Selector: ingest.SessionSelector(p.ID, p.Agent)}
	found := false
	for _, d := range res.Decisions {
		actions[d.Call] = d.Action
		if d.Call == call {
			ex.Decision, found = d, true
		}
	}
	target := &p.Calls[call-1]
	if !found {
		ex.Decision = Decision{Turn: target.Event.Turn, Call: call, Line: target.Line, CallID: target.CallID,
			Tool: target.Event.Tool, Class: target.Event.Class, Args: target.Event.ArgsRaw, Action: guard.Allow}
	}
	ex.Key, _ = replayfast.Key(&target.Event)
	// Run left every call keyed under p.keys: equal numbers, equal keys.
	for i := 0; i < call; i++ {
		c := &p.Calls[i]
		same := i == call-1 || replayfast.SameKey(&c.Event, &target.Event)
		if !same {
			continue
		}
		ex.Chain = append(ex.Chain, Link{Call: c.Event.Index, Turn: c.Event.Turn, Line: c.Line, Tool: c.Event.Tool,
			Args: c.Event.ArgsRaw, Action: actions[c.Event.Index], Result: firstLine(c.Event.Result, c.HasResult)})
	}
	if n := ex.Decision.Count; n > 0 {
		for i := max(len(ex.Chain)-n, 0); i < len(ex.Chain); i++ {
			ex.Chain[i].Counted = true
		}
	}
	ex.Why = why(&ex.Decision, len(ex.Chain))
	return ex, nil
}

func firstLine(s string, has bool) string {
	if !has {
		return "(no result)"
	}
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

// why words a decision's reason.
func why(d *Decision, chain int) string {
	var b strings.Builder
	switch {
	case d.Native != "" && d.Action == guard.Allow:
		fmt.Fprintf(&b, "the agent's own guard acted here (%s); the rules did not", d.Native)
	case d.Action == guard.Allow:
		fmt.Fprintf(&b, "allowed: no detector fired (%d call(s) with this key so far)", chain)
	default:
		fmt.Fprintf(&b, "%s by the %s detector", d.Action, orNone(d.Detector))
		if d.Count > 0 {
			fmt.Fprintf(&b, " at count %d", d.Count)
		}
		if d.Repeats > 0 {
			fmt.Fprintf(&b, ", counted against call %d (line %d)", d.Repeats, d.RepeatsLine)
		}
		if d.Message != "" {
			fmt.Fprintf(&b, "; its message: %s", firstLine(d.Message, true))
		}
	}
	if d.Redundant {
		b.WriteString("; the call was redundant (an earlier call with the same arguments had the same result)")
	}
	if d.Harmful {
		b.WriteString("; harmful: its real result was new")
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
