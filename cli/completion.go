package cli

// The completion command prints a shell's completion script; the hidden
// __complete command is what those scripts call. The scripts are small and
// ask the binary for every candidate, so commands, flags and the values of
// --preset, --agent, --input-format, --tokenizer, --color and --format come
// from the same tables the commands use and cannot drift from them.

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/live"
	"github.com/loopgate/loopgate/report"
)

// completionScripts are the scripts `loopgate completion SHELL` prints.
// Each passes the words before the cursor to `loopgate __complete` and
// offers what it prints, one candidate per line; where it prints nothing
// (a path is expected) the shell completes file names.
var completionScripts = map[string]string{
	"bash": `# bash completion for loopgate: source it, or put it in
# /etc/bash_completion.d/ or ~/.local/share/bash-completion/completions/loopgate
_loopgate() {
    local cur="${COMP_WORDS[COMP_CWORD]}"
    local IFS=$'\n'
    local words
    words=$(loopgate __complete -- "${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null)
    if [ -n "$words" ]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    else
        COMPREPLY=()
    fi
}
complete -o default -o bashdefault -F _loopgate loopgate
`,
	"zsh": `#compdef loopgate
# zsh completion for loopgate: put it on $fpath as _loopgate, or source it
# after compinit
_loopgate() {
    local -a candidates
    candidates=("${(@f)$(loopgate __complete -- "${(@)words[2,CURRENT-1]}" 2>/dev/null)}")
    candidates=(${candidates:#})
    if (( ${#candidates} )); then
        compadd -a candidates
    else
        _files
    fi
}
if [ "$funcstack[1]" = "_loopgate" ]; then
    _loopgate "$@"
else
    compdef _loopgate loopgate
fi
`,
	"fish": `# fish completion for loopgate: put it in ~/.config/fish/completions/loopgate.fish
function __loopgate_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l candidates (loopgate __complete -- $words[2..-1] 2>/dev/null)
    set -l n (string length -- "$cur")
    set -l matching
    for c in $candidates
        if test "$n" -eq 0; or test (string sub -l $n -- $c) = "$cur"
            set -a matching $c
        end
    end
    if test (count $matching) -gt 0
        printf '%s\n' $matching
    else
        __fish_complete_path $cur
    end
end
complete -c loopgate -f -a '(__loopgate_complete)'
`,
}

func completionShells() []string {
	shells := make([]string, 0, len(completionScripts))
	for s := range completionScripts {
		shells = append(shells, s)
	}
	sort.Strings(shells)
	return shells
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "SHELL",
		Description: "Prints the completion script for SHELL. For example:\n\n" +
			"   source <(loopgate completion bash)\n" +
			"   loopgate completion zsh > \"${fpath[1]}/_loopgate\"\n" +
			"   loopgate completion fish > ~/.config/fish/completions/loopgate.fish\n\n" +
			"Commands, flags, preset names, agent names and input formats complete;\n" +
			"where a path is expected the shell completes file names.",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("'loopgate completion' takes one shell: %s (see 'loopgate completion --help')", strings.Join(completionShells(), ", "))
			}
			script, ok := completionScripts[c.Args().First()]
			if !ok {
				return usageError("no completion for shell %q: %s are supported", c.Args().First(), strings.Join(completionShells(), ", "))
			}
			_, err := fmt.Fprint(c.App.Writer, script)
			return err
		},
	}
}

// completeCommand is what the scripts call: the words typed before the
// cursor (without the program name) after "--"; it prints the candidates
// for the next word. It never fails: a completion must not print errors
// into the user's command line.
func completeCommand() *cli.Command {
	return &cli.Command{
		Name:            "__complete",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			words := c.Args().Slice()
			if len(words) > 0 && words[0] == "--" {
				words = words[1:]
			}
			for _, w := range complete(c.App, words) {
				fmt.Fprintln(c.App.Writer, w)
			}
			return nil
		},
	}
}

// complete returns the candidates for the word after words.
func complete(app *cli.App, words []string) []string {
	var cmd, top *cli.Command
	flags := app.Flags
	subs := app.Commands
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			return nil // only paths follow
		}
		if strings.HasPrefix(w, "-") {
			// A flag that takes a separate value consumes the next word.
			if f := findFlag(flags, w); f != nil && valueFlag(f) && !strings.Contains(w, "=") {
				i++
			}
			continue
		}
		if next := findCommand(subs, w); next != nil {
			if top == nil {
				top = next
			}
			cmd = next
			flags, subs = next.Flags, next.Subcommands
		}
	}
	if n := len(words); n > 0 {
		if f := findFlag(flags, words[n-1]); f != nil && valueFlag(f) && !strings.Contains(words[n-1], "=") {
			return flagValues(top, f)
		}
	}
	var out []string
	for _, s := range subs {
		if !s.Hidden {
			out = append(out, s.Name)
		}
	}
	for _, f := range flags {
		if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
			continue
		}
		for _, name := range f.Names() {
			if len(name) > 1 {
				out = append(out, "--"+name)
			}
		}
	}
	if cmd != nil {
		out = append(out, "--help")
	}
	return out
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func findFlag(flags []cli.Flag, word string) cli.Flag {
	name := strings.TrimLeft(word, "-")
	name, _, _ = strings.Cut(name, "=")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// choices matches a list of literal choices in a flag's usage text, as
// in "table|json|jsonl": the usage is the one place they are written.
// Compiled at first use (completion only), not at every process's start.
var choices = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-z0-9_]+(\|[a-z0-9_]+)+`) })

// flagValues returns the values a flag takes, where they are a known set;
// top is the top-level command the flag was given to (nil for the app).
func flagValues(top *cli.Command, f cli.Flag) []string {
	switch f.Names()[0] {
	case "preset":
		return guard.PresetNames()
	case "agent":
		if top != nil && top.Name == "hook" {
			return live.AgentNames()
		}
		return ingest.LocationAgents()
	case "input-format":
		return ingest.FormatIDs()
	case "tokenizer":
		return tokens.Names()
	case "format":
		if top != nil {
			if names := report.FormatNames(top.Name); len(names) > 0 {
				return names
			}
		}
	}
	if df, ok := f.(cli.DocGenerationFlag); ok {
		if m := choices().FindString(df.GetUsage()); m != "" {
			return strings.Split(m, "|")
		}
	}
	return nil
}
