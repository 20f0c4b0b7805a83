package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/report"
)

// TestFormatsFromRegistry: every command with --format takes its values
// from the output registry: the help lists them, the completion offers
// them, and a wrong value is refused with them; no command has a
// --format the registry does not know.
func TestFormatsFromRegistry(t *testing.T) {
	app := newApp(io.Discard, io.Discard, "dev")
	seen := map[string]bool{}
	for _, cmd := range app.Commands {
		for _, f := range cmd.Flags {
			if f.Names()[0] != "format" {
				continue
			}
			seen[cmd.Name] = true
			names := report.FormatNames(cmd.Name)
			if len(names) == 0 {
				t.Errorf("%s has --format, but the registry lists no format for it", cmd.Name)
				continue
			}
			usage := f.(cli.DocGenerationFlag).GetUsage()
			if cmd.Name != "merge" && !strings.Contains(usage, strings.Join(names, "|")) {
				t.Errorf("%s --format's help %q does not list %v", cmd.Name, usage, names)
			}
			if got := flagValues(cmd, f); !slices.Equal(got, names) {
				t.Errorf("%s --format completes %v, want %v", cmd.Name, got, names)
			}
		}
	}
	for _, cmd := range app.Commands {
		if len(report.OutputsOf(cmd.Name)) > 0 && !seen[cmd.Name] {
			t.Errorf("the registry lists formats for %s, which has no --format", cmd.Name)
		}
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"replay", "-f", "xml", "x"}, `--format must be one of table, json, jsonl, markdown, html, not "xml"`},
		{[]string{"compare", "-f", "jsonl", "x"}, `--format must be one of table, json, csv, markdown, html, not "jsonl"`},
		{[]string{"sweep", "-f", "xml", "--vary", "detectors.repeat.block_at=2,3", "x"}, `--format must be one of table, json, csv, markdown, html, not "xml"`},
		{[]string{"gate", "-f", "xml"}, `--format must be one of table, json, html, not "xml"`},
		{[]string{"inspect", "-f", "xml", "x"}, `--format must be table or json, not "xml"`},
		{[]string{"explain", "-f", "xml", "--call", "1", "x"}, `--format must be text or json, not "xml"`},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		code := run(append([]string{"loopgate"}, tc.args...), &out, &errOut)
		if code != ExitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut.String(), ExitUsage, tc.want)
		}
	}
}

// TestOutputFlag: --output FILE writes what standard output would get,
// and nothing to standard output; without --format the file's ending
// chooses the format; a file that cannot be written is exit 2 and leaves
// no file.
func TestOutputFlag(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	t.Setenv("COLUMNS", "100")
	fixture := filepath.Join("..", "fixtures", "replay")
	dir := t.TempDir()
	cases := []struct {
		name   string
		args   []string // the command, with --output added
		stdout []string // the same command to standard output
	}{
		{"replay json", []string{"replay", "-f", "json", fixture}, nil},
		{"replay markdown by ending", []string{"replay", fixture}, []string{"replay", "-f", "markdown", fixture}},
		{"replay jsonl", []string{"replay", "-f", "jsonl", fixture}, nil},
		{"compare csv by ending", []string{"compare", "--preset", "loopgate,nanobot", fixture}, []string{"compare", "-f", "csv", "--preset", "loopgate,nanobot", fixture}},
		{"sweep table", []string{"sweep", "-f", "table", "--color", "never", "--vary", "detectors.repeat.block_at=2,3", fixture}, nil},
		{"gate json", []string{"gate", "-f", "json", filepath.Join("..", "fixtures", "gate", "passing.gate.yaml")}, nil},
	}
	exts := map[string]string{"replay markdown by ending": ".md", "compare csv by ending": ".csv"}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "report"+string(rune('a'+i))+exts[tc.name])
			if exts[tc.name] == "" {
				path += ".out"
			}
			var out, errOut bytes.Buffer
			code := run(append([]string{"loopgate", tc.args[0], "--output", path}, tc.args[1:]...), &out, &errOut)
			if code != 0 || out.Len() != 0 {
				t.Fatalf("exit %d, stdout %q, stderr %s", code, out.String(), errOut.String())
			}
			want := tc.stdout
			if want == nil {
				want = tc.args
			}
			var direct bytes.Buffer
			if code := run(append([]string{"loopgate"}, want...), &direct, io.Discard); code != 0 {
				t.Fatalf("to standard output: exit %d", code)
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, direct.Bytes()) || len(got) == 0 {
				t.Errorf("the file holds %d bytes (%v), standard output %d, and they differ", len(got), err, direct.Len())
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
	t.Run("unwritable", func(t *testing.T) {
		path := filepath.Join(dir, "no", "such", "report.json")
		var errOut bytes.Buffer
		code := run([]string{"loopgate", "replay", "--output", path, fixture}, io.Discard, &errOut)
		if code != ExitUsage || !strings.Contains(errOut.String(), "cannot write "+path) {
			t.Errorf("exit %d, stderr %q", code, errOut.String())
		}
		if _, err := os.Stat(path); err == nil {
			t.Error("a file was written")
		}
	})
}
