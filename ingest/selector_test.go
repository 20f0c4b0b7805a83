package ingest

import "testing"

func TestSessionSelector(t *testing.T) {
	for _, tc := range []struct {
		id, agent, selector string
		matches, exact      []string
		misses              []string
	}{
		{id: "S1", agent: "main", selector: "S1", matches: []string{"S", "S1", "S1/main"}, exact: []string{"S1", "S1/main"}, misses: []string{"S1/a", "S2"}},
		{id: "S1", agent: "", selector: "S1", matches: []string{"S1"}, exact: []string{"S1", "S1/main"}},
		{id: "g-7", agent: "g-7", selector: "g-7", matches: []string{"g-7"}, exact: []string{"g-7"}, misses: []string{"g-7/g-7x"}},
		{id: "S1", agent: "sidechain-f4546a51", selector: "S1/sidechain-f4546a51",
			matches: []string{"S1", "S1/", "S1/side", "S1/sidechain-f4546a51"}, exact: []string{"S1/sidechain-f4546a51"},
			misses: []string{"S1/main", "S1/a", "sidechain-f4546a51"}},
		{id: "S1", agent: "ace643d2", selector: "S1/ace643d2", matches: []string{"S1/ace"}, exact: []string{"S1/ace643d2"}, misses: []string{"S1/main"}},
	} {
		if got := SessionSelector(tc.id, tc.agent); got != tc.selector {
			t.Errorf("SessionSelector(%q, %q) = %q, want %q", tc.id, tc.agent, got, tc.selector)
		}
		for _, w := range append(tc.matches, tc.exact...) {
			if !SelectorMatches(tc.id, tc.agent, w) {
				t.Errorf("%q does not match %s/%s", w, tc.id, tc.agent)
			}
		}
		for _, w := range tc.exact {
			if !SelectorExact(tc.id, tc.agent, w) {
				t.Errorf("%q does not name %s/%s exactly", w, tc.id, tc.agent)
			}
		}
		for _, w := range tc.misses {
			if SelectorMatches(tc.id, tc.agent, w) {
				t.Errorf("%q matches %s/%s", w, tc.id, tc.agent)
			}
		}
	}
}
