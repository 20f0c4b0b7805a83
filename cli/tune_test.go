package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/rules"
)

var tuneCorpus = []string{"../fixtures/golden/loops", "../fixtures/golden/healthy", "../fixtures/demo"}

var figuresRE = regexp.MustCompile(`^harmful (\d+), stopped (\d+) of`)

// tuneLine returns the figures tune printed after prefix ("base:" or
// "chosen:"), with their harmful and stopped counts.
func tuneLine(t *testing.T, out, prefix string) (line string, harmful, stopped int) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			line = strings.TrimSpace(rest)
			m := figuresRE.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("%s line not understood: %q", prefix, l)
			}
			harmful, _ = strconv.Atoi(m[1])
			stopped, _ = strconv.Atoi(m[2])
			return
		}
	}
	t.Fatalf("no %s line in:\n%s", prefix, out)
	return
}

// chosenSettings is the "  key: value" lines after "chosen:".
func chosenSettings(out string) string {
	_, after, _ := strings.Cut(out, "\nchosen:")
	var keep []string
	for _, l := range strings.Split(after, "\n")[1:] {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		keep = append(keep, strings.TrimSpace(l))
	}
	return strings.Join(keep, "; ")
}

// TestTuneChoosesUnderBudget: the chosen setting keeps to the harm budget
// and, when the base keeps to it too, stops at least as many redundant
// calls; the file it writes loads, passes rules check, replays to the
// figures tune printed for it (on the same shard when tune read one), and
// gate init and hook install take it.
func TestTuneChoosesUnderBudget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		maxHarm int
		shard   string // tune on this shard; the file is replayed on the same one
	}{
		{"loopgate default grid", nil, 0, ""},
		{"nanobot, budget 0", []string{"--base", "nanobot"}, 0, ""},
		{"nanobot, budget 1", []string{"--base", "nanobot"}, 1, ""},
		{"pi-loopguard", []string{"--base", "pi-loopguard"}, 0, ""},
		{"hermes-breaker", []string{"--base", "hermes-breaker"}, 0, ""},
		{"loopgate, --vary", []string{"--vary", "detectors.no_progress.block_at=1,2", "--vary", "detectors.failure.steer_at=2,3"}, 0, ""},
		{"loopgate, shard 1/2", nil, 0, "1/2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "tuned.yaml")
			var shard []string
			if tc.shard != "" {
				shard = []string{"--shard", tc.shard}
			}
			args := append(append([]string{"loopgate", "tune", "--tokenizer", "chars4", "--max-harm", strconv.Itoa(tc.maxHarm), "-o", file}, shard...), tc.args...)
			var out, errOut bytes.Buffer
			if code := run(append(args, tuneCorpus...), &out, &errOut); code != 0 {
				t.Fatalf("tune: exit %d\n%s%s", code, out.String(), errOut.String())
			}
			_, baseHarm, baseStopped := tuneLine(t, out.String(), "base:")
			chosen, harm, stopped := tuneLine(t, out.String(), "chosen:")
			if harm > tc.maxHarm {
				t.Errorf("chosen harmful %d over the budget %d", harm, tc.maxHarm)
			}
			if baseHarm <= tc.maxHarm && stopped < baseStopped {
				t.Errorf("chosen stops %d redundant calls, the base %d", stopped, baseStopped)
			}
			if tc.args == nil && baseHarm > tc.maxHarm {
				// The loopgate preset is meant to be harmless here, and the
				// recall check above must not be skipped for it.
				t.Errorf("the loopgate preset makes %d harmful stops on the fixtures", baseHarm)
			}
			r, err := rules.Load(file)
			if err != nil {
				t.Fatalf("the written file does not load: %v", err)
			}
			text, _ := os.ReadFile(file)
			if !strings.Contains(string(text), "# Measured on ") || !strings.Contains(string(text), "tuned: see the header") ||
				!strings.Contains(string(text), "#   why: ") || !strings.Contains(string(text), "tokens saved), ") {
				t.Errorf("the file lacks its comments:\n%s", text)
			}
			if said := strings.Contains(string(text), "# Tuned on shard "+tc.shard+" of the"); said != (tc.shard != "") {
				t.Errorf("the header names shard %q: %v\n%s", tc.shard, said, text)
			}
			out.Reset()
			if code := run([]string{"loopgate", "rules", "check", file}, &out, &errOut); code != 0 || !strings.Contains(out.String(), r.Name) {
				t.Errorf("rules check: exit %d %s %s", code, out.String(), errOut.String())
			}
			out.Reset()
			if code := run(append(append([]string{"loopgate", "replay", "--tokenizer", "chars4", "--format", "json", "--rules", file}, shard...), tuneCorpus...), &out, &errOut); code != 0 {
				t.Fatalf("replay --rules: exit %d %s", code, errOut.String())
			}
			var rep struct{ Summary analyze.Summary }
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			if got := analyze.Figures(rep.Summary); got != chosen {
				t.Errorf("replay of the file:\n  %s\ntune printed:\n  %s", got, chosen)
			}
			// gate init writes a gate under the file; once its snapshots
			// are recorded, the gate passes (its expectations are the
			// replay's, harmful 0 within a budget of 0).
			gateFile := filepath.Join(dir, "ci", "loopgate.gate.yaml")
			out.Reset()
			if code := run(append([]string{"loopgate", "gate", "init", "--rules", file, "-o", gateFile}, tuneCorpus...), &out, &errOut); code != 0 {
				t.Fatalf("gate init --rules: exit %d %s", code, errOut.String())
			}
			if b, _ := os.ReadFile(gateFile); !strings.Contains(string(b), `rules: "../tuned.yaml"`) {
				t.Errorf("the gate file does not name the tuned rules:\n%s", b)
			}
			if tc.maxHarm == 0 {
				for _, gargs := range [][]string{{"--update", gateFile}, {gateFile}} {
					out.Reset()
					if code := run(append([]string{"loopgate", "gate"}, gargs...), &out, &errOut); code != 0 {
						t.Errorf("gate %v under the tuned rules: exit %d\n%s%s", gargs, code, out.String(), errOut.String())
					}
				}
			}
			home := t.TempDir()
			t.Setenv("HOME", home)
			out.Reset()
			if code := run([]string{"loopgate", "hook", "install", "--agent", "claude-code", "--rules", file}, &out, &errOut); code != 0 {
				t.Fatalf("hook install --rules: exit %d %s", code, errOut.String())
			}
			if b, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json")); !strings.Contains(string(b), "tuned.yaml") {
				t.Errorf("hook install did not name the file: %s", b)
			}
		})
	}
}

// TestTuneMaxHarm: a larger harm budget lets tune choose a setting that
// stops more, where the fixtures have one (nanobot's repeat detector
// makes harmful stops at its own threshold and below).
func TestTuneMaxHarm(t *testing.T) {
	choice := map[int]string{}
	stops := map[int]int{}
	for _, budget := range []int{0, 1, 3} {
		var out, errOut bytes.Buffer
		args := append([]string{"loopgate", "tune", "--tokenizer", "chars4", "--base", "nanobot", "--max-harm", strconv.Itoa(budget)}, tuneCorpus...)
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("budget %d: exit %d %s", budget, code, errOut.String())
		}
		_, harm, stopped := tuneLine(t, out.String(), "chosen:")
		if harm > budget {
			t.Errorf("budget %d: harmful %d", budget, harm)
		}
		if !strings.Contains(out.String(), "Nothing written") {
			t.Errorf("budget %d: without --output tune should only print", budget)
		}
		choice[budget], stops[budget] = chosenSettings(out.String()), stopped
	}
	if choice[0] == choice[3] || stops[3] <= stops[0] {
		t.Errorf("the budget changed nothing: %v, stops %v", choice, stops)
	}
	if stops[1] < stops[0] || stops[3] < stops[1] {
		t.Errorf("a larger budget stopped fewer: %v", stops)
	}
}

// TestTuneUsage: bad flags are usage errors, and an existing file is kept
// without --force.
func TestTuneUsage(t *testing.T) {
	existing := filepath.Join(t.TempDir(), "rules.yaml")
	os.WriteFile(existing, []byte("keep me\n"), 0o644)
	paths := tuneCorpus
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"negative budget", []string{"--max-harm", "-1"}, 2},
		{"unknown preset", []string{"--base", "nope"}, 2},
		{"rules and base", []string{"--base", "nanobot", "--rules", existing}, 2},
		{"bad vary", []string{"--vary", "detectors.repeat.block_at"}, 2},
		{"unknown key", []string{"--vary", "detectors.nothing.block_at=1,2"}, 2},
		{"nothing to search", []string{"--base", "attractor"}, 2},
		{"existing output", []string{"-o", existing}, 2},
		{"unknown flag", []string{"--max-harms", "1"}, 2},
		{"bad shard", []string{"--shard", "3/2"}, 2},
		{"budget nothing keeps to", []string{"--base", "nanobot", "--vary", "detectors.repeat.block_at=2"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append(append([]string{"loopgate", "tune", "--tokenizer", "chars4"}, tc.args...), paths...)
			if code := run(args, &out, &errOut); code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out.String(), errOut.String())
			}
			if b, _ := os.ReadFile(existing); string(b) != "keep me\n" {
				t.Errorf("the existing file was overwritten: %s", b)
			}
		})
	}
}
