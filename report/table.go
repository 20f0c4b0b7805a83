package report

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loopgate/loopgate/analyze"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/tw"
)

// Table writes the report for a terminal: a summary block, the sessions
// with one timeline line each, the tools, the decisions of each session and
// the problems.
func Table(w io.Writer, rep *analyze.Report, opt Options) error {
	rep, err := prepared(rep, opt)
	if err != nil {
		return err
	}
	sanitizeForText(rep)
	t := &textWriter{opt: opt, out: w}
	t.summary(rep)
	t.sessions(rep)
	t.tools(rep)
	t.decisions(rep)
	t.problems(rep.Problems, rep.Summary.Problems)
	if t.err != nil {
		return t.err
	}
	_, err = w.Write(t.buf.Bytes())
	return err
}

// textWriter accumulates the table report; the first error sticks. With
// out set, each table's text goes out once buf holds textFlushSize, so
// that the buffer does not grow with the report.
type textWriter struct {
	buf     bytes.Buffer
	opt     Options
	err     error
	tabs    *tableLines
	out     io.Writer
	flushed bool // some text went out already
}

// textFlushSize is how much text waits in a textWriter with out set.
const textFlushSize = 64 << 10

// flushSome writes buf to out once it holds textFlushSize.
func (t *textWriter) flushSome() {
	if t.out == nil || t.buf.Len() < textFlushSize || t.err != nil {
		return
	}
	if _, err := t.out.Write(t.buf.Bytes()); err != nil {
		t.err = err
	}
	t.buf.Reset()
	t.flushed = true
}

// lines is where tables write: into buf, trailing blanks removed.
func (t *textWriter) lines() *tableLines {
	if t.tabs == nil {
		t.tabs = &tableLines{w: &t.buf}
	}
	return t.tabs
}

func (t *textWriter) printf(format string, a ...any) { fmt.Fprintf(&t.buf, format, a...) }

func (t *textWriter) heading(title string) {
	if t.buf.Len() > 0 || t.flushed {
		t.buf.WriteByte('\n')
	}
	t.buf.WriteString(paint(t.opt.Color, ansiBold, title))
	t.buf.WriteByte('\n')
}

func (t *textWriter) summary(rep *analyze.Report) {
	s := &rep.Summary
	t.heading("Summary")
	rules := rep.Rules.Name
	if rep.Rules.Source != "" && rep.Rules.Source != rules {
		rules += " (" + rep.Rules.Source + ")"
	}
	tok := orUnknown(rep.Tokens.Tokenizer) + " estimates"
	if n := rep.Tokens.EstimatedTexts; n > 0 {
		tok += fmt.Sprintf(" (%d text(s) over 4 MiB estimated from their ends)", n)
	}
	if rep.Tokens.SessionsWithUsage > 0 {
		tok += fmt.Sprintf("; usage recorded in %s: %s in, %s out", plural(rep.Tokens.SessionsWithUsage, "session"),
			thousands(rep.Tokens.RecordedInput), thousands(rep.Tokens.RecordedOutput))
		if n := rep.Tokens.SessionsCalibrated; n > 0 {
			tok += fmt.Sprintf("; %s counted with a bytes-per-token ratio calibrated from it", plural(n, "session"))
		}
		if n := rep.Tokens.SessionsUsageUnused; n > 0 {
			tok += fmt.Sprintf("; usage of %s not used (too little or implausible evidence; --format json says why)", plural(n, "session"))
		}
	}
	rows := [][2]string{
		{"rules", rules},
		{"tokenizer", tok},
		{"corpus", strings.Join([]string{plural(s.Files, "file"), plural(s.Sessions, "session"),
			plural(s.Turns, "turn"), plural(s.Requests, "request"), plural(s.Calls, "call")}, ", ")},
		{"guard", fmt.Sprintf("%d steered, %d blocked, %d deduped, %d halted",
			s.Steered, s.Blocked, s.Deduped, s.Halted)},
		// Precision covers observations; the stopped actions stand
		// beside it, for the user to judge.
		{"truth", fmt.Sprintf("%d redundant (%d stopped), %d harmful; precision %s, recall %s; %s",
			s.Redundant, s.RedundantStopped, s.Harmful, percent(s.Precision), percent(s.Recall), plural(s.StoppedActions, "stopped action"))},
		{"tokens saved", fmt.Sprintf("%s direct, %s with context; steers cost %s",
			thousands(s.TokensSaved), thousands(s.ContextTokensSaved), thousands(s.SteerTokens))},
	}
	if s.Native > 0 {
		rows = append(rows, [2]string{"native", plural(s.Native, "call") + " already acted on by the agent's own guard"})
	}
	rows = append(rows, [2]string{"problems", strconv.Itoa(s.Problems)})
	for _, r := range rows {
		t.printf("%-13s %s\n", r[0], r[1])
	}
}

func (t *textWriter) sessions(rep *analyze.Report) {
	t.heading(fmt.Sprintf("Sessions (%d)", len(rep.Sessions)))
	if len(rep.Sessions) == 0 {
		t.printf("none\n")
		return
	}
	header := []string{"#", "File", "Session", "Agent", "Turns", "Calls", "Steered", "Blocked", "Deduped", "Harmful", "Saved"}
	const fileCol = 1
	rows := make([][]string, len(rep.Sessions))
	for i := range rep.Sessions {
		s := &rep.Sessions[i]
		rows[i] = []string{strconv.Itoa(i + 1), "", cutRight(s.ID, 20), cutRight(s.Agent, 12),
			strconv.Itoa(s.Turns), strconv.Itoa(s.Calls), strconv.Itoa(s.Steered),
			strconv.Itoa(s.Blocked), strconv.Itoa(s.Deduped), strconv.Itoa(s.Harmful), thousands(s.TokensSaved)}
	}
	// File paths keep their end (the file name) in what the width leaves.
	fileWidth := min(max(t.opt.width()-otherColumnsWidth(header, rows, fileCol), 16), 48)
	tab := t.newTable([]tw.Align{tw.AlignRight, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft,
		tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight})
	tab.Header(header)
	for i, row := range rows {
		row[fileCol] = cutLeft(rep.Sessions[i].File, fileWidth)
		t.append(tab, row)
	}
	t.render(tab)

	t.printf("\n%s\n", paint(t.opt.Color, ansiBold, "Timelines")+
		"  . allowed  r redundant  s steered  B blocked  D deduped  H halted  ! harmful  n native  | turn")
	numWidth := len(strconv.Itoa(len(rep.Sessions))) + 1
	for i := range rep.Sessions {
		prefix := fmt.Sprintf("%-*s  ", numWidth, "#"+strconv.Itoa(i+1))
		t.printf("%s%s\n", prefix, t.timeline(rep.Sessions[i].Timeline, t.opt.width()-len(prefix)-1))
		t.flushSome()
	}
}

// timeline fits a session's timeline into width columns. A long one keeps
// its end (where loops usually are) and says how many marks were cut.
func (t *textWriter) timeline(tl string, width int) string {
	if tl == "" {
		return "(no calls)"
	}
	width = max(width, 20)
	if len(tl) > width {
		// Marks are ASCII, so bytes are columns. The note's width depends
		// on the number it holds; one pass with a generous estimate is
		// enough.
		keep := max(width-utf8.RuneCountInString(fmt.Sprintf("[%d marks cut]…", len(tl))), 8)
		cut := tl[:len(tl)-keep]
		marks := len(cut) - strings.Count(cut, string(rune(analyze.TurnSeparator)))
		return paint(t.opt.Color, ansiDim, fmt.Sprintf("[%d marks cut]…", marks)) + t.colorMarks(tl[len(tl)-keep:])
	}
	return t.colorMarks(tl)
}

// plural words a count: "1 session", "2 sessions", "3 more decisions" (the
// last word takes the s).
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func (t *textWriter) colorMarks(tl string) string {
	if !t.opt.Color {
		return tl
	}
	var b strings.Builder
	for i := 0; i < len(tl); i++ {
		b.WriteString(paint(true, markStyle(tl[i]), tl[i:i+1]))
	}
	return b.String()
}

func (t *textWriter) tools(rep *analyze.Report) {
	t.heading(fmt.Sprintf("Tools (%d)", len(rep.Tools)))
	if len(rep.Tools) == 0 {
		t.printf("none\n")
		return
	}
	tab := t.newTable([]tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight,
		tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight})
	tab.Header("Tool", "Class", "Calls", "Redundant", "Steered", "Blocked", "Deduped", "Harmful", "Tokens saved")
	for _, ts := range rep.Tools {
		t.append(tab, cutRight(ts.Tool, 28), ts.Class, ts.Calls, ts.Redundant, ts.Steered,
			ts.Blocked, ts.Deduped, ts.Harmful, thousands(ts.TokensSaved))
	}
	t.render(tab)
}

func (t *textWriter) decisions(rep *analyze.Report) {
	// Short headers leave the width to the arguments.
	header := []string{"Turn", "Call", "Line", "Tool", "Action", "Detector", "N", "Args", "Saved"}
	const argsCol = 7
	for i := range rep.Sessions {
		s := &rep.Sessions[i]
		if len(s.Decisions) == 0 {
			continue
		}
		t.heading(fmt.Sprintf("Decisions #%d %s %s (%d)", i+1, s.File, s.ID, len(s.Decisions)))
		shown := s.Decisions
		if t.opt.MaxDecisions > 0 && len(shown) > t.opt.MaxDecisions {
			shown = shown[:t.opt.MaxDecisions]
		}
		rows := make([][]string, len(shown))
		for j := range shown {
			d := &shown[j]
			rows[j] = []string{strconv.Itoa(d.Turn), strconv.Itoa(d.Call), lineText(d.Line),
				cutRight(d.Tool, 20), actionLabel(d), orDash(d.Detector), countText(d.Count), "",
				thousands(d.TokensSaved)}
		}
		// Args get what the other columns leave of the width.
		argsWidth := max(t.opt.width()-otherColumnsWidth(header, rows, argsCol), 20)
		tab := t.newTable([]tw.Align{tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft,
			tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignLeft, tw.AlignRight})
		tab.Header(header)
		for j := range shown {
			d := &shown[j]
			row := rows[j]
			row[argsCol] = AbbreviateArgs(d.Args, argsWidth)
			switch {
			case d.Harmful:
				row[4] = paint(t.opt.Color, ansiMagenta, row[4])
			case d.Action.Stops() || d.Action == analyze.Halt:
				row[4] = paint(t.opt.Color, ansiRed, row[4])
			case d.Action == analyze.Steer:
				row[4] = paint(t.opt.Color, ansiYellow, row[4])
			}
			t.append(tab, row)
		}
		t.render(tab)
		if more := len(s.Decisions) - len(shown); more > 0 {
			t.printf("…and %s\n", plural(more, "more decision"))
		}
	}
}

// otherColumnsWidth is the width of a one-line table without column skip:
// the widest cell of each other column plus the separators.
func otherColumnsWidth(header []string, rows [][]string, skip int) int {
	total := columnGap * (len(header) - 1)
	for c := range header {
		if c == skip {
			continue
		}
		w := utf8.RuneCountInString(header[c])
		for _, r := range rows {
			w = max(w, utf8.RuneCountInString(r[c]))
		}
		total += w
	}
	return total
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func countText(n int) string {
	if n <= 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// problems lists ps under a heading that counts total: more than ps when a
// file had more problems than a report lists (its last entry says so).
func (t *textWriter) problems(ps []analyze.Problem, total int) {
	if len(ps) == 0 {
		return
	}
	t.heading(fmt.Sprintf("Problems (%d)", max(total, len(ps))))
	for _, p := range ps {
		// A problem line starts with a file name: it must not start a
		// workflow command.
		t.printf("%s\n", SafeLine(AbbreviateArgs(problemLine(p), 0)))
	}
}

// columnGap is the number of spaces between table columns.
const columnGap = 2

// textTable is the house style: no outer border, a dashed line under the
// header, headers as typed, one line per row (cells are abbreviated before,
// never wrapped), numbers right-aligned. It is rendered in one pass over its
// rows after one pass for the widths: time and memory follow the rows (a
// tablewriter table per session made 100k sessions take 66 s, issue 29).
type textTable struct {
	align  []tw.Align
	header []string
	rows   [][]string
}

func (t *textWriter) newTable(align []tw.Align) *textTable {
	return &textTable{align: align}
}

// Header sets the header cells: strings, or one []string.
func (tab *textTable) Header(cells ...any) { tab.header = cellStrings(cells) }

// cellStrings flattens cells given as values or as one []string.
func cellStrings(cells []any) []string {
	if len(cells) == 1 {
		if row, ok := cells[0].([]string); ok {
			return append([]string(nil), row...)
		}
	}
	out := make([]string, len(cells))
	for i, c := range cells {
		switch v := c.(type) {
		case string:
			out[i] = v
		case int:
			out[i] = strconv.Itoa(v)
		default:
			out[i] = fmt.Sprint(v)
		}
	}
	return out
}

func (t *textWriter) append(tab *textTable, cells ...any) {
	tab.rows = append(tab.rows, cellStrings(cells))
}

// render writes the table and forgets its rows.
func (t *textWriter) render(tab *textTable) {
	cols := len(tab.header)
	for _, r := range tab.rows {
		cols = max(cols, len(r))
	}
	widths := make([]int, cols)
	measure := func(r []string) {
		for c, cell := range r {
			widths[c] = max(widths[c], cellWidth(cell))
		}
	}
	measure(tab.header)
	for _, r := range tab.rows {
		measure(r)
	}
	w := t.lines()
	line := make([]byte, 0, 256)
	writeRow := func(r []string, header bool) {
		line = line[:0]
		for c := range cols {
			if c > 0 {
				line = append(line, "  "...)
			}
			cell := ""
			if c < len(r) {
				cell = r[c]
			}
			pad := widths[c] - cellWidth(cell)
			right := !header && c < len(tab.align) && tab.align[c] == tw.AlignRight
			if right {
				line = appendSpaces(line, pad)
			}
			line = append(line, cell...)
			if !right {
				line = appendSpaces(line, pad)
			}
		}
		line = append(line, '\n')
		w.Write(line)
	}
	if tab.header != nil {
		writeRow(tab.header, true)
		dashes := make([]string, cols)
		for c := range dashes {
			dashes[c] = strings.Repeat("-", widths[c])
		}
		writeRow(dashes, true)
	}
	for _, r := range tab.rows {
		writeRow(r, false)
	}
	tab.rows = nil
	w.flush()
	t.flushSome()
}

// cellWidth is the width of a cell on a terminal: color escapes take none,
// wide characters two.
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] < 0x20 {
			return twwidth.WidthNoCache(s)
		}
	}
	return len(s)
}

func appendSpaces(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

// tableLines removes the trailing blanks a table pads its lines with, so
// that the output (and its golden files) carry no invisible spaces, and
// keeps a line whose first cell is untrusted text (a tool name) from
// starting a workflow command (GuardLine).
type tableLines struct {
	w       *bytes.Buffer
	pending []byte
}

func (l *tableLines) Write(p []byte) (int, error) {
	l.pending = append(l.pending, p...)
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			break
		}
		l.w.WriteString(GuardLine(string(bytes.TrimRight(l.pending[:i], " "))))
		l.w.WriteByte('\n')
		l.pending = l.pending[i+1:]
	}
	return len(p), nil
}

// flush ends a last line that came without its line break.
func (l *tableLines) flush() {
	if len(l.pending) > 0 {
		l.w.WriteString(GuardLine(string(bytes.TrimRight(l.pending, " "))))
		l.w.WriteByte('\n')
		l.pending = nil
	}
}
