package rules_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/rules"
)

// TestBinaryRoundTrip: every preset and every good rules file of the
// fixtures read back from their binary form are the rules parsed, field
// for field (the derived index included), and print the same effective
// rules.
func TestBinaryRoundTrip(t *testing.T) {
	type rulesCase struct {
		name string
		r    *rules.Rules
	}
	var cases []rulesCase
	for _, p := range rules.PresetNames() {
		r, err := rules.Preset(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, rulesCase{"preset:" + p, r})
	}
	files, _ := filepath.Glob("../fixtures/rules/good/*.yaml")
	if len(files) == 0 {
		t.Fatal("no rules files in fixtures/rules/good")
	}
	for _, f := range files {
		r, err := rules.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, rulesCase{f, r})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := rules.AppendBinary([]byte("head"), c.r)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), "head") {
				t.Fatal("AppendBinary did not append")
			}
			got, err := rules.DecodeBinary(b[4:])
			if err != nil {
				t.Fatal(err)
			}
			if got.KeyID() != c.r.KeyID() {
				t.Errorf("key id %d, want %d", got.KeyID(), c.r.KeyID())
			}
			wantYAML, gotYAML := yamlOf(t, c.r), yamlOf(t, got)
			if gotYAML != wantYAML {
				t.Errorf("effective rules differ:\n%s\nwant:\n%s", gotYAML, wantYAML)
			}
			if !reflect.DeepEqual(got, c.r) {
				t.Errorf("decoded rules differ from the parsed ones")
			}
		})
	}
}

func yamlOf(t *testing.T, r *rules.Rules) string {
	t.Helper()
	y, err := r.YAML()
	if err != nil {
		t.Fatal(err)
	}
	return string(y)
}

// TestBinaryRefusesWhatItCannotCarry: a cut, grown or foreign input is an
// error (never a panic, never rules), and a value the walk cannot carry
// makes the encoding fail rather than lose it.
func TestBinaryRefusesWhatItCannotCarry(t *testing.T) {
	r, err := rules.Preset("hermes")
	if err != nil {
		t.Fatal(err)
	}
	b, err := rules.AppendBinary(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n++ {
		if got, err := rules.DecodeBinary(b[:n]); err == nil {
			t.Fatalf("cut to %d of %d bytes: read as %q", n, len(b), got.Name)
		}
	}
	if _, err := rules.DecodeBinary(append(b[:len(b):len(b)], 0)); err == nil {
		t.Error("a byte after the end was not refused")
	}
	other := append([]byte(nil), b...)
	other[0]++ // the form's version
	if _, err := rules.DecodeBinary(other); err == nil {
		t.Error("another version of the form was not refused")
	}
	// Every byte changed in turn: an error or some rules, never a panic.
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0xff
		rules.DecodeBinary(c)
	}
	type hidden struct{ x int }
	for name, v := range map[string]any{
		"unexported field": hidden{1},
		"function":         func() {},
		"interface":        []any{1},
		"map of int keys":  map[int]string{1: "a"},
	} {
		if err := rules.EncodeValue(v); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
	if _, err := rules.AppendBinary(nil, nil); err == nil {
		t.Error("nil rules encoded")
	}
}
