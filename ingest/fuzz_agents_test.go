package ingest

// Fuzz targets for the newer agents' readers (pi, Gemini CLI, Cline/Roo,
// Copilot CLI, Kimi CLI; hermes state.db and OpenCode's opencode.db): the
// JSON readers under the file names their detection needs, and the database
// readers on corrupted database files. Run by `bash .ci/fuzz.sh`.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentFormats are the newer agents' JSON formats, with a file name each
// is detected under.
var agentFormats = []struct{ id, name string }{
	{formatPi, "2026-03-14T10-00-00-000Z_0c9d7a10.jsonl"},
	{formatGemini, "session-2026-08-20T09-00-7d1e4b2a.jsonl"},
	{formatGemini, "session-2025-09-01T12-00-0a1b2c3d.json"},
	{formatCline, "api_conversation_history.json"},
	{formatCopilot, "events.jsonl"},
	{formatKimi, "context.jsonl"},
}

// FuzzAgentFormats reads arbitrary bytes as each of the formats (detected,
// then forced) under its own kind of file name, and checks the invariants
// every Read must keep (checkReadInvariants) and determinism.
func FuzzAgentFormats(f *testing.F) {
	for p, data := range fixtureTranscripts(f) {
		for i, af := range agentFormats {
			if strings.Contains(filepath.ToSlash(p), "/"+af.id+"/") {
				f.Add(data, uint8(i), false)
				f.Add(data, uint8(i), true)
			}
		}
	}
	f.Add([]byte(`{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}`+"\n"+`{"type":"message","id":"a","parentId":"a","message":{"role":"user","content":"hi"}}`+"\n"), uint8(0), false)
	f.Add([]byte(`{"sessionId":"s","projectHash":"p"}`+"\n"+`{"$rewindTo":"nope"}`+"\n"+`{"$set":{"messages":[{"id":1}]}}`+"\n"), uint8(1), false)
	// A Gemini CLI file whose one message is an empty user message (which
	// Gemini CLI ignores) was dropped as a resume's context-only file,
	// unsaid (found by this target).
	f.Add([]byte(`{"sessionId":"","projectHash":""}`+"\n"+`{"id":"","tYpe":"user"}`), uint8(1), false)
	f.Fuzz(func(t *testing.T, data []byte, which uint8, force bool) {
		af := agentFormats[int(which)%len(agentFormats)]
		format := ""
		if force {
			format = af.id
		}
		s1, p1 := readBytes(data, af.name, format)
		checkReadInvariants(t, data, af.name, format, s1, p1)
		s2, p2 := readBytes(data, af.name, format)
		if len(s1) != len(s2) || len(p1) != len(p2) {
			t.Fatalf("two reads differ: %d/%d sessions, %d/%d problems", len(s1), len(s2), len(p1), len(p2))
		}
		for i := range p1 {
			if p1[i] != p2[i] {
				t.Fatalf("problem %d differs between two reads: %v / %v", i, p1[i], p2[i])
			}
		}
	})
}

// FuzzDatabases writes arbitrary bytes as a state.db or opencode.db (seeded
// with the fixture databases, so that the fuzzer corrupts real pages) and
// reads it: a corrupt database is problems, never a panic or a hang.
func FuzzDatabases(f *testing.F) {
	dir := f.TempDir()
	for i, p := range fixtureDatabases(f) {
		script, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(p), ".sql") + ".db"
		sub := filepath.Join(dir, string(rune('a'+i)))
		os.MkdirAll(sub, 0o755)
		data, err := os.ReadFile(buildDB(f, script, sub, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, name == "opencode.db")
	}
	f.Add([]byte("SQLite format 3\x00"), false)
	f.Fuzz(func(t *testing.T, data []byte, opencode bool) {
		name := "state.db"
		if opencode {
			name = "opencode.db"
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		sessions, problems := readAll(t, path, Options{})
		for _, p := range problems {
			if strings.Contains(p.Message, "internal error") {
				t.Errorf("a reader panicked (recovered): %s", p.Message)
			}
			if p.File != path || strings.TrimSpace(p.Message) == "" {
				t.Errorf("problem %+v", p)
			}
		}
		if len(data) > 0 && len(sessions)+len(problems) == 0 {
			// An empty database (valid header, no tables) is still a
			// problem: "of no known format".
			t.Errorf("a non-empty file yielded neither a session nor a problem")
		}
		for _, s := range sessions {
			for _, turn := range s.Turns {
				for _, r := range turn.Requests {
					for _, c := range r.Calls {
						checkCall(t, s.ID, c, 0)
					}
				}
			}
		}
	})
}
