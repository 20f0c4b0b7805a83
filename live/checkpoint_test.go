package live

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopgate/loopgate/rules"
)

// hookPair runs the same hook events under two configurations that differ
// only in their state directory, decision log and NoCheckpoint: one builds
// sessions from checkpoints, the other from the log alone.
type hookPair struct {
	snap, plain Config
}

func newHookPair(t *testing.T, preset string) *hookPair {
	t.Helper()
	r, err := rules.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC) }
	mk := func(name string, noSnap bool) Config {
		dir := filepath.Join(t.TempDir(), name)
		return Config{Protocol: Protocols["claude-code"], Rules: r, RulesName: preset, StateDir: filepath.Join(dir, "state"),
			Log: filepath.Join(dir, "decisions.jsonl"), NoCheckpoint: noSnap, Now: clock}
	}
	return &hookPair{snap: mk("snap", false), plain: mk("plain", true)}
}

// handle sends one event to both and requires the same reply.
func (p *hookPair) handle(t *testing.T, what string, event []byte) Reply {
	t.Helper()
	a, b := Handle(p.snap, event), Handle(p.plain, event)
	a.Stderr = strings.ReplaceAll(a.Stderr, p.snap.StateDir, "STATE")
	b.Stderr = strings.ReplaceAll(b.Stderr, p.plain.StateDir, "STATE")
	if !bytes.Equal(a.Stdout, b.Stdout) || a.Stderr != b.Stderr || a.Exit != b.Exit {
		t.Fatalf("%s: with checkpoints %d %q %q, from the log %d %q %q", what, a.Exit, a.Stdout, a.Stderr, b.Exit, b.Stdout, b.Stderr)
	}
	return a
}

// sameLogs requires the same decision logs.
func (p *hookPair) sameLogs(t *testing.T) {
	t.Helper()
	a, _ := os.ReadFile(p.snap.Log)
	b, _ := os.ReadFile(p.plain.Log)
	a = bytes.ReplaceAll(a, []byte(p.snap.StateDir), []byte("STATE"))
	b = bytes.ReplaceAll(b, []byte(p.plain.StateDir), []byte("STATE"))
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(la), len(lb)) {
		if i >= len(la) || i >= len(lb) || la[i] != lb[i] {
			x, y := "(none)", "(none)"
			if i < len(la) {
				x = la[i]
			}
			if i < len(lb) {
				y = lb[i]
			}
			t.Fatalf("decision logs differ at line %d:\nwith checkpoints %s\nfrom the log    %s", i+1, x, y)
		}
	}
}

var (
	snapTools = []struct{ name, input string }{
		{"Read", `{"file_path":"/a.go"}`}, {"Read", `{"file_path":"/b.go"}`},
		{"Bash", `{"command":"make test"}`}, {"Bash", `{"command":"echo '/loopguard reset'"}`},
		{"Grep", `{"pattern":"func","path":"/src"}`}, {"Edit", `{"file_path":"/a.go","old_string":"x","new_string":"y"}`},
		{"Write", `{"file_path":"/` + strings.Repeat("long/", 40) + `","content":"z"}`}, {"WebFetch", `{"url":"https://e"}`},
	}
	snapResults = []string{`"ok"`, `"same"`, `""`, `"Error: failed"`, `"{\"exit_code\": 1}"`, `"` + strings.Repeat("r", 300) + `"`}
)

// randomSession sends a random session to both: prompts, calls in
// parallel groups, results that never come, retried PreToolUse hooks,
// compactions and stops.
func randomSession(t *testing.T, p *hookPair, rng *rand.Rand, session string, n int) {
	ev := func(name, extra string) []byte { return claudeEvent(name, session, extra) }
	p.handle(t, "prompt", ev("UserPromptSubmit", `,"prompt":"go"`))
	id := 0
	for id < n {
		switch rng.IntN(20) {
		case 0:
			p.handle(t, "prompt", ev("UserPromptSubmit", `,"prompt":"more"`))
		case 1:
			p.handle(t, "compaction", ev("SessionStart", `,"source":"compact"`))
		case 2:
			p.handle(t, "stop", ev("Stop", ``))
		}
		group := 1 + rng.IntN(3)
		if rng.IntN(3) > 0 {
			group = 1
		}
		type open struct{ id, tool, input string }
		var opens []open
		for range group {
			id++
			tl := snapTools[rng.IntN(len(snapTools))]
			if rng.IntN(3) == 0 && id > 1 {
				tl = snapTools[id%len(snapTools)] // repeats
			}
			o := open{fmt.Sprintf("toolu_%d", id), tl.name, tl.input}
			pre := ev("PreToolUse", `,"tool_name":"`+o.tool+`","tool_input":`+o.input+`,"tool_use_id":"`+o.id+`"`)
			r := p.handle(t, "pre "+o.id, pre)
			if rng.IntN(15) == 0 {
				p.handle(t, "retried pre "+o.id, pre)
			}
			if !bytes.Contains(r.Stdout, []byte(`"deny"`)) {
				opens = append(opens, o)
			}
		}
		rng.Shuffle(len(opens), func(i, j int) { opens[i], opens[j] = opens[j], opens[i] })
		for _, o := range opens {
			if rng.IntN(12) == 0 {
				continue // the result never comes (the user refused the call)
			}
			res := snapResults[rng.IntN(len(snapResults))]
			p.handle(t, "post "+o.id, ev("PostToolUse", `,"tool_name":"`+o.tool+`","tool_input":`+o.input+`,"tool_use_id":"`+o.id+`","tool_response":`+res))
		}
	}
}

// TestCheckpointEquivalence: under every preset, random sessions get the
// same replies and decision logs with checkpoints as from the log alone,
// and the checkpoint path did run.
func TestCheckpointEquivalence(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 20
	}
	for _, preset := range rules.PresetNames() {
		t.Run(preset, func(t *testing.T) {
			p := newHookPair(t, preset)
			before := CheckpointsRestored()
			for seed := range 3 {
				randomSession(t, p, rand.New(rand.NewPCG(uint64(seed), 11)), fmt.Sprintf("sess%d", seed), n)
			}
			p.sameLogs(t)
			if got := CheckpointsRestored() - before; got < int64(n) {
				t.Errorf("only %d hook calls started from a checkpoint", got)
			}
			snaps, _ := filepath.Glob(filepath.Join(p.snap.StateDir, "s-*.snap"))
			plain, _ := filepath.Glob(filepath.Join(p.plain.StateDir, "s-*.snap"))
			if len(snaps) != 3 || len(plain) != 0 {
				t.Errorf("%d checkpoint files with checkpoints (want 3), %d without (want 0)", len(snaps), len(plain))
			}
		})
	}
}

// TestCheckpointFallback: a checkpoint that is corrupt, cut short, of other
// rules, of another session's log, or of a log that was cut or edited is
// not used: the hook decides from the log, as without checkpoints.
func TestCheckpointFallback(t *testing.T) {
	cases := []struct {
		name string
		// spoil changes the state of the checkpoint side (dir) before the
		// next calls; the plain side gets the same change to its log.
		spoil func(t *testing.T, snapDir, plainDir string)
		// used: the next call still starts from the checkpoint.
		used bool
	}{
		{"untouched", func(*testing.T, string, string) {}, true},
		{"byte flipped", func(t *testing.T, dir, _ string) {
			path := snapOf(dir, "s")
			b, _ := os.ReadFile(path)
			b[len(b)/2] ^= 1
			os.WriteFile(path, b, 0o600)
		}, false},
		{"cut short", func(t *testing.T, dir, _ string) {
			path := snapOf(dir, "s")
			b, _ := os.ReadFile(path)
			os.WriteFile(path, b[:len(b)-7], 0o600)
		}, false},
		{"empty", func(t *testing.T, dir, _ string) { os.WriteFile(snapOf(dir, "s"), nil, 0o600) }, false},
		{"of the layout before", func(t *testing.T, dir, _ string) {
			// Its checksum holds (it covers the body): the magic alone
			// keeps a layout from being read as another.
			path := snapOf(dir, "s")
			b, _ := os.ReadFile(path)
			old := strings.Replace(checkpointMagic, "-2\n", "-1\n", 1)
			if old == checkpointMagic || !bytes.HasPrefix(b, []byte(checkpointMagic)) {
				t.Fatal("no checkpoint of this layout to change")
			}
			os.WriteFile(path, append([]byte(old), b[len(checkpointMagic):]...), 0o600)
		}, false},
		{"another session's", func(t *testing.T, dir, _ string) {
			b, _ := os.ReadFile(snapOf(dir, "other"))
			os.WriteFile(snapOf(dir, "s"), b, 0o600)
		}, false},
		{"log cut", func(t *testing.T, snapDir, plainDir string) {
			for _, d := range []string{snapDir, plainDir} {
				path := filesOf(d, "s").log("main")
				b, _ := os.ReadFile(path)
				i := bytes.LastIndexByte(b[:len(b)-1], '\n')
				os.WriteFile(path, b[:i+1], 0o600)
			}
		}, false},
		{"log rewritten", func(t *testing.T, snapDir, plainDir string) {
			for _, d := range []string{snapDir, plainDir} {
				path := filesOf(d, "s").log("main")
				b, _ := os.ReadFile(path)
				os.Remove(path)
				os.WriteFile(path, bytes.ReplaceAll(b, []byte("/a.go"), []byte("/c.go")), 0o600)
			}
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newHookPair(t, "loopgate")
			randomSession(t, p, rand.New(rand.NewPCG(3, 4)), "other", 10)
			randomSession(t, p, rand.New(rand.NewPCG(1, 2)), "s", 30)
			// A prompt last, so that the checkpoint covers the whole log
			// (none is written while a call is in the guard's hands) and
			// cutting its last line leaves a log the checkpoint does not
			// match.
			p.handle(t, "prompt", claudeEvent("UserPromptSubmit", "s", `,"prompt":"last"`))
			if _, err := os.Stat(snapOf(p.snap.StateDir, "s")); err != nil {
				t.Fatalf("no checkpoint written: %v", err)
			}
			tc.spoil(t, p.snap.StateDir, p.plain.StateDir)
			before := CheckpointsRestored()
			p.handle(t, "after", preRead("s", "after1", "/a.go"))
			if used := CheckpointsRestored() > before; used != tc.used {
				t.Errorf("checkpoint used: %v, want %v", used, tc.used)
			}
			randomSession(t, p, rand.New(rand.NewPCG(5, 6)), "s", 20)
			p.sameLogs(t)
		})
	}
	// Other rules: a checkpoint written under nanobot is not used under
	// loopgate, which decides as from the log.
	p := newHookPair(t, "nanobot")
	randomSession(t, p, rand.New(rand.NewPCG(1, 2)), "s", 20)
	lg, _ := rules.Preset("loopgate")
	p.snap.Rules, p.plain.Rules = lg, lg
	before := CheckpointsRestored()
	p.handle(t, "other rules", preRead("s", "x1", "/a.go"))
	if CheckpointsRestored() != before {
		t.Error("a checkpoint of nanobot's rules was used under loopgate's")
	}
	randomSession(t, p, rand.New(rand.NewPCG(7, 8)), "s", 10)
	p.sameLogs(t)
}

func snapOf(stateDir, session string) string {
	return checkpointPath(filesOf(stateDir, session).log("main"))
}

// TestCheckpointTagDigest: the tag is the same whether the caller gives
// the rules text's digest or the text alone, and differs with the text,
// the format or the rules when no text is known.
func TestCheckpointTagDigest(t *testing.T) {
	r, err := rules.Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	text := SourceText("preset:loopgate", []byte("extends: loopgate\n"))
	tag := func(c Config, format string) string {
		s, err := checkpointTag(c.Rules, c.rulesDigest(), format, "")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	fromText := tag(Config{Rules: r, RulesText: text}, "claude-code")
	cases := []struct {
		name string
		cfg  Config
		fmt  string
		same bool
	}{
		{"digest given", Config{Rules: r, RulesText: text, RulesDigest: RulesDigest(text)}, "claude-code", true},
		{"other text", Config{Rules: r, RulesText: append(text, ' ')}, "claude-code", false},
		{"other format", Config{Rules: r, RulesText: text}, "codex", false},
		{"no text", Config{Rules: r}, "claude-code", false},
	}
	for _, tc := range cases {
		if got := tag(tc.cfg, tc.fmt) == fromText; got != tc.same {
			t.Errorf("%s: same tag %v, want %v", tc.name, got, tc.same)
		}
	}
}
