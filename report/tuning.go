package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/analyze"
	"github.com/olekukonko/tablewriter/tw"
)

// This file renders the tuning commands: compare (presets or rules files
// side by side) and sweep (a grid of settings with its Pareto front).

// tuningColumns are the summary columns every tuning row shows.
var tuningColumns = []string{"steered", "blocked", "deduped", "halted", "harmful", "redundant", "precision", "stopped_actions", "recall", "tokens_saved", "context_tokens_saved"}

func tuningCells(s analyze.Summary, human bool) []string {
	ratio := func(p *float64) string {
		if human {
			return percent(p)
		}
		if p == nil {
			return ""
		}
		return strconv.FormatFloat(*p, 'f', 4, 64)
	}
	num := func(n int64) string {
		if human {
			return thousands(n)
		}
		return strconv.FormatInt(n, 10)
	}
	return []string{num(int64(s.Steered)), num(int64(s.Blocked)), num(int64(s.Deduped)), num(int64(s.Halted)),
		num(int64(s.Harmful)), num(int64(s.Redundant)), ratio(s.Precision), num(int64(s.StoppedActions)), ratio(s.Recall),
		num(s.TokensSaved), num(s.ContextTokensSaved)}
}

// Stopped actions stand beside precision, which covers observations only.
var tuningHeader = []string{"Steered", "Blocked", "Deduped", "Halted", "Harmful", "Redundant", "Precision", "Stopped actions", "Recall", "Tokens saved", "Context saved"}

// compareJSON and sweepJSON are the json reports of compare and sweep
// (read back by ReadPartialMax).
type compareJSON struct {
	Corpus   analyze.CorpusFacts  `json:"corpus"`
	Rows     []analyze.CompareRow `json:"rows"`
	Problems []analyze.Problem    `json:"problems"`
	Partial  *analyze.Partial     `json:"partial,omitempty"`
}

type sweepJSON struct {
	Base     string              `json:"base"`
	Corpus   analyze.CorpusFacts `json:"corpus"`
	Rows     []analyze.SweepRow  `json:"rows"`
	Problems []analyze.Problem   `json:"problems"`
	Partial  *analyze.Partial    `json:"partial,omitempty"`
}

// compare's writers (CompareFormats): each shows the rows redacted as
// opt asks.

func compareHTMLReport(w io.Writer, c Comparison, opt Options) error {
	return compareHTML(w, preparedCompareRows(c.Rows, opt), c.Corpus, opt)
}

func compareJSONReport(w io.Writer, c Comparison, opt Options) error {
	return writeJSON(w, compareJSON{c.Corpus, preparedCompareRows(c.Rows, opt), preparedProblems(opt.Problems, opt), opt.Partial}, "  ")
}

func compareCSV(w io.Writer, c Comparison, opt Options) error {
	cw := csv.NewWriter(w)
	cw.Write(append(append([]string{"name", "source"}, tuningColumns...), "group"))
	for _, r := range preparedCompareRows(c.Rows, opt) {
		cw.Write(append(append([]string{r.Name, r.Source}, tuningCells(r.Summary, false)...), r.Group))
	}
	cw.Flush()
	return cw.Error()
}

func compareMarkdown(w io.Writer, c Comparison, opt Options) error {
	rows := preparedCompareRows(c.Rows, opt)
	labels := compareLabels(rows)
	var b strings.Builder
	fmt.Fprintf(&b, "## loopgate compare\n\n%s\n\n", corpusLine(c.Corpus))
	b.WriteString("| Rules | " + strings.Join(tuningHeader, " | ") + " |\n|---|" + strings.Repeat("---:|", len(tuningHeader)) + "\n")
	for i, r := range rows {
		if g, ok := groupStarts(rows, i); ok {
			b.WriteString("| **" + mdText(g) + "** |" + strings.Repeat(" |", len(tuningHeader)) + "\n")
		}
		b.WriteString("| " + mdCode(labels[i]) + " | " + strings.Join(tuningCells(r.Summary, true), " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func compareTable(w io.Writer, c Comparison, opt Options) error {
	rows := preparedCompareRows(c.Rows, opt)
	labels := compareLabels(rows)
	t := &textWriter{opt: opt}
	t.heading("Compare")
	t.printf("%s\n\n", wrapWords(corpusLine(c.Corpus), t.opt.width(), "    "))
	tab := t.newTable(tuningAlign(1))
	tab.Header(append([]string{"Rules"}, tuningHeader...))
	for i, r := range rows {
		if g, ok := groupStarts(rows, i); ok {
			t.append(tab, stringsToAny(append([]string{paint(opt.Color, ansiBold, g)}, make([]string, len(tuningHeader))...))...)
		}
		t.append(tab, stringsToAny(append([]string{labels[i]}, tuningCells(r.Summary, true)...))...)
	}
	t.render(tab)
	return t.flushTo(w)
}

// groupStarts reports whether row i is the first of its group, and the
// group, when the rows come from more than one group: compare then shows
// a heading row before each group (loopgate's own, seed designs, shipped
// guards, rules files).
func groupStarts(rows []analyze.CompareRow, i int) (string, bool) {
	mixed := false
	for _, r := range rows {
		mixed = mixed || r.Group != rows[0].Group
	}
	if !mixed || rows[i].Group == "" || (i > 0 && rows[i-1].Group == rows[i].Group) {
		return "", false
	}
	return rows[i].Group, true
}

// compareLabels names each compare row for people (table, markdown): the
// rules' name, followed by where the rules came from when another row has
// the same name, so that the preset nanobot and a rules file named nanobot
// are told apart: "nanobot (preset)", "nanobot (rules/nanobot.yaml)".
// (csv and json have the source in a column of its own.)
func compareLabels(rows []analyze.CompareRow) []string {
	count := map[string]int{}
	for _, r := range rows {
		count[r.Name]++
	}
	labels := make([]string, len(rows))
	for i, r := range rows {
		labels[i] = r.Name
		if count[r.Name] > 1 {
			labels[i] += " (" + sourceLabel(r.Name, r.Source) + ")"
		}
	}
	return labels
}

// sourceLabel shortens a rules source for a label: "preset" for the preset
// of that name, else the source as given (a path, or "preset:OTHER").
func sourceLabel(name, source string) string {
	switch {
	case source == "preset:"+name:
		return "preset"
	case source == "":
		return "unknown source"
	}
	return source
}

// sweep's writers (SweepFormats). sweepBase is the base rules' label as
// shown (redacted as opt asks); sweepKeys the varied keys, the columns
// before the summary's; sweepValues a row's values of them.

func sweepBase(d SweepResult, opt Options) string {
	if opt.Redact {
		return Redact(d.Base)
	}
	return d.Base
}

func sweepKeys(rows []analyze.SweepRow) []string {
	var keys []string
	if len(rows) > 0 {
		for _, s := range rows[0].Settings {
			keys = append(keys, s.Key)
		}
	}
	return keys
}

func sweepValues(r analyze.SweepRow) []string {
	v := make([]string, len(r.Settings))
	for i, s := range r.Settings {
		v[i] = s.Value
	}
	return v
}

func sweepHTMLReport(w io.Writer, d SweepResult, opt Options) error {
	return sweepHTML(w, sweepBase(d, opt), d.Rows, d.Corpus, opt)
}

func sweepJSONReport(w io.Writer, d SweepResult, opt Options) error {
	return writeJSON(w, sweepJSON{sweepBase(d, opt), d.Corpus, d.Rows, preparedProblems(opt.Problems, opt), opt.Partial}, "  ")
}

func sweepCSV(w io.Writer, d SweepResult, opt Options) error {
	cw := csv.NewWriter(w)
	cw.Write(append(append(append([]string{}, sweepKeys(d.Rows)...), tuningColumns...), "pareto"))
	for _, r := range d.Rows {
		cw.Write(append(append(sweepValues(r), tuningCells(r.Summary, false)...), strconv.FormatBool(r.Pareto)))
	}
	cw.Flush()
	return cw.Error()
}

func sweepMarkdown(w io.Writer, d SweepResult, opt Options) error {
	keys := sweepKeys(d.Rows)
	var b strings.Builder
	fmt.Fprintf(&b, "## loopgate sweep over `%s`\n\n%s Rows marked ★ are on the savings/harm Pareto front; the base row is the rules as they are, unvaried.\n\n", mdText(sweepBase(d, opt)), corpusLine(d.Corpus))
	head := append(append([]string{""}, keys...), tuningHeader...)
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|---|" + strings.Repeat("---|", len(keys)) + strings.Repeat("---:|", len(tuningHeader)) + "\n")
	for _, r := range d.Rows {
		mark := ""
		if r.Pareto {
			mark = "★"
		}
		if r.Base {
			mark = strings.TrimSpace("base " + mark)
		}
		b.WriteString("| " + mark + " | " + strings.Join(sweepValues(r), " | ") + " | " + strings.Join(tuningCells(r.Summary, true), " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sweepTable(w io.Writer, d SweepResult, opt Options) error {
	keys := sweepKeys(d.Rows)
	t := &textWriter{opt: opt}
	t.heading("Sweep over " + sweepBase(d, opt))
	t.printf("%s\n%s\nbase = the rules as they are, unvaried.\n\n", wrapWords(corpusLine(d.Corpus), t.opt.width(), "    "),
		wrapWords("* = on the Pareto front: no other row saves more (context tokens) with as few harmful stops;", t.opt.width(), "    "))
	tab := t.newTable(tuningAlign(1 + len(keys)))
	tab.Header(append(append([]string{""}, keys...), tuningHeader...))
	for _, r := range d.Rows {
		mark := ""
		if r.Pareto {
			mark = paint(opt.Color, ansiBold, "*")
		}
		if r.Base {
			mark = "base" + mark
		}
		t.append(tab, stringsToAny(append(append([]string{mark}, sweepValues(r)...), tuningCells(r.Summary, true)...))...)
	}
	t.render(tab)
	return t.flushTo(w)
}

func corpusLine(s analyze.CorpusFacts) string {
	return fmt.Sprintf("Corpus: %d files, %d sessions, %d turns, %d calls, %d redundant, %d problems.",
		s.Files, s.Sessions, s.Turns, s.Calls, s.Redundant, s.Problems)
}

func tuningAlign(textColumns int) []tw.Align {
	align := make([]tw.Align, textColumns+len(tuningHeader))
	for i := range align {
		if i < textColumns {
			align[i] = tw.AlignLeft
		} else {
			align[i] = tw.AlignRight
		}
	}
	return align
}

func stringsToAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func (t *textWriter) flushTo(w io.Writer) error {
	if t.err != nil {
		return t.err
	}
	_, err := w.Write(t.buf.Bytes())
	return err
}
