package live

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/loopgate/loopgate/rules"
)

// benchSession fills a state directory with a Claude Code session of n
// calls (reads, searches and commands over a few hundred arguments) and
// returns its config and a PreToolUse event for one more call.
func benchSession(tb testing.TB, n int) (Config, []byte) {
	r, err := rules.Preset("loopgate")
	if err != nil {
		tb.Fatal(err)
	}
	cfg := Config{Protocol: Protocols["claude-code"], Rules: r, StateDir: tb.TempDir()}
	ev := func(name, extra string) []byte {
		return []byte(`{"hook_event_name":"` + name + `","session_id":"bench","cwd":"/"` + extra + `}`)
	}
	Handle(cfg, ev("UserPromptSubmit", `,"prompt":"go"`))
	for i := 0; i < n; i++ {
		tool, input := "Read", `{"file_path":"/src/pkg`+strconv.Itoa(i%300)+`/file.go"}`
		if i%4 == 2 {
			tool, input = "Bash", `{"command":"go test ./pkg`+strconv.Itoa(i%200)+`/..."}`
		}
		id := `,"tool_use_id":"toolu_` + strconv.Itoa(i) + `"`
		pre := Handle(cfg, ev("PreToolUse", `,"tool_name":"`+tool+`","tool_input":`+input+id))
		if !bytes.Contains(pre.Stdout, []byte(`"deny"`)) {
			Handle(cfg, ev("PostToolUse", `,"tool_name":"`+tool+`","tool_input":`+input+id+`,"tool_response":"`+fmt.Sprintf("%0200d", i%37)+`"`))
		}
	}
	return cfg, ev("PreToolUse", `,"tool_name":"Read","tool_input":{"file_path":"/src/new.go"},"tool_use_id":"toolu_next"`)
}

func BenchmarkRebuild2000(b *testing.B) {
	cfg, _ := benchSession(b, 2000)
	path := filesOf(cfg.StateDir, "bench").log("main")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := newSession(cfg.Rules, "claude-code", "")
		if _, err := readLog(path, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHandle2000 is one PreToolUse on a session of 2000 calls, in
// process (the state restored before each call).
func BenchmarkHandle2000(b *testing.B) {
	cfg, event := benchSession(b, 2000)
	path := filesOf(cfg.StateDir, "bench").log("main")
	saved, _ := os.ReadFile(path)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		os.WriteFile(path, saved, 0o600)
		if r := Handle(cfg, event); r.Stderr != "" {
			b.Fatal(r.Stderr)
		}
	}
}

// BenchmarkCheckpoint2000 builds the same session from its checkpoint (the
// lines after it: none), as a hook call does when the checkpoint serves.
func BenchmarkCheckpoint2000(b *testing.B) {
	cfg, _ := benchSession(b, 2000)
	path := filesOf(cfg.StateDir, "bench").log("main")
	tag, err := checkpointTag(cfg.Rules, cfg.rulesDigest(), "claude-code", "")
	if err != nil {
		b.Fatal(err)
	}
	fresh := func() *session { return newSession(cfg.Rules, "claude-code", "") }
	before := CheckpointsRestored()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, _, err := openSession(path, fresh, tag); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if CheckpointsRestored()-before != int64(b.N) {
		b.Fatal("the session was not built from its checkpoint")
	}
}

// BenchmarkHandlePost2000 is one PostToolUse on a session of 2000 calls
// restored from its checkpoint, in process: the call's result, its
// request's end and the checkpoint written again (the state restored
// before each call).
func BenchmarkHandlePost2000(b *testing.B) {
	cfg, pre := benchSession(b, 2000)
	if r := Handle(cfg, pre); r.Stderr != "" {
		b.Fatal(r.Stderr)
	}
	post := bytes.Replace(pre, []byte(`"PreToolUse"`), []byte(`"PostToolUse"`), 1)
	post = append(post[:len(post)-1], `,"tool_response":"ok"}`...)
	path := filesOf(cfg.StateDir, "bench").log("main")
	saved, _ := os.ReadFile(path)
	snap, _ := os.ReadFile(checkpointPath(path))
	before := CheckpointsRestored()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		os.WriteFile(path, saved, 0o600)
		os.WriteFile(checkpointPath(path), snap, 0o600)
		if r := Handle(cfg, post); r.Stderr != "" {
			b.Fatal(r.Stderr)
		}
	}
	b.StopTimer()
	if CheckpointsRestored()-before != int64(b.N) {
		b.Fatal("the session was not built from its checkpoint")
	}
}
