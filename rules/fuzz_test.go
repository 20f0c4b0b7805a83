package rules_test

// Robustness of the rules package, beyond FuzzParse in
// rules_test.go (no panic, errors name the file):
//   - FuzzRoundTrip: what `loopgate rules print` writes is accepted back by
//     --rules and prints the same again;
//   - (keys are built, and fuzzed, in analyze/guard: FuzzCallKey);
//   - TestHostileRulesYAML: alias bombs, huge numbers, deep nesting, unknown
//     keys, wrong types, empty and oversized files are each a clear error
//     with a line, in bounded time.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/loopgate/loopgate/rules"
)

// rulesSeeds returns the fixture rules files and the presets' texts.
func rulesSeeds(tb testing.TB) [][]byte {
	var seeds [][]byte
	files, _ := filepath.Glob(filepath.Join("..", "fixtures", "rules", "*", "*.yaml"))
	gate, _ := filepath.Glob(filepath.Join("..", "fixtures", "gate", "rules", "*.yaml"))
	for _, p := range append(files, gate...) {
		if data, err := os.ReadFile(p); err == nil {
			seeds = append(seeds, data)
		}
	}
	for _, name := range PresetNames() {
		if data, err := PresetText(name); err == nil {
			seeds = append(seeds, data)
		}
	}
	if len(seeds) == 0 {
		tb.Fatal("no rules fixtures or presets to seed the fuzzer")
	}
	return seeds
}

// withoutComments drops the comment lines YAML() starts with (they name the
// source, which differs between the two prints).
func withoutComments(b []byte) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// FuzzRoundTrip: every rules file that loads prints as YAML that loads
// again and prints identically (a fixed point after one print).
func FuzzRoundTrip(f *testing.F) {
	for _, s := range rulesSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data, "fuzz.yaml")
		if err != nil {
			return
		}
		first, err := r.YAML()
		if err != nil {
			t.Fatalf("YAML: %v", err)
		}
		back, err := Parse(first, "printed.yaml")
		if err != nil {
			t.Fatalf("printed rules do not load back: %v\n%s", err, first)
		}
		second, err := back.YAML()
		if err != nil {
			t.Fatalf("YAML of the reloaded rules: %v", err)
		}
		if withoutComments(first) != withoutComments(second) {
			t.Fatalf("printing is not stable:\n--- first\n%s\n--- second\n%s", first, second)
		}
	})
}

// TestHostileRulesYAML: each hostile rules file is an error naming the file
// and a line, with a sentence a user can act on, within a time limit.
func TestHostileRulesYAML(t *testing.T) {
	laughs := "lol0: &l0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n"
	for i := 1; i <= 9; i++ {
		laughs += fmt.Sprintf("lol%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	mergeBomb := "base: &b {name: x}\n"
	for i := 1; i <= 9; i++ {
		mergeBomb += fmt.Sprintf("m%d: &m%d {<<: [*b], a: *b, b: *b}\n", i, i)
	}
	cases := []struct {
		name, text string
		line       int
		word       string
	}{
		{"empty", "", 1, "empty"},
		{"only a comment", "# nothing here\n", 1, "empty"},
		// Refused before it is read, by the count of its nodes with the
		// aliases expanded, at the alias where it passes.
		{"billion laughs at the top", laughs, 6, "more than 100000 YAML nodes once its aliases are expanded"},
		{"billion laughs in a value", "name: x\ndetectors:\n  repeat: &r {block_at: 3}\n  consecutive: *r\n" + laughs, 10, "more than 100000 YAML nodes once its aliases are expanded"},
		{"one alias", "name: x\ndetectors:\n  repeat: &r {block_at: 3}\n  consecutive: *r\n", 4, "aliases"},
		{"merge-key bomb", mergeBomb, 1, "unknown key"},
		{"alias as the whole file", "&a [*a]\n", 1, ""},
		{"huge integer", "name: x\ndetectors:\n  repeat:\n    block_at: 123456789012345678901234567890123456789\n", 4, "too large"},
		{"huge float", "name: x\ndetectors:\n  repeat:\n    block_at: 1e308\n", 4, "block_at"},
		{"negative", "name: x\ndetectors:\n  repeat:\n    block_at: -3\n", 4, "block_at"},
		{"unknown key", "name: x\ndetectorz: {}\n", 2, "unknown key"},
		{"wrong type", "name: x\ndetectors:\n  repeat:\n    block_at: [1, 2]\n", 4, "block_at"},
		{"wrong type at the top", "- a\n- b\n", 1, "mapping"},
		{"deep nesting", "name: x\nscope: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n", 2, ""},
		{"deep block nesting", "name: x\nscope:\n" + deepBlock(1000), 3, ""},
		{"binary", "\x00\x01\x02\xff\xfe", 1, ""},
		{"tabs", "name: x\ndetectors:\n\trepeat: {}\n", 3, ""},
		{"two documents", "name: x\n---\nname: y\n", 2, "second"},
		{"too large", "name: x\n# " + strings.Repeat("y", MaxFileSize) + "\n", 0, "larger than"},
		{"duplicate key", "name: x\nname: y\n", 2, "repeated"},
		// yaml.v3 limits a plain key to 1024 characters.
		{"long unknown key", "name: x\n" + strings.Repeat("k", 100_000) + ": 1\n", 2, "not valid YAML"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			type result struct {
				r   *Rules
				err error
			}
			done := make(chan result, 1)
			go func() {
				r, err := Parse([]byte(tc.text), "hostile.yaml")
				done <- result{r, err}
			}()
			var res result
			select {
			case res = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Parse did not return within 20s")
			}
			if res.err == nil {
				t.Fatalf("loaded (rules %q); want an error", res.r.Name)
			}
			msg := res.err.Error()
			prefix := "hostile.yaml:"
			if tc.line > 0 {
				prefix = fmt.Sprintf("hostile.yaml:%d:", tc.line)
			}
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tc.word) {
				t.Errorf("error %.300q; want it to start with %q and hold %q", msg, prefix, tc.word)
			}
			if len(msg) > 1000 {
				t.Errorf("error is %d bytes long; it should not echo the file", len(msg))
			}
			if strings.Contains(msg, "panic") || strings.Contains(msg, "runtime error") {
				t.Errorf("error comes from a recovered panic: %s", msg)
			}
		})
	}
}

// deepBlock nests n block mappings.
func deepBlock(n int) string {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		b.WriteString(strings.Repeat(" ", i+1))
		b.WriteString("k:\n")
	}
	return b.String()
}
