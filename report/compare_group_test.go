package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/analyze"
)

// TestCompareGroups: compare shows a heading row before each group of
// presets (loopgate's own, seed designs, shipped guards, rules files) in
// the table and markdown, the group in csv and json, and no heading when
// every row is of one group.
func TestCompareGroups(t *testing.T) {
	mixed := []analyze.CompareRow{
		{Name: "loopgate", Source: "preset:loopgate", Group: "loopgate's own"},
		{Name: "nanobot", Source: "preset:nanobot", Group: "seed designs"},
		{Name: "attractor", Source: "preset:attractor", Group: "seed designs"},
		{Name: "goose", Source: "preset:goose", Group: "shipped guards"},
	}
	one := mixed[1:3]
	for _, c := range []struct {
		format string
		rows   []analyze.CompareRow
		want   []string // in this order
		not    []string
	}{
		{"markdown", mixed, []string{"**loopgate's own**", "`loopgate`", "**seed designs**", "`nanobot`", "`attractor`", "**shipped guards**", "`goose`"}, nil},
		{"table", mixed, []string{"loopgate's own", "loopgate ", "seed designs", "nanobot", "attractor", "shipped guards", "goose"}, nil},
		{"markdown", one, []string{"`nanobot`", "`attractor`"}, []string{"**seed designs**"}},
		{"table", one, []string{"nanobot", "attractor"}, []string{"seed designs"}},
		{"csv", mixed, []string{",group\n", ",seed designs\n", ",shipped guards\n"}, nil},
		{"json", mixed, []string{`"group": "loopgate's own"`, `"group": "shipped guards"`}, nil},
	} {
		var b bytes.Buffer
		if err := Compare(c.format, &b, c.rows, analyze.CorpusFacts{}, Options{}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		at := 0
		for _, w := range c.want {
			i := strings.Index(out[at:], w)
			if i < 0 {
				t.Errorf("%s: %q missing or out of order in\n%s", c.format, w, out)
				break
			}
			at += i + len(w)
		}
		for _, n := range c.not {
			if strings.Contains(out, n) {
				t.Errorf("%s: %q shown for rows of one group:\n%s", c.format, n, out)
			}
		}
	}
}
