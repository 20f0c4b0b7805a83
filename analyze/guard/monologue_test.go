package guard

import (
	"strconv"
	"testing"
	"time"
)

// monologueStep is one event for TestOpenHandsMonologue: a user message
// (user), a response without calls (msg), or a call that ran (call).
type monologueStep struct {
	user, msg, call string
	want            string // "" allow, else action:detector:count
}

func runMonologue(t *testing.T, name string, g *Guard, steps []monologueStep) {
	t.Helper()
	for i, s := range steps {
		var v Verdict
		switch {
		case s.user != "":
			g.UserTurn(time.Time{})
			continue
		case s.call != "":
			ev := &CallEvent{Tool: "execute_bash", ArgsRaw: `{"command":"` + s.call + `"}`, ArgsOK: true, Result: "42"}
			v = g.Before(ev)
			after := g.After(ev, v)
			Raise(&v, &after)
		default:
			v = g.Text(s.msg)
			m := g.Message(s.msg)
			Raise(&v, &m)
		}
		got := "allow"
		if v.Action != Allow {
			got = v.Action.String() + ":" + v.Detector + ":" + strconv.Itoa(v.Count)
		}
		want := s.want
		if want == "" {
			want = "allow"
		}
		if got != want {
			t.Errorf("%s: step %d: got %s, want %s", name, i+1, got, want)
		}
	}
}

// TestOpenHandsMonologue follows tests/unit/controller/test_is_stuck.py's
// test_is_stuck_monologue (All-Hands-AI/OpenHands @ 156d0686) under the
// openhands preset, headless (scope.reset session) as the test runs it,
// and the interactive reading (the preset's scope.reset turn).
func TestOpenHandsMonologue(t *testing.T) {
	headless := withSet(t, "openhands", "scope.reset", "session")
	const well = "I'm doing well, thanks for asking."
	// The user's messages are left out of the history the check reads;
	// the agent's third identical message is the monologue. Upstream a
	// command with no observation comes between "Hi there!" and the
	// repeats; here a call that runs always brings its result, so the
	// scenario has none (the last three messages are the repeats either
	// way).
	runMonologue(t, "test_is_stuck_monologue", NewGuard(headless), []monologueStep{
		{user: "Hi there!"},
		{msg: "Hi there!"},
		{user: "How are you?"},
		{msg: well},
		{msg: well},
		{msg: well, want: "halt:monologue:3"},
	})
	// Its second half: an observation after the repeats, then two more
	// identical messages: the last three have an observation between
	// them, not stuck.
	runMonologue(t, "test_is_stuck_monologue (observation between)", NewGuard(headless), []monologueStep{
		{user: "Hi there!"},
		{msg: well},
		{msg: well},
		{call: "storybook"},
		{msg: well},
		{msg: well},
	})
	// Headless, the user's messages do not break the run either.
	runMonologue(t, "user messages left out (headless)", NewGuard(headless), []monologueStep{
		{user: "go on"},
		{msg: well},
		{user: "go on"},
		{msg: well},
		{user: "go on"},
		{msg: well, want: "halt:monologue:3"},
	})
	// Interactive (the preset: the CLI), only the history after the last
	// user message counts.
	runMonologue(t, "interactive: after the last user message", NewGuard(preset(t, "openhands")), []monologueStep{
		{user: "go on"},
		{msg: well},
		{msg: well},
		{user: "go on"},
		{msg: well},
		{msg: well},
		{msg: well, want: "halt:monologue:3"},
	})
	// Three different messages are no monologue.
	runMonologue(t, "different messages", NewGuard(headless), []monologueStep{
		{msg: "a"}, {msg: "b"}, {msg: "a"}, {msg: "b"},
	})
}
