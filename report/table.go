package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/guard"
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
	if opt.By == "day" {
		t.byDay(byDay(rep.Sessions))
	}
	var left int
	rep.Sessions, left = topSessions(rep.Sessions, opt.Top)
	t.sessions(rep, left)
	t.tools(rep)
	t.decisions(rep)
	t.notes(rep)
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
	if t.opt.Width > 0 {
		title = wrapWords(title, t.opt.Width, "  ")
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
	}
	if len(rep.Rules.NotChecked) > 0 {
		rows = append(rows, [2]string{"not checked", strings.Join(rep.Rules.NotChecked, "; ")})
	}
	rows = append(rows, [][2]string{
		{"tokenizer", tok},
		{"corpus", strings.Join([]string{plural(s.Files, "file"), plural(s.Sessions, "session"),
			plural(s.Turns, "turn"), plural(s.Requests, "request"), plural(s.Calls, "call")}, ", ")},
		{"guard", fmt.Sprintf("%s steered, %s blocked, %s deduped, %s halted",
			count(s.Steered), count(s.Blocked), count(s.Deduped), count(s.Halted))},
		// Precision covers observations; the stopped actions stand
		// beside it, for the user to judge.
		{"truth", fmt.Sprintf("%s redundant (%s stopped), %s harmful; precision %s, recall %s; %s",
			count(s.Redundant), count(s.RedundantStopped), count(s.Harmful), percent(s.Precision), percent(s.Recall), plural(s.StoppedActions, "stopped action"))},
		{"tokens saved", fmt.Sprintf("%s direct, %s with context; steers cost %s",
			thousands(s.TokensSaved), thousands(s.ContextTokensSaved), thousands(s.SteerTokens))},
	}...)
	if s.Native > 0 {
		rows = append(rows, [2]string{"native", plural(s.Native, "call") + " already acted on by the agent's own guard"})
	}
	rows = append(rows, [2]string{"problems", count(s.Problems)})
	for _, r := range rows {
		t.printf("%-13s %s\n", r[0], wrapWords(r[1], t.opt.width()-14, strings.Repeat(" ", 14)))
	}
}

func (t *textWriter) sessions(rep *analyze.Report, left int) {
	if left > 0 {
		t.heading(fmt.Sprintf("Sessions (top %s of %s: most tokens saved, then stops; %s left out, --top 0 shows all)",
			count(len(rep.Sessions)), count(len(rep.Sessions)+left), count(left)))
	} else {
		t.heading(fmt.Sprintf("Sessions (%s)", count(len(rep.Sessions))))
	}
	if len(rep.Sessions) == 0 {
		t.printf("none\n")
		return
	}
	if !t.wideSessions(rep) {
		t.compactSessions(rep)
	}
	legend := "  . allowed  r redundant  s steered  B blocked  D deduped  H halted  ! harmful  n native  | turn"
	if len("Timelines")+len(legend) > t.opt.width() {
		legend = "  . allowed  r redundant  s steered  B blocked  D deduped\n           H halted  ! harmful  n native  | turn"
	}
	t.printf("\n%s\n", paint(t.opt.Color, ansiBold, "Timelines")+legend)
	numWidth := len(strconv.Itoa(len(rep.Sessions))) + 1
	for i := range rep.Sessions {
		prefix := fmt.Sprintf("%-*s  ", numWidth, "#"+strconv.Itoa(i+1))
		t.printf("%s%s\n", prefix, t.timeline(rep.Sessions[i].Timeline, t.opt.width()-len(prefix)-1))
		t.flushSome()
	}
}

// wideSessions writes the sessions table with a column for each count,
// if it fits the width with a file column of 16 or more; else it writes
// nothing and returns false.
func (t *textWriter) wideSessions(rep *analyze.Report) bool {
	header := []string{"#", "File", "Session", "Agent", "Started", "Turns", "Calls", "Steered", "Blocked", "Deduped", "Harmful", "Saved"}
	const fileCol = 1
	rows := make([][]string, len(rep.Sessions))
	for i := range rep.Sessions {
		s := &rep.Sessions[i]
		rows[i] = []string{strconv.Itoa(i + 1), "", cutMiddle(s.ID, 20), cutMiddle(s.Agent, 12), startedText(s.StartedAt),
			count(s.Turns), count(s.Calls), count(s.Steered),
			count(s.Blocked), count(s.Deduped), count(s.Harmful), thousands(s.TokensSaved)}
	}
	// File paths keep their end (the file name) in what the width leaves.
	fileWidth := min(t.opt.width()-otherColumnsWidth(header, rows, fileCol), 48)
	if fileWidth < 16 {
		return false
	}
	tab := t.newTable([]tw.Align{tw.AlignRight, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft,
		tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight})
	tab.Header(header)
	for i, row := range rows {
		row[fileCol] = cutLeft(rep.Sessions[i].File, fileWidth)
		t.append(tab, row)
	}
	t.render(tab)
	return true
}

// compactSessions is the sessions table for narrow terminals (80 columns): the file's name
// and the session id share one column, cut in the middle, and the stops
// are one column (blocked, deduped and halted).
func (t *textWriter) compactSessions(rep *analyze.Report) {
	header := []string{"#", "Session", "Started", "Calls", "Steer", "Stop", "Harm", "Saved"}
	const nameCol = 1
	rows := make([][]string, len(rep.Sessions))
	for i := range rep.Sessions {
		s := &rep.Sessions[i]
		rows[i] = []string{strconv.Itoa(i + 1), "", shortStartedText(s.StartedAt), count(s.Calls), count(s.Steered),
			count(stops(s)), count(s.Harmful), thousands(s.TokensSaved)}
	}
	nameWidth := max(t.opt.width()-otherColumnsWidth(header, rows, nameCol)-1, 12)
	tab := t.newTable([]tw.Align{tw.AlignRight, tw.AlignLeft, tw.AlignLeft,
		tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight})
	tab.Header(header)
	for i, row := range rows {
		s := &rep.Sessions[i]
		row[nameCol] = sessionCell(s, nameWidth)
		t.append(tab, row)
	}
	t.render(tab)
}

// sessionCell is a session's file name and selector in one cell of width
// runes ("file.jsonl id", "file.jsonl id/agent"). When the id is the
// file's name, the file name alone stands for the main scope and the
// selector alone for a subagent ("id/agent"). The file name is cut first
// (in the middle, keeping its ending), and the selector only when it takes
// more than half the cell.
func sessionCell(s *analyze.SessionResult, width int) string {
	base := filepath.Base(s.File)
	sel := selectorOf(s)
	switch {
	case s.ID == "" || sel == s.ID && strings.HasPrefix(base, s.ID):
		return cutMiddle(base, width)
	case strings.HasPrefix(base, s.ID):
		return cutSelector(s, width)
	}
	if utf8.RuneCountInString(base)+1+utf8.RuneCountInString(sel) <= width {
		return base + " " + sel
	}
	sel = cutSelector(s, max(width/2, width-1-utf8.RuneCountInString(base)))
	return cutMiddle(base, width-1-utf8.RuneCountInString(sel)) + " " + sel
}

// selectorOf is the session's selector (a report read back from an older
// partial may lack it: its id then).
func selectorOf(s *analyze.SessionResult) string {
	if s.Selector == "" {
		return s.ID
	}
	return s.Selector
}

// cutSelector is the selector within width runes: a subagent's scope
// keeps up to half of them, since it is what tells a file's sessions
// apart, and the id takes the rest, both cut in the middle.
func cutSelector(s *analyze.SessionResult, width int) string {
	sel := selectorOf(s)
	scope, ok := strings.CutPrefix(sel, s.ID+"/")
	if !ok || utf8.RuneCountInString(sel) <= width {
		return cutMiddle(sel, width)
	}
	scope = cutMiddle(scope, max(width/2, width-1-utf8.RuneCountInString(s.ID)))
	return cutMiddle(s.ID, width-1-utf8.RuneCountInString(scope)) + "/" + scope
}

// startedText shows a session's start to the minute, "-" when unknown.
func startedText(rfc string) string {
	if len(rfc) < 16 {
		return "-"
	}
	return rfc[:10] + " " + rfc[11:16]
}

// shortActionLabel is actionLabel for narrow tables: the truth's notes as
// the timeline's marks ("block (!,r)": harmful, redundant; a a stopped
// action, n native).
func shortActionLabel(d *analyze.Decision) string {
	var notes []string
	if d.Harmful {
		notes = append(notes, "!")
	}
	if d.Redundant {
		notes = append(notes, "r")
	}
	if d.StoppedAction {
		notes = append(notes, "a")
	}
	if d.Native != "" {
		notes = append(notes, "n")
	}
	if len(notes) == 0 {
		return d.Action.String()
	}
	return d.Action.String() + " (" + strings.Join(notes, ",") + ")"
}

// wrapWords breaks s at spaces into lines of at most width runes (a word
// longer than that stands alone), the lines after the first indented.
func wrapWords(s string, width int, indent string) string {
	return wrapLines(s, width, width, indent)
}

// wrapLines breaks s at spaces into a first line of at most first columns
// and more lines of indent and at most rest columns (a word longer than
// that stands alone). Spaces inside a line are kept as they were; color
// escapes take no columns.
func wrapLines(s string, first, rest int, indent string) string {
	if min(first, rest) < 20 || cellWidth(s) <= first {
		return s
	}
	var b strings.Builder
	line, width := 0, first
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		gap := j - i
		k := strings.IndexByte(s[j:], ' ')
		if k < 0 {
			k = len(s) - j
		}
		word := s[j : j+k]
		i = j + k
		if word == "" {
			break
		}
		n := cellWidth(word)
		switch {
		case b.Len() == 0:
		case line+gap+n > width:
			b.WriteString("\n" + indent)
			line, width = 0, rest
		default:
			b.WriteString(s[j-gap : j])
			line += gap
		}
		b.WriteString(word)
		line += n
	}
	return b.String()
}

// CutLeft is s within max runes, its start cut (a path keeps its name).
func CutLeft(s string, max int) string { return cutLeft(s, max) }

// Wrap is wrapLines for the commands' own texts (help, formats, where,
// problems on standard error): s broken at spaces into a first line of at
// most first columns and more lines of indent and at most rest columns.
func Wrap(s string, first, rest int, indent string) string { return wrapLines(s, first, rest, indent) }

// shortStartedText is startedText without the year ("11-02 07:15"), for
// the compact layout.
func shortStartedText(rfc string) string {
	if len(rfc) < 16 {
		return "-"
	}
	return rfc[5:10] + " " + rfc[11:16]
}

// count writes a count with thousands separators.
func count(n int) string { return thousands(int64(n)) }

// byDay writes the --by day view.
func (t *textWriter) byDay(rows []DayRow) {
	t.heading("By day (UTC, by the day a session started)")
	tab := t.newTable([]tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight})
	tab.Header("Day", "Sessions", "Calls", "Steered", "Stops", "Harmful", "Saved")
	for _, r := range rows {
		t.append(tab, r.Day, count(r.Sessions), count(r.Calls), count(r.Steered), count(r.Stops), count(r.Harmful), thousands(r.TokensSaved))
	}
	t.render(tab)
}

// notes lists the readers' notes of the sessions shown (items a format
// holds that were not replayed, such as Codex web_search_call items).
func (t *textWriter) notes(rep *analyze.Report) {
	t.sessionNotes(len(rep.Sessions), func(i int) []string { return rep.Sessions[i].Notes })
}

// sessionNotes lists the notes of n sessions, each after its number,
// under a heading of their own (none without notes).
func (t *textWriter) sessionNotes(n int, notes func(i int) []string) {
	first := true
	for i := range n {
		for _, note := range notes(i) {
			if first {
				t.heading("Notes")
				first = false
			}
			t.printf("%s\n", Sanitize(AbbreviateArgs(fmt.Sprintf("#%d %s", i+1, note), max(t.opt.width(), 40))))
		}
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
	return count(n) + " " + noun + "s"
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
	t.heading(fmt.Sprintf("Tools (%s)", count(len(rep.Tools))))
	if len(rep.Tools) == 0 {
		t.printf("none\n")
		return
	}
	tab := t.newTable([]tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight,
		tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight})
	toolWidth, classWidth := 28, 12
	if t.opt.width() < compactWidth {
		tab.Header("Tool", "Class", "Calls", "Redund", "Steer", "Block", "Dedup", "Harm", "Saved")
		toolWidth, classWidth = 18, 8
	} else {
		tab.Header("Tool", "Class", "Calls", "Redundant", "Steered", "Blocked", "Deduped", "Harmful", "Tokens saved")
	}
	for _, ts := range rep.Tools {
		t.append(tab, cutMiddle(ts.Tool, toolWidth), cutMiddle(ts.Class, classWidth), count(ts.Calls), count(ts.Redundant), count(ts.Steered),
			count(ts.Blocked), count(ts.Deduped), count(ts.Harmful), thousands(ts.TokensSaved))
	}
	t.render(tab)
}

func (t *textWriter) decisions(rep *analyze.Report) {
	// Short headers leave the width to the arguments.
	header := []string{"Turn", "Call", "Line", "Tool", "Action", "Detector", "N", "Args", "Saved"}
	const argsCol = 7
	toolWidth, detectorWidth, minArgs := 20, 20, 20
	label := actionLabel
	compact := t.opt.width() < compactWidth
	if compact {
		toolWidth, detectorWidth, minArgs = 12, 8, 8
		label = shortActionLabel
	}
	for i := range rep.Sessions {
		s := &rep.Sessions[i]
		if len(s.Decisions) == 0 {
			continue
		}
		t.decisionsHeading(i+1, s)
		shown := s.Decisions
		if t.opt.MaxDecisions > 0 && len(shown) > t.opt.MaxDecisions {
			shown = shown[:t.opt.MaxDecisions]
		}
		rows := make([][]string, len(shown))
		fill := func(toolWidth, detectorWidth int, label func(*analyze.Decision) string) {
			for j := range shown {
				d := &shown[j]
				rows[j] = []string{strconv.Itoa(d.Turn), strconv.Itoa(d.Call), lineText(d.Line),
					cutMiddle(d.Tool, toolWidth), label(d), cutMiddle(orDash(d.Detector), detectorWidth), countText(d.Count), "",
					thousands(d.TokensSaved)}
			}
		}
		fill(toolWidth, detectorWidth, label)
		if !compact && t.opt.width()-otherColumnsWidth(header, rows, argsCol) < minArgs {
			// Long labels leave the arguments too little: the compact
			// columns, as on a narrow terminal.
			fill(12, 8, shortActionLabel)
		}
		// Args get what the other columns leave of the width.
		argsWidth := max(t.opt.width()-otherColumnsWidth(header, rows, argsCol), minArgs)
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
			case d.Action.Stops() || d.Action == guard.Halt:
				row[4] = paint(t.opt.Color, ansiRed, row[4])
			case d.Action == guard.Steer:
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

// decisionsHeading names a session's decisions: its number, selector and
// count on the heading line, which keeps them whole within the width, and
// its file on a line of its own, cut from the left (keeping its name).
func (t *textWriter) decisionsHeading(n int, s *analyze.SessionResult) {
	head, tail := fmt.Sprintf("Decisions #%d ", n), fmt.Sprintf(" (%s)", count(len(s.Decisions)))
	room := t.opt.width() - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	t.heading(head + cutSelector(s, max(room, 12)) + tail)
	t.printf("%s\n", cutLeft(s.File, t.opt.width()))
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
	t.heading(fmt.Sprintf("Problems (%s)", count(max(total, len(ps)))))
	for _, p := range ps {
		// A problem line starts with a file name: it must not start a
		// workflow command.
		if t.opt.Width > 0 { // the file gives way from the left: its name and line stay
			p.File = cutLeft(p.File, max(t.opt.Width-12-len(strconv.Itoa(p.Line)), 16))
		}
		line := Sanitize(AbbreviateArgs(problemLine(p), 0))
		if t.opt.Width > 0 {
			line = wrapLines(line, t.opt.Width, t.opt.Width-4, "    ")
		}
		for l := range strings.SplitSeq(line, "\n") {
			t.printf("%s\n", GuardLine(l))
		}
	}
}

// columnGap is the number of spaces between table columns.
const columnGap = 2

// textTable is the house style: no outer border, a dashed line under the
// header, headers as typed, one line per row (cells are abbreviated before,
// never wrapped), numbers right-aligned. It is rendered in one pass over its
// rows after one pass for the widths: time and memory follow the rows (a
// tablewriter table per session grew faster than the rows).
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
	if total := columnGap*(cols-1) + sumInts(widths); t.opt.Width > 0 && total > t.opt.Width && tab.header != nil {
		t.renderRecords(tab)
		return
	}
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

// renderRecords writes a table too wide for the terminal as one record per
// row: the first cell, then "Header value" for each other cell that has a
// value, wrapped to the width under an indent (a cell is never cut).
func (t *textWriter) renderRecords(tab *textTable) {
	const indent = "    "
	w := t.lines()
	var units []string
	for _, r := range tab.rows {
		units = units[:0]
		mark := "" // a cell under no header (sweep's Pareto mark) leads the next unit
		for c, cell := range r {
			unit := cell
			if c < len(tab.header) && tab.header[c] != "" {
				unit = tab.header[c] + " " + cell
			}
			switch {
			case cell == "":
			case c < len(tab.header) && (tab.header[c] == "" || c == 0 && tab.header[c] == "#"):
				if tab.header[c] == "#" {
					cell = "#" + cell
				}
				mark += cell + " "
			default:
				units = append(units, mark+unit)
				mark = ""
			}
		}
		io.WriteString(w, wrapUnits(units, "; ", t.opt.Width, indent)+"\n")
	}
	tab.rows = nil
	w.flush()
	t.flushSome()
}

// wrapUnits joins units with sep into lines of at most width columns, the
// lines after the first indented; a unit is not broken (one wider than a
// line stands alone on its line).
func wrapUnits(units []string, sep string, width int, indent string) string {
	var b strings.Builder
	line := 0
	for i, u := range units {
		n := cellWidth(u)
		switch {
		case i == 0:
		case line+len(sep)+n+len(strings.TrimRight(sep, " ")) > width: // room for the sep that ends a line
			b.WriteString(strings.TrimRight(sep, " ") + "\n" + indent)
			line = len(indent)
		default:
			b.WriteString(sep)
			line += len(sep)
		}
		b.WriteString(u)
		line += n
	}
	return b.String()
}

func sumInts(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
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
