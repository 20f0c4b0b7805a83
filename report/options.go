// Package report renders what a replay found (an *analyze.Report) for people
// and for machines: a terminal table, one JSON document, JSON lines that
// stream session by session, and markdown for a pull-request comment or a
// GitHub step summary. It also renders the inspect command's view of the
// normalized stream, and redacts secrets (redact.go) from every format unless
// asked not to.
//
// Renderers never mutate the caller's report: redaction and the "[] not
// null" rule of the JSON contract are applied to a copy.
//
// The gate's outputs are here too: its terminal summary (gate.go), HTML,
// JUnit, SARIF and GitHub annotations. Color goes through the fatih/color
// styles of this file for every output. report imports analyze (the
// results), ingest (the normalized stream's types, for inspect and
// problems) and the internal redact and jsonx helpers; it reads no files
// and decides nothing. A new format is a file here and a line in the
// output registry (outputs.go), which every command's --format reads.
package report

import (
	"io"
	"os"
	"strings"

	"github.com/fatih/color"
	"github.com/loopgate/loopgate/analyze"
	"github.com/mattn/go-isatty"
)

// Options tune every renderer.
type Options struct {
	// Color adds ANSI colors (table only; never in json, jsonl, markdown).
	Color bool
	// Redact removes secrets from arguments and messages (the CLI sets it
	// unless --no-redact).
	Redact bool
	// Width is the terminal width the table fits its timelines and
	// arguments to; 0 means 100.
	Width int
	// MaxDecisions caps the decisions listed per session in the table, and
	// the top decisions in markdown; 0 lists all in the table and
	// DefaultMarkdownDecisions in markdown (a PR comment must stay short).
	MaxDecisions int
	// Partial, when set, is written into the machine-readable reports
	// (the jsonl summary line, compare's and sweep's json) of a run given
	// --shard, for 'loopgate merge' (docs/scale.md).
	Partial *analyze.Partial
	// Top is how many sessions table and markdown show, those where the
	// guard did most first (0: all); By adds a per-period view ("day").
	Top int
	By  string
	// Problems are the input problems compare and sweep list (a replay's
	// report carries its own).
	Problems []analyze.Problem
}

// DefaultTopSessions is replay's --top: the sessions a table or markdown
// report shows.
const DefaultTopSessions = 20

// DefaultWidth is the table width when Options.Width is 0.
const DefaultWidth = 100

// DefaultMarkdownDecisions caps markdown's top decisions when
// Options.MaxDecisions is 0.
const DefaultMarkdownDecisions = 20

func (o Options) width() int {
	if o.Width <= 0 {
		return DefaultWidth
	}
	return o.Width
}

// renderJSONL writes a finished report as JSON lines: the streaming writer
// fed with every session, then the summary line.
func renderJSONL(w io.Writer, rep *analyze.Report, opt Options) error {
	j := NewJSONL(w, opt)
	if err := rep.EachSession(j.Session); err != nil {
		return err
	}
	return j.Finish(rep)
}

// ColorEnabled decides whether output to f is colored, for --color
// auto|always|never ("" means auto).
//
//   - never: no color.
//   - always: color, even when NO_COLOR is set. Reading taken: no-color.org
//     asks software that colors *by default* to stop when NO_COLOR is set,
//     and says an explicit per-invocation option should override it;
//     --color=always is such an option (ecosystem.md §1.6).
//   - auto: color only when NO_COLOR is empty or unset, TERM is not "dumb",
//     and f is a terminal. We decide per stream rather than rely on
//     fatih/color's package-level NoColor, which looks at stdout only and is
//     computed once at init.
//
// An unknown mode gets no color (the CLI validates the flag).
func ColorEnabled(mode string, f *os.File) bool {
	switch mode {
	case "always":
		return true
	case "", "auto":
		if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" || f == nil {
			return false
		}
		return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
	}
	return false
}

// ColorModes lists the values ColorEnabled accepts.
func ColorModes() []string { return []string{"auto", "always", "never"} }

// Styles of the table, drawn by fatih/color. Each has color forced on,
// because whether an output is colored is decided per output
// (Options.Color, from ColorEnabled above, which applies --color, NO_COLOR,
// TERM=dumb and the terminal test to that output's own file), not by
// fatih's package-level NoColor, which looks at standard output only, once,
// at init. The ansi* names are the escape sequence each style starts with;
// paint takes a style by that name (inspect.go and the tests use them).
// Timeline marks use foreground colors only (gray rather than faint, bright
// magenta rather than bold magenta), so that each ends with the same reset,
// ansiReset, which report_test.go looks for.
var (
	ansiBold    = newStyle(color.Bold)
	ansiDim     = newStyle(color.FgHiBlack) // gray: redundant marks, cut notes
	ansiRed     = newStyle(color.FgRed)
	ansiGreen   = newStyle(color.FgGreen) // the gate's PASS
	ansiYellow  = newStyle(color.FgYellow)
	ansiMagenta = newStyle(color.FgHiMagenta) // harmful: the one to see first
	// ansiReset is what fatih writes after a foreground color.
	ansiReset = closing(color.FgRed)
)

// styles maps each style's name (its opening sequence) to its color.
var styles = map[string]*color.Color{}

func forced(attrs ...color.Attribute) *color.Color {
	c := color.New(attrs...)
	c.EnableColor()
	return c
}

// newStyle registers a style and returns its name.
func newStyle(attrs ...color.Attribute) string {
	c := forced(attrs...)
	open, _, _ := strings.Cut(c.Sprint("\x00"), "\x00")
	styles[open] = c
	return open
}

func closing(attrs ...color.Attribute) string {
	_, end, _ := strings.Cut(forced(attrs...).Sprint("\x00"), "\x00")
	return end
}

// paint draws s in the named style when color is on.
func paint(on bool, style, s string) string {
	c, ok := styles[style]
	if !on || s == "" || !ok {
		return s
	}
	return c.Sprint(s)
}

// markStyle is the color of one timeline mark.
func markStyle(m byte) string {
	switch m {
	case analyze.MarkBlock, analyze.MarkDedup, analyze.MarkHalt:
		return ansiRed
	case analyze.MarkSteer:
		return ansiYellow
	case analyze.MarkHarmful:
		return ansiMagenta
	case analyze.MarkRedundant:
		return ansiDim
	}
	return ""
}
