package lab

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopgate/loopgate/internal/decisionlog"
	"github.com/loopgate/loopgate/live"
)

// The lab runs only when asked (scripts/lab.sh sets LOOPGATE_LAB=1): it
// needs the agents installed (docs/lab.md).
//
//	LOOPGATE_LAB_CACHE     where scripts/lab.sh installed the agents
//	LOOPGATE_LAB_MANIFEST  the manifest of versions to run (default manifest.txt)
//	LOOPGATE_LAB_AGENTS    the agents to run, space separated (default all)
//	LOOPGATE_LAB_SCENARIOS the scenarios to run (default all)
//	LOOPGATE_LAB_VARIANT_SCENARIOS the scenarios an agent's variant runs
//	                       (claude-code-http, ...; default those of
//	                       LOOPGATE_LAB_SCENARIOS)
//	LOOPGATE_LAB_RESULTS   file the "AGENT SCENARIO ok|FAIL|SKIP" lines are appended to
//	LOOPGATE_LAB_NODE      a directory holding a newer node, put first on PATH
//	LOOPGATE_LAB_LOOPGATE  a loopgate binary to use (default: built from this checkout)
//	LOOPGATE_LAB_KEEP      keep each run's home and working directory

type pinned struct {
	name, pkg, version, bin string
	node                    int
}

func readManifest(t *testing.T) []pinned {
	path := os.Getenv("LOOPGATE_LAB_MANIFEST")
	if path == "" {
		path = "manifest.txt"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []pinned
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 5 {
			t.Fatalf("%s: want AGENT PACKAGE VERSION BIN NODE: %q", path, line)
		}
		var node int
		fmt.Sscan(f[4], &node)
		out = append(out, pinned{f[0], f[1], f[2], f[3], node})
	}
	return out
}

// results collects the one-line verdicts that scripts/lab.sh prints.
type results struct {
	mu   sync.Mutex
	file string
}

func (r *results) line(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := fmt.Sprintf(format, a...)
	if r.file == "" {
		fmt.Println(s)
		return
	}
	f, err := os.OpenFile(r.file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Println(s)
		return
	}
	fmt.Fprintln(f, s)
	f.Close()
}

func TestLab(t *testing.T) {
	if os.Getenv("LOOPGATE_LAB") == "" {
		t.Skip("the agent lab runs the real agents: scripts/lab.sh (LOOPGATE_LAB=1)")
	}
	cache := os.Getenv("LOOPGATE_LAB_CACHE")
	if cache == "" {
		t.Fatal("LOOPGATE_LAB_CACHE is not set: run scripts/lab.sh")
	}
	loopgate := buildLoopgate(t)
	res := &results{file: os.Getenv("LOOPGATE_LAB_RESULTS")}
	only := strings.Fields(os.Getenv("LOOPGATE_LAB_AGENTS"))
	onlySc := strings.Fields(os.Getenv("LOOPGATE_LAB_SCENARIOS"))
	variantSc := strings.Fields(os.Getenv("LOOPGATE_LAB_VARIANT_SCENARIOS"))
	var pins []pinned
	for _, p := range readManifest(t) {
		pins = append(pins, p)
		// A variant of an agent (its hooks installed otherwise) runs the
		// same install, under its own name.
		if v := p.name + "-http"; agents[v] != nil {
			p.name = v
			pins = append(pins, p)
		}
	}
	for _, p := range pins {
		if len(only) > 0 && !slices.Contains(only, p.name) {
			continue
		}
		a := agents[p.name]
		if a == nil {
			res.line("%s - SKIP: no driver in lab/agents_test.go", p.name)
			continue
		}
		bin := filepath.Join(cache, strings.TrimSuffix(p.name, "-http")+"-"+p.version, "node_modules", ".bin", p.bin)
		if _, err := os.Stat(bin); err != nil {
			res.line("%s - SKIP: %s@%s is not installed in %s (scripts/lab.sh installs it)", p.name, p.pkg, p.version, cache)
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			// Agents run side by side (go test -parallel, scripts/lab.sh's
			// LOOPGATE_LAB_JOBS); one agent's scenarios run in turn.
			t.Parallel()
			for _, sc := range scenarios {
				if len(onlySc) > 0 && !slices.Contains(onlySc, sc.name) {
					continue
				}
				if a.http && len(variantSc) > 0 && !slices.Contains(variantSc, sc.name) {
					continue
				}
				t.Run(sc.name, func(t *testing.T) {
					if why := a.skip(sc); why != "" {
						res.line("%s %s SKIP: %s", p.name, sc.name, why)
						t.Skip(why)
					}
					l := &lab{t: t, agent: a, pin: p, bin: bin, loopgate: loopgate, cache: cache}
					fails := l.scenario(sc)
					if len(fails) > 0 && a.flaky != "" {
						// Once more, for the agent's own known flaw; the
						// line keeps what the first run showed.
						first := strings.ReplaceAll(strings.Join(fails, "; "), "FAIL", "fail")
						if fails = l.scenario(sc); len(fails) == 0 {
							res.line("%s %s ok (second run; the first failed: %s; %s)", p.name, sc.name, first, a.flaky)
							return
						}
					}
					if len(fails) == 0 {
						res.line("%s %s ok", p.name, sc.name)
						return
					}
					res.line("%s %s FAIL: %s", p.name, sc.name, strings.Join(fails, "; "))
					for _, f := range fails {
						t.Error(f)
					}
				})
			}
		})
	}
}

// buildLoopgate builds the command once per run, and the hook's own
// binary beside it (cmd/loopgate-hook), which `hook install` then writes
// into the agents' settings: the agents run loopgate-hook, as a release's
// users do.
func buildLoopgate(t *testing.T) string {
	if bin := os.Getenv("LOOPGATE_LAB_LOOPGATE"); bin != "" {
		return bin
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "loopgate")
	cmd := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "..", "../cmd/loopgate-hook")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

// lab is one agent's run of one scenario.
type lab struct {
	t        *testing.T
	agent    *agent
	pin      pinned
	bin      string
	loopgate string
	cache    string
}

// box is one run of the agent: a throwaway home and working directory.
type box struct {
	l          *lab
	home, work string
	srv        *Server
	log        string // the hook's decision log ("" without the hook)
	preset     string
	out        bytes.Buffer
	// over says the run is over although the agent has not exited
	// (agent.ownCutLingers); nil: the agent must exit on its own.
	over func() bool
	// ended: the lab ended the agent's command because the run was over.
	ended bool
	// down: the HTTP hooks point at an address where no server answers
	// (run.down).
	down bool
}

func (l *lab) newBox(srv *Server, hook bool, preset string) *box {
	root := l.t.TempDir()
	if os.Getenv("LOOPGATE_LAB_KEEP") != "" {
		root, _ = os.MkdirTemp("", "loopgate-lab-")
		l.t.Logf("kept: %s", root)
	}
	b := &box{l: l, home: filepath.Join(root, "home"), work: filepath.Join(root, "work"), srv: srv, preset: preset}
	for _, d := range []string{b.home, b.work, filepath.Join(b.home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			l.t.Fatal(err)
		}
	}
	if hook {
		b.log = filepath.Join(root, "decisions.jsonl")
	}
	return b
}

// env is the agent's whole environment: nothing of the caller's but PATH
// and the locale, so no real key, proxy or config leaks in.
func (b *box) env(extra ...string) []string {
	path := filepath.Dir(b.l.bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	if n := os.Getenv("LOOPGATE_LAB_NODE"); n != "" {
		path = n + string(os.PathListSeparator) + path
	}
	env := []string{
		"PATH=" + path,
		"HOME=" + b.home,
		"USERPROFILE=" + b.home,
		"TMPDIR=" + filepath.Join(b.home, "tmp"),
		"XDG_CONFIG_HOME=" + filepath.Join(b.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(b.home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(b.home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(b.home, ".cache"),
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"CI=1",
		"NO_PROXY=127.0.0.1,localhost",
		"no_proxy=127.0.0.1,localhost",
		"DO_NOT_TRACK=1",
	}
	return append(env, extra...)
}

// installHook runs `loopgate hook install` for the agent in the box. With
// loopgate-hook beside loopgate (buildLoopgate), the settings must name it:
// the dry run's settings are read first.
func (b *box) installHook() error {
	args := []string{"hook", "install", "--agent", b.l.agent.hookAgent, "--scope", b.l.agent.hookScope}
	if b.l.agent.http {
		start := b.startServer
		if b.down {
			start = closedPort
		}
		addr, err := start()
		if err != nil {
			return err
		}
		args = append(args, "--http", "--listen", addr)
	} else {
		args = append(args, "--preset", b.preset, "--log", b.log)
	}
	install := func(args ...string) ([]byte, error) {
		cmd := exec.Command(b.l.loopgate, args...)
		cmd.Dir = b.work
		cmd.Env = b.env()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("loopgate %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return out, nil
	}
	own := filepath.Join(filepath.Dir(b.l.loopgate), "loopgate-hook")
	if _, err := os.Stat(own); err == nil && !b.l.agent.http {
		out, err := install(append(args, "--dry-run")...)
		if err != nil {
			return err
		}
		if !strings.Contains(string(out), own+" --agent "+b.l.agent.hookAgent) {
			return fmt.Errorf("hook install would not run %s:\n%s", own, out)
		}
	}
	_, err := install(args...)
	return err
}

// closedPort is a loopback address where nothing listens: a port the
// system gave and took back.
func closedPort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// startServer starts `loopgate hook serve` for the box (its home's state
// directory, the box's preset and decision log) on a free port, stopped
// when the test ends, and returns the address it listens on.
func (b *box) startServer() (string, error) {
	cmd := exec.Command(b.l.loopgate, "hook", "serve", "--listen", "127.0.0.1:0", "--preset", b.preset, "--log", b.log)
	cmd.Dir = b.work
	cmd.Env = b.env()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	lines := bufio.NewScanner(stderr)
	// The rest of what it says (refused requests, notes) goes to the test
	// log once it has stopped.
	var said []string
	done := make(chan struct{})
	b.l.t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		<-done
		for _, l := range said {
			b.l.t.Logf("hook serve: %s", l)
		}
	})
	if !lines.Scan() {
		close(done)
		return "", fmt.Errorf("loopgate hook serve said nothing: %v", lines.Err())
	}
	first := lines.Text()
	go func() {
		defer close(done)
		for lines.Scan() {
			said = append(said, lines.Text())
		}
	}()
	addr := live.AddrOfListenLine(first)
	if addr == "" {
		return "", fmt.Errorf("loopgate hook serve: %s", first)
	}
	return addr, nil
}

// run runs the agent's command with a time limit; its output is kept for
// failure messages.
func (b *box) run(stdin string, env []string, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = b.work
	cmd.Env = b.env(env...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout = &b.out
	cmd.Stderr = &b.out
	cmd.WaitDelay = 5 * time.Second
	ownProcess(cmd)
	stop := make(chan struct{})
	defer close(stop)
	var ended atomic.Bool
	if b.over != nil {
		go func() {
			tick := time.NewTicker(overPoll)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if b.over() {
						ended.Store(true)
						cancel()
						return
					}
				}
			}
		}()
	}
	err := cmd.Run()
	if ended.Load() {
		b.ended = true
		b.l.t.Logf("%s: the run was over (%s): the lab ended it", filepath.Base(name), b.l.agent.ownCutLingers)
		return fmt.Errorf("%s ended by the lab after the run was over", filepath.Base(name))
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s timed out", filepath.Base(name))
	}
	return err
}

// overPoll is how often a run that may linger is checked; overQuiet is how
// long the model must have had no request before such a run is over.
const (
	overPoll  = 500 * time.Millisecond
	overQuiet = 5 * time.Second
)

// overAfter is box.over for a run that is over once the model has answered
// the request at step of marker's conversation and has had no request for
// quiet.
func overAfter(srv *Server, marker string, step int, quiet time.Duration) func() bool {
	return func() bool {
		return srv.MaxStep(marker) >= step && srv.Quiet() >= quiet
	}
}

// tail is the end of the agent's output, for a failure message.
func (b *box) tail() string {
	s := strings.TrimSpace(b.out.String())
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return strings.ReplaceAll(s, "\n", " | ")
}

// transcripts finds the files the agent wrote under its home (and working
// directory) matching its patterns.
func (b *box) transcripts() []string {
	var out []string
	for _, root := range []string{b.home, b.work} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			for _, pat := range b.l.agent.transcripts {
				if ok, _ := filepath.Match(pat, filepath.ToSlash(rel)); ok {
					out = append(out, p)
					break
				}
			}
			return nil
		})
	}
	slices.Sort(out)
	return out
}

// loopgateJSON runs loopgate and decodes its JSON report.
func (l *lab) loopgateJSON(v any, args ...string) error {
	cmd := exec.Command(l.loopgate, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("loopgate %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return json.Unmarshal(out, v)
}

// logLine is a line of the hook's decision log.
type logLine = decisionlog.Record

// readLog reads the hook's decision log, its lines in order.
func readLog(path string) ([]logLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []logLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		l, err := decisionlog.Decode(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// runLimit bounds one agent command: a hung agent fails its scenario
// instead of the whole run. Generous, for a loaded machine.
const runLimit = 240 * time.Second
