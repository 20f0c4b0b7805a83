package lab

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/analyze/guard/shellcmd"
)

// TestLoopCommandObserves: every agent's planted loop is a command that
// only observes and prints the loop's word, so its identical runs can be
// redundant.
func TestLoopCommandObserves(t *testing.T) {
	for name, a := range agents {
		cmd := a.tools.loopCmd()
		if !strings.Contains(cmd, loopCommand) {
			t.Errorf("%s: the loop's command %q does not run %q", name, cmd, loopCommand)
		}
		if c := shellcmd.Classify(cmd, ""); c.Acts {
			t.Errorf("%s: the loop's command %q acts (%+v): its repeats would never be redundant", name, cmd, c)
		}
	}
	if qwenCode.tools.loopCmd() == loopCommand {
		t.Error("Qwen Code plays the plain loop command, whose output its headless shell can lose")
	}
}

// TestOverAfter: a run is over once the model answered the given step and
// then had no request for the quiet time.
func TestOverAfter(t *testing.T) {
	srv, err := Start(Script{Marker: "LAB-OVER", Turns: []Turn{
		{Calls: []Call{{"run_shell_command", map[string]any{"command": "echo x"}}}},
		{Calls: []Call{{"run_shell_command", map[string]any{"command": "echo x"}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	post := func(body string) {
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	const tools = `"tools":[{"type":"function","function":{"name":"run_shell_command"}}]`
	step0 := `{"messages":[{"role":"user","content":"LAB-OVER: go"}],` + tools + `}`
	step1 := `{"messages":[{"role":"user","content":"LAB-OVER: go"},{"role":"assistant","tool_calls":[{}]},{"role":"tool","content":"x"}],` + tools + `}`
	tests := []struct {
		name  string
		send  []string
		step  int
		quiet time.Duration
		want  bool
	}{
		{"nothing asked yet", nil, 1, 0, false},
		{"the step not reached", []string{step0}, 1, 0, false},
		{"the step reached, quiet", []string{step1}, 1, 0, true},
		{"the step reached, not quiet long enough", nil, 1, time.Hour, false},
	}
	for _, tc := range tests {
		for _, b := range tc.send {
			post(b)
		}
		if got := overAfter(srv, "LAB-OVER", tc.step, tc.quiet)(); got != tc.want {
			t.Errorf("%s: over = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRunEndsWhenOver: a command that lingers after the run is over is
// ended by the lab and says so; without box.over a command runs to its own
// end.
func TestRunEndsWhenOver(t *testing.T) {
	tests := []struct {
		name      string
		over      func() bool
		args      []string
		wantEnded bool
		wantErr   string
	}{
		{"lingers, over", func() bool { return true }, []string{"sleep", "600"}, true, "ended by the lab"},
		{"exits, never over", func() bool { return false }, []string{"true"}, false, ""},
		{"exits, no over", nil, []string{"false"}, false, "exit status 1"},
	}
	for _, tc := range tests {
		l := &lab{t: t, agent: qwenCode, bin: "/bin/true"}
		b := l.newBox(nil, false, "")
		b.over = tc.over
		err := b.run("", nil, tc.args[0], tc.args[1:]...)
		if b.ended != tc.wantEnded {
			t.Errorf("%s: ended = %v, want %v", tc.name, b.ended, tc.wantEnded)
		}
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v, want no error", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.wantErr)
		}
	}
}

// TestClineScenarios: Cline CLI plays a scenario with a later user turn
// in one ACP session (agent.session), since it cannot resume a session
// headless: its driver refuses a resumed turn rather than start a new
// session, and skips no scenario for its prompts.
func TestClineScenarios(t *testing.T) {
	if clineCLI.session == nil {
		t.Error("Cline has no one-process session for several prompts")
	}
	for _, sc := range scenarios {
		if why := clineCLI.skip(sc); why == clineNoResume {
			t.Errorf("%s: Cline skips it for its prompts", sc.name)
		}
	}
	if err := clineCLI.prompt(nil, "again", true); err == nil || err.Error() != clineNoResume {
		t.Errorf("a resumed Cline turn: %v, want the no-resume error", err)
	}
}
