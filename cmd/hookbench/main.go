// Command hookbench measures one `loopgate hook` call, process start
// included, on a session that already has many calls (docs/performance.md,
// "The live hook"): it builds the session's state in-process, then runs the
// loopgate binary once per sample on a PreToolUse event, restoring the
// state before each run so that every sample sees the same session.
//
//	go build -o /tmp/loopgate . && go run ./cmd/hookbench -loopgate /tmp/loopgate -calls 2000 -runs 300
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/loopgate/loopgate/internal/live"
	"github.com/loopgate/loopgate/rules"
)

func main() {
	bin := flag.String("loopgate", "loopgate", "the loopgate binary to run")
	calls := flag.Int("calls", 2000, "calls already in the session")
	runs := flag.Int("runs", 300, "hook calls timed")
	preset := flag.String("preset", "loopgate", "rules preset")
	turn := flag.Int("turn", 100, "calls per user turn (0: the whole session is one turn)")
	flag.Parse()
	r, err := rules.Preset(*preset)
	if err != nil {
		fail(err)
	}
	dir, err := os.MkdirTemp("", "hookbench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	cfg := live.Config{Protocol: live.Protocols["claude-code"], Rules: r, StateDir: dir}
	ev := func(name, extra string) []byte {
		return []byte(`{"hook_event_name":"` + name + `","session_id":"bench-session","cwd":"/tmp"` + extra + `}`)
	}
	live.Handle(cfg, ev("UserPromptSubmit", `,"prompt":"go"`))
	for i := 0; i < *calls; i++ {
		if *turn > 0 && i%*turn == *turn-1 {
			live.Handle(cfg, ev("UserPromptSubmit", `,"prompt":"next"`))
		}
		tool, input := call(i)
		id := ",\"tool_use_id\":\"toolu_" + strconv.Itoa(i) + "\""
		pre := live.Handle(cfg, ev("PreToolUse", `,"tool_name":"`+tool+`","tool_input":`+input+id))
		if !bytes.Contains(pre.Stdout, []byte(`"deny"`)) {
			result := `"` + fmt.Sprintf("%0200d", i%37) + `"`
			live.Handle(cfg, ev("PostToolUse", `,"tool_name":"`+tool+`","tool_input":`+input+id+`,"tool_response":`+result))
		}
	}
	// Every file of the state, to restore before each run.
	saved := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(dir, "s-*"))
	for _, f := range files {
		saved[f], _ = os.ReadFile(f)
	}
	event := ev("PreToolUse", `,"tool_name":"Read","tool_input":{"file_path":"/src/new.go"},"tool_use_id":"toolu_next"`)
	var times, cpu []time.Duration
	for i := 0; i < *runs; i++ {
		for f, b := range saved {
			os.WriteFile(f, b, 0o600)
		}
		cmd := exec.Command(*bin, "hook", "--agent", "claude-code", "--preset", *preset, "--state-dir", dir)
		cmd.Stdin = bytes.NewReader(event)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			fail(fmt.Errorf("hook: %v %s", err, stderr.String()))
		}
		times = append(times, time.Since(start))
		cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	slices.Sort(times)
	slices.Sort(cpu)
	q := func(p float64) time.Duration { return times[min(len(times)-1, int(p*float64(len(times))))] }
	fmt.Printf("hook call on a session of %d calls (%d per turn, %s, state %d bytes), %d runs: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms\n",
		*calls, *turn, *preset, stateSize(saved), *runs, ms(q(0.5)), ms(q(0.9)), ms(q(0.99)), ms(times[len(times)-1]))
	fmt.Printf("CPU (user+system) of the hook process: p50 %.1f ms, p99 %.1f ms\n", ms(cpu[len(cpu)/2]), ms(cpu[min(len(cpu)-1, int(0.99*float64(len(cpu))))]))
}

// call is the i-th call of the synthetic session: reads, searches and
// commands over a few hundred distinct arguments, so that keys repeat.
func call(i int) (string, string) {
	switch i % 4 {
	case 0, 1:
		return "Read", `{"file_path":"/src/pkg` + strconv.Itoa(i%300) + `/file.go"}`
	case 2:
		return "Grep", `{"pattern":"func Test` + strconv.Itoa(i%150) + `","path":"/src"}`
	}
	return "Bash", `{"command":"go test ./pkg` + strconv.Itoa(i%200) + `/..."}`
}

func stateSize(m map[string][]byte) int {
	n := 0
	for _, b := range m {
		n += len(b)
	}
	return n
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hookbench:", err)
	os.Exit(1)
}
