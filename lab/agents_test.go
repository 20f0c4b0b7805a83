package lab

import (
	"os"
	"path/filepath"
)

// toolset is how one agent names the tools a scenario uses and what
// arguments it expects.
type toolset struct {
	shell func(cmd string) Call
	read  func(path string) Call
	write func(path, content string) Call
	task  func(prompt string) Call // nil: no subagents
}

// agent is one agent's driver: how to configure it in a throwaway home,
// run it headless against the scripted model, and find its transcript.
type agent struct {
	hookAgent string // loopgate hook --agent
	hookScope string // where the hook is installed: user (the box's home) or project
	format    string // the transcript format loopgate reads
	tools     toolset
	// transcripts are patterns (filepath.Match, slash separated) of the
	// agent's transcript files relative to the home or working directory.
	transcripts []string
	// parallel: the agent runs several calls of one model response.
	parallel bool
	// setup writes the agent's configuration into the box.
	setup func(b *box) error
	// prompt runs one user turn (resume: a later turn of the same session).
	prompt func(b *box, text string, resume bool) error
	// known says why a scenario cannot run on this agent ("" if it can).
	known func(sc *scenario) string
}

func (a *agent) skip(sc *scenario) string {
	if sc.needs == "task" && a.tools.task == nil {
		return "the agent has no subagents"
	}
	if sc.needs == "parallel" && !a.parallel {
		return "the agent runs one call per model response"
	}
	if a.known != nil {
		return a.known(sc)
	}
	return ""
}

var agents = map[string]*agent{
	"claude-code": claudeCode,
}

// Claude Code: https://docs.claude.com/en/docs/claude-code/settings (the
// environment variables) and .../headless (-p, stream-json output).
var claudeCode = &agent{
	hookAgent: "claude-code",
	hookScope: "user",
	format:    "claude-code",
	tools: toolset{
		shell: func(cmd string) Call { return Call{"Bash", map[string]any{"command": cmd, "description": "lab"}} },
		read:  func(p string) Call { return Call{"Read", map[string]any{"file_path": p}} },
		write: func(p, c string) Call { return Call{"Write", map[string]any{"file_path": p, "content": c}} },
		task: func(prompt string) Call {
			return Call{"Task", map[string]any{"description": "lab subagent", "prompt": prompt, "subagent_type": "general-purpose"}}
		},
	},
	parallel:    true,
	transcripts: []string{".claude/projects/*/*.jsonl", ".claude/projects/*/*/subagents/*.jsonl"},
	setup: func(b *box) error {
		return os.MkdirAll(filepath.Join(b.home, ".claude"), 0o700)
	},
	prompt: func(b *box, text string, resume bool) error {
		args := []string{"-p", text, "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5",
			"--allowedTools", "Bash,Read,Write,Edit,Task"}
		if resume {
			args = append(args, "--continue")
		}
		return b.run("", []string{
			"ANTHROPIC_BASE_URL=" + b.srv.URL,
			"ANTHROPIC_API_KEY=sk-ant-lab-0000",
			"CLAUDE_CONFIG_DIR=" + filepath.Join(b.home, ".claude"),
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"DISABLE_AUTOUPDATER=1",
			"DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1",
		}, b.l.bin, args...)
	},
}
