package rules

import (
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// keyRuleSets are key sections that change arguments in each way a key
// can: members left out, kept by name, dropped by path, filled in, folded,
// numbers as Python writes them, and each style.
var keyRuleSets = []string{
	"key: {style: sorted, ignore: [timeout]}",
	"key: {style: sorted_top}",
	"key: {style: insertion}",
	"key: {style: sorted, numbers: python}",
	"key: {style: sorted, fold: [trim, lower]}",
	"key: {style: sorted, tools: {Edit: {drop: ['edits[].new']}}}",
	"key: {style: sorted, tools: {Read: {args: [path, offset]}}}",
	"key: {style: sorted, tools: {Read: {defaults: {offset: '1'}}}}",
	"key: {style: insertion, tools: {Read: {defaults: {offset: '1'}}}}",
}

// TestCallKeyFromCompactText: a key built from the arguments' compact text
// (AppendCallKeyText, as a replay builds it for calls that hold that text)
// is the key built from the parsed arguments, under every preset and every
// way a key section changes arguments.
func TestCallKeyFromCompactText(t *testing.T) {
	var sets []*Rules
	for _, name := range PresetNames() {
		r, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, r)
	}
	for _, text := range keyRuleSets {
		r, err := Parse([]byte(text), "test.yaml")
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		sets = append(sets, r)
	}
	calls := []struct{ tool, args string }{
		{"Read", `{"path":"a.go","offset":2}`},
		{"Read", `{"offset":2.50,"path":"a.go","limit":1e3}`},
		{"Read", `{"path":"a.go"}`},
		{"Bash", `{"command":"  LS -la\n","timeout":30,"description":"list"}`},
		{"Bash", `{"timeout":30}`},
		{"Edit", `{"path":"x","edits":[{"old":"a","new":"b"},{"new":"c","old":"d"}]}`},
		{"Write", `{"file_path":"/a","content":"x\"\\\n\ty"}`},
		{"web_fetch", `{"url":" HTTPS://Example.com ","timeout":5}`},
		{"web_search", `{"query":"Go"}`},
		{"terminal", `{"command":"ls","b":{"d":[{"z":1,"y":2}],"c":null}}`},
		{"x", `[{"b":1,"a":2},"s",3]`},
		{"x", `"just a string"`},
		{"x", `{"k\n":1,"a":2}`}, // a key with an escape: built from the value
		{"x", `{}`},
	}
	unparsed := 0
	for _, r := range sets {
		for _, c := range calls {
			args, err := jsonx.ParseString(c.args)
			if err != nil {
				t.Fatalf("%s: %v", c.args, err)
			}
			want, wantOK := r.AppendCallKeyWith(nil, r.ToolKeyFor(c.tool), c.tool, args, true, c.args)
			text, ok, done := r.AppendCallKeyText([]byte("p"), r.TextKeyFor(r.ToolKeyFor(c.tool)), c.tool, args.String())
			switch {
			case done && (string(text) != "p"+string(want) || ok != wantOK):
				t.Errorf("%s (%s) %s %s: from the unparsed text %q, %v; from the value %q, %v",
					r.Name, r.Key.Style, c.tool, c.args, text, ok, want, wantOK)
			case !done && string(text) != "p":
				t.Errorf("%s %s %s: declined, but wrote %q", r.Name, c.tool, c.args, text)
			case done:
				unparsed++
			}
		}
	}
	// Many keys come from the text alone (113 of 266 when written): the
	// sets that write numbers as Python does, or fold, never do.
	if unparsed < len(sets)*len(calls)/3 {
		t.Errorf("only %d of %d keys built from the unparsed text", unparsed, len(sets)*len(calls))
	}
}
