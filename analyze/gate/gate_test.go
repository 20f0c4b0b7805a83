package gate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gateDir holds the test gate files; inline gate texts are parsed as if
// they lived there, so their relative paths resolve the same way.
var gateDir = filepath.Join("..", "..", "fixtures", "gate")

// laughs appends to a gate text whose last case's calls: list is anchored
// &l0 eight more cases, each a list of nine aliases of the one before:
// 9^8 entries if anything expanded them.
func laughs(text string) string {
	for i := 1; i <= 8; i++ {
		text += fmt.Sprintf("  - transcript: ../golden/loops/read-loop.jsonl\n    name: laugh %d\n    calls: &l%d [%s]\n", i, i,
			strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 9), ", "))
	}
	return text
}

func TestParseGateInvalid(t *testing.T) {
	cases := []struct {
		name, text string
		line       int
		want       string
	}{
		{"empty file", "", 1, "the gate file is empty"},
		{"not YAML", "cases:\n  - transcript: a\n    expect: b: c\n", 3, "not valid YAML: mapping values are not allowed"},
		{"top level is a list", "- a\n- b\n", 1, "the gate file must be a mapping"},
		{"unknown top key", "presets: nanobot\ncases: []\n", 1, `unknown key "presets"`},
		{"missing cases", "preset: nanobot\n", 1, "has no cases: list"},
		{"cases not a list", "cases: {a: 1}\n", 1, "cases must be a list, not a mapping"},
		{"empty cases", "cases: []\n", 1, "cases is empty"},
		{"both preset and rules", "preset: nanobot\nrules: rules/budget-4.yaml\ncases: []\n", 2, "gives both preset and rules"},
		{"both in a case", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    preset: nanobot\n    rules: rules/budget-4.yaml\n", 4, "case 1 gives both preset and rules"},
		{"repeated top key", "preset: nanobot\npreset: hermes\ncases: []\n", 2, `key "preset" is repeated at the top level (first given at line 1)`},
		{"repeated expect key", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      blocked: 1\n      blocked: 2\n", 5, `key "blocked" is repeated in case 1's expect (first given at line 4)`},
		{"unknown case key", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expected: {blocked: 1}\n", 3, `unknown key "expected" in case 1; did you mean "expect"?`},
		{"unknown summary field", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      blokced: 1\n", 4, `unknown key "blokced"`},
		{"wrong type", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      blocked: [1]\n", 4, "blocked must be a number, null, or a comparison"},
		{"bad comparison", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      precision: about 0.9\n", 4, `"about 0.9" is not a comparison`},
		{"null count", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      blocked: null\n", 4, "blocked is a count and is never null"},
		{"ordering null", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      precision: \">= null\"\n", 4, "only == and != compare with null"},
		{"no transcript", "cases:\n  - name: x\n    expect: {blocked: 1}\n", 2, "case 1 has no transcript:"},
		{"transcript not text", "cases:\n  - transcript: 3\n", 2, `transcript must be text, not "3"`},
		{"glob matches nothing", "cases:\n  - transcript: ../golden/nowhere/*.jsonl\n", 2, `matches no file`},
		{"unknown preset", "preset: nanobott\ncases:\n  - transcript: ../golden/loops/read-loop.jsonl\n", 1, "nanobott"},
		{"rules file missing", "rules: rules/none.yaml\ncases:\n  - transcript: ../golden/loops/read-loop.jsonl\n", 1, "the rules file does not load"},
		{"unknown tokenizer", "tokenizer: words\ncases:\n  - transcript: ../golden/loops/read-loop.jsonl\n", 1, "words"},
		{"snapshots not a bool", "snapshots: \"yes\"\ncases:\n  - transcript: ../golden/loops/read-loop.jsonl\n", 1, "snapshots must be true or false"},
		{"calls not a list", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    calls: {call: 1}\n", 3, "calls must be a list"},
		{"call missing", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    calls:\n      - {action: block}\n", 4, "needs call:"},
		{"call zero", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    calls:\n      - {call: 0, action: block}\n", 4, "call must be a whole number of at least 1"},
		{"unknown action", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    calls:\n      - {call: 1, action: stop}\n", 4, `action "stop" is not one of allow, steer, dedup, block, halt`},
		{"unknown detector", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    calls:\n      - {call: 1, detector: loop}\n", 4, `detector "loop" is not one of`},
		{"call checks nothing", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    calls:\n      - {call: 1}\n", 4, "must say what to check"},
		{"same name twice", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n  - transcript: ../golden/loops/read-loop.jsonl\n", 3, "same name as the case at line 2"},
		{"same snapshot file", "cases:\n  - {name: Read Loop, transcript: ../golden/loops/read-loop.jsonl}\n  - {name: read-loop, transcript: ../golden/loops/read-loop.jsonl}\n", 3, "would share its snapshot file"},

		// Empty, odd or broken YAML: the file and the line of the mistake.
		{"only a comment", "# nothing yet\n", 1, "the gate file is empty"},
		{"only blank lines", "\n  \n\n", 1, "the gate file is empty"},
		{"only a document marker", "---\n", 1, "the gate file is empty"},
		{"only null", "~\n", 1, "the gate file is empty"},
		{"a second document", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n---\npreset: nanobot\n", 3, "a gate file holds one YAML document; this is a second one"},
		{"syntax error in a later document", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n---\na: [\n", 4, "not valid YAML"},
		{"YAML parser error (counted from 0 by yaml.v3)", "preset: nanobot\ncases:\n  - transcript: 'a'b\n", 3, "not valid YAML: did not find expected key"},
		{"YAML parser error on line 1", "preset: 'a'b\n", 1, "not valid YAML: did not find expected key"},
		{"unclosed flow list", "preset: nanobot\ncases:\n  - expect: [1, 2\n  - transcript: a\n", 3, "did not find expected ',' or ']'"},
		{"tab indentation", "cases:\n\t- transcript: a\n", 2, "not valid YAML: found character that cannot start any token (YAML is indented with spaces, not tabs)"},
		{"unclosed quote", "preset: nanobot\ncases:\n  - transcript: \"a\n", 3, "not valid YAML"},
		{"control character", "preset: nanobot\ncases:\n  - transcript: a\x01b\n", 3, "control characters are not allowed"},
		{"invalid UTF-8", "preset: nanobot\n\ncases: [\xff]\n", 3, "not valid YAML"},
		{"unknown anchor", "preset: nanobot\ncases: *nope\n", 2, "unknown anchor 'nope' referenced"},
		{"self alias", "cases: &a [*a]\n", 1, "more than 100000 YAML nodes once its aliases are expanded"},
		{"calls entries aliasing lists", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    calls: &c [{call: 1, action: allow}]\n  - transcript: ../golden/loops/fetch-loop.jsonl\n    calls: [*c, *c, *c]\n", 5, "a calls entry must be a mapping"},
		{"billion laughs under calls", laughs("cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    calls: &l0 [{call: 1, action: allow}, {call: 2, action: allow}]\n"), 18, "more than 100000 YAML nodes once its aliases are expanded"},
		{"alias to a list as expect", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    calls: &a [{call: 1, action: allow}]\n  - transcript: ../golden/loops/fetch-loop.jsonl\n    expect: *a\n", 5, "case 2's expect must be a mapping of keys (blocked, calls, context_tokens_saved, deduped, files, halted, harmful, native, precision, problems, recall, redundant, redundant_stopped, requests, sessions, steer_tokens, steered, stopped_actions, tokens_saved, turns), not a list"},
		{"alias to a case", "cases:\n  - &c {transcript: ../golden/loops/read-loop.jsonl}\n  - *c\n", 3, "same name as the case at line 2"},

		// Wrong types.
		{"case not a mapping", "cases: [read-loop.jsonl]\n", 1, "case 1 must be a mapping"},
		{"preset a list", "preset: [nanobot]\ncases: []\n", 1, "preset must be text, not a list"},
		{"transcript empty", "cases:\n  - transcript:\n", 2, "transcript must be text, not empty"},
		{"name a number", "cases:\n  - {name: 7, transcript: ../golden/loops/read-loop.jsonl}\n", 2, `name must be text, not "7"`},
		{"expect a list", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect: [1]\n", 3, "case 1's expect must be a mapping"},
		{"expect calls a mapping", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      calls: {call: 3}\n", 4, "calls under expect must be the number of calls"},
		{"expect calls entry unknown key", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      calls:\n        - {call: 3, acton: block}\n", 5, `unknown key "acton"`},
		{"expect calls entry checks nothing", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      calls:\n        - {call: 3}\n", 5, "must say what to check"},

		// Numbers a field can never take, huge or infinite numbers.
		{"huge exact number", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      blocked: 1e308\n", 4, "blocked: 1e308 is out of range"},
		{"huge integer", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      blocked: 99999999999999999999\n", 4, "blocked: 99999999999999999999 is out of range"},
		{"number beyond float64", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      blocked: 1e400\n", 4, "blocked: 1e400 is out of range"},
		{"comparison beyond float64", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      precision: \">= 1e400\"\n", 4, "precision: 1e400 is out of range"},
		{"negative comparison beyond float64", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      tokens_saved: \"> -1e400\"\n", 4, "tokens_saved: -1e400 is out of range"},
		{"infinite comparison", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      blocked: \"< Inf\"\n", 4, "blocked: Inf is out of range"},
		{"YAML infinity", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      blocked: .inf\n", 4, `blocked: ".inf" is not a number`},
		{"YAML NaN", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      precision: .nan\n", 4, `precision: ".nan" is not a number`},
		{"negative count", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      blocked: \">= -1\"\n", 4, "blocked is a count, never negative"},
		{"fractional count", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      blocked: 2.5\n", 4, "blocked is a count; 2.5 is not a whole number"},
		{"precision as a percentage", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      precision: 90\n", 4, "precision is a fraction from 0 to 1, so 90 is outside it"},
		{"recall above 1", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      recall: \"< 1.5\"\n", 4, "recall is a fraction from 0 to 1"},
		{"huge call index", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    calls:\n      - {call: 99999999999999999999, action: block}\n", 4, "call must be a whole number from 1 to 2147483647; 99999999999999999999 is too large"},
		{"huge call index under expect", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    expect:\n      calls:\n        - {call: 1e12, action: block}\n", 5, "is too large"},
		{"huge count", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    calls:\n      - {call: 3, count: 9223372036854775808}\n", 4, "count must be a whole number from 1 to 2147483647"},
		{"fractional call", "cases:\n  - transcript: ../golden/loops/read-loop.jsonl\n    calls:\n      - {call: 2.5, action: block}\n", 4, `call must be a whole number of at least 1, not "2.5"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(gateDir, "inline.gate.yaml")
			_, err := Parse([]byte(tc.text), file)
			if err == nil {
				t.Fatalf("no error for:\n%s", tc.text)
			}
			prefix := file + ":" + strconv.Itoa(tc.line) + ": "
			if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n got  %s\n want %s...%s", err, prefix, tc.want)
			}
			// The CLI annotates it (--github) at the same file and line.
			var gfe *FileError
			if !errors.As(err, &gfe) || gfe.File != file || gfe.Line != tc.line {
				t.Errorf("error is not a *FileError at line %d: %#v", tc.line, err)
			}
			if strings.Contains(err.Error(), "Inf") && !strings.Contains(tc.text, "Inf") {
				t.Errorf("error shows an infinity the file does not hold: %s", err)
			}
		})
	}
}

func TestParseGateValid(t *testing.T) {
	g, err := Load(filepath.Join(gateDir, "passing.gate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) != 3 {
		t.Fatalf("%d cases, want 3", len(g.Cases))
	}
	c := g.Cases[0]
	if c.Rules.Name != "nanobot-budget-4" || c.Tokenizer != "chars4" || c.Snapshot != "" {
		t.Errorf("case 1: rules %q tokenizer %q snapshot %q", c.Rules.Name, c.Tokenizer, c.Snapshot)
	}
	if want := filepath.Join(gateDir, "..", "golden", "loops", "read-loop.jsonl"); len(c.Files) != 1 || c.Files[0] != want {
		t.Errorf("files %v, want [%s]", c.Files, want)
	}
	var got []string
	for _, e := range c.Expect {
		got = append(got, e.Field+" "+e.Op+" "+FormatNumber(e.Value))
	}
	want := "calls == 6|blocked == 2|steered == 0|harmful <= 0|precision >= 0.9|recall < 0.5|tokens_saved > 0"
	if strings.Join(got, "|") != want {
		t.Errorf("expectations\n got  %s\n want %s", strings.Join(got, "|"), want)
	}
	if g.Cases[1].Rules.Name != "nanobot" {
		t.Errorf("case 2 should inherit the file's preset, got %q", g.Cases[1].Rules.Name)
	}
	if n := len(g.Cases[2].Files); n != 3 {
		t.Errorf("healthy glob matched %d files, want 3", n)
	}
	// The default name is the transcript as written; the snapshot is named
	// after it when snapshots are on.
	g2, err := Parse([]byte("cases:\n  - transcript: ../golden/healthy/*.jsonl\n"), filepath.Join(gateDir, "x.gate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if c := g2.Cases[0]; c.Name != "../golden/healthy/*.jsonl" || c.Snapshot != filepath.Join(gateDir, "snapshots", "golden-healthy-.jsonl.golden") || c.Rules.Name != "loopgate" || c.Tokenizer != "o200k_base" {
		t.Errorf("defaults: name %q snapshot %q rules %q tokenizer %q", c.Name, c.Snapshot, c.Rules.Name, c.Tokenizer)
	}
}

func TestParseComparison(t *testing.T) {
	cases := []struct {
		in, op, val string
		bad         bool
	}{
		{"4", "==", "4", false},
		{">= 0.9", ">=", "0.9", false},
		{"<=1", "<=", "1", false},
		{" > 2 ", ">", "2", false},
		{"< 0.5", "<", "0.5", false},
		{"!= 0", "!=", "0", false},
		{"== null", "==", "null", false},
		{"!= null", "!=", "null", false},
		{"=> 2", "", "", true},
		{">= two", "", "", true},
		{"NaN", "", "", true},
		{"Inf", "", "", true},
		{">= 1e400", "", "", true},
		{"<= -1e309", "", "", true},
		{"> 1e308", "", "", true},
		{"== 1_000", "==", "1000", false},
		{"<= 9007199254740992", "<=", "9007199254740992", false},
	}
	for _, tc := range cases {
		op, v, err := parseComparison(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: no error", tc.in)
			}
			continue
		}
		if err != nil || op != tc.op || FormatNumber(v) != tc.val {
			t.Errorf("%q: got %q %s %v, want %q %s", tc.in, op, FormatNumber(v), err, tc.op, tc.val)
		}
	}
	for _, tc := range []struct {
		op    string
		a, b  float64
		holds bool
	}{
		{"==", 0.1 + 0.2, 0.3, true}, {"!=", 1, 1, false}, {">=", 0.9, 0.9, true}, {">", 0.9, 0.9, false},
		{"<=", 2, 1, false}, {"<", 1, 2, true},
	} {
		if got := compare(tc.op, tc.a, tc.b); got != tc.holds {
			t.Errorf("%v %s %v = %v", tc.a, tc.op, tc.b, got)
		}
	}
}

func runGateFile(t *testing.T, path string, opt Options) *Result {
	t.Helper()
	g, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(g, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRunGatePassing(t *testing.T) {
	res := runGateFile(t, filepath.Join(gateDir, "passing.gate.yaml"), Options{Jobs: 2})
	if res.Failed() != 0 {
		for _, c := range res.Cases {
			for _, f := range c.Failures {
				t.Errorf("%s: %s", c.Case.Name, f.Message)
			}
		}
	}
}

func TestRunGateFailing(t *testing.T) {
	res := runGateFile(t, filepath.Join(gateDir, "failing.gate.yaml"), Options{Jobs: 1})
	if len(res.Cases) != 3 || res.Failed() != 2 || !res.Cases[0].Passed() {
		t.Fatalf("%d cases, %d failed; want 3 cases, the last 2 failed", len(res.Cases), res.Failed())
	}
	readLoop := filepath.Join(gateDir, "..", "golden", "loops", "read-loop.jsonl")
	want := []Failure{
		{Kind: FailExpect, Field: "blocked", Expected: "3", Actual: "4", GateLine: 13, File: readLoop, Line: 7, Call: 3, Action: "block", Detector: "repeat",
			Message: "blocked: expected 3, got 4"},
		// No steer to point at: the transcript, line unknown.
		{Kind: FailExpect, Field: "steered", Expected: ">= 1", Actual: "0", GateLine: 14, File: readLoop,
			Message: "steered: expected >= 1, got 0"},
		{Kind: FailExpect, Field: "precision", Expected: "< 0.5", Actual: "1", GateLine: 15, File: readLoop, Line: 7, Call: 3, Action: "block", Detector: "repeat",
			Message: "precision: expected < 0.5, got 1"},
		{Kind: FailCall, Expected: "block", Actual: "allow", GateLine: 17, File: readLoop, Line: 5, Call: 2, Action: "block",
			Message: "call 2: expected block, got allow"},
		{Kind: FailCall, Expected: "block by no_progress", Actual: "block by repeat (count 3)", GateLine: 18, File: readLoop, Line: 7, Call: 3, Action: "block", Detector: "no_progress",
			Message: "call 3: expected block by no_progress, got block by repeat (count 3)"},
		{Kind: FailCall, Expected: "block", Actual: "the session has 6 calls", GateLine: 19, File: readLoop, Call: 9, Action: "block",
			Message: "call 9: expected block, but the session has only 6 calls"},
	}
	got := res.Cases[1].Failures
	if len(got) != len(want) {
		t.Fatalf("%d failures, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Session != "cli:readloop" {
			t.Errorf("failure %d: session %q", i+1, g.Session)
		}
		g.Session = ""
		if g != w {
			t.Errorf("failure %d\n got  %+v\n want %+v", i+1, g, w)
		}
	}
	// Null: a numeric comparison with null fails, with the reason.
	nulls := res.Cases[2].Failures
	if len(nulls) != 2 || !strings.Contains(nulls[0].Message, "precision: expected >= 0.9, got null (no observation call was blocked or deduped)") ||
		!strings.Contains(nulls[1].Message, "recall: expected a number (!= null), got null") {
		t.Errorf("null failures: %+v", nulls)
	}
}

func TestRunGateProblems(t *testing.T) {
	dir := t.TempDir()
	bad := "{\"_type\": \"metadata\", \"key\": \"cli:x\", \"created_at\": \"2026-10-14T09:00:00\", \"updated_at\": \"2026-10-14T09:00:00\", \"metadata\": {}, \"last_consolidated\": 0}\nnot json\n"
	if err := os.WriteFile(filepath.Join(dir, "broken.jsonl"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(text string) string {
		p := filepath.Join(dir, "g.gate.yaml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	res := runGateFile(t, write("snapshots: false\ncases:\n  - transcript: broken.jsonl\n"), Options{})
	f := res.Cases[0].Failures
	if len(f) != 1 || f[0].Kind != FailProblems || f[0].Line != 2 || !strings.Contains(f[0].Message, "got 1 input problem(s), first") {
		t.Errorf("a transcript with a bad line must fail the case: %+v", f)
	}
	res = runGateFile(t, write("snapshots: false\ncases:\n  - transcript: broken.jsonl\n    expect: {problems: 1}\n"), Options{})
	if !res.Cases[0].Passed() {
		t.Errorf("problems: 1 accepts the problem: %+v", res.Cases[0].Failures)
	}
}

func TestSnapshotUpdateAndDrift(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "golden", "loops", "read-loop.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// A secret in the arguments must not reach the snapshot.
	src = []byte(strings.ReplaceAll(string(src), "logs/scheduler.log", "logs/scheduler.log?key=SECRET"))
	if err := os.WriteFile(filepath.Join(dir, "loop.jsonl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	gate := func(preset string) string {
		p := filepath.Join(dir, "loopgate.gate.yaml")
		if err := os.WriteFile(p, []byte("preset: "+preset+"\ntokenizer: chars4\ncases:\n  - {name: loop, transcript: loop.jsonl}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	redact := func(s string) string { return strings.ReplaceAll(s, "SECRET", "[REDACTED]") }
	opt := Options{SnapshotArgs: redact}

	// No snapshot yet: the case passes on its expectations, and says so.
	res := runGateFile(t, gate("nanobot"), opt)
	if c := res.Cases[0]; !c.Passed() || !c.SnapshotMissing || res.SnapshotsMissing() != 1 {
		t.Fatalf("a missing snapshot must pass with a note: passed %v missing %v %+v", c.Passed(), c.SnapshotMissing, c.Failures)
	}
	opt.Update = true
	res = runGateFile(t, gate("nanobot"), opt)
	snapFile := filepath.Join(dir, "snapshots", "loop.golden")
	if !res.Cases[0].Passed() || !res.Cases[0].SnapshotWritten || res.Cases[0].SnapshotMissing {
		t.Fatalf("--update: passed %v written %v missing %v", res.Cases[0].Passed(), res.Cases[0].SnapshotWritten, res.Cases[0].SnapshotMissing)
	}
	data, err := os.ReadFile(snapFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "SECRET") || !strings.Contains(string(data), "[REDACTED]") {
		t.Errorf("snapshot args not redacted:\n%s", data)
	}
	if strings.Count(string(data), `"action":"block"`) != 4 {
		t.Errorf("snapshot should hold nanobot's 4 blocks:\n%s", data)
	}
	// A second update writes nothing (no churn); a check passes.
	if res = runGateFile(t, gate("nanobot"), opt); res.Cases[0].SnapshotWritten {
		t.Error("an unchanged snapshot was rewritten")
	}
	opt.Update = false
	if res = runGateFile(t, gate("nanobot"), opt); !res.Cases[0].Passed() {
		t.Errorf("check after update: %+v", res.Cases[0].Failures)
	}
	if res.Cases[0].SnapshotMissing {
		t.Error("a recorded snapshot reported missing")
	}
	// Another preset: pi-loopguard steers call 4 and blocks 5-6; nanobot
	// blocked 3-6. Calls 3 and 4 change, calls 5 and 6 do too (count).
	res = runGateFile(t, gate("pi-loopguard"), opt)
	var lines []string
	for _, f := range res.Cases[0].Failures {
		if f.Kind != FailSnapshot || f.File != filepath.Join(dir, "loop.jsonl") || f.Line < 1 {
			t.Errorf("drift failure badly located: %+v", f)
		}
		lines = append(lines, f.Message)
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		"snapshot: ~ loop.jsonl [cli:readloop] call 3 read_file",
		": action block -> allow, detector repeat -> , count 3 -> 0",
		"call 4 read_file {\"path\": \"logs/scheduler.log?key=[REDACTED]\"}: action block -> steer",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("drift diff lacks %q:\n%s", want, got)
		}
	}
}

func TestSnapshotDriftFixture(t *testing.T) {
	res := runGateFile(t, filepath.Join(gateDir, "drifting.gate.yaml"), Options{})
	var got []string
	for _, f := range res.Cases[0].Failures {
		got = append(got, f.Message)
	}
	want := []string{
		"snapshot: ~ ../golden/loops/search-loop.jsonl: session telegram:searchloop had 8 calls, now 7",
		`snapshot: - ../golden/loops/search-loop.jsonl [telegram:searchloop] call 2: steer by repeat #1 list_dir {"path": "src/jobs"} (line 5) is gone`,
		`snapshot: ~ ../golden/loops/search-loop.jsonl [telegram:searchloop] call 4 grep {"pattern": "schedule =", "path": "src/jobs"}: action steer -> block`,
		`snapshot: + ../golden/loops/search-loop.jsonl [telegram:searchloop] call 7: block by repeat #5 grep {"pattern": "schedule =", "path": "src/jobs"} (line 15, redundant) is new`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("drift\n got:\n%s\n want:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"nanobot read loop":      "nanobot-read-loop",
		"golden/healthy/*.jsonl": "golden-healthy-.jsonl",
		"  ":                     "case",
		"Ünïcode: ok":            "n-code-ok",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// Any gate text either loads or fails with "file:line: ...": never a panic.
func FuzzParseGate(f *testing.F) {
	for _, name := range []string{"passing.gate.yaml", "failing.gate.yaml", "drifting.gate.yaml"} {
		if data, err := os.ReadFile(filepath.Join(gateDir, name)); err == nil {
			f.Add(string(data))
		}
	}
	f.Add("cases: [~, {transcript: *a}]\n")
	f.Add("a: &a {b: *a}\ncases:\n  - <<: *a\n")
	f.Add("cases:\n  - transcript: '['\n    calls: [{call: 99999999999999999999}]\n")
	file := filepath.Join(gateDir, "fuzz.gate.yaml")
	f.Fuzz(func(t *testing.T, text string) {
		_, err := Parse([]byte(text), file)
		if err != nil && !strings.HasPrefix(err.Error(), file+":") {
			t.Errorf("error without file and line: %v", err)
		}
	})
}

// issueExample is the gate file the gate was designed from, verbatim: calls: is a list
// under expect.
const issueExample = `preset: nanobot              # or  rules: rules/ours.yaml
cases:
  - transcript: golden/read-loop.jsonl      # a path or a glob
    expect:
      blocked: 4             # exact, or a string such as ">= 2" or "<= 1"
      steered: 0
      harmful: 0
      precision: ">= 0.9"
      calls:                 # optional: what must happen to given calls
        - {call: 3, action: block, detector: repeat}
  - transcript: golden/healthy/*.jsonl
    expect: {blocked: 0, steered: 0}
`

// The issue's example loads as written and passes on the golden
// transcripts (no snapshots recorded yet: a note, not a failure); its call
// expectation fails when the action, the detector or the call is wrong.
func TestGateIssueExample(t *testing.T) {
	dir := t.TempDir()
	copyFile := func(from, to string) {
		t.Helper()
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden := filepath.Join("..", "..", "fixtures", "golden")
	copyFile(filepath.Join(golden, "loops", "read-loop.jsonl"), filepath.Join(dir, "golden", "read-loop.jsonl"))
	healthy, _ := filepath.Glob(filepath.Join(golden, "healthy", "*.jsonl"))
	if len(healthy) != 3 {
		t.Fatalf("healthy fixtures: %v", healthy)
	}
	for _, h := range healthy {
		copyFile(h, filepath.Join(dir, "golden", "healthy", filepath.Base(h)))
	}
	file := filepath.Join(dir, "loopgate.gate.yaml")
	run := func(text string) *Result {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return runGateFile(t, file, Options{Jobs: 1})
	}

	res := run(issueExample)
	if len(res.Cases) != 2 {
		t.Fatalf("%d cases, want 2", len(res.Cases))
	}
	c := res.Cases[0].Case
	if len(c.Calls) != 1 || c.Calls[0] != (CallExpectation{Call: 3, Action: "block", Detector: "repeat", Line: 10}) {
		t.Errorf("calls under expect: %+v", c.Calls)
	}
	var exp []string
	for _, e := range c.Expect {
		exp = append(exp, e.Field+" "+e.Op+" "+FormatNumber(e.Value))
	}
	if got := strings.Join(exp, "|"); got != "blocked == 4|steered == 0|harmful == 0|precision >= 0.9" {
		t.Errorf("expectations: %s", got)
	}
	if n := len(res.Cases[1].Case.Files); n != 3 {
		t.Errorf("the glob matched %d files, want 3", n)
	}
	for _, cr := range res.Cases {
		if !cr.Passed() || !cr.SnapshotMissing {
			t.Errorf("%s: passed %v, snapshot missing %v: %+v", cr.Case.Name, cr.Passed(), cr.SnapshotMissing, cr.Failures)
		}
	}

	// The same file with the call expectation changed: each fails, at the
	// calls entry's line, located at the call in the transcript.
	for _, tc := range []struct{ entry, msg string }{
		{"{call: 3, action: steer, detector: repeat}", "call 3: expected steer by repeat, got block by repeat (count 3)"},
		{"{call: 3, action: block, detector: no_progress}", "call 3: expected block by no_progress, got block by repeat (count 3)"},
		{"{call: 3, action: allow}", "call 3: expected allow, got block by repeat (count 3)"},
		{"{call: 7, action: block, detector: repeat}", "call 7: expected block by repeat, but the session has only 6 calls"},
		{"{call: 2147483647, action: block}", "call 2147483647: expected block, but the session has only 6 calls"},
	} {
		text := strings.Replace(issueExample, "{call: 3, action: block, detector: repeat}", tc.entry, 1)
		res := run(text)
		f := res.Cases[0].Failures
		if len(f) != 1 || f[0].Kind != FailCall || f[0].Message != tc.msg || f[0].GateLine != 10 || f[0].File != filepath.Join(dir, "golden", "read-loop.jsonl") {
			t.Errorf("%s: failures %+v, want one: %s", tc.entry, f, tc.msg)
		}
		if !res.Cases[1].Passed() {
			t.Errorf("%s: the healthy case should still pass: %+v", tc.entry, res.Cases[1].Failures)
		}
	}

	// Both forms at once: the case's calls: and expect's, in file order.
	both := strings.Replace(issueExample, "  - transcript: golden/healthy/*.jsonl",
		"    calls:\n      - {call: 2, action: allow}\n  - transcript: golden/healthy/*.jsonl", 1)
	res = run(both)
	if calls := res.Cases[0].Case.Calls; len(calls) != 2 || calls[0].Call != 3 || calls[1].Call != 2 || !res.Cases[0].Passed() {
		t.Errorf("both forms: %+v %+v", calls, res.Cases[0].Failures)
	}
	// And calls: as a number under expect is still the summary field.
	res = run(strings.Replace(issueExample, "      calls:                 # optional: what must happen to given calls\n        - {call: 3, action: block, detector: repeat}\n", "      calls: \">= 7\"\n", 1))
	if f := res.Cases[0].Failures; len(f) != 1 || f[0].Message != "calls: expected >= 7, got 6" {
		t.Errorf("calls as a summary field: %+v", f)
	}
}
