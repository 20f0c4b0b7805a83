// Command hookbench measures one `loopgate hook` call, process start
// included, on a session that already has many calls (docs/performance.md,
// "The live hook"): it builds the session's state in-process, then runs the
// loopgate binary once per sample on a PreToolUse event (-event post: the
// PostToolUse of a call whose PreToolUse is in the session), restoring the
// state before each run so that every sample sees the same session.
//
//	go build -o /tmp/loopgate . && go run ./cmd/hookbench -loopgate /tmp/loopgate -calls 2000 -runs 300
//
// With -base OTHER, the runs alternate between the two binaries (one of
// each per pair, in alternating order), so that both see the same load on
// a shared machine, and the pairs' differences are reported too.
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

	"github.com/loopgate/loopgate/live"
	"github.com/loopgate/loopgate/rules"
)

func main() {
	bin := flag.String("loopgate", "loopgate", "the loopgate binary to run")
	base := flag.String("base", "", "a baseline loopgate binary to run alternately with -loopgate")
	calls := flag.Int("calls", 2000, "calls already in the session")
	runs := flag.Int("runs", 300, "hook calls timed (per binary)")
	preset := flag.String("preset", "loopgate", "rules preset")
	turn := flag.Int("turn", 100, "calls per user turn (0: the whole session is one turn)")
	kind := flag.String("event", "pre", "the event timed: pre (PreToolUse of a new call) or post (its PostToolUse, the PreToolUse already in the session)")
	keep := flag.String("keep", "", "build the session's state in this directory, write the event to DIR/event.json, run nothing (for perf)")
	flag.Parse()
	r, err := rules.Preset(*preset)
	if err != nil {
		fail(err)
	}
	dir := *keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "hookbench-"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
	}
	// The binaries run from copies: a binary just written by the linker
	// ran slower (CPU) than a copy of it (docs/performance.md), the page cache holding it
	// in smaller pieces (more page faults at start), so that comparing a
	// fresh build with an older copy favoured the copy.
	binRun, baseRun := copyBinary(*bin, dir, "loopgate"), ""
	if *base != "" {
		baseRun = copyBinary(*base, dir, "base")
	}
	// The rules' text as `loopgate hook --preset` gives it, so that the
	// session's checkpoint serves the hook processes timed.
	text, err := rules.PresetText(*preset)
	if err != nil {
		fail(err)
	}
	cfg := live.Config{Protocol: live.Protocols["claude-code"], Rules: r, RulesText: live.SourceText("preset:"+*preset, text), StateDir: dir}
	buildSession(cfg, *calls, *turn)
	next := `,"tool_name":"Read","tool_input":{"file_path":"/src/new.go"},"tool_use_id":"toolu_next"`
	event := hookEvent("PreToolUse", next)
	switch *kind {
	case "pre":
	case "post":
		// The call's PreToolUse goes into the session; its PostToolUse,
		// which also writes the session's checkpoint, is timed.
		live.Handle(cfg, event)
		event = hookEvent("PostToolUse", next+`,"tool_response":"`+fmt.Sprintf("%0200d", 1)+`"`)
	default:
		fail(fmt.Errorf("-event %q: pre or post", *kind))
	}
	if *keep != "" {
		if err := os.WriteFile(filepath.Join(dir, "event.json"), event, 0o600); err != nil {
			fail(err)
		}
		fmt.Printf("state in %s; run: %s hook --agent claude-code --preset %s --state-dir %s < %s\n",
			dir, binRun, *preset, dir, filepath.Join(dir, "event.json"))
		return
	}
	// Every file of the state, to restore before each run.
	saved := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(dir, "s-*"))
	for _, f := range files {
		saved[f], _ = os.ReadFile(f)
	}
	run := func(bin string) sample {
		for f, b := range saved {
			os.WriteFile(f, b, 0o600)
		}
		cmd := exec.Command(bin, "hook", "--agent", "claude-code", "--preset", *preset, "--state-dir", dir)
		cmd.Stdin = bytes.NewReader(event)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			fail(fmt.Errorf("hook (%s): %v %s", bin, err, stderr.String()))
		}
		return sample{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	}
	var got, want []sample
	for i := 0; i < *runs; i++ {
		if *base != "" && i%2 == 1 {
			want = append(want, run(baseRun))
		}
		got = append(got, run(binRun))
		if *base != "" && i%2 == 0 {
			want = append(want, run(baseRun))
		}
	}
	fmt.Printf("hook call (%s) on a session of %d calls (%d per turn, %s, state %d bytes), %d runs\n",
		*kind, *calls, *turn, *preset, stateSize(saved), *runs)
	report(*bin, got)
	if *base != "" {
		report(*base, want)
		var wall, cpu []time.Duration
		for i := range got {
			wall = append(wall, got[i].wall-want[i].wall)
			cpu = append(cpu, got[i].cpu-want[i].cpu)
		}
		fmt.Printf("  pairs (%s minus %s): wall median %+.1f ms, CPU median %+.1f ms\n",
			filepath.Base(*bin), filepath.Base(*base), ms(quantile(wall, 0.5)), ms(quantile(cpu, 0.5)))
	}
}

// copyBinary copies the program bin into dir (with plain writes) and
// returns the copy's path.
func copyBinary(bin, dir, name string) string {
	path, err := exec.LookPath(bin)
	if err != nil {
		fail(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fail(err)
	}
	out := filepath.Join(dir, name+".bin")
	if err := os.WriteFile(out, data, 0o700); err != nil {
		fail(err)
	}
	return out
}

type sample struct{ wall, cpu time.Duration }

func report(bin string, s []sample) {
	var wall, cpu []time.Duration
	for _, x := range s {
		wall = append(wall, x.wall)
		cpu = append(cpu, x.cpu)
	}
	fmt.Printf("  %s: wall p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms; CPU (user+system) p50 %.1f ms, p90 %.1f ms, p99 %.1f ms\n",
		bin, ms(quantile(wall, 0.5)), ms(quantile(wall, 0.9)), ms(quantile(wall, 0.99)), ms(quantile(wall, 1)),
		ms(quantile(cpu, 0.5)), ms(quantile(cpu, 0.9)), ms(quantile(cpu, 0.99)))
}

// quantile sorts d and returns its q-quantile (nearest rank).
func quantile(d []time.Duration, q float64) time.Duration {
	slices.Sort(d)
	return d[min(len(d)-1, int(q*float64(len(d))))]
}

func hookEvent(name, extra string) []byte {
	return []byte(`{"hook_event_name":"` + name + `","session_id":"bench-session","cwd":"/tmp"` + extra + `}`)
}

// buildSession drives the hook in-process through a session of n calls,
// with a user prompt every turn calls (none when turn is 0).
func buildSession(cfg live.Config, n, turn int) {
	live.Handle(cfg, hookEvent("UserPromptSubmit", `,"prompt":"go"`))
	for i := 0; i < n; i++ {
		if turn > 0 && i%turn == turn-1 {
			live.Handle(cfg, hookEvent("UserPromptSubmit", `,"prompt":"next"`))
		}
		tool, input := call(i)
		id := ",\"tool_use_id\":\"toolu_" + strconv.Itoa(i) + "\""
		pre := live.Handle(cfg, hookEvent("PreToolUse", `,"tool_name":"`+tool+`","tool_input":`+input+id))
		if !bytes.Contains(pre.Stdout, []byte(`"deny"`)) {
			result := `"` + fmt.Sprintf("%0200d", i%37) + `"`
			live.Handle(cfg, hookEvent("PostToolUse", `,"tool_name":"`+tool+`","tool_input":`+input+id+`,"tool_response":`+result))
		}
	}
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
