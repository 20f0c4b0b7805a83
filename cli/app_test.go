package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestPermuteArgs: flags after the paths go in front of them, with their
// values; what follows "--" stays positional; a value flag with nothing
// after it is an error naming the command.
func TestPermuteArgs(t *testing.T) {
	app := newApp(io.Discard, io.Discard, "dev")
	for _, tc := range []struct {
		args    string
		want    string
		wantErr string
	}{
		{"loopgate replay a.jsonl --preset nanobot b.jsonl", "loopgate replay --preset nanobot -- a.jsonl b.jsonl", ""},
		{"loopgate replay a.jsonl --strict --format=json", "loopgate replay --strict --format=json -- a.jsonl", ""},
		{"loopgate replay a.jsonl -- --preset", "loopgate replay -- a.jsonl --preset", ""},
		{"loopgate rules print --preset hermes", "loopgate rules print --preset hermes", ""},
		{"loopgate --cpuprofile=x replay a", "loopgate --cpuprofile=x replay -- a", ""},
		{"loopgate nosuch a --b", "loopgate nosuch a --b", ""},
		{"loopgate replay a.jsonl --preset", "", "--preset needs a value, but nothing follows it (try 'loopgate replay --help')"},
		{"loopgate replay a.jsonl --format=", "", "--format= has an empty value (try 'loopgate replay --help')"},
	} {
		got, err := permuteArgs(app, strings.Fields(tc.args))
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, strings.Fields(tc.want)) {
			t.Errorf("%q: %q (%v), want %q", tc.args, got, err, tc.want)
		}
	}
}

// TestHookAppAlone: `loopgate hook ...` builds the hook command alone
// (commandsFor); its help, its usage errors, its subcommands and its
// answer to an event are those of the whole app.
func TestHookAppAlone(t *testing.T) {
	if got := commandsFor([]string{"loopgate", "hook", "--agent", "claude-code"}); len(got) != 1 || got[0].Name != "hook" {
		t.Fatalf("commandsFor(hook) = %d commands, want the hook command alone", len(got))
	}
	if got := commandsFor([]string{"loopgate", "replay", "x"}); len(got) != len(commands()) {
		t.Fatalf("commandsFor(replay) = %d commands, want all %d", len(got), len(commands()))
	}
	event := `{"hook_event_name":"PreToolUse","session_id":"s1","cwd":"/tmp","tool_name":"Read","tool_input":{"file_path":"/a.go"},"tool_use_id":"t1"}`
	for _, tc := range []struct {
		args  string
		stdin string
	}{
		{"hook --help", ""},
		{"hook -h", ""},
		{"hook simulate --help", ""},
		{"hook install --help", ""},
		{"hook uninstall --help", ""},
		{"hook simulate", ""},
		{"hook install --agent nosuch --dry-run", ""},
		{"hook --agent nosuch", event},
		{"hook --agent claude-code --nosuchflag", event},
		{"hook --agent claude-code --preset nosuch", event},
		{"hook --agent claude-code --preset hermes --state-dir STATE --log STATE/d.jsonl", event},
		{"hook --agent codex --state-dir STATE --log STATE/d.jsonl", event},
		{"hook --agent=claude-code --preset=loopgate --state-dir=STATE --log=STATE/d.jsonl --shadow --expire 1h", event},
		{"hook --agent claude-code --state-dir STATE --preset=", event},
		{"hook --agent claude-code --state-dir STATE --log STATE/d.jsonl", "{not json"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			run := func(whole bool) (int, string, string) {
				state := t.TempDir()
				args := append([]string{"loopgate"}, strings.Fields(strings.ReplaceAll(tc.args, "STATE", state))...)
				stdin, err := os.CreateTemp(t.TempDir(), "event")
				if err != nil {
					t.Fatal(err)
				}
				defer stdin.Close()
				if _, err := stdin.WriteString(tc.stdin); err != nil {
					t.Fatal(err)
				}
				stdin.Seek(0, io.SeekStart)
				saved := os.Stdin
				os.Stdin = stdin
				defer func() { os.Stdin = saved }()
				var out, errOut bytes.Buffer
				var code int
				if whole {
					code = runApp(newApp(&out, &errOut, "dev"), args, &errOut)
				} else {
					code = Run(args, &out, &errOut, "dev")
				}
				if strings.Contains(tc.args, "--log") {
					// The decision log, its times left out, as what the
					// call decided.
					log, err := os.ReadFile(filepath.Join(state, "d.jsonl"))
					if err != nil {
						t.Fatal(err)
					}
					out.WriteString("decision log: " + regexp.MustCompile(`"(call_)?time":"[^"]*"`).ReplaceAllString(string(log), ""))
				}
				return code, out.String(), errOut.String()
			}
			wantCode, wantOut, wantErr := run(true)
			code, out, errOut := run(false)
			if code != wantCode || out != wantOut || errOut != wantErr {
				t.Errorf("hook command alone: exit %d\n%s%s\nwhole app: exit %d\n%s%s", code, out, errOut, wantCode, wantOut, wantErr)
			}
			if wantOut == "" && wantErr == "" {
				t.Errorf("nothing printed by the whole app: the case compares nothing")
			}
		})
	}
}

// TestFlagsPerApp: two apps share no flag value, at any depth of
// subcommands, so that commands parsed at once in one process (the
// tests run the CLI in parallel) do not write into the same flag. Within
// one app a flag may serve only one command too: the app runs one.
func TestFlagsPerApp(t *testing.T) {
	seen := map[cli.Flag]string{}
	var walk func(app int, path string, cmds []*cli.Command)
	walk = func(app int, path string, cmds []*cli.Command) {
		for _, c := range cmds {
			where := fmt.Sprintf("app %d: %s %s", app, path, c.Name)
			for _, f := range c.Flags {
				if before, ok := seen[f]; ok {
					t.Errorf("--%s of %s is the value of %s", f.Names()[0], where, before)
				}
				seen[f] = where
			}
			walk(app, path+" "+c.Name, c.Subcommands)
		}
	}
	for app := range 2 {
		a := newApp(io.Discard, io.Discard, "dev")
		for _, f := range a.Flags {
			seen[f] = fmt.Sprintf("app %d: loopgate", app)
		}
		walk(app, "loopgate", a.Commands)
	}
	if len(seen) < 100 {
		t.Errorf("only %d flags seen in two apps: the walk missed commands", len(seen))
	}
}
