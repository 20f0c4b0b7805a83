package jsonx

import "testing"

// TestPyNumber checks json.dumps(json.loads(lit)) as CPython 3 prints it:
// python3 -c 'import json; print(json.dumps(json.loads("1e2")))' -> 100.0.
// nanobot PR #3701 keys local calls on
// `json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=True)`
// of the parsed arguments, so these literals compare as Python prints them.
func TestPyNumber(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"100", "100"},
		{"1e2", "100.0"},
		{"1E2", "100.0"},
		{"100.0", "100.0"},
		{"100.00", "100.0"},
		{"-0", "0"},
		{"-0.0", "-0.0"},
		{"0.0001", "0.0001"},
		{"0.00001", "1e-05"},
		{"1e16", "1e+16"},
		{"1e15", "1000000000000000.0"},
		{"123456789012345678901234567890", "123456789012345678901234567890"},
		{"1.5e300", "1.5e+300"},
		{"1e400", "Infinity"},
		{"-1e400", "-Infinity"},
		{"0.1", "0.1"},
		{"2.50", "2.5"},
		{"-12.5e-1", "-1.25"},
	} {
		if got := PyNumber(c.in); got != c.want {
			t.Errorf("PyNumber(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPyNumbers(t *testing.T) {
	v, err := ParseString(`{"a":[1e2,{"b":100}],"c":"1e2","d":1}`)
	if err != nil {
		t.Fatal(err)
	}
	got := string(PyNumbers(v).Append(nil, Sorted))
	if want := `{"a":[100.0,{"b":100}],"c":"1e2","d":1}`; got != want {
		t.Errorf("PyNumbers = %s, want %s", got, want)
	}
	if orig := string(v.Append(nil, Sorted)); orig != `{"a":[1e2,{"b":100}],"c":"1e2","d":1}` {
		t.Errorf("PyNumbers changed its input: %s", orig)
	}
}

func TestPyTruthy(t *testing.T) {
	for in, want := range map[string]bool{
		`null`: false, `false`: false, `true`: true, `0`: false, `-0.0`: false, `0e5`: false,
		`1e-400`: false, `0.5`: true, `""`: false, `" "`: true, `[]`: false, `[0]`: true, `{}`: false, `{"a":0}`: true,
	} {
		v, err := ParseString(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.PyTruthy(); got != want {
			t.Errorf("PyTruthy(%s) = %v, want %v (Python: bool(json.loads(%q)))", in, got, want, in)
		}
	}
}
