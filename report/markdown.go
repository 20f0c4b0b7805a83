package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/guard"
)

// markdownProblems caps the problems markdown lists: the step summary is
// limited to 1 MiB and a PR comment is read by people.
const markdownProblems = 50

// MarkdownLimit is the most characters a markdown report holds: GitHub's
// limit for a pull-request comment (65,536).
const MarkdownLimit = 65536

// Markdown writes the report as GitHub-flavored markdown for a pull-request
// comment or $GITHUB_STEP_SUMMARY: a heading, a summary table, the sessions
// the guard intervened in (the top opt.Top by tokens saved, then stops),
// the top decisions by tokens saved, and the problems. It never contains
// ANSI colors, and never more than MarkdownLimit bytes (so characters): a
// report that would be longer lists fewer rows, halving them until it
// fits, and says so.
func Markdown(w io.Writer, rep *analyze.Report, opt Options) error {
	rep, err := prepared(rep, opt)
	if err != nil {
		return err
	}
	sanitizeForText(rep)
	var days []DayRow
	if opt.By == "day" {
		days = byDay(rep.Sessions)
	}
	var hit []analyze.SessionResult
	for i := range rep.Sessions {
		if intervened(&rep.Sessions[i]) {
			hit = append(hit, rep.Sessions[i])
		}
	}
	hitCount := len(hit)
	hit, _ = topSessions(hit, opt.Top)
	limit := opt.MaxDecisions
	if limit <= 0 {
		limit = DefaultMarkdownDecisions
	}
	m := mdLimits{sessions: len(hit), decisions: limit, problems: markdownProblems, days: len(days)}
	for {
		text := markdownText(rep, days, hit, hitCount, m)
		if len(text) <= MarkdownLimit {
			_, err = io.WriteString(w, text)
			return err
		}
		if m == (mdLimits{cut: true}) {
			// Only the heading and the summary are left, and they are
			// still too long (a rules name of megabytes): cut the text.
			text = keepRunes(text, MarkdownLimit/4) + "\n\n" + mdCutNote + "\n"
			_, err = io.WriteString(w, text)
			return err
		}
		m = mdLimits{sessions: m.sessions / 2, decisions: m.decisions / 2, problems: m.problems / 2, days: m.days / 2, cut: true}
	}
}

// mdLimits are how many rows of each list markdownText writes; cut says
// they were lowered to fit MarkdownLimit.
type mdLimits struct {
	sessions, decisions, problems, days int
	cut                                 bool
}

const mdCutNote = "_This report was cut to fit a GitHub comment (65,536 characters); `--format json` has every row._"

func markdownText(rep *analyze.Report, days []DayRow, hit []analyze.SessionResult, hitCount int, m mdLimits) string {
	var b strings.Builder
	s := &rep.Summary

	b.WriteString("## loopgate replay\n\n")
	rules := "rules " + mdCode(cutMiddle(rep.Rules.Name, 80))
	if rep.Rules.Source != "" && rep.Rules.Source != rep.Rules.Name {
		rules += " (" + mdCode(cutMiddle(rep.Rules.Source, 120)) + ")"
	}
	tok := orUnknown(rep.Tokens.Tokenizer)
	fmt.Fprintf(&b, "Replayed under %s; tokens are %s estimates", rules, mdCode(cutMiddle(tok, 40)))
	var usage []string
	if n := rep.Tokens.SessionsCalibrated; n > 0 {
		usage = append(usage, fmt.Sprintf("%s of %s sessions with recorded usage counted with a ratio calibrated from it", count(n), count(rep.Tokens.SessionsWithUsage)))
	}
	if n := rep.Tokens.SessionsUsageUnused; n > 0 {
		usage = append(usage, fmt.Sprintf("usage not used for %s: too little or implausible evidence, counted with %s", plural(n, "session"), mdCode(cutMiddle(tok, 40))))
	}
	if n := rep.Tokens.EstimatedTexts; n > 0 {
		usage = append(usage, fmt.Sprintf("%d text(s) over 4 MiB estimated from their first and last 512 KiB", n))
	}
	if len(usage) > 0 {
		b.WriteString(" (" + strings.Join(usage, "; ") + ")")
	}
	b.WriteString(".\n\n")
	if len(rep.Rules.NotChecked) > 0 {
		b.WriteString("Not checked in any session (the rules' design needs what replay cannot see): " + mdText(strings.Join(rep.Rules.NotChecked, "; ")) + ".\n\n")
	}
	if m.cut {
		b.WriteString(mdCutNote + "\n\n")
	}

	b.WriteString("| Metric | Value |\n|---|---:|\n")
	for _, r := range [][2]string{
		{"Files", count(s.Files)},
		{"Sessions", count(s.Sessions)},
		{"Turns", count(s.Turns)},
		{"Requests", count(s.Requests)},
		{"Tool calls", count(s.Calls)},
		{"Steered", count(s.Steered)},
		{"Blocked", count(s.Blocked)},
		{"Deduped", count(s.Deduped)},
		{"Halted", count(s.Halted)},
		{"Redundant", count(s.Redundant)},
		{"Harmful", count(s.Harmful)},
		{"Precision", percent(s.Precision)},
		{"Stopped actions", count(s.StoppedActions)},
		{"Recall", percent(s.Recall)},
		{"Tokens saved", thousands(s.TokensSaved)},
		{"Context tokens saved", thousands(s.ContextTokensSaved)},
		{"Problems", count(s.Problems)},
	} {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], r[1])
	}

	if len(days) > 0 {
		b.WriteString("\n### By day (UTC, by the day a session started)\n\n")
		b.WriteString("| Day | Sessions | Calls | Steered | Stops | Harmful | Tokens saved |\n|---|---:|---:|---:|---:|---:|---:|\n")
		shown := days[len(days)-min(m.days, len(days)):] // the latest days
		for _, r := range shown {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.Day, count(r.Sessions), count(r.Calls), count(r.Steered), count(r.Stops), count(r.Harmful), thousands(r.TokensSaved))
		}
		if more := len(days) - len(shown); more > 0 {
			fmt.Fprintf(&b, "\n…and %s before.\n", plural(more, "day"))
		}
	}

	hit = hit[:min(m.sessions, len(hit))]
	fmt.Fprintf(&b, "\n### Sessions with interventions (%s of %s)\n\n", count(hitCount), count(len(rep.Sessions)))
	if hitCount == 0 {
		b.WriteString("The guard did not intervene in any session.\n")
	} else {
		if len(hit) > 0 {
			b.WriteString("| File | Session | Agent | Started | Turns | Calls | Steered | Blocked | Deduped | Harmful | Tokens saved | Timeline |\n")
			b.WriteString("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
		}
		for i := range hit {
			ss := &hit[i]
			tl := ss.Timeline
			if len(tl) > 60 {
				tl = "…" + tl[len(tl)-59:]
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				mdCode(cutLeft(ss.File, 40)), mdCode(cutMiddle(ss.ID, 24)), mdText(cutMiddle(ss.Agent, 24)), startedText(ss.StartedAt), count(ss.Turns),
				count(ss.Calls), count(ss.Steered), count(ss.Blocked), count(ss.Deduped), count(ss.Harmful), thousands(ss.TokensSaved), mdCode(tl))
		}
		if left := hitCount - len(hit); left > 0 {
			fmt.Fprintf(&b, "\nThe %s where the guard saved most are shown; %s left out (`--top 0` lists all).\n", plural(len(hit), "session"), count(left))
		}
	}

	type ref struct {
		session int
		d       *analyze.Decision
	}
	var top []ref
	for i := range hit {
		for j := range hit[i].Decisions {
			if d := &hit[i].Decisions[j]; d.Action != guard.Allow {
				top = append(top, ref{i, d})
			}
		}
	}
	if len(top) > 0 && m.decisions > 0 {
		// Most tokens saved first; ties keep the transcript order.
		sort.SliceStable(top, func(a, b int) bool { return top[a].d.TokensSaved > top[b].d.TokensSaved })
		fmt.Fprintf(&b, "\n### Top decisions\n\n")
		b.WriteString("| File | Line | Turn | Call | Tool | Action | Detector | Args | Tokens saved |\n")
		b.WriteString("|---|---:|---:|---:|---|---|---|---|---:|\n")
		for _, r := range top[:min(m.decisions, len(top))] {
			d := r.d
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %s | %s |\n",
				mdCode(cutLeft(hit[r.session].File, 40)), lineText(d.Line), d.Turn, d.Call,
				mdCode(cutMiddle(d.Tool, 40)), mdText(actionLabel(d)), mdText(cutMiddle(d.Detector, 30)), mdCode(AbbreviateArgs(d.Args, 80)),
				thousands(d.TokensSaved))
		}
		if more := len(top) - m.decisions; more > 0 {
			fmt.Fprintf(&b, "\n…and %s.\n", plural(more, "more decision"))
		}
	}

	if len(rep.Problems) > 0 {
		// The count is of every problem; a file with more than a report
		// lists has one entry standing for the rest, as the last of its own.
		total := max(s.Problems, len(rep.Problems))
		listed := min(m.problems, len(rep.Problems))
		fmt.Fprintf(&b, "\n### Problems (%s)\n\n", count(total))
		for _, p := range rep.Problems[:listed] {
			where := cutLeft(p.File, 120)
			if p.Line > 0 {
				where += ":" + strconv.Itoa(p.Line)
			}
			fmt.Fprintf(&b, "- %s: %s\n", mdCode(where), mdText(AbbreviateArgs(p.Message, 300)))
		}
		if more := total - listed; more > 0 {
			fmt.Fprintf(&b, "- …and %s more problems\n", count(more))
		}
	}
	return b.String()
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
