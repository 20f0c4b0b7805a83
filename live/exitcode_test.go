package live

import "testing"

// TestEventExitCode: the OpenCode plugin's exit_code reaches the event; a
// member of that name in another shape leaves the event readable, its
// exit code unknown.
func TestEventExitCode(t *testing.T) {
	p := Lookup("opencode")
	for _, tc := range []struct {
		member string
		want   int
	}{{`1`, 1}, {`2`, 2}, {`"1"`, 0}, {`{"code":1}`, 0}, {`null`, 0}} {
		ev, err := p.ParseEvent([]byte(`{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"bash","tool_use_id":"c1","tool_input":{"command":"cat x"},"tool_response":"(no output)","is_error":true,"exit_code":` + tc.member + `}`))
		if err != nil {
			t.Errorf("exit_code %s: %v", tc.member, err)
			continue
		}
		if ev.Kind != KindPost || ev.ExitCode != tc.want || !ev.IsError {
			t.Errorf("exit_code %s: kind %v, exit code %d, error %v; want a result, %d, true", tc.member, ev.Kind, ev.ExitCode, ev.IsError, tc.want)
		}
	}
}

// TestOpenHandsExitCode: an OpenHands terminal observation that ran and
// failed says so by its exit code alone (is_error false): the hook reads
// it as a failure, as the v1 reader does, and keeps the code.
func TestOpenHandsExitCode(t *testing.T) {
	p := Lookup("openhands")
	for _, tc := range []struct {
		member  string
		exit    int
		isError bool
	}{{`1`, 1, true}, {`0`, 0, false}, {`-1`, -1, true}, {`"x"`, 0, false}} {
		ev, err := p.ParseEvent([]byte(`{"event_type":"PostToolUse","session_id":"s","tool_name":"terminal","tool_input":{"command":"cat x"},"tool_response":{"content":[{"type":"text","text":""}],"is_error":false,"exit_code":` + tc.member + `}}`))
		if err != nil {
			t.Errorf("exit_code %s: %v", tc.member, err)
			continue
		}
		if ev.ExitCode != tc.exit || ev.IsError != tc.isError {
			t.Errorf("exit_code %s: exit code %d, error %v; want %d, %v", tc.member, ev.ExitCode, ev.IsError, tc.exit, tc.isError)
		}
	}
}
