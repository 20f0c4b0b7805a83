package report

import (
	"io"

	"github.com/loopgate/loopgate/analyze"
)

// The compare and sweep pages: the rows of each drawn as points (compare:
// precision against recall, bubble area for tokens saved; sweep: recall and
// savings against harmful stops, with the Pareto front), and the table.
// A tuning run has a row per configuration, at most analyze's bound on a
// sweep, so nothing is aggregated.

type htmlCompareRow struct {
	analyze.CompareRow
	// Label tells rows of the same name apart (compareLabels).
	Label string `json:"label"`
}

func compareHTML(w io.Writer, rows []analyze.CompareRow, corpus analyze.CorpusFacts, opt Options) error {
	labels := compareLabels(rows)
	page := struct {
		Corpus analyze.CorpusFacts `json:"corpus"`
		Rows   []htmlCompareRow    `json:"rows"`
	}{Corpus: corpus, Rows: []htmlCompareRow{}}
	for i, r := range rows {
		page.Rows = append(page.Rows, htmlCompareRow{CompareRow: r, Label: labels[i]})
	}
	data, err := htmlJSON(page)
	if err != nil {
		return err
	}
	return writeHTMLPage(w, "compare", "loopgate compare", corpusLine(corpus), data)
}

type htmlSweepRow struct {
	analyze.SweepRow
	// RecallFront marks rows that no other row beats on both recall
	// (higher is better) and harmful stops (lower is better); Pareto is
	// the sweep's own front, savings against harm.
	RecallFront bool `json:"recall_front"`
}

func sweepHTML(w io.Writer, base string, rows []analyze.SweepRow, corpus analyze.CorpusFacts, opt Options) error {
	page := struct {
		Base   string              `json:"base"`
		Corpus analyze.CorpusFacts `json:"corpus"`
		Rows   []htmlSweepRow      `json:"rows"`
	}{Base: base, Corpus: corpus, Rows: []htmlSweepRow{}}
	for i, r := range rows {
		page.Rows = append(page.Rows, htmlSweepRow{SweepRow: r, RecallFront: onRecallFront(rows, i)})
	}
	data, err := htmlJSON(page)
	if err != nil {
		return err
	}
	title := "loopgate sweep over " + base
	return writeHTMLPage(w, "sweep", title, corpusLine(corpus), data)
}

// onRecallFront says whether no other row has at least row i's recall with
// at most its harmful stops, and does better on one of them. A row whose
// recall is null (no redundant call) is on no front.
func onRecallFront(rows []analyze.SweepRow, i int) bool {
	r := rows[i].Summary
	if r.Recall == nil {
		return false
	}
	for j, o := range rows {
		s := o.Summary
		if j == i || s.Recall == nil {
			continue
		}
		if *s.Recall >= *r.Recall && s.Harmful <= r.Harmful && (*s.Recall > *r.Recall || s.Harmful < r.Harmful) {
			return false
		}
	}
	return true
}
