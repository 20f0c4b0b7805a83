package guard

import (
	"fmt"
	"strconv"
	"testing"
)

// qwenEvent is one event of a Qwen Code scenario: a call (with its result,
// unless noResult) or the end of a model response (finished).
type qwenEvent struct {
	tool, args, result string
	noResult, finished bool
}

// runQwen drives a guard through events and returns the index of the
// first call the guard acted on and its verdict (-1 when none).
func runQwen(t *testing.T, g *Guard, evs []qwenEvent) (int, Verdict) {
	t.Helper()
	for i, e := range evs {
		if e.finished {
			if v := g.EndRequest(); v.Action != Allow {
				return i, v
			}
			continue
		}
		ev := &CallEvent{Tool: e.tool, ArgsRaw: e.args, ArgsOK: true, args: mustArgs(t, e.args), argsGiven: true}
		v := g.Before(ev)
		if v.Action != Allow {
			return i, v
		}
		if !e.noResult {
			ev.Result, ev.ResultHash = e.result, hashResult(e.result)
			if after := g.After(ev, v); after.Action != Allow {
				return i, after
			}
		}
	}
	return -1, Verdict{}
}

// call is a call of tool with args returning result.
func call(tool, args, result string) qwenEvent {
	return qwenEvent{tool: tool, args: args, result: result}
}

var finished = qwenEvent{finished: true}

// distinct is n calls of one tool, each with its own arguments.
func distinct(tool, prefix string, n int) []qwenEvent {
	var out []qwenEvent
	for i := range n {
		out = append(out, call(tool, fmt.Sprintf(`{%q:%d}`, prefix, i), "ok"))
	}
	return out
}

// interleave alternates a repeated call with distinct fillers, n calls.
func interleave(tool, repeated string, n int) []qwenEvent {
	var out []qwenEvent
	for i := range n {
		if i%2 == 0 {
			out = append(out, call(tool, repeated, "ok"))
		} else {
			out = append(out, call(tool, `{"filler":`+strconv.Itoa(i)+`}`, "ok"))
		}
	}
	return out
}

func cat(parts ...[]qwenEvent) []qwenEvent {
	var out []qwenEvent
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestQwenTurnCap follows loopDetectionService.test.ts's "Turn Tool Call
// Cap" (QwenLM/qwen-code @ 00aa71b4), under the qwen-code preset with the
// test's soft cap of 10 (hard 100) where the test sets it.
func TestQwenTurnCap(t *testing.T) {
	small := withSet(t, "qwen-code", "detectors.turn_cap.soft", "10", "detectors.turn_cap.hard", "100")
	tests := []struct {
		name   string
		preset string // "": small
		events []qwenEvent
		want   int // index of the halted call, -1: none
	}{
		{"does not fire at or below the soft cap", "", distinct("any_tool", "i", 10), -1},
		{"does not fire on diverse calls above the soft cap (productive turn)", "", distinct("any_tool", "i", 99), -1},
		{"fires when a stuck signal accumulates between the soft and hard cap", "",
			cat(distinct("any_tool", "i", 10), interleave("any_tool", `{"stuck":true}`, 12)), 20},
		{"fires on a stuck signal accumulated across Finished round-trips", "", func() []qwenEvent {
			var out []qwenEvent
			for rt := range 3 {
				out = append(out, call("t", `{"same":true}`, "ok"), call("t", `{"d":`+strconv.Itoa(rt*2)+`}`, "ok"),
					call("t", `{"same":true}`, "ok"), call("t", `{"d":`+strconv.Itoa(rt*2+1)+`}`, "ok"), finished)
			}
			return out
		}(), 12},
		{"treats reordered argument fields as one call for the stuck signal", "", func() []qwenEvent {
			variants := []string{
				`{"a":1,"b":2,"c":3,"nested":{"x":10,"y":20}}`,
				`{"nested":{"y":20,"x":10},"c":3,"b":2,"a":1}`,
				`{"b":2,"a":1,"nested":{"x":10,"y":20},"c":3}`,
				`{"c":3,"nested":{"y":20,"x":10},"a":1,"b":2}`,
				`{"nested":{"x":10,"y":20},"a":1,"c":3,"b":2}`,
				`{"b":2,"c":3,"a":1,"nested":{"y":20,"x":10}}`,
			}
			var out []qwenEvent
			for i := range 16 {
				if i%2 == 0 {
					out = append(out, call("any_tool", variants[(i/2)%len(variants)], "ok"))
				} else {
					out = append(out, call("any_tool", `{"filler":`+strconv.Itoa(i)+`}`, "ok"))
				}
			}
			return out
		}(), 10},
		{"fires at the hard cap regardless of diversity", "", append(distinct("t", "i", 100), call("t", `{"last":true}`, "ok")), 100},
		{"fires at the soft cap when a stuck-repetition signal is present", "", interleave("any_tool", `{"stuck":true}`, 16), 10},
		{"allows diverse calls past the built-in default soft cap", "qwen-code", distinct("t", "i", 101), -1},
		{"still accumulates across committed round-trips to trip the cap", "", func() []qwenEvent {
			var out []qwenEvent
			for rt := range 12 {
				out = append(out, distinct("t", "rt"+strconv.Itoa(rt), 15)...)
				out = append(out, finished)
			}
			return out
		}(), 100 + 100/15},
	}
	for _, tt := range tests {
		r := small
		if tt.preset != "" {
			r = preset(t, tt.preset)
		}
		at, v := runQwen(t, NewGuard(r), tt.events)
		if at != tt.want || at >= 0 && (v.Action != Halt || v.Detector != "turn_cap") {
			t.Errorf("%s: verdict at event %d (%v %s), want a turn_cap halt at %d", tt.name, at, v.Action, v.Detector, tt.want)
		}
	}
	// "treats an explicit value as a hard cap: cap of 2 halts call 3", and
	// "the same value left at the default is adaptive, not a hard cap".
	explicit := withSet(t, "qwen-code", "detectors.turn_cap.soft", "1", "detectors.turn_cap.hard", "2", "detectors.turn_cap.stuck_at", "0")
	if at, _ := runQwen(t, NewGuard(explicit), distinct("t", "a", 3)); at != 2 {
		t.Errorf("an explicit cap of 2: verdict at %d, want at the 3rd call", at)
	}
	adaptive := withSet(t, "qwen-code", "detectors.turn_cap.soft", "2", "detectors.turn_cap.hard", "20")
	if at, _ := runQwen(t, NewGuard(adaptive), distinct("t", "a", 3)); at != -1 {
		t.Errorf("a default cap of 2: verdict at %d, want none", at)
	}
}

// TestQwenStatefulRead follows loopDetectionService.test.ts's "Result-aware
// guards for stateful read tools" (QwenLM/qwen-code @ 00aa71b4) for the
// always-on guards, under the qwen-code preset: task_list's streak and its
// count toward the cap go by its results.
func TestQwenStatefulRead(t *testing.T) {
	const args = `{"status":"in_progress","owner":"peer-a","blockedBy":""}`
	poll := func(result string) qwenEvent { return call("task_list", args, result) }
	polls := func(n int, result func(i int) string) []qwenEvent {
		var out []qwenEvent
		for i := range n {
			out = append(out, poll(result(i)))
		}
		return out
	}
	qwen := preset(t, "qwen-code")
	tests := []struct {
		name   string
		r      string
		events []qwenEvent
		want   int
		det    string
	}{
		{"still halts at the threshold when no results were recorded (fail-safe)", "",
			func() []qwenEvent {
				var out []qwenEvent
				for range 5 {
					out = append(out, qwenEvent{tool: "task_list", args: args, noResult: true})
				}
				return out
			}(), 4, "consecutive"},
		{"still halts at the threshold when every result is unchanged", "",
			polls(5, func(int) string { return "#1 [in_progress] @peer-a — task" }), 4, "consecutive"},
		{"does not halt while the task board keeps changing between identical calls", "",
			polls(20, func(i int) string { return "board state v" + strconv.Itoa(i) }), -1, ""},
		{"keeps productive polling alive past the adaptive per-turn cap", "",
			polls(120, func(i int) string { return "board state v" + strconv.Itoa(i) }), -1, ""},
		{"restarts the streak when a result changed, then halts on a fresh unchanged streak", "",
			polls(9, func(i int) string {
				return []string{"v1", "v1", "v2", "v1", "v1", "v1", "v1", "v1", "v1"}[i]
			}), 8, "consecutive"},
		{"does not change behavior for deterministic (non-stateful) tools", "",
			func() []qwenEvent {
				var out []qwenEvent
				for i := range 5 {
					// A ranged read, which the preset's whole-file read
					// cache leaves alone (upstream reads {file_path} alone,
					// with no read cache in the test).
					out = append(out, call("read_file", `{"file_path":"/a","offset":1}`, "content v"+strconv.Itoa(i)))
				}
				return out
			}(), 4, "consecutive"},
		{"keeps the adaptive cap from arming on oscillating results", "soft20",
			func() []qwenEvent {
				var out []qwenEvent
				for round := range 40 {
					out = append(out, poll([]string{"state-a", "state-b"}[round%2]), call("tool_b", `{"step":`+strconv.Itoa(round)+`}`, "ok"))
				}
				return out
			}(), -1, ""},
		// The cap's counterpart, loopgate's reading: a frozen board
		// interleaved with other calls arms the cap past soft.
		{"a frozen board polled among other calls arms the cap (result-time stuck signal)", "soft20",
			func() []qwenEvent {
				var out []qwenEvent
				for round := range 40 {
					out = append(out, poll("frozen"), call("tool_b", `{"step":`+strconv.Itoa(round)+`}`, "ok"))
				}
				return out
			}(), 20, "turn_cap"},
	}
	soft20 := withSet(t, "qwen-code", "detectors.turn_cap.soft", "20", "detectors.turn_cap.hard", "200")
	for _, tt := range tests {
		r := qwen
		if tt.r == "soft20" {
			r = soft20
		}
		at, v := runQwen(t, NewGuard(r), tt.events)
		if at != tt.want || at >= 0 && (v.Action != Halt || v.Detector != tt.det) {
			t.Errorf("%s: verdict at event %d (%v %s), want %d (%s)", tt.name, at, v.Action, v.Detector, tt.want, tt.det)
		}
	}
}
