package live

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/loopgate/loopgate/rules"
)

// TestCachedRules: the rules a hook call parsed are read back by the next
// call instead of parsed, equal to them; a cached file that is corrupt, cut,
// a link or of other text is never used (the text is parsed, and the file
// written anew), and a parse error is returned with nothing cached.
func TestCachedRules(t *testing.T) {
	text, err := rules.PresetText("hermes")
	if err != nil {
		t.Fatal(err)
	}
	want, err := rules.Preset("hermes")
	if err != nil {
		t.Fatal(err)
	}
	src := RulesDigest(SourceText("preset:hermes", text))
	parses := 0
	parse := func() (*rules.Rules, error) {
		parses++
		return rules.Parse(text, "preset:hermes")
	}
	dir := t.TempDir()
	path := rulesCachePath(dir, src)
	if path == "" {
		t.Fatal("no cache path: the test binary's file is unknown")
	}
	get := func(step string, wantParses int) {
		t.Helper()
		got, err := CachedRules(dir, src, parse)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: rules differ from the preset's", step)
		}
		if parses != wantParses {
			t.Errorf("%s: parsed %d times, want %d", step, parses, wantParses)
		}
	}
	get("first call", 1)
	get("second call", 1)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damage := map[string]func() error{
		"a byte changed": func() error {
			c := append([]byte(nil), data...)
			c[len(c)/2] ^= 0x10
			return os.WriteFile(path, c, 0o600)
		},
		"cut": func() error { return os.WriteFile(path, data[:len(data)-3], 0o600) },
		"a symbolic link": func() error {
			other := filepath.Join(t.TempDir(), "planted")
			if err := os.WriteFile(other, data, 0o600); err != nil {
				return err
			}
			os.Remove(path)
			return os.Symlink(other, path)
		},
		"removed": func() error { return os.Remove(path) },
	}
	for name, f := range damage {
		if err := f(); err != nil {
			t.Fatal(err)
		}
		n := parses
		get(name, n+1)
		get(name+", then again", n+1)
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: the cache was not written anew as a regular file (%v)", name, err)
		}
	}
	other := RulesDigest(SourceText("preset:hermes", append(append([]byte(nil), text...), '\n')))
	if rulesCachePath(dir, other) == path {
		t.Error("two texts share a cache file")
	}
	bad := errors.New("bad rules")
	if _, err := CachedRules(dir, RulesDigest(SourceText("x", []byte("bad"))), func() (*rules.Rules, error) { return nil, bad }); err != bad {
		t.Errorf("parse error: got %v", err)
	}
	if _, err := os.Stat(rulesCachePath(dir, RulesDigest(SourceText("x", []byte("bad"))))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("rules that failed to parse were cached (%v)", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
