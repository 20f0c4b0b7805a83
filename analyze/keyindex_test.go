package analyze

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// TestReplayAllInterleavedKeySections: a replay of every session under
// configurations that alternate between key sections (each preset has its
// own; ReplayAll runs a session under each in turn, sharing its
// replayfast.KeyIndex) reports for each what a replay from scratch reports:
// the keys numbered under one key section never leak into a run under
// another.
func TestReplayAllInterleavedKeySections(t *testing.T) {
	files := ingest.Expand([]string{filepath.Join("..", "fixtures")}, func(p ingest.Problem) {})
	counter, _ := tokens.New("chars4")
	names := rules.PresetNames()
	order := append(append([]string{}, names...), names...)
	for i := len(names) - 1; i >= 0; i-- {
		order = append(order, names[i])
	}
	var cfgs []*rules.Rules
	for _, name := range order {
		r, err := rules.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, r)
	}
	reports, _ := ReplayAll(files, Options{Tokens: counter, Jobs: 2}, cfgs, nil)
	for k, r := range cfgs {
		want := Replay(files, Options{Rules: r, Tokens: counter, Jobs: 1, DropSessions: true})
		got, _ := json.Marshal(reports[k].Summary)
		exp, _ := json.Marshal(want.Summary)
		gotTools, _ := json.Marshal(reports[k].Tools)
		expTools, _ := json.Marshal(want.Tools)
		if string(got) != string(exp) || string(gotTools) != string(expTools) {
			t.Errorf("%s (configuration %d): the interleaved run differs from a fresh replay:\n got  %s\n want %s", r.Name, k, got, exp)
		}
	}
}
