package report

// The one output registry: every command's --format values, in the order
// its help lists them, and the writer of each. A command's help, its
// --format check, its error for a wrong value and the shell completion of
// --format all read this table (cli/flags.go, cli/completion.go), so a new
// format is one file here and one line below. conftest (its output.Get and
// Outputs) and gitleaks (its reporter switch) keep theirs the same way:
// one interface, one table.

import (
	"fmt"
	"io"
	"strings"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/gate"
)

// Output is one --format value of a command.
type Output struct {
	// Name is the --format value.
	Name string
	// Ext is the file name ending that chooses this format for --output
	// FILE when --format is not given ("" for none).
	Ext string
	// Page marks a self-contained web page: tens of kilobytes of style
	// and script, refused on a terminal.
	Page bool
}

// Outputter is what the registry holds for every command: its formats.
// Formats[D] is one, for a command whose result is a D.
type Outputter interface {
	Outputs() []Output
}

// A Writer writes a command's result in one format.
type Writer[D any] func(w io.Writer, doc D, opt Options) error

// Formats are one command's formats and their writers.
type Formats[D any] struct {
	command string
	outputs []Output
	writers map[string]Writer[D]
}

// Format pairs an Output with its writer, for register.
type Format[D any] struct {
	Output
	Write Writer[D]
}

// registry holds every command's formats by command name.
var registry = map[string]Outputter{}

// register adds a command's formats to the registry.
func register[D any](command string, formats ...Format[D]) *Formats[D] {
	f := &Formats[D]{command: command, writers: map[string]Writer[D]{}}
	for _, e := range formats {
		f.outputs = append(f.outputs, e.Output)
		if e.Write != nil {
			f.writers[e.Name] = e.Write
		}
	}
	registry[command] = f
	return f
}

// Outputs lists the formats in the order the command's help gives them.
func (f *Formats[D]) Outputs() []Output { return f.outputs }

// Write writes doc in the named format.
func (f *Formats[D]) Write(format string, w io.Writer, doc D, opt Options) error {
	write, ok := f.writers[format]
	if !ok {
		return fmt.Errorf("unknown %s format %q (known: %s)", f.command, format, strings.Join(names(f.outputs), ", "))
	}
	return write(w, doc, opt)
}

// OutputsOf lists a command's formats (nil for a command without
// --format). merge writes what the report it merges came from (replay's,
// or compare's and sweep's): its list is the union, replay's first.
func OutputsOf(command string) []Output {
	if command == "merge" {
		out := append([]Output(nil), OutputsOf("replay")...)
		for _, o := range OutputsOf("compare") {
			if !containsName(out, o.Name) {
				out = append(out, o)
			}
		}
		return out
	}
	if f, ok := registry[command]; ok {
		return f.Outputs()
	}
	return nil
}

// FormatNames lists a command's --format values in its help's order.
func FormatNames(command string) []string { return names(OutputsOf(command)) }

func names(outputs []Output) []string {
	out := make([]string, len(outputs))
	for i, o := range outputs {
		out[i] = o.Name
	}
	return out
}

func containsName(outputs []Output, name string) bool {
	for _, o := range outputs {
		if o.Name == name {
			return true
		}
	}
	return false
}

// Comparison is compare's result: one row per rules, and the facts of the
// corpus that no rules change.
type Comparison struct {
	Rows   []analyze.CompareRow
	Corpus analyze.CorpusFacts
}

// SweepResult is sweep's result: the base rules' label, one row per
// setting, and the corpus's facts.
type SweepResult struct {
	Base   string
	Rows   []analyze.SweepRow
	Corpus analyze.CorpusFacts
}

// The formats of each command. Those of inspect and explain, which write
// as they read, are listed without a writer: their commands write them.
var (
	ReplayFormats = register("replay",
		Format[*analyze.Report]{Output{"table", ".txt", false}, Table},
		Format[*analyze.Report]{Output{"json", ".json", false}, JSON},
		Format[*analyze.Report]{Output{"jsonl", ".jsonl", false}, renderJSONL},
		Format[*analyze.Report]{Output{"markdown", ".md", false}, Markdown},
		Format[*analyze.Report]{Output{"html", ".html", true}, HTML},
	)
	CompareFormats = register("compare",
		Format[Comparison]{Output{"table", ".txt", false}, compareTable},
		Format[Comparison]{Output{"json", ".json", false}, compareJSONReport},
		Format[Comparison]{Output{"csv", ".csv", false}, compareCSV},
		Format[Comparison]{Output{"markdown", ".md", false}, compareMarkdown},
		Format[Comparison]{Output{"html", ".html", true}, compareHTMLReport},
	)
	SweepFormats = register("sweep",
		Format[SweepResult]{Output{"table", ".txt", false}, sweepTable},
		Format[SweepResult]{Output{"json", ".json", false}, sweepJSONReport},
		Format[SweepResult]{Output{"csv", ".csv", false}, sweepCSV},
		Format[SweepResult]{Output{"markdown", ".md", false}, sweepMarkdown},
		Format[SweepResult]{Output{"html", ".html", true}, sweepHTMLReport},
	)
	GateFormats = register("gate",
		Format[*gate.Result]{Output{"table", ".txt", false}, gateTable},
		Format[*gate.Result]{Output{"json", ".json", false}, GateJSON},
		Format[*gate.Result]{Output{"html", ".html", true}, GateHTML},
	)
	_ = register[struct{}]("inspect",
		Format[struct{}]{Output: Output{"table", ".txt", false}},
		Format[struct{}]{Output: Output{"json", ".json", false}},
	)
	_ = register[struct{}]("explain",
		Format[struct{}]{Output: Output{"text", ".txt", false}},
		Format[struct{}]{Output: Output{"json", ".json", false}},
	)
)

// Render writes a replay's report in the named format.
func Render(format string, w io.Writer, rep *analyze.Report, opt Options) error {
	if rep == nil {
		rep = &analyze.Report{}
	}
	return ReplayFormats.Write(format, w, rep, opt)
}

// Compare writes compare rows in one of compare's formats. corpus holds
// the facts that no rules change; each row's summary has what its rules
// did.
func Compare(format string, w io.Writer, rows []analyze.CompareRow, corpus analyze.CorpusFacts, opt Options) error {
	return CompareFormats.Write(format, w, Comparison{rows, corpus}, opt)
}

// Sweep writes sweep rows in one of sweep's formats; rows on the Pareto
// front are marked with "*" (table), "★" (markdown) or pareto=true (json,
// csv).
func Sweep(format string, w io.Writer, base string, rows []analyze.SweepRow, corpus analyze.CorpusFacts, opt Options) error {
	return SweepFormats.Write(format, w, SweepResult{base, rows, corpus}, opt)
}

// gateTable is the gate's terminal summary (GateSummary).
func gateTable(w io.Writer, res *gate.Result, opt Options) error {
	GateSummary(w, res, opt)
	return nil
}
