// Package hookcmd is one call of the live hook from its command line: the
// hook's flags read, its rules loaded (through the state directory's
// cache), the agent's event read from standard input and answered
// (live.Handle). Both `loopgate hook` (package cli) and the hook's own
// binary, cmd/loopgate-hook, run it: the latter links only what a hook
// call needs, so that a process the agent starts before every tool call
// starts in a fraction of loopgate's time (docs/live.md, docs/performance.md).
package hookcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/live"
	"github.com/loopgate/loopgate/rules"
)

// maxInput bounds the event read from stdin (a tool result may be large;
// a runaway writer must not exhaust memory).
const maxInput = 64 << 20

// DefaultExpire is --expire's default: the state of a session untouched
// this long is removed.
const DefaultExpire = 7 * 24 * time.Hour

// Flags are the hook's flag values: urfave/cli's context in `loopgate
// hook`, or Args, ParseArgs' own reading of a plain command line.
type Flags interface {
	String(name string) string
	Bool(name string) bool
	Duration(name string) time.Duration
}

// Run runs one hook call on the event in stdin and returns the exit
// status. It never stops the agent on its own failure: a usage or rules
// error is said on stderr and the call is allowed (exit 0, no answer).
func Run(f Flags, stdin io.Reader, stdout, stderr io.Writer) int {
	// One event, then exit: collecting garbage would cost more than the
	// memory it frees, unless a huge session's state needs it.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(256 << 20)
	cfg, err := config(f)
	if err != nil {
		fmt.Fprintf(stderr, "loopgate: %v (allowed: the hook fails open)\n", err)
		io.Copy(io.Discard, io.LimitReader(stdin, maxInput))
		return 0
	}
	input, err := io.ReadAll(io.LimitReader(stdin, maxInput+1))
	if err != nil {
		fmt.Fprintf(stderr, "loopgate: reading the hook event: %v (allowed: the hook fails open)\n", err)
		return 0
	}
	if len(input) > maxInput {
		fmt.Fprintf(stderr, "loopgate: hook event larger than %d bytes (allowed: the hook fails open)\n", maxInput)
		return 0
	}
	reply := live.Handle(cfg, input)
	stdout.Write(reply.Stdout)
	io.WriteString(stderr, reply.Stderr)
	return reply.Exit
}

// ParseArgs reads the arguments after `loopgate hook` when they are only
// the hook's own flags, each given once, as --name VALUE or --name=VALUE
// (--shadow alone), which is how `hook install` writes them. Anything else
// (help, a subcommand, another flag, a value starting with a dash, an
// empty --name=, a duration that does not parse) is ok=false: `loopgate
// hook` then reads the command line with urfave/cli as every command does
// (its parsing, a fifth of a hook call's instructions, is skipped only
// where both read the same values: cli's TestHookArgsAreTheApp), and
// loopgate-hook says it cannot and allows the call.
func ParseArgs(args []string) (f Args, ok bool) {
	f = Args{strings: map[string]string{}, expire: DefaultExpire}
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(args[i], "--"), "=")
		if !strings.HasPrefix(args[i], "--") || name == "" || seen[name] || hasValue && value == "" {
			return f, false
		}
		seen[name] = true
		switch name {
		case "shadow":
			if hasValue {
				return f, false
			}
			f.shadow = true
			continue
		case "agent", "rules", "preset", "state-dir", "log", "expire":
		default:
			return f, false
		}
		if !hasValue {
			if i+1 == len(args) || strings.HasPrefix(args[i+1], "-") {
				return f, false
			}
			i++
			value = args[i]
		}
		if name == "expire" {
			d, err := time.ParseDuration(value)
			if err != nil {
				return f, false
			}
			f.expire = d
			continue
		}
		f.strings[name] = value
	}
	return f, true
}

// Args are the flags ParseArgs read.
type Args struct {
	strings map[string]string
	shadow  bool
	expire  time.Duration
}

func (f Args) String(name string) string { return f.strings[name] }

func (f Args) Bool(name string) bool { return name == "shadow" && f.shadow }

func (f Args) Duration(name string) time.Duration {
	if name == "expire" {
		return f.expire
	}
	return 0
}

// config reads the hook's flags.
func config(f Flags) (live.Config, error) {
	p := live.Lookup(f.String("agent"))
	if p == nil {
		return live.Config{}, fmt.Errorf("--agent must be one of %s, not %q", strings.Join(live.AgentNames(), ", "), f.String("agent"))
	}
	return configFor(f, p)
}

// configFor reads every flag of the hook's but --agent: the agent is p
// (nil for the server, which learns it from each request's path).
func configFor(f Flags, p *live.Protocol) (live.Config, error) {
	dir := f.String("state-dir")
	if dir == "" {
		var err error
		if dir, err = live.DefaultStateDir(); err != nil {
			return live.Config{}, err
		}
	}
	r, text, digest, err := loadRules(f, dir)
	if err != nil {
		return live.Config{}, err
	}
	cfg := live.Config{Protocol: p, Rules: r, RulesText: text, RulesDigest: digest, RulesName: rulesName(f), StateDir: dir,
		Shadow: f.Bool("shadow"), Log: f.String("log"), TTL: f.Duration("expire"), ContentText: ingest.ContentText,
		Results: live.ResultReading{Envelope: ingest.EnvelopeOf, Failed: ingest.ResultFailed, Outcomes: ingest.ClineOutcomes}}
	if cfg.Shadow && cfg.Log == "" {
		cfg.Log = dir + string(os.PathSeparator) + "decisions.jsonl"
	}
	return cfg, nil
}

// loadRules is the command line's rule loading for a process that decides
// one call: a preset is parsed alone, where rules.Preset parses every
// preset on first use (a quarter of a hook call's start; cli's
// TestHookRulesArePresets checks that both give the same rules). It also
// returns the text the rules were parsed from and its digest (the
// snapshot's tag: live.Config.RulesText). The rules parsed are kept in the
// state directory dir, so that the next call reads them instead of parsing
// the same text (live.CachedRules).
func loadRules(f Flags, dir string) (*rules.Rules, []byte, []byte, error) {
	source := f.String("rules")
	var data []byte
	var preset string // a built-in preset's name, "" for a rules file
	if source != "" {
		if f.String("preset") != "" {
			return nil, nil, nil, errors.New("--rules and --preset cannot be used together")
		}
		// Read once and parsed from what was read, so that the text
		// digested is the text parsed (rules.Load's limit and wording).
		var err error
		if data, err = readRulesFile(source); err != nil {
			return nil, nil, nil, err
		}
	} else {
		preset = f.String("preset")
		if preset == "" {
			preset = "loopgate"
		}
		var err error
		if data, err = rules.PresetText(preset); err != nil {
			return nil, nil, nil, err
		}
		source = "preset:" + preset
	}
	text := live.SourceText(source, data)
	var digest []byte
	if preset != "" {
		digest = live.PresetDigest(preset, text)
	} else {
		digest = live.RulesDigest(text)
	}
	r, err := live.CachedRules(dir, digest, func() (*rules.Rules, error) { return guard.ParseRules(data, source) })
	if err != nil {
		return nil, nil, nil, err
	}
	return r, text, digest, nil
}

// readRulesFile reads a rules file as rules.Load does.
func readRulesFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot open the rules file: %v", path, errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, rules.MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the rules file: %v", path, errors.Unwrap(err))
	}
	return data, nil
}

// rulesName names the rules in the decision log: the preset, or the file.
func rulesName(f Flags) string {
	if s := f.String("rules"); s != "" {
		return s
	}
	if p := f.String("preset"); p != "" {
		return p
	}
	return "loopgate"
}

// Main is the hook's own binary, cmd/loopgate-hook: `loopgate-hook FLAGS`
// answers as `loopgate hook FLAGS` does, for the command lines `loopgate
// hook install` writes (ParseArgs). args[0] is the program. --version
// prints the build (VersionLine), which `hook install` compares with its
// own before it writes this binary into an agent's settings; --help the
// usage. Any other command line is said on stderr and the call allowed:
// the hook fails open.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	rest := args[min(1, len(args)):]
	if len(rest) == 1 {
		switch rest[0] {
		case "--version", "-version", "-v":
			fmt.Fprintln(stdout, VersionLine())
			return 0
		case "--help", "-help", "-h", "help":
			fmt.Fprint(stdout, usage)
			return 0
		}
	}
	f, ok := ParseArgs(rest)
	if !ok {
		fmt.Fprintf(stderr, "loopgate-hook: cannot read the command line %q: it takes only the hook's flags, each once (see loopgate-hook --help; loopgate hook reads any) (allowed: the hook fails open)\n", rest)
		io.Copy(io.Discard, io.LimitReader(stdin, maxInput))
		return 0
	}
	return Run(f, stdin, stdout, stderr)
}

// VersionLine is what loopgate-hook --version prints: the build
// (live.BuildID), the same for loopgate and loopgate-hook built together.
func VersionLine() string { return "loopgate-hook " + live.BuildID() }

const usage = `loopgate-hook: loopgate's live hook in a binary of its own, which starts
faster than loopgate: one hook event of a running agent on stdin, the
agent's answer on stdout. It reads the flags of 'loopgate hook' and
answers as it does; 'loopgate hook install' writes it into an agent's
settings when it lies beside loopgate (docs/live.md).

usage: loopgate-hook --agent AGENT [--preset NAME | --rules FILE] [--state-dir DIR] [--shadow] [--log FILE] [--expire DURATION]
       loopgate-hook --version
`
