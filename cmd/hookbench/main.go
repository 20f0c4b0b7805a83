// Command hookbench measures one `loopgate hook` call, process start
// included, on a session that already has many calls (docs/performance.md,
// "The live hook"): it builds the session's state in-process, then runs the
// loopgate binary once per sample on a PreToolUse event (-event post: the
// PostToolUse of a call whose PreToolUse is in the session), restoring the
// state before each run so that every sample sees the same session.
//
//	go build -o /tmp/loopgate . && go run ./cmd/hookbench -loopgate /tmp/loopgate -calls 2000 -runs 300
//
// -loopgate (and -base) may name the hook's own binary, loopgate-hook
// (cmd/loopgate-hook), known by its name: it is run without the word hook.
//
// -preset all times every preset in turn and ends with a table of each
// one's p50, p90 and p99 wall time (process start included), with the
// machine's load (uptime) before and after.
//
// With -base OTHER, the runs alternate between the two binaries (one of
// each per pair, in alternating order), so that both see the same load on
// a shared machine, and the pairs' differences are reported too.
//
// With -floor PROG, each run is followed by one of PROG (given the same
// event on stdin, no arguments): the floor no hook process can go under
// on this machine at this moment, timed beside it. -floor go builds and
// times an empty Go program (func main() {}, static), the floor of any
// hook written in Go; -floor /bin/true that of any process.
//
// With -http, -loopgate runs as `loopgate hook serve` (one server per
// preset, on a free loopback port) and each sample is one event posted to
// it on a new connection, as an agent's HTTP hook posts it: no process
// starts per call. CPU is then the server's, per call on average over the
// runs (the kernel counts it in ticks too coarse for one call).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/live"
	"github.com/loopgate/loopgate/rules"
)

func main() {
	bin := flag.String("loopgate", "loopgate", "the loopgate binary to run")
	base := flag.String("base", "", "a baseline loopgate binary to run alternately with -loopgate")
	calls := flag.Int("calls", 2000, "calls already in the session")
	runs := flag.Int("runs", 300, "hook calls timed (per binary and preset)")
	preset := flag.String("preset", "loopgate", "rules preset, a comma-separated list of them, or all (every preset of `loopgate rules print --list`)")
	turn := flag.Int("turn", 100, "calls per user turn (0: the whole session is one turn)")
	kind := flag.String("event", "pre", "the event timed: pre (PreToolUse of a new call) or post (its PostToolUse, the PreToolUse already in the session)")
	keep := flag.String("keep", "", "build the session's state in this directory, write the event to DIR/event.json, run nothing (for perf)")
	floor := flag.String("floor", "", "a program timed after each run as the floor (go: an empty Go program, built here)")
	overHTTP := flag.Bool("http", false, "post each event to `loopgate hook serve` (-loopgate names a loopgate) instead of running the hook")
	flag.Parse()
	if *overHTTP && (*base != "" || *floor != "" || *keep != "" || live.IsHookProgram(*bin)) {
		fail(fmt.Errorf("-http takes a loopgate as -loopgate, and no -base, -floor or -keep"))
	}
	presets := strings.Split(*preset, ",")
	if *preset == "all" {
		presets = rules.PresetNames()
	}
	if *keep != "" && len(presets) > 1 {
		fail(fmt.Errorf("-keep takes one preset"))
	}
	b := bench{calls: *calls, runs: *runs, turn: *turn, kind: *kind, keep: *keep, http: *overHTTP}
	root := *keep
	if root == "" {
		var err error
		if root, err = os.MkdirTemp("", "hookbench-"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(root)
	}
	// The binaries run from copies: a binary just written by the linker
	// ran slower (CPU) than a copy of it (docs/performance.md), the page cache holding it
	// in smaller pieces (more page faults at start), so that comparing a
	// fresh build with an older copy favoured the copy.
	b.bin, b.binRun = *bin, copyBinary(*bin, root, "loopgate")
	if *base != "" {
		b.base, b.baseRun = *base, copyBinary(*base, root, "base")
	}
	// loopgate-hook (cmd/loopgate-hook) takes the hook's flags without
	// the word hook.
	b.slim = map[string]bool{b.binRun: live.IsHookProgram(*bin), b.baseRun: live.IsHookProgram(*base)}
	switch *floor {
	case "":
	case "go":
		b.floor = emptyGo(root)
	default:
		b.floor = copyBinary(*floor, root, "floor")
	}
	fmt.Printf("load before: %s", uptime())
	var rows []row
	for _, p := range presets {
		dir := root
		if *keep == "" {
			dir = filepath.Join(root, p)
			if err := os.Mkdir(dir, 0o700); err != nil {
				fail(err)
			}
		}
		if r, ok := b.preset(p, dir); ok {
			rows = append(rows, r)
		}
	}
	if len(rows) > 1 {
		// The summary a reader compares with the target: wall time, process
		// start included, per preset.
		cpuHead := "p99 CPU ms"
		if b.http {
			cpuHead = "CPU/call ms" // the server's, averaged (server.cpu)
		}
		fmt.Printf("%-22s %9s %9s %9s %12s", "preset", "p50 ms", "p90 ms", "p99 ms", cpuHead)
		if b.floor != "" {
			fmt.Printf(" %14s %14s %18s", "floor p50 ms", "floor p99 ms", "floor p99 CPU ms")
		}
		if b.base != "" {
			fmt.Printf(" %16s", "pairs' CPU ms")
		}
		fmt.Println()
		for _, r := range rows {
			fmt.Printf("%-22s %9.1f %9.1f %9.1f %12.1f", r.preset, ms(r.p50), ms(r.p90), ms(r.p99), ms(r.cpu99))
			if b.floor != "" {
				fmt.Printf(" %14.1f %14.1f %18.1f", ms(r.floor.p50), ms(r.floor.p99), ms(r.floor.cpu99))
			}
			if b.base != "" {
				fmt.Printf(" %+16.1f", ms(r.pairsCPU))
			}
			fmt.Println()
		}
	}
	if len(rows) > 0 {
		fmt.Printf("load after: %s", uptime())
	}
}

// bench is one measurement's settings.
type bench struct {
	bin, binRun, base, baseRun string
	floor                      string // the floor program's copy, or ""
	calls, runs, turn          int
	kind, keep                 string
	slim                       map[string]bool // binaries run as loopgate-hook
	http                       bool            // events posted to a hook server
}

// row is one preset's figures for -loopgate.
type row struct {
	preset               string
	p50, p90, p99, cpu99 time.Duration
	floor                *row          // the floor program's figures, with -floor
	pairsCPU             time.Duration // with -base: the median of the pairs' CPU differences
}

// preset builds the session's state under preset in dir and times the hook
// calls on it; ok is false under -keep (nothing is run).
func (b *bench) preset(preset, dir string) (row, bool) {
	r, err := rules.Preset(preset)
	if err != nil {
		fail(err)
	}
	// The rules' text as `loopgate hook --preset` gives it, so that the
	// session's checkpoint serves the hook processes timed.
	text, err := rules.PresetText(preset)
	if err != nil {
		fail(err)
	}
	cfg := live.Config{Protocol: live.Protocols["claude-code"], Rules: r, RulesText: live.SourceText("preset:"+preset, text), StateDir: dir}
	buildSession(cfg, b.calls, b.turn)
	// Before the timed event, the binary itself runs one call of the
	// session (its PreToolUse and PostToolUse), as the agent would have: a
	// hook call writes the session's checkpoint, valid for its own build
	// only, and the next call starts from it. Without that, every timed
	// run would replay the whole session's log, which an agent's hook
	// does only after loopgate is upgraded.
	warm := `,"tool_name":"Read","tool_input":{"file_path":"/src/warm.go"},"tool_use_id":"toolu_warm"`
	before := [][]byte{hookEvent("PreToolUse", warm), hookEvent("PostToolUse", warm+`,"tool_response":"package warm"`)}
	next := `,"tool_name":"Read","tool_input":{"file_path":"/src/new.go"},"tool_use_id":"toolu_next"`
	event := hookEvent("PreToolUse", next)
	switch b.kind {
	case "pre":
	case "post":
		// The call's PreToolUse goes into the session; its PostToolUse,
		// which also writes the session's checkpoint, is timed.
		before = append(before, event)
		event = hookEvent("PostToolUse", next+`,"tool_response":"`+fmt.Sprintf("%0200d", 1)+`"`)
	default:
		fail(fmt.Errorf("-event %q: pre or post", b.kind))
	}
	var srv *server
	if b.http {
		srv = startServer(b.binRun, preset, dir)
		defer srv.stop()
	}
	hook := func(bin string, ev []byte) sample {
		if srv != nil {
			return srv.post(ev)
		}
		args := []string{"hook", "--agent", "claude-code", "--preset", preset, "--state-dir", dir}
		if b.slim[bin] {
			args = args[1:]
		}
		cmd := exec.Command(bin, args...)
		if bin == b.floor {
			cmd = exec.Command(bin)
		}
		cmd.Stdin = bytes.NewReader(ev)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			fail(fmt.Errorf("hook (%s, %s): %v %s", bin, preset, err, stderr.String()))
		}
		return sample{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	}
	if b.keep != "" {
		for _, ev := range before {
			hook(b.binRun, ev)
		}
		if err := os.WriteFile(filepath.Join(dir, "event.json"), event, 0o600); err != nil {
			fail(err)
		}
		word := " hook"
		if b.slim[b.binRun] {
			word = ""
		}
		fmt.Printf("state in %s; run: %s%s --agent claude-code --preset %s --state-dir %s < %s\n",
			dir, b.binRun, word, preset, dir, filepath.Join(dir, "event.json"))
		return row{}, false
	}
	// Every file of the state, as each binary leaves it after the events
	// before the timed one, to restore before each of its runs.
	built := readState(dir)
	saved := map[string]map[string][]byte{}
	for _, bin := range []string{b.binRun, b.baseRun} {
		if bin == "" {
			continue
		}
		writeState(dir, built)
		for _, ev := range before {
			hook(bin, ev)
		}
		saved[bin] = readState(dir)
	}
	run := func(bin string) sample {
		writeState(dir, saved[bin])
		return hook(bin, event)
	}
	var got, want, floor []sample
	for i := 0; i < b.runs; i++ {
		if b.base != "" && i%2 == 1 {
			want = append(want, run(b.baseRun))
		}
		got = append(got, run(b.binRun))
		if b.base != "" && i%2 == 0 {
			want = append(want, run(b.baseRun))
		}
		if b.floor != "" {
			floor = append(floor, hook(b.floor, event))
		}
	}
	how := "hook call"
	if srv != nil {
		how = "event posted to hook serve"
		cpu := srv.cpu() / time.Duration(b.runs+len(before))
		for i := range got {
			got[i].cpu = cpu
		}
	}
	fmt.Printf("%s (%s) on a session of %d calls (%d per turn, %s, state %d bytes), %d runs\n",
		how, b.kind, b.calls, b.turn, preset, stateSize(saved[b.binRun]), b.runs)
	out := report(b.bin, got)
	out.preset = preset
	if b.floor != "" {
		f := report("floor "+b.floor, floor)
		out.floor = &f
	}
	if b.base != "" {
		report(b.base, want)
		var wall, cpu []time.Duration
		for i := range got {
			wall = append(wall, got[i].wall-want[i].wall)
			cpu = append(cpu, got[i].cpu-want[i].cpu)
		}
		out.pairsCPU = quantile(cpu, 0.5)
		fmt.Printf("  pairs (%s minus %s): wall median %+.1f ms, CPU median %+.1f ms\n",
			filepath.Base(b.bin), filepath.Base(b.base), ms(quantile(wall, 0.5)), ms(out.pairsCPU))
	}
	return out, true
}

// emptyGo builds an empty Go program (static, as the release builds are)
// in dir and returns its path.
func emptyGo(dir string) string {
	src := filepath.Join(dir, "empty")
	if err := os.MkdirAll(src, 0o700); err != nil {
		fail(err)
	}
	files := map[string]string{"go.mod": "module empty\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o600); err != nil {
			fail(err)
		}
	}
	out := filepath.Join(dir, "empty.bin")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if msg, err := cmd.CombinedOutput(); err != nil {
		fail(fmt.Errorf("building the empty Go program: %v\n%s", err, msg))
	}
	return copyBinary(out, dir, "floor")
}

// uptime is the machine's load, as uptime(1) prints it (the machine may be
// shared: a figure means little without it).
func uptime() string {
	out, err := exec.Command("uptime").Output()
	if err != nil {
		return "(uptime: " + err.Error() + ")\n"
	}
	return string(out)
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

func report(bin string, s []sample) row {
	var wall, cpu []time.Duration
	for _, x := range s {
		wall = append(wall, x.wall)
		cpu = append(cpu, x.cpu)
	}
	fmt.Printf("  %s: wall p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms; CPU (user+system) p50 %.1f ms, p90 %.1f ms, p99 %.1f ms\n",
		bin, ms(quantile(wall, 0.5)), ms(quantile(wall, 0.9)), ms(quantile(wall, 0.99)), ms(quantile(wall, 1)),
		ms(quantile(cpu, 0.5)), ms(quantile(cpu, 0.9)), ms(quantile(cpu, 0.99)))
	return row{p50: quantile(wall, 0.5), p90: quantile(wall, 0.9), p99: quantile(wall, 0.99), cpu99: quantile(cpu, 0.99)}
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

// readState reads every file of the session state in dir.
func readState(dir string) map[string][]byte {
	files, _ := filepath.Glob(filepath.Join(dir, "s-*"))
	state := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fail(err)
		}
		state[f] = data
	}
	return state
}

// writeState makes dir's session state the given files, and only them.
func writeState(dir string, state map[string][]byte) {
	files, _ := filepath.Glob(filepath.Join(dir, "s-*"))
	for _, f := range files {
		if _, ok := state[f]; !ok {
			os.Remove(f)
		}
	}
	for f, data := range state {
		if err := os.WriteFile(f, data, 0o600); err != nil {
			fail(err)
		}
	}
}

// server is a `loopgate hook serve` the samples post to.
type server struct {
	cmd    *exec.Cmd
	url    string
	token  string
	client *http.Client
	start  time.Duration // its CPU time when the samples began
}

// startServer starts bin's hook server under preset over the state in dir.
func startServer(bin, preset, dir string) *server {
	cmd := exec.Command(bin, "hook", "serve", "--listen", "127.0.0.1:0", "--preset", preset, "--state-dir", dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	said := bufio.NewReader(stderr)
	line, err := said.ReadString('\n')
	addr := live.AddrOfListenLine(line)
	if err != nil || addr == "" {
		cmd.Process.Kill()
		fail(fmt.Errorf("hook serve: %q %v", line, err))
	}
	go io.Copy(os.Stderr, said)
	token, err := live.ServeToken(dir)
	if err != nil {
		fail(err)
	}
	// A new connection for each event, as a hook that is not kept alive.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	s := &server{cmd: cmd, url: live.HookURL(addr, "claude-code"), token: token, client: client}
	s.start = s.cpu()
	return s
}

// post sends one event and times its answer.
func (s *server) post(ev []byte) sample {
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(ev))
	if err != nil {
		fail(err)
	}
	req.Header.Set(live.TokenHeader, s.token)
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		fail(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	wall := time.Since(start)
	if resp.StatusCode != http.StatusOK {
		fail(fmt.Errorf("hook serve answered %s", resp.Status))
	}
	return sample{wall: wall}
}

// cpu is the server's CPU time since sampling began (user + system, from
// /proc: Linux only; 0 elsewhere).
func (s *server) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The fields after the command's name (which may hold spaces), from
	// the state (field 3): utime and stime are fields 14 and 15, in ticks
	// of 1/100 s (USER_HZ on Linux).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+k)*10*time.Millisecond - s.start
}

func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	s.cmd.Wait()
}
