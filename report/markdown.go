package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/analyze"
)

// markdownProblems caps the problems markdown lists: the step summary is
// limited to 1 MiB and a PR comment is read by people.
const markdownProblems = 50

// Markdown writes the report as GitHub-flavored markdown for a pull-request
// comment or $GITHUB_STEP_SUMMARY: a heading, a summary table, the sessions
// the guard intervened in, the top decisions by tokens saved, and the
// problems. It never contains ANSI colors.
func Markdown(w io.Writer, rep *analyze.Report, opt Options) error {
	rep, err := prepared(rep, opt)
	if err != nil {
		return err
	}
	sanitizeForText(rep)
	var b strings.Builder
	s := &rep.Summary

	b.WriteString("## loopgate replay\n\n")
	rules := "rules " + mdCode(rep.Rules.Name)
	if rep.Rules.Source != "" && rep.Rules.Source != rep.Rules.Name {
		rules += " (" + mdCode(rep.Rules.Source) + ")"
	}
	tok := orUnknown(rep.Tokens.Tokenizer)
	fmt.Fprintf(&b, "Replayed under %s; tokens are %s estimates", rules, mdCode(tok))
	var usage []string
	if n := rep.Tokens.SessionsCalibrated; n > 0 {
		usage = append(usage, fmt.Sprintf("%d of %d sessions with recorded usage counted with a ratio calibrated from it", n, rep.Tokens.SessionsWithUsage))
	}
	if n := rep.Tokens.SessionsUsageUnused; n > 0 {
		usage = append(usage, fmt.Sprintf("usage not used for %s: too little or implausible evidence, counted with %s", plural(n, "session"), mdCode(tok)))
	}
	if n := rep.Tokens.EstimatedTexts; n > 0 {
		usage = append(usage, fmt.Sprintf("%d text(s) over 4 MiB estimated from their first and last 512 KiB", n))
	}
	if len(usage) > 0 {
		b.WriteString(" (" + strings.Join(usage, "; ") + ")")
	}
	b.WriteString(".\n\n")

	b.WriteString("| Metric | Value |\n|---|---:|\n")
	for _, r := range [][2]string{
		{"Files", strconv.Itoa(s.Files)},
		{"Sessions", strconv.Itoa(s.Sessions)},
		{"Turns", strconv.Itoa(s.Turns)},
		{"Requests", strconv.Itoa(s.Requests)},
		{"Tool calls", strconv.Itoa(s.Calls)},
		{"Steered", strconv.Itoa(s.Steered)},
		{"Blocked", strconv.Itoa(s.Blocked)},
		{"Deduped", strconv.Itoa(s.Deduped)},
		{"Halted", strconv.Itoa(s.Halted)},
		{"Redundant", strconv.Itoa(s.Redundant)},
		{"Harmful", strconv.Itoa(s.Harmful)},
		{"Precision", percent(s.Precision)},
		{"Stopped actions", strconv.Itoa(s.StoppedActions)},
		{"Recall", percent(s.Recall)},
		{"Tokens saved", thousands(s.TokensSaved)},
		{"Context tokens saved", thousands(s.ContextTokensSaved)},
		{"Problems", strconv.Itoa(s.Problems)},
	} {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], r[1])
	}

	var hit []int
	for i := range rep.Sessions {
		if intervened(&rep.Sessions[i]) {
			hit = append(hit, i)
		}
	}
	fmt.Fprintf(&b, "\n### Sessions with interventions (%d of %d)\n\n", len(hit), len(rep.Sessions))
	if len(hit) == 0 {
		b.WriteString("The guard did not intervene in any session.\n")
	} else {
		b.WriteString("| File | Session | Agent | Turns | Calls | Steered | Blocked | Deduped | Harmful | Tokens saved | Timeline |\n")
		b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
		for _, i := range hit {
			ss := &rep.Sessions[i]
			tl := ss.Timeline
			if len(tl) > 60 {
				tl = "…" + tl[len(tl)-59:]
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %d | %d | %s | %s |\n",
				mdCode(cutLeft(ss.File, 40)), mdCode(cutRight(ss.ID, 24)), mdText(ss.Agent), ss.Turns,
				ss.Calls, ss.Steered, ss.Blocked, ss.Deduped, ss.Harmful, thousands(ss.TokensSaved), mdCode(tl))
		}
	}

	type ref struct {
		session int
		d       *analyze.Decision
	}
	var top []ref
	for _, i := range hit {
		for j := range rep.Sessions[i].Decisions {
			if d := &rep.Sessions[i].Decisions[j]; d.Action != analyze.Allow {
				top = append(top, ref{i, d})
			}
		}
	}
	if len(top) > 0 {
		// Most tokens saved first; ties keep the transcript order.
		sort.SliceStable(top, func(a, b int) bool { return top[a].d.TokensSaved > top[b].d.TokensSaved })
		limit := opt.MaxDecisions
		if limit <= 0 {
			limit = DefaultMarkdownDecisions
		}
		fmt.Fprintf(&b, "\n### Top decisions\n\n")
		b.WriteString("| File | Line | Turn | Call | Tool | Action | Detector | Args | Tokens saved |\n")
		b.WriteString("|---|---:|---:|---:|---|---|---|---|---:|\n")
		for _, r := range top[:min(limit, len(top))] {
			d := r.d
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %s | %s |\n",
				mdCode(cutLeft(rep.Sessions[r.session].File, 40)), lineText(d.Line), d.Turn, d.Call,
				mdCode(d.Tool), mdText(actionLabel(d)), mdText(d.Detector), mdCode(AbbreviateArgs(d.Args, 80)),
				thousands(d.TokensSaved))
		}
		if more := len(top) - limit; more > 0 {
			fmt.Fprintf(&b, "\n…and %s.\n", plural(more, "more decision"))
		}
	}

	if len(rep.Problems) > 0 {
		// The count is of every problem; a file with more than a report
		// lists has one entry standing for the rest, as the last of its own.
		total := max(s.Problems, len(rep.Problems))
		fmt.Fprintf(&b, "\n### Problems (%d)\n\n", total)
		for _, p := range rep.Problems[:min(markdownProblems, len(rep.Problems))] {
			where := p.File
			if p.Line > 0 {
				where += ":" + strconv.Itoa(p.Line)
			}
			fmt.Fprintf(&b, "- %s: %s\n", mdCode(where), mdText(AbbreviateArgs(p.Message, 300)))
		}
		if more := total - min(markdownProblems, len(rep.Problems)); more > 0 {
			fmt.Fprintf(&b, "- …and %d more problems\n", more)
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}

func lineText(line int) string {
	if line <= 0 {
		return "-"
	}
	return strconv.Itoa(line)
}

// mdEscaper makes text safe in a table cell: a pipe would end the cell, a
// line break the row, "<" could open HTML, and *, _, ` and [ would format.
var mdEscaper = strings.NewReplacer(
	"|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;",
	"*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, `\`, `\\`,
)

func mdText(s string) string {
	if s == "" {
		return "-"
	}
	return mdEscaper.Replace(Sanitize(AbbreviateArgs(s, 0)))
}

// mdCode shows s as a code span: only the pipe needs escaping there (GFM
// table cells split on it even inside code), and a backtick in s calls for a
// longer fence.
func mdCode(s string) string {
	if s == "" {
		return "-"
	}
	s = strings.NewReplacer("|", `\|`).Replace(Sanitize(AbbreviateArgs(s, 0)))
	if s == "" { // white space only
		return "-"
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || fence != "`" {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
