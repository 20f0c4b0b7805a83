package lab

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// toolset is how one agent names the tools a scenario uses and what
// arguments it expects.
type toolset struct {
	shell func(cmd string) Call
	read  func(path string) Call
	write func(path, content string) Call
	task  func(prompt string) Call // nil: no subagents
	// loop is the planted loop's command where the agent would not keep
	// the output of the plain one ("" is loopCommand); retry the retry
	// scenario's failing command likewise ("" is retryCommand).
	loop, retry string
}

// retryCommand is the retry scenario's command: it fails the same way
// every time it runs (the path names a file as a directory).
const retryCommand = "cat lab-retry.txt/"

// silentCommand is the silent scenario's command: a read of a file that
// is not there, printing nothing, exit code 1.
const silentCommand = "cat lab-absent.txt 2> /dev/null"

// retryCmd is the agent's failing command for the retry scenario.
func (ts toolset) retryCmd() string {
	if ts.retry != "" {
		return ts.retry
	}
	return retryCommand
}

// loopCommand is the loop scenario's command: a command whose output is
// the same every time it runs.
const loopCommand = "echo lab-loop"

// loopCmd is the agent's command for the planted loop.
func (ts toolset) loopCmd() string {
	if ts.loop != "" {
		return ts.loop
	}
	return loopCommand
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
	// session, where set, runs a scenario's several prompts as the turns
	// of one session in one process of the agent, before(i) before prompt
	// i (an agent that cannot resume a session headless: Cline).
	session func(b *box, prompts []string, before func(i int) error) error
	// known says why a scenario cannot run on this agent ("" if it can).
	known func(sc *scenario) string
	// ownLoopCut: the agent's own guard, which no setting turns off, ends
	// the run at this identical call in a row, before its hooks see the
	// call (0: none). A scenario with a longer run of identical calls is
	// played up to it: agentFit. (ownLoopStop, below, is for agents whose
	// guard lets the hooks see the calls before it stops the loop.)
	ownLoopCut int
	// ownCutLingers says why the agent may not exit after its own guard
	// (ownLoopCut) ended the run ("" where it exits): the lab then ends
	// it once the model has been asked for the cut call and nothing more
	// came (box.over). Any other run that does not exit still fails at
	// runLimit.
	ownCutLingers string
	// runs are the agent's runs of a scenario in place of the scenario's
	// own, where the agent's results make a preset's expectations wrong
	// (each says why).
	runs map[string][]run
	// haltGoesOn says why no hook answer can end the agent's run ("" where
	// a halt does): the lab then checks what loopgate does instead, that
	// the halt's message reaches the model and every later call of the
	// turn is denied.
	haltGoesOn string
	// ownLoopStop is the identical call at which the agent's own guard
	// ends a loop (0: none): the hook's actions from that call on cannot
	// be seen, and are not checked (live equals replay still is).
	ownLoopStop int
	// ownLoopAborts: the agent's guard aborts the ownLoopStop-th call
	// itself (an error result), so the plain run of the loop reads as that
	// many calls, the last an error, and the ones between the first and
	// the last redundant.
	ownLoopAborts bool
	// blockEnds says why a block ends the agent's run ("" where the agent
	// denies one call and goes on): the lab then checks that the model got
	// no further request, and nothing after the block.
	blockEnds string
	// http: the hook is installed as the agent's HTTP hooks (`hook install
	// --http`), answered by a `loopgate hook serve` the box starts.
	http bool
	// flaky says why a scenario of this agent may fail now and then for a
	// cause of the agent's own ("" where none is known): a failed scenario
	// is then run once more, and its line says the first run's failures.
	flaky string
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
	"claude-code":      claudeCode,
	"claude-code-http": httpVariant(claudeCode),
	"codex":            codex,
	"gemini":           gemini,
	"qwen-code":        qwenCode,
	"qwen-code-http":   httpVariant(qwenCode),
	"opencode":         openCode,
	"opencode-http":    httpVariant(openCode),
	"pi":               pi,
	"pi-http":          httpVariant(pi),
	"cline":            clineCLI,
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
	parallel: true,
	// Claude Code 2.1's Task ("Agent" in the API) starts the subagent and
	// returns at once; its result arrives as a <task-notification> user
	// message, for which Claude Code fires UserPromptSubmit. Nobody typed
	// it: the reader keeps it as a notice inside the delegating turn
	// (ingest.Notice), not a turn of its own, and replay hears it there as
	// the hook hears the prompt event.
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

// httpVariant is an agent with its hooks posted to `loopgate hook serve`:
// Claude Code's and Qwen Code's hooks of type "http", and loopgate's own
// OpenCode plugin and pi extension installed with --http.
func httpVariant(a *agent) *agent {
	v := *a
	v.http = true
	return &v
}

// qwenLoop is the planted loop's command for Qwen Code: one with no
// output. A headless run (-p) of Qwen Code 0.24.4 runs shell commands
// without a pty (tools.shell.enableInteractiveShell defaults to false for
// a one-shot prompt, chunks/chunk-WH7PDTZL.js), and that path
// (ShellExecutionService.childProcessFallback, chunks/chunk-QXQMBRGL.js)
// settles the result on the child's "exit" event, not "close", when the
// stdout pipe may not have been read yet: now and then an identical echo
// returned "Output: (empty)", even with 50 ms of work after the echo on
// a loaded machine (docs/lab.md). The model was sent another result, and
// loopgate reads it so; a command that prints nothing has nothing to
// lose, so its results stay identical.
const qwenLoop = loopCommand + " > /dev/null"

// qwenRetry is the retry scenario's failing command for Qwen Code, its
// error message sent nowhere for the same reason: CI saw the two failing
// cats' results differ twice under load (docs/lab.md), the race above. It
// lists the file as a folder (ls exits 2, "cannot access"), not cat's exit
// 1: a reading command that prints nothing and exits 1 found nothing,
// which loopgate answers (the silent scenario), where the retry scenario
// is about a failure steered.
const qwenRetry = "ls lab-retry.txt/ 2> /dev/null"

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o600)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Codex: https://developers.openai.com/codex/config-reference (model
// providers: base_url, wire_api, env_key) and .../codex/hooks (the
// codex_hooks feature, hooks.json); `codex exec --help` of the pinned
// version for --json, --skip-git-repo-check and --dangerously-bypass-hook-trust
// (user hooks are skipped unless trusted). Its shell tool is exec_command
// {cmd}; it has no file tools of its own, so reads and writes are commands.
var codex = &agent{
	hookAgent: "codex",
	hookScope: "user",
	format:    "codex",
	tools: toolset{
		shell: codexShell,
		read:  func(p string) Call { return codexShell("cat " + p) },
		write: func(p, c string) Call { return codexShell("printf '%s' " + shellQuote(c) + " > " + p) },
	},
	parallel:    true,
	transcripts: []string{".codex/sessions/*/*/*/rollout-*.jsonl"},
	// Codex 0.171.0 drops a PreToolUse answer holding "continue" or
	// "stopReason", a PostToolUse "continue": false only replaces the
	// tool's output, and a Stop hook runs when the turn is over anyway
	// (docs/live.md, the Codex row).
	haltGoesOn: "no hook answer ends a Codex turn",
	setup: func(b *box) error {
		return writeFile(filepath.Join(b.home, ".codex", "config.toml"), `model = "gpt-5-codex"
model_provider = "lab"
check_for_update_on_startup = false

[model_providers.lab]
name = "lab"
base_url = "`+b.srv.URL+`/v1"
wire_api = "responses"
env_key = "LAB_API_KEY"

[features]
codex_hooks = true

[analytics]
enabled = false
`)
	},
	prompt: func(b *box, text string, resume bool) error {
		args := []string{"exec"}
		if resume {
			args = append(args, "resume", "--last")
		}
		args = append(args, "--skip-git-repo-check", "--json", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", text)
		return b.run("", []string{"CODEX_HOME=" + filepath.Join(b.home, ".codex"), "LAB_API_KEY=sk-lab-0000"}, b.l.bin, args...)
	},
}

func codexShell(cmd string) Call { return Call{"exec_command", map[string]any{"cmd": cmd}} }

// Gemini CLI: docs/get-started/authentication.md and
// docs/reference/configuration.md of google-gemini/gemini-cli (the
// GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY variables; settings
// security.auth.selectedType, model.disableLoopDetection,
// hooksConfig.enabled, general.disableAutoUpdate, privacy and telemetry),
// and the pinned version's own refusal to run in an untrusted folder
// without GEMINI_CLI_TRUST_WORKSPACE=true. -m names a model: the default
// router retries a model it cannot reach. Its tools, from the requests it
// sends: run_shell_command{command}, read_file{file_path},
// write_file{file_path, content}.
var gemini = &agent{
	hookAgent: "gemini",
	hookScope: "user",
	format:    "gemini-cli",
	tools: toolset{
		shell: func(cmd string) Call { return Call{"run_shell_command", map[string]any{"command": cmd}} },
		read:  func(p string) Call { return Call{"read_file", map[string]any{"file_path": p}} },
		write: func(p, c string) Call { return Call{"write_file", map[string]any{"file_path": p, "content": c}} },
	},
	parallel:    true,
	transcripts: []string{".gemini/tmp/*/chats/*.jsonl", ".gemini/tmp/*/chats/*.json"},
	// hermes' presets compare results as hermes-agent does, envelope
	// included (results.envelope keep), and every run_shell_command
	// result of Gemini CLI 0.61.0 ends with the run's own "Process Group
	// PGID: N" (packages/core/src/tools/shell.ts): no two results are the
	// same, so hermes' stall detector never steers or halts the planted
	// loop, live or in replay. The steer is checked by retry (AfterTool
	// additionalContext); the halt by the gemini-cli preset, Gemini CLI's
	// own tool-call loop (its loop detection is off in the lab): call 5
	// blocked with its feedback, call 6 halted.
	runs: map[string][]run{"loop": {
		{read: true},
		{preset: "loopgate", actions: []liveAction{{2, "dedup"}, {6, "dedup"}}},
		{preset: "gemini-cli", actions: []liveAction{{5, "block"}, {6, "halt"}}},
	}},
	setup: func(b *box) error {
		// Gemini CLI's own loop detection stops a run after 5 identical
		// calls; the planted loop has 6.
		return writeFile(filepath.Join(b.home, ".gemini", "settings.json"), `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "model": {"disableLoopDetection": true},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "hooksConfig": {"enabled": true}
}
`)
	},
	prompt: func(b *box, text string, resume bool) error {
		args := []string{"-p", text, "-m", "gemini-2.5-pro", "--approval-mode", "yolo"}
		if resume {
			args = append(args, "--resume", "latest")
		}
		return b.run("", []string{"GEMINI_API_KEY=lab-key-0000", "GOOGLE_GEMINI_BASE_URL=" + b.srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true"}, b.l.bin, args...)
	},
}

// Qwen Code: docs/users/configuration/settings.md and auth.md of
// QwenLM/qwen-code (OpenAI-compatible: OPENAI_API_KEY, OPENAI_BASE_URL,
// OPENAI_MODEL with security.auth.selectedType "openai"); headless -p with
// --approval-mode yolo, --continue for the next turn. Its tools, from the
// requests it sends: run_shell_command{command}, read_file{file_path},
// write_file{file_path, content}, agent{description, prompt, subagent_type}.
// It needs Node 22 (engines.node), which scripts/lab.sh provides.
var qwenCode = &agent{
	hookAgent: "qwen-code",
	hookScope: "user",
	format:    "qwen-code",
	// Its headless shell settles a command's result at the child's exit,
	// when its output may not have been read (qwenLoop): a result that
	// comes back empty now and then, under load (docs/lab.md).
	flaky: "Qwen Code's headless shell may lose a command's output (docs/lab.md)",
	tools: toolset{
		shell: func(cmd string) Call { return Call{"run_shell_command", map[string]any{"command": cmd}} },
		read:  func(p string) Call { return Call{"read_file", map[string]any{"file_path": p}} },
		write: func(p, c string) Call { return Call{"write_file", map[string]any{"file_path": p, "content": c}} },
		task: func(prompt string) Call {
			return Call{"agent", map[string]any{"description": "lab subagent", "prompt": prompt, "subagent_type": "general-purpose"}}
		},
		loop:  qwenLoop,
		retry: qwenRetry,
	},
	parallel: true,
	// A subagent's chat: projects/<p>/subagents/<session>/agent-<id>.jsonl.
	transcripts: []string{".qwen/projects/*/chats/*.jsonl", ".qwen/projects/*/subagents/*/*.jsonl"},
	// Qwen Code 0.24.4's always-on loop guard ends the run at the 5th
	// identical call in a row (LoopDetectionService.checkToolCallLoop,
	// TOOL_CALL_LOOP_THRESHOLD = 5, in the published bundle's
	// chunks/chunk-DPEB6S2R.js; "cannot be disabled via
	// model.skipLoopDetection"): it stops the model's response that asks
	// for it, before the scheduler or a hook sees the call, and the run
	// exits 1 with "Loop detection halted the run".
	ownLoopCut: 5,
	// After that stop Qwen Code 0.24.4 printed its error result and, in
	// most lab runs, did not exit: each run waited out runLimit.
	ownCutLingers: "Qwen Code 0.24.4 often does not exit after its loop guard ends the run",
	setup: func(b *box) error {
		return writeFile(filepath.Join(b.home, ".qwen", "settings.json"), `{
  "security": {"auth": {"selectedType": "openai"}},
  "model": {"name": "lab-model"},
  "general": {"disableAutoUpdate": true},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`)
	},
	prompt: func(b *box, text string, resume bool) error {
		args := []string{"-p", text, "--approval-mode", "yolo", "--output-format", "stream-json"}
		if resume {
			args = append(args, "--continue")
		}
		return b.run("", []string{"OPENAI_API_KEY=sk-lab-0000", "OPENAI_BASE_URL=" + b.srv.URL + "/v1", "OPENAI_MODEL=lab-model",
			"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"}, b.l.bin, args...)
	},
}

// OpenCode: https://opencode.ai/docs/providers (a custom provider through
// @ai-sdk/openai-compatible with options.baseURL), .../docs/config
// (autoupdate, share), .../docs/cli (`opencode run`, --continue). Tool hooks
// are a plugin (tool.execute.before/after) that `loopgate hook install
// --agent opencode` writes. Its tools: bash{command, description},
// read{filePath}, write{filePath, content}, task{description, prompt,
// subagent_type}. Sessions live in opencode.db.
var openCode = &agent{
	hookAgent: "opencode",
	hookScope: "user",
	format:    "opencode",
	tools: toolset{
		shell: func(cmd string) Call { return Call{"bash", map[string]any{"command": cmd, "description": "lab"}} },
		read:  func(p string) Call { return Call{"read", map[string]any{"filePath": p}} },
		write: func(p, c string) Call { return Call{"write", map[string]any{"filePath": p, "content": c}} },
		task: func(prompt string) Call {
			return Call{"task", map[string]any{"description": "lab subagent", "prompt": prompt, "subagent_type": "general"}}
		},
	},
	parallel:    true,
	transcripts: []string{".local/share/opencode/opencode.db"},
	// No ownLoopStop: OpenCode's doom-loop check (the user is asked before
	// a 3rd identical call, which a headless run refuses) looks at the last
	// three parts of the current assistant message only
	// (SessionProcessor's tool-call case, packages/opencode/src/session/
	// processor.ts; the same in the 1.18.33 binary), and OpenCode 1.18.33
	// records each model response as an assistant message of its own: the
	// lab's loop, one call per response, never meets it (its plain run
	// reads 6 calls).
	setup: func(b *box) error {
		return writeFile(filepath.Join(b.home, ".config", "opencode", "opencode.json"), `{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "model": "lab/lab-model",
  "provider": {
    "lab": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "lab",
      "options": {"baseURL": "`+b.srv.URL+`/v1", "apiKey": "sk-lab-0000"},
      "models": {"lab-model": {"name": "lab-model"}}
    }
  }
}
`)
	},
	prompt: func(b *box, text string, resume bool) error {
		args := []string{"run", "--model", "lab/lab-model"}
		if resume {
			args = append(args, "--continue")
		}
		// Without these the pinned version fetches its model list from
		// models.dev and language servers, and waits on them.
		return b.run("", []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_MODELS_FETCH=1",
			"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1"}, b.l.bin, append(args, text)...)
	},
}

// pi: packages/coding-agent/docs/models.md of badlogic/pi-mono (a custom
// provider in ~/.pi/agent/models.json with api "openai-completions"),
// its README (print mode -p, --provider, --model, -c to continue). Tool
// hooks are an extension (pi.on("tool_call"/"tool_result")) that
// `loopgate hook install --agent pi` writes. Its tools: bash{command},
// read{path}, write{path, content}.
var pi = &agent{
	hookAgent: "pi",
	hookScope: "user",
	format:    "pi",
	tools: toolset{
		shell: func(cmd string) Call { return Call{"bash", map[string]any{"command": cmd}} },
		read:  func(p string) Call { return Call{"read", map[string]any{"path": p}} },
		write: func(p, c string) Call { return Call{"write", map[string]any{"path": p, "content": c}} },
	},
	parallel:    true,
	transcripts: []string{".pi/agent/sessions/*/*.jsonl"},
	setup: func(b *box) error {
		return writeFile(filepath.Join(b.home, ".pi", "agent", "models.json"), `{
  "providers": {
    "lab": {
      "baseUrl": "`+b.srv.URL+`/v1",
      "api": "openai-completions",
      "apiKey": "sk-lab-0000",
      "models": [{"id": "lab-model", "name": "lab-model", "reasoning": false, "input": ["text"],
        "contextWindow": 128000, "maxTokens": 16000, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}]
    }
  }
}
`)
	},
	prompt: func(b *box, text string, resume bool) error {
		args := []string{"-p", "--provider", "lab", "--model", "lab-model"}
		if resume {
			args = append(args, "-c")
		}
		return b.run("", []string{"PI_SKIP_VERSION_CHECK=1"}, b.l.bin, append(args, text)...)
	},
}

// Cline CLI 3.0.65 (npm cline, built on @cline/core and @cline/agents
// 0.0.86): `cline auth -p openai-compatible -k KEY -m MODEL -b URL` writes
// the provider to ~/.cline/data/settings/providers.json, which setup
// writes directly (the auth command takes most of a minute to start);
// `cline --json PROMPT` runs one turn headless with the last used
// provider (a later turn of the session cannot be run headless:
// clineNoResume). CLINE_SESSION_BACKEND_MODE=local keeps
// it from starting its hub daemon, which outlives the run (@cline/core
// dist/index.js: the backend mode "auto" starts one). Hooks are the
// executable files PreToolUse, PostToolUse, ... in .clinerules/hooks of the
// workspace (@cline/shared storage: resolveHooksConfigSearchPaths), fed
// the runtime hook's payload (hookName tool_call, tool_result, ...). Its
// tools, from the requests it sends: run_commands{commands: [...]},
// read_files{files: [{path}]}, editor{path, old_text, new_text}; writes are
// commands here, as editor needs the old text. Sessions are
// ~/.cline/data/sessions/<id>/<id>.messages.json.
var clineCLI = &agent{
	hookAgent: "cline",
	hookScope: "project",
	format:    "cline-cli",
	tools: toolset{
		shell: clineShell,
		read: func(p string) Call {
			return Call{"read_files", map[string]any{"files": []any{map[string]any{"path": p}}}}
		},
		write: func(p, c string) Call { return clineShell("printf '%s' " + shellQuote(c) + " > " + p) },
	},
	transcripts: []string{".cline/data/sessions/*/*.messages.json"},
	// @cline/core 0.0.86's loop tracker: a warning at the 3rd identical
	// call in a row, the run stopped at the 5th (softThreshold 3,
	// hardThreshold 5), with no setting to turn it off from the CLI.
	ownLoopStop:   5,
	ownLoopAborts: true,
	blockEnds:     "Cline has no per-call deny: loopgate cancels the run",
	setup: func(b *box) error {
		return writeFile(filepath.Join(b.home, ".cline", "data", "settings", "providers.json"), `{
  "version": 1,
  "lastUsedProvider": "openai-compatible",
  "modes": {},
  "providers": {
    "openai-compatible": {
      "settings": {"provider": "openai-compatible", "apiKey": "sk-lab-0000", "model": "lab-model", "baseUrl": "`+b.srv.URL+`/v1"},
      "updatedAt": "2026-01-01T00:00:00.000Z",
      "tokenSource": "manual"
    }
  }
}
`)
	},
	prompt: func(b *box, text string, resume bool) error {
		// The provider and model are the file's last used ones: -P and -m
		// on the command line would write a provider without the base URL.
		if resume {
			return errors.New(clineNoResume)
		}
		return b.run("", []string{"CLINE_SESSION_BACKEND_MODE=local"}, b.l.bin, "--json", text)
	},
	// Several prompts are turns of one session of `cline --acp` (clineACP).
	session: func(b *box, prompts []string, before func(i int) error) error {
		return b.acpSession([]string{"CLINE_SESSION_BACKEND_MODE=local", "CLINE_PROVIDER=openai-compatible",
			"CLINE_MODEL=lab-model", "CLINE_API_KEY=sk-lab-0000"}, prompts, before, b.l.bin, "--acp", "--auto-approve", "true")
	},
}

// clineACP: Cline CLI 3.0.65 cannot resume a session headless
// (clineNoResume), but `cline --acp` speaks the Agent Client Protocol on
// its standard input and output and takes a session/prompt per user turn
// in one session (its ACP agent's prompt: sessionManager.send to the
// session's active id; the binary's bundled ACP chunk): the lab's
// acpSession. Its newSession takes the provider from CLINE_PROVIDER, and
// CLINE_API_KEY stands for the sign-in it otherwise asks for
// (isSessionReady); the base URL is the provider file's. `--auto-approve
// true` approves every tool (requestToolApproval), so the agent asks the
// lab nothing. It writes the session where `cline --json` does.

// clineNoResume: Cline CLI 3.0.65 cannot take a later user turn of a
// session headless. Its main command (the CLI binary's bundled entry)
// turns `--id SESSION` into the interactive chat and drops the prompt
// (startupTarget "chat", interactive true, prompt undefined); with --json
// it then exits 1 with "JSON output mode requires a prompt argument or
// piped stdin (interactive mode is unsupported)", and without it the chat
// needs a terminal. Its other commands (auth, config, history, hook, hub,
// schedule, ...) run no turn of an existing session.
const clineNoResume = "Cline CLI 3.0.65 resumes a session (--id) only in its interactive chat, which a headless run cannot drive"

func clineShell(cmd string) Call { return Call{"run_commands", map[string]any{"commands": []any{cmd}}} }
