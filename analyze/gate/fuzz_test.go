package gate

// FuzzGateFile feeds arbitrary text to Parse, anchored in fixtures/gate so
// that the fixtures' relative paths resolve; TestHostileGateYAML names the
// attacks.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// gateErrorPrefix: a gate file error starts with "FILE:LINE: ".
var gateErrorPrefix = regexp.MustCompile(`^[^\n]*fuzz\.gate\.yaml:[0-9]+: \S`)

func FuzzGateFile(f *testing.F) {
	dir := filepath.Join("..", "..", "fixtures", "gate")
	files, _ := filepath.Glob(filepath.Join(dir, "*.gate.yaml"))
	more, _ := filepath.Glob(filepath.Join(dir, "invalid", "*.gate.yaml"))
	golden, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "golden", "*.gate.yaml"))
	for _, p := range append(append(files, more...), golden...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("cases: &c [*c]\n"))
	f.Add([]byte("cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect: {blocked: \"<= 1e400\"}\n"))
	path := filepath.Join(dir, "fuzz.gate.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		done := make(chan struct{})
		var g *Gate
		var err error
		go func() {
			defer close(done)
			g, err = Parse(data, path)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			panic("Parse ran longer than 20s: a hang")
		}
		if err != nil {
			if !gateErrorPrefix.MatchString(err.Error()) {
				t.Fatalf("error does not start with FILE:LINE: %q", err)
			}
			return
		}
		if len(g.Cases) == 0 {
			t.Fatal("a gate with no case loaded")
		}
		for i, c := range g.Cases {
			if c.Index != i+1 || c.Name == "" || c.Line < 1 || len(c.Files) == 0 || c.Rules == nil {
				t.Fatalf("case %d loaded incomplete: index %d, name %q, line %d, %d files, rules %v", i+1, c.Index, c.Name, c.Line, len(c.Files), c.Rules != nil)
			}
			for _, e := range c.Expect {
				if !strings.Contains("== != >= <= > <", e.Op) || e.Op == "" || (e.Value == nil && e.Op != "==" && e.Op != "!=") {
					t.Fatalf("case %d: expectation %q has op %q value %v", i+1, e.Text, e.Op, e.Value)
				}
			}
		}
	})
}

// TestHostileGateYAML: each hostile gate file is an error naming the file
// and a line, in bounded time. (FuzzParseGate in gate_test.go and
// FuzzGateFile above cover random text; these are the named attacks.)
func TestHostileGateYAML(t *testing.T) {
	laughs := "lol0: &l0 [a, a, a, a, a, a, a, a, a]\n"
	for i := 1; i <= 9; i++ {
		laughs += fmt.Sprintf("lol%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	// The bomb inside what the loader walks: every case is an alias of a
	// list nine times larger than the one before.
	caseBomb := "x0: &c0 {transcript: ../golden/loops/read-loop.jsonl, snapshot: false, expect: {blocked: 4}}\n"
	for i := 1; i <= 9; i++ {
		caseBomb += fmt.Sprintf("x%d: &c%d [*c%d, *c%d, *c%d, *c%d, *c%d, *c%d, *c%d, *c%d, *c%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	caseBomb += "cases: *c9\n"
	read := "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n"
	cases := []struct {
		name, text string
		line       int
		word       string
	}{
		{"empty", "", 1, "empty"},
		{"only a comment", "# nothing\n", 1, "empty"},
		{"billion laughs", laughs, 6, "more than 100000 YAML nodes once its aliases are expanded"},
		{"alias bomb as the cases", caseBomb, 6, "more than 100000 YAML nodes once its aliases are expanded"},
		{"self alias", "cases: &a [*a]\n", 1, ""},
		{"unknown key", read + "    expected: {blocked: 4}\n", 3, "unknown key"},
		{"wrong type", read + "    expect: [1, 2]\n", 3, "mapping"},
		{"huge call number", read + "    calls: [{call: 99999999999999999999999, action: block}]\n", 3, "whole number"},
		{"huge expected number", read + "    expect: {blocked: 1e400}\n", 3, ""},
		{"huge comparison", read + "    expect: {blocked: \">= 1e400\"}\n", 3, ""},
		{"not a mapping", "- a\n- b\n", 1, "mapping"},
		{"deep nesting", "cases: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n", 1, ""},
		{"binary", "\x00\x01\x02\xff\xfe", 1, ""},
		{"no cases", "preset: nanobot\n", 1, "cases"},
	}
	path := filepath.Join("..", "..", "fixtures", "gate", "hostile.gate.yaml")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			type result struct {
				g   *Gate
				err error
			}
			done := make(chan result, 1)
			go func() {
				g, err := Parse([]byte(tc.text), path)
				done <- result{g, err}
			}()
			var res result
			select {
			case res = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Parse did not return within 20s")
			}
			if res.err == nil {
				t.Fatalf("loaded %d cases; want an error", len(res.g.Cases))
			}
			msg := res.err.Error()
			prefix := fmt.Sprintf("%s:%d:", path, tc.line)
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tc.word) {
				t.Errorf("error %.300q; want it to start with %q and hold %q", msg, prefix, tc.word)
			}
			if len(msg) > 1000 {
				t.Errorf("error is %d bytes long; it should not echo the file", len(msg))
			}
		})
	}
}
