package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/live/simulate"
	"github.com/loopgate/loopgate/rules"
)

// TestMain lets the test binary act as loopgate-hook, so that the process
// path (a new process per event, as agents run the hook) is tested on this
// package's own main.
func TestMain(m *testing.M) {
	if os.Getenv("LOOPGATE_HOOK_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// TestOwnBinaryDecidesAsReplay drives agents' transcripts through a new
// loopgate-hook process per event, each agent's own events: every call is
// decided as replay decides it (what `loopgate hook` is held to, in
// live/simulate's tests and cli's TestHookProcessPath).
func TestOwnBinaryDecidesAsReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("a process per event")
	}
	t.Setenv("LOOPGATE_HOOK_TEST_MAIN", "1")
	cases := []struct{ agent, dir, preset string }{
		{"claude-code", "claude-code", "loopgate"},
		{"codex", "codex", "hermes-strict"},
		{"gemini-cli", "gemini-cli", "nanobot"},
		{"openhands", "openhands", "loopgate"},
		{"pi", "pi", "hermes-strict"},
	}
	for _, tc := range cases {
		t.Run(tc.agent+"/"+tc.preset, func(t *testing.T) {
			r, err := rules.Preset(tc.preset)
			if err != nil {
				t.Fatal(err)
			}
			sim := &simulate.Simulator{Agent: tc.agent, Rules: r, RulesArgs: []string{"--preset", tc.preset}, StateDir: t.TempDir(),
				Exec: true, Binary: os.Args[0], OwnBinary: true}
			files := ingest.Expand([]string{filepath.Join("..", "..", "fixtures", "ingest", tc.dir)}, func(ingest.Problem) {})
			calls, stopped := 0, 0
			for _, f := range files {
				results, err := sim.File(f, ingest.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, res := range results {
					for _, c := range res.Calls {
						calls++
						if c.Hook.Action != "allow" {
							stopped++
						}
					}
					for _, c := range res.Differences() {
						t.Errorf("%s call %d %s: loopgate-hook %v, replay %v", f, c.Index, c.Tool, c.Hook, c.Replay)
					}
				}
			}
			if calls == 0 {
				t.Error("no calls simulated")
			}
			t.Logf("%d calls, %d not allowed", calls, stopped)
		})
	}
}
