package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The GitHub Action (action.yml) runs scripts/action-run.sh after its
// install step. These tests run that script as the runner would, with a
// fake GitHub environment (a step summary file, an output file, the
// workspace) and the built binary on PATH, and check what a user sees: the
// exit status, the annotations, the summary and the step's outputs.

type actionRun struct {
	stdout, summary, output string
	code                    int
}

func runAction(t *testing.T, dir string, inputs map[string]string) actionRun {
	t.Helper()
	bin, _ := builtLoopgate(t)
	tmp := t.TempDir()
	summary, output := filepath.Join(tmp, "summary.md"), filepath.Join(tmp, "output")
	script, err := filepath.Abs(filepath.Join("scripts", "action-run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITHUB_ACTIONS=true",
		"GITHUB_STEP_SUMMARY="+summary,
		"GITHUB_OUTPUT="+output,
		"GITHUB_WORKSPACE="+dir,
		"NO_COLOR=1",
	)
	for k, v := range inputs {
		cmd.Env = append(cmd.Env, "INPUT_"+strings.ToUpper(strings.ReplaceAll(k, "-", "_"))+"="+v)
	}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	s, _ := os.ReadFile(summary)
	o, _ := os.ReadFile(output)
	return actionRun{stdout: string(out), summary: string(s), output: string(o), code: code}
}

func TestActionGate(t *testing.T) {
	t.Parallel()
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// A failing gate: a healthy transcript of the golden set, expected to
	// be blocked, which it is not.
	failing := t.TempDir()
	healthy, err := filepath.Glob(filepath.Join(root, "fixtures", "golden", "healthy", "*.jsonl"))
	if err != nil || len(healthy) == 0 {
		t.Fatalf("no healthy golden transcript: %v", err)
	}
	gateFile := "preset: nanobot\ntokenizer: chars4\nsnapshots: false\ncases:\n" +
		"  - name: must block\n    transcript: " + healthy[0] + "\n    expect: {blocked: \">= 1\"}\n"
	if err := os.WriteFile(filepath.Join(failing, "loopgate.gate.yaml"), []byte(gateFile), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name    string
		dir     string
		inputs  map[string]string
		code    int
		result  string
		stdout  []string // each must appear in the log
		summary []string // each must appear in the step summary
		files   []string // written in dir
	}{
		{
			name:    "passing gate with JUnit and SARIF",
			dir:     root,
			inputs:  map[string]string{"gate-file": "fixtures/golden/loopgate.gate.yaml", "junit": filepath.Join(t.TempDir(), "j.xml"), "sarif": filepath.Join(t.TempDir(), "s.sarif")},
			code:    0,
			result:  "result=pass",
			summary: []string{"loopgate"},
		},
		{
			name:    "failing gate",
			dir:     failing,
			inputs:  map[string]string{},
			code:    1,
			result:  "result=fail",
			stdout:  []string{"::error", "must block"},
			summary: []string{"must block"},
		},
		{
			name:   "preset with a gate file is refused",
			dir:    failing,
			inputs: map[string]string{"preset": "nanobot"},
			code:   2,
			result: "result=error",
			stdout: []string{"::error::preset and rules apply to transcripts"},
		},
		{
			name:    "fresh transcripts under a preset, failing on block",
			dir:     root,
			inputs:  map[string]string{"transcripts": "fixtures/golden/loops/read-loop.jsonl\n", "preset": "nanobot", "fail-on": "block"},
			code:    1,
			result:  "result=fail",
			summary: []string{"nanobot"},
		},
		{
			name:    "fresh healthy transcripts pass",
			dir:     root,
			inputs:  map[string]string{"transcripts": healthy[0], "preset": "nanobot", "fail-on": "block"},
			code:    0,
			result:  "result=pass",
			summary: []string{"nanobot"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runAction(t, tc.dir, tc.inputs)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r.stdout)
			}
			if !strings.Contains(r.output, tc.result) {
				t.Errorf("GITHUB_OUTPUT %q lacks %q", r.output, tc.result)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("log lacks %q:\n%s", s, r.stdout)
				}
			}
			for _, s := range tc.summary {
				if !strings.Contains(r.summary, s) {
					t.Errorf("step summary lacks %q:\n%s", s, r.summary)
				}
			}
			for _, k := range []string{"junit", "sarif"} {
				if p := tc.inputs[k]; p != "" {
					if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
						t.Errorf("%s report %s not written: %v", k, p, err)
					}
					if !strings.Contains(r.output, k+"="+p) {
						t.Errorf("GITHUB_OUTPUT lacks %s=%s: %q", k, p, r.output)
					}
				}
			}
		})
	}
}

// TestActionInstallURL: the install step maps the runner's platform to the
// archive names .goreleaser.yaml gives.
func TestActionInstallURL(t *testing.T) {
	for _, tc := range []struct{ os, arch, want string }{
		{"Linux", "X64", "https://github.com/loopgate/loopgate/releases/download/v1.2.3/loopgate_1.2.3_linux_amd64.tar.gz"},
		{"macOS", "ARM64", "https://github.com/loopgate/loopgate/releases/download/v1.2.3/loopgate_1.2.3_darwin_arm64.tar.gz"},
		{"Windows", "X64", "https://github.com/loopgate/loopgate/releases/download/v1.2.3/loopgate_1.2.3_windows_amd64.zip"},
	} {
		cmd := exec.Command("bash", filepath.Join("scripts", "action-install.sh"))
		cmd.Env = append(os.Environ(), "RUNNER_OS="+tc.os, "RUNNER_ARCH="+tc.arch, "RUNNER_TEMP="+t.TempDir(),
			"INPUT_VERSION=v1.2.3", "LOOPGATE_ACTION_PRINT_URL=1")
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != tc.want {
			t.Errorf("%s/%s: %q (%v), want %s", tc.os, tc.arch, out, err, tc.want)
		}
	}
}

// TestActionInputsWired: every input action.yml declares reaches a step
// (as an INPUT_ variable or an expression), and every INPUT_ variable the
// scripts read is set by action.yml, so an input cannot be silently dropped.
func TestActionInputsWired(t *testing.T) {
	data, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]any `yaml:"inputs"`
		Runs   struct {
			Using string `yaml:"using"`
			Steps []struct {
				Env map[string]string `yaml:"env"`
				Run string            `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", action.Runs.Using)
	}
	text := string(data)
	for name := range action.Inputs {
		if !strings.Contains(text, "inputs."+name+" ") && !strings.Contains(text, "inputs."+name+"}") {
			t.Errorf("input %s is declared but no step uses it", name)
		}
	}
	set := map[string]bool{}
	for _, s := range action.Runs.Steps {
		for k := range s.Env {
			set[k] = true
		}
	}
	for _, script := range []string{"scripts/action-install.sh", "scripts/action-run.sh"} {
		b, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range strings.FieldsFunc(string(b), func(r rune) bool {
			return !(r == '_' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) {
			if strings.HasPrefix(f, "INPUT_") && !set[f] {
				t.Errorf("%s reads %s, which action.yml does not set", script, f)
			}
		}
	}
}
