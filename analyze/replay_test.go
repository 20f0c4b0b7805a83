package analyze

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/corpusgen"
	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// preset returns a built-in preset's rules.
func preset(t *testing.T, name string) *rules.Rules {
	t.Helper()
	r, err := rules.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRunSharedTokenCache: runs sharing one TokenCache (its rule cache, its
// scratch memory and the spare guard a finished Run leaves for the next;
// guard's TestReleaseEmptiesGuard checks the spare holds nothing)
// give the results of runs that each start from a fresh TokenCache, over
// every generated format, under every preset in turn and back again.
func TestRunSharedTokenCache(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a corpus")
	}
	files, err := corpusgen.GenerateInMemory(64<<10, 32<<10)
	if err != nil {
		t.Fatal(err)
	}
	var sessions []*ingest.Session
	for _, f := range files {
		ingest.Read(bytes.NewReader(f.Data), f.Path, ingest.Options{}, &ingest.Sink{
			OnSession: func(s *ingest.Session) { sessions = append(sessions, s) },
		})
	}
	if len(sessions) < 10 {
		t.Fatalf("%d sessions", len(sessions))
	}
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	shared := NewTokenCache(counter)
	names := append(rules.PresetNames(), rules.PresetNames()[0])
	for _, name := range names {
		r, err := rules.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sessions {
			want, wantTools := Run(Prepare(s), r, NewTokenCache(counter))
			got, gotTools := Run(Prepare(s), r, shared)
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotTools, wantTools) {
				t.Fatalf("%s, %s: a shared TokenCache changed the result:\n%+v\nwant\n%+v", name, s.ID, got, want)
			}
		}
	}
	if shared.rules == nil {
		t.Fatal("no rule cache kept")
	}
}

// TestReportToolNames: each session says how its tools were named.
func TestReportToolNames(t *testing.T) {
	sess := &ingest.Session{File: "s.jsonl", Format: "nanobot", ID: "s", Agent: "main", Platform: "telegram",
		Turns: []ingest.Turn{{Index: 1, Requests: []ingest.Request{{Calls: []ingest.Call{
			{Tool: "read_file", ArgsRaw: `{"path":"/a"}`, Result: "x", HasResult: true},
		}}}}}}
	args, _ := jsonx.ParseString(`{"path":"/a"}`)
	sess.Turns[0].Requests[0].Calls[0].Args, sess.Turns[0].Requests[0].Calls[0].ArgsOK = &args, true
	p := Prepare(sess)
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	tc := NewTokenCache(counter)
	for _, c := range []struct {
		preset, names string
		unattended    bool
	}{
		{"nanobot", "native", false},
		{"hermes", "classes", true},
		{"loopgate", "classes", false},
	} {
		res, _ := Run(p, preset(t, c.preset), tc)
		if res.ToolNames != c.names || res.Unattended != c.unattended {
			t.Errorf("%s: tool_names %q unattended %v, want %q %v", c.preset, res.ToolNames, res.Unattended, c.names, c.unattended)
		}
	}
}
