package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/loopgate/loopgate/internal/filecache"
)

// Reproductions of hostile input (docs/reliability.md) that need the process measured: the binary is
// built once and run as a child, and its peak resident memory read from
// the kernel (rusage Maxrss) after it exits. A timer would not tell a
// bounded reader from a fast machine.

var (
	builtOnce sync.Once
	builtPath string
	peakPath  string
	builtErr  error
)

// TestMain lets the test binary act as the command (LOOPGATE_TEST_MAIN=1),
// which builtLoopgate uses under -short instead of building it.
func TestMain(m *testing.M) {
	if os.Getenv("LOOPGATE_TEST_MAIN") == "1" {
		os.Exit(run(os.Args, os.Stdout, os.Stderr))
	}
	// The replay cache of every loopgate these tests run is a temporary
	// folder of this run's, never the user's.
	dir, err := os.MkdirTemp("", "loopgate-test-cache")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv(filecache.EnvDir, dir)
	// The reports of the CLI run in-process take their default width and
	// no color (main_columns_test.go runs them on a narrow terminal): set
	// here once, for the tests that run in parallel, which cannot call
	// t.Setenv (quietTerminal).
	os.Setenv("COLUMNS", "")
	os.Setenv("NO_COLOR", "1")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// builtLoopgate builds the command and the peakrss wrapper
// (testdata/peakrss) once per test run and returns their paths. Under
// -short the command is this test binary run as main, by a bash script
// named loopgate, and only the small wrapper is built.
func builtLoopgate(t *testing.T) (loopgate, peakrss string) {
	t.Helper()
	builtOnce.Do(func() {
		dir, err := os.MkdirTemp("", "loopgate-bin-")
		if err != nil {
			builtErr = err
			return
		}
		builtPath, peakPath = filepath.Join(dir, "loopgate"), filepath.Join(dir, "peakrss")
		builds := [][2]string{{builtPath, "."}, {peakPath, "./testdata/peakrss"}}
		if testing.Short() {
			self, err := os.Executable()
			if err != nil {
				builtErr = err
				return
			}
			script := "#!/usr/bin/env bash\nLOOPGATE_TEST_MAIN=1 exec -a loopgate " + strconv.Quote(self) + " \"$@\"\n"
			if err := os.WriteFile(builtPath, []byte(script), 0o755); err != nil {
				builtErr = err
				return
			}
			builds = builds[1:]
		}
		for _, b := range builds {
			if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
				builtErr = fmt.Errorf("%v: %s", err, out)
				return
			}
		}
	})
	if builtErr != nil {
		t.Fatalf("cannot build loopgate: %v", builtErr)
	}
	return builtPath, peakPath
}

// measured is one run of the built binary: its output, exit code and peak
// resident memory in MiB.
type measured struct {
	stdout, stderr string
	code           int
	peakMiB        int64
}

// runMeasured runs the built binary with args (in dir when not "") under
// the peakrss wrapper and returns what it wrote and its peak memory.
func runMeasured(t *testing.T, dir string, args ...string) measured {
	t.Helper()
	bin, wrapper := builtLoopgate(t)
	report := filepath.Join(t.TempDir(), "peak")
	cmd := exec.Command(wrapper, append([]string{bin}, args...)...)
	cmd.Dir = dir
	// The tokenizer's cache is off: a test must not write the user's
	// cache directory, and the vocabulary built from the library is the
	// larger peak.
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "COLUMNS=100", "PEAKRSS_OUT="+report, "LOOPGATE_CACHE_DIR=off")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	text, err := os.ReadFile(report)
	if err != nil {
		t.Skipf("no peak memory reported (%v): rusage is not available here", err)
	}
	kib, err := strconv.ParseInt(strings.TrimSpace(string(text)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return measured{out.String(), errb.String(), code, kib >> 10} // Linux: KiB
}

// writeNULGzip writes a .json.gz holding size NUL bytes and no newline.
func writeNULGzip(t *testing.T, path string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range size >> 20 {
		zw.Write(zeros)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestHugeLineMemory: a .json.gz of 512 MiB of NUL bytes (about 500 KB on
// disk; it took 3-9 GB before) is one problem naming the file and line 1,
// the run goes on to the next file, and the process stays within a bound
// that follows --max-record, in replay, inspect and gate.
func TestHugeLineMemory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("reads 512 MiB of NUL bytes")
	}
	dir := t.TempDir()
	nul := filepath.Join(dir, "nul.json.gz")
	writeNULGzip(t, nul, 512<<20)
	good, err := os.ReadFile(filepath.Join("fixtures", "golden", "loops", "read-loop.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "z-good.jsonl"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	gateFile := filepath.Join(dir, "g.gate.yaml")
	os.WriteFile(gateFile, []byte("preset: nanobot\ntokenizer: chars4\nsnapshots: false\ncases:\n  - {name: all, transcript: '*.json*', expect: {problems: 1}}\n"), 0o644)
	const want = "record is 512 MiB, over the --max-record limit of 16 MiB: it is skipped"
	for _, args := range [][]string{
		{"replay", "--format", "json", "--tokenizer", "chars4", "--max-record", "16MiB", nul, filepath.Join(dir, "z-good.jsonl")},
		{"inspect", "--format", "json", "--max-record", "16MiB", nul, filepath.Join(dir, "z-good.jsonl")},
		{"gate", "--max-record", "16MiB", gateFile},
	} {
		m := runMeasured(t, "", args...)
		t.Logf("%s: peak %d MiB", args[0], m.peakMiB)
		if !strings.Contains(m.stdout, want) && !strings.Contains(m.stdout, "PASS") {
			t.Errorf("%s: exit %d, the output does not say %q:\n%.600s\n%s", args[0], m.code, want, m.stdout, m.stderr)
		}
		if args[0] != "gate" && !strings.Contains(m.stdout, `"line": 1`) {
			t.Errorf("%s: the problem does not name line 1", args[0])
		}
		if args[0] == "replay" && !strings.Contains(m.stdout, `"sessions": 1`) {
			t.Errorf("replay: the next file's session was not read:\n%.400s", m.stdout)
		}
		if m.peakMiB > 160 {
			t.Errorf("%s: peak memory %d MiB, want at most 160 (16 MiB records)", args[0], m.peakMiB)
		}
	}
}

// TestDevicesRefused: /dev/zero given as a path is one problem and the run
// goes on; a gate glob matching a link to /dev/zero, or a link to a file
// outside the gate file's tree, is refused as the walk refuses them.
func TestDevicesRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	out, stderr, code := loopgate(t, "replay", "--format", "json", "--tokenizer", "chars4", "/dev/zero",
		filepath.Join("fixtures", "golden", "loops", "read-loop.jsonl"))
	if code != 0 || !strings.Contains(out, "not read: a device, not a regular file") || !strings.Contains(out, `"sessions": 1`) {
		t.Errorf("/dev/zero: exit %d %s\n%.800s", code, stderr, out)
	}

	dir := t.TempDir()
	outside := t.TempDir()
	good, _ := os.ReadFile(filepath.Join("fixtures", "golden", "loops", "read-loop.jsonl"))
	os.WriteFile(filepath.Join(dir, "a.jsonl"), good, 0o644)
	os.WriteFile(filepath.Join(outside, "secret.jsonl"), good, 0o644)
	for _, link := range [][2]string{{"/dev/zero", "zero.jsonl"}, {filepath.Join(outside, "secret.jsonl"), "out.jsonl"}} {
		if err := os.Symlink(link[0], filepath.Join(dir, link[1])); err != nil {
			t.Fatal(err)
		}
	}
	gateFile := filepath.Join(dir, "g.gate.yaml")
	os.WriteFile(gateFile, []byte("preset: nanobot\ntokenizer: chars4\nsnapshots: false\ncases:\n  - {name: all, transcript: '*.jsonl', expect: {problems: 0}}\n"), 0o644)
	out, stderr, code = gate(t, gateFile)
	// The two links are the two problems (ingest's TestCheckMatch has
	// their messages); the file inside the tree is read.
	if code != exitFindings || !strings.Contains(out, "problems: expected 0, got 2") || !strings.Contains(out, "1 session(s)") {
		t.Errorf("gate over links: exit %d\n%s%s", code, out, stderr)
	}
}

// TestGateUpdateRefusesLinks: gate --update writes snapshots only inside
// the gate file's tree: a link in snapshots/, or snapshots/ itself a link,
// is a clear error (exit 2) and the link's target is untouched.
func TestGateUpdateRefusesLinks(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("fixtures", "golden", "loops", "read-loop.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		set  func(dir, victim string) error
	}{
		{"link in snapshots", func(dir, victim string) error {
			os.Mkdir(filepath.Join(dir, "snapshots"), 0o755)
			return os.Symlink(filepath.Join(victim, "target"), filepath.Join(dir, "snapshots", "read-loop.golden"))
		}},
		{"snapshots is a link", func(dir, victim string) error {
			return os.Symlink(victim, filepath.Join(dir, "snapshots"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, victim := t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(victim, "target"), []byte("keep me"), 0o644)
			os.WriteFile(filepath.Join(dir, "loop.jsonl"), src, 0o644)
			file := filepath.Join(dir, "loopgate.gate.yaml")
			os.WriteFile(file, []byte("preset: nanobot\ntokenizer: chars4\ncases:\n  - {name: read loop, transcript: loop.jsonl}\n"), 0o644)
			if err := c.set(dir, victim); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := gate(t, file, "--update")
			if code != exitUsage || !strings.Contains(stderr, "is a symbolic link; snapshots are written only inside") {
				t.Errorf("exit %d, stderr %q", code, stderr)
			}
			entries, _ := os.ReadDir(victim)
			if got, _ := os.ReadFile(filepath.Join(victim, "target")); string(got) != "keep me" || len(entries) != 1 {
				t.Errorf("the link's target directory was written to: %d entries, target %q", len(entries), got)
			}
		})
	}
	// Without links, the snapshot is written (through a temporary file
	// that does not stay behind).
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "loop.jsonl"), src, 0o644)
	file := filepath.Join(dir, "loopgate.gate.yaml")
	os.WriteFile(file, []byte("preset: nanobot\ntokenizer: chars4\ncases:\n  - {name: read loop, transcript: loop.jsonl}\n"), 0o644)
	if _, stderr, code := gate(t, file, "--update"); code != exitOK {
		t.Fatalf("--update: exit %d %s", code, stderr)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "snapshots"))
	if len(entries) != 1 || entries[0].Name() != "read-loop.golden" {
		t.Errorf("snapshots/ holds %v", entries)
	}
}

// TestGateAliasBomb: a gate file whose anchored calls list is aliased by
// thousands of cases (about 100 KB; such a file reached 24 GB) is refused
// with FILE:LINE and exit 2, and the process stays small.
func TestGateAliasBomb(t *testing.T) {
	dir := t.TempDir()
	good, _ := os.ReadFile(filepath.Join("fixtures", "golden", "loops", "read-loop.jsonl"))
	os.WriteFile(filepath.Join(dir, "a.jsonl"), good, 0o644)
	var b strings.Builder
	b.WriteString("preset: nanobot\ntokenizer: chars4\nsnapshots: false\ncases:\n  - name: c0\n    transcript: a.jsonl\n    calls: &big\n")
	for i := range 1000 {
		b.WriteString("      - {call: " + itoa(i%6+1) + ", action: allow}\n")
	}
	for i := 1; i < 3000; i++ {
		b.WriteString("  - {name: c" + itoa(i) + ", transcript: a.jsonl, calls: *big}\n")
	}
	file := filepath.Join(dir, "bomb.gate.yaml")
	os.WriteFile(file, []byte(b.String()), 0o644)
	m := runMeasured(t, "", "gate", file)
	t.Logf("peak %d MiB for a %d KB file", m.peakMiB, b.Len()>>10)
	if m.code != exitUsage || !strings.Contains(m.stderr, file+":") || !strings.Contains(m.stderr, "more than 100000 YAML nodes once its aliases are expanded") {
		t.Errorf("exit %d, stderr %q", m.code, m.stderr)
	}
	if m.peakMiB > 200 {
		t.Errorf("peak memory %d MiB, want at most 200", m.peakMiB)
	}
}

// writeNoSpaceResults writes a nanobot session whose read_file result, a
// run of size bytes without a space, comes back twice.
func writeNoSpaceResults(t *testing.T, path string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run := strings.Repeat("x7Kq", size/4)
	lines := nanobotCalls([][3]string{{"read_file", `{"path": "blob"}`, run}, {"read_file", `{"path": "blob"}`, run}})
	for _, l := range lines {
		f.WriteString(l + "\n")
	}
}

// TestTokenizerLongRunMemory: two identical 32 MiB results without a space
// (two of 256 MB took 9.7 GB and 164 s) are counted in bounded chunks;
// the report says the counts are estimates, and the process stays small.
func TestTokenizerLongRunMemory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("tokenizes 64 MiB")
	}
	file := filepath.Join(t.TempDir(), "blob.jsonl")
	writeNoSpaceResults(t, file, 32<<20)
	m := runMeasured(t, "", "replay", "--format", "json", file)
	t.Logf("peak %d MiB", m.peakMiB)
	if m.code != 0 || !strings.Contains(m.stdout, `"estimated_texts": `) || !strings.Contains(m.stderr, "were not tokenized whole") {
		t.Errorf("exit %d; the report does not say the counts are estimates:\n%.1200s\n%s", m.code, m.stdout, m.stderr)
	}
	if m.peakMiB > 400 {
		t.Errorf("peak memory %d MiB, want at most 400", m.peakMiB)
	}
}
