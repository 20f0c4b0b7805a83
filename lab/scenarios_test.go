package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// wantCall is one call a scenario's transcript must show, in order.
type wantCall struct {
	kind      string // shell, read, write, task: the toolset's tool
	arg       string // a text the call's arguments hold
	err       bool   // the result is an error
	minResult int    // the result is at least this many characters
	sub       bool   // the call is the subagent's
	// denied: the hook denied the call (a dedup) in the run that is read,
	// so its result is the hook's answer, an error or not as the agent
	// records a denied call.
	denied bool
}

// liveAction is an action the hook must take on a call of the main
// conversation (1-based, as the decision log numbers them).
type liveAction struct {
	call   int
	action string // steer, block, dedup, halt
}

// run is one run of the agent in a scenario: with loopgate installed as its
// hook under preset (or, with preset "", without it).
type run struct {
	preset string
	// read: the reading check runs on this run's transcript.
	read bool
	// actions the hook must take; every other call is allowed (the
	// decisions are also checked against a replay of the run).
	actions []liveAction
	// down: an agent's HTTP variant only: the hooks are installed, but
	// no server answers at their address. The hook fails open: every call
	// runs, and the transcript reads as the plain run's (read).
	down bool
}

// seenText is a text the request after the main conversation's call
// (1-based) must hold.
type seenText struct {
	call int
	text string
}

type scenario struct {
	name    string
	needs   string // "task", "parallel" or ""
	prompts []string
	files   map[string]string // the working directory's files before the run
	// later are files written anew before a later prompt (by the
	// prompt's index): what the user changed between the turns.
	later map[int]map[string]string
	// seen are texts the model must be sent after a call, in every run:
	// what reached the model, read from the server's recorded requests.
	seen []seenText
	// script is what the model says: the main conversation's turns, and
	// the subagent's.
	script func(ts toolset, dir string) (main, sub []Turn)
	// The expected reading: the main session's turns, every call (the
	// main session's, then the subagent's), and how many calls of the main
	// session are redundant.
	turns     int
	calls     []wantCall
	redundant int
	runs      []run
	// ownStop: the agent's own guard ends the run at this call (agentFit).
	ownStop int
}

func (sc *scenario) marker() string    { return "LAB-" + strings.ToUpper(sc.name) }
func (sc *scenario) subMarker() string { return "LABSUB-" + strings.ToUpper(sc.name) }

func repeatTurns(c Call, n int) []Turn {
	var out []Turn
	for range n {
		out = append(out, Turn{Calls: []Call{c}})
	}
	return out
}

func calls(c ...Call) Turn { return Turn{Calls: c} }

func text(s string) Turn { return Turn{Text: s} }

// longLines is how many lines the long result has: `seq 1 5000` prints
// 23,893 characters. Some agents cut what the model sees (Codex keeps about
// 10,000 characters of a command's output): the reading must have at least
// 8,000.
const longLines = 5000

var scenarios = []*scenario{
	{
		// The same shell command with identical output, six times: a planted
		// loop. Shell, because the agents' own guards stub or stop repeated
		// reads (Claude Code, Qwen Code) and identical calls (Gemini CLI, Cline
		// after five). Under loopgate the second call is answered with a
		// pointer to the first one's result (a dedup: the deny's reason); under
		// hermes the third is steered; hermes-strict halts at the fifth.
		name:    "loop",
		prompts: []string{"Print the lab word."},
		script: func(ts toolset, dir string) ([]Turn, []Turn) {
			return append(repeatTurns(ts.shell(ts.loopCmd()), 6), text("Done.")), nil
		},
		turns:     1,
		calls:     slices.Repeat([]wantCall{{kind: "shell", arg: loopCommand}}, 6),
		redundant: 5,
		runs: []run{
			{read: true},
			{preset: "loopgate", actions: []liveAction{{2, "dedup"}, {6, "dedup"}}},
			{preset: "hermes", actions: []liveAction{{3, "steer"}}},
			{preset: "hermes-strict", actions: []liveAction{{3, "steer"}, {5, "halt"}}},
			{preset: "loopgate", down: true, read: true},
		},
	},
	{
		// The same read before and after a write that changed the file: the
		// second read brought new information, so it is not redundant and
		// loopgate lets it run.
		name:    "readwrite",
		prompts: []string{"Change the file."},
		files:   map[string]string{"notes.txt": "lab-one\n"},
		script: func(ts toolset, dir string) ([]Turn, []Turn) {
			p := filepath.Join(dir, "notes.txt")
			return []Turn{calls(ts.read(p)), calls(ts.write(p, "lab-two\n")), calls(ts.read(p)), text("Done.")}, nil
		},
		turns:     1,
		calls:     []wantCall{{kind: "read", arg: "notes.txt"}, {kind: "write", arg: "lab-two"}, {kind: "read", arg: "notes.txt"}},
		redundant: 0,
		runs:      []run{{preset: "loopgate", read: true}},
	},
	{
		// A failing command retried unchanged: loopgate steers the second
		// failure. The file read as a folder ("Not a directory"): a
		// failure that is no missing path (a read of a missing file
		// repeated is answered instead: dedup.answer_missing).
		name:    "retry",
		prompts: []string{"Show the file."},
		files:   map[string]string{"lab-retry.txt": "lab-retry\n"},
		script: func(ts toolset, dir string) ([]Turn, []Turn) {
			return append(repeatTurns(ts.shell(ts.retryCmd()), 2), text("It is not there.")), nil
		},
		turns:     1,
		calls:     slices.Repeat([]wantCall{{kind: "shell", arg: "lab-retry.txt", err: true}}, 2),
		redundant: 1,
		runs:      []run{{preset: "loopgate", read: true, actions: []liveAction{{2, "steer"}}}},
	},
	{
		// A read that fails silently, run again unchanged: the file is not
		// there and cat's error goes to /dev/null, so the command prints
		// nothing and exits 1, the same both times, and nothing created the
		// file between. loopgate answers the second from the first
		// (dedup.answer_missing: a reading command's exit code 1 with no
		// output), as each agent writes it: Claude Code's "Exit code 1",
		// pi's "(no output)" and its exit line, Cline's "[Command exited
		// with code 1]", Gemini CLI's and Qwen Code's "Output: (empty)" and
		// "Exit Code: 1", Codex's output alone, its hook reading the exit
		// code from the rollout, and OpenCode's "(no output)", its plugin
		// sending the exit code from the result's metadata. grep's "no
		// match" is not the command: Claude Code and Qwen Code record
		// grep's exit code 1 as no error.
		name:    "silent",
		prompts: []string{"Show the absent file."},
		script: func(ts toolset, dir string) ([]Turn, []Turn) {
			return append(repeatTurns(ts.shell(silentCommand), 2), text("It is not there.")), nil
		},
		turns:     1,
		calls:     slices.Repeat([]wantCall{{kind: "shell", arg: "lab-absent", err: true}}, 2),
		redundant: 1,
		runs: []run{
			{read: true},
			{preset: "loopgate", actions: []liveAction{{2, "dedup"}}},
		},
	},
	{
		// Two calls in one model response.
		name:    "parallel",
		needs:   "parallel",
		prompts: []string{"Read both files."},
		files:   map[string]string{"a.txt": "lab-a\n", "b.txt": "lab-b\n"},
		script: func(ts toolset, dir string) ([]Turn, []Turn) {
			return []Turn{calls(ts.read(filepath.Join(dir, "a.txt")), ts.read(filepath.Join(dir, "b.txt"))), text("Done.")}, nil
		},
		turns:     1,
		calls:     []wantCall{{kind: "read", arg: "a.txt"}, {kind: "read", arg: "b.txt"}},
		redundant: 0,
		runs:      []run{{preset: "loopgate", read: true}},
	},
	{
		// A subagent that runs a command of its own: a session of its own.
		name:    "subagent",
		needs:   "task",
		prompts: []string{"Delegate."},
		script: func(ts toolset, dir string) ([]Turn, []Turn) {
			return []Turn{calls(ts.task("LABSUB-SUBAGENT: print the sub word.")), text("Done.")},
				[]Turn{calls(ts.shell("echo lab-sub")), text("Printed.")}
		},
		turns:     1,
		calls:     []wantCall{{kind: "task", arg: "LABSUB-SUBAGENT"}, {kind: "shell", arg: "echo lab-sub", sub: true}},
		redundant: 0,
		runs:      []run{{preset: "loopgate", read: true}},
	},
	{
		// Three user turns, the same read in each; the agent resumes its
		// session for each later turn (agent.prompt), so the hook's state
		// spans three agent processes. The preset clears what it knew at
		// each user message (scope.reset: turn: between turns the user may
		// change any file unsaid), so the read runs in every turn, whatever
		// the prompt says: the second returns what the first did (a
		// repeat, which the reading counts), and before the third the user
		// changes the file: the model is sent the new content (seen, from
		// the server's recorded requests).
		name:    "turns",
		prompts: []string{"Print the lab word.", "Print it once more.", "I changed lab-two.txt: print it again."},
		files:   map[string]string{"lab-two.txt": "lab-two\n"},
		later:   map[int]map[string]string{2: {"lab-two.txt": "lab-two-changed\n"}},
		seen:    []seenText{{2, "lab-two"}, {3, "lab-two-changed"}},
		script: func(ts toolset, dir string) ([]Turn, []Turn) {
			c := ts.shell("cat lab-two.txt")
			return []Turn{calls(c), text("Printed."), calls(c), text("Printed again."), calls(c), text("Printed the new one.")}, nil
		},
		turns: 3,
		calls: []wantCall{
			{kind: "shell", arg: "cat lab-two.txt"},
			{kind: "shell", arg: "cat lab-two.txt"},
			{kind: "shell", arg: "cat lab-two.txt"},
		},
		// The reading is of the run with the hook: call 2 returned what
		// call 1 did (redundant, in hindsight), call 3 the new content.
		redundant: 1,
		runs:      []run{{preset: "loopgate", read: true}},
	},
	{
		// A long result, read whole.
		name:    "long",
		prompts: []string{"Count."},
		script: func(ts toolset, dir string) ([]Turn, []Turn) {
			return []Turn{calls(ts.shell(fmt.Sprintf("seq 1 %d", longLines))), text("Counted.")}, nil
		},
		turns:     1,
		calls:     []wantCall{{kind: "shell", arg: "seq 1", minResult: 8000}},
		redundant: 0,
		runs:      []run{{preset: "loopgate", read: true}},
	},
}

// scenario runs the three checks of one scenario: the reading of the
// transcript the agent wrote, the live run with loopgate as its hook, and
// the hook's decisions against a replay of that run's transcript.
func (l *lab) scenario(sc *scenario) []string {
	var fails []string
	sc = agentFit(l.agent, sc)
	for _, r := range sc.runs {
		what := "live " + r.preset
		switch {
		case r.down && !l.agent.http:
			continue
		case r.down:
			what = "server down"
		case r.preset == "":
			what = "plain"
		}
		b, files, err := l.play(sc, r.preset, r.down)
		if err != nil {
			fails = append(fails, what+" run: "+err.Error())
			continue
		}
		main, _ := sc.script(l.agent.tools, b.work)
		if sc.ownStop > 0 {
			if m, step := b.srv.MaxStep(sc.marker()), stepOf(main, sc.ownStop); m > step {
				fails = append(fails, fmt.Sprintf("%s: the agent's own guard did not end the run at call %d: the model got %d more requests", what, sc.ownStop, m-step))
			}
		}
		for _, w := range sc.seen {
			if endsAt := blockEndsAt(l.agent, r); endsAt > 0 && w.call > endsAt {
				continue // the agent's run ended at the block (agent.blockEnds)
			}
			if next := b.srv.AtStep(sc.marker(), stepOf(main, w.call)+1); next == nil || !next.Contains(w.text) {
				fails = append(fails, fmt.Sprintf("%s: the model was not sent %q after call %d", what, w.text, w.call))
			}
		}
		if r.read {
			for _, f := range l.checkReading(sc, b, files) {
				fails = append(fails, "reading: "+f)
			}
		}
		if r.preset != "" && !r.down {
			for _, f := range l.checkLive(sc, r, b, files) {
				fails = append(fails, what+": "+f)
			}
		}
	}
	return fails
}

// play runs the scenario's prompts through the agent against a fresh
// scripted model, with or without the hook, and returns the transcripts.
func (l *lab) play(sc *scenario, preset string, down bool) (*box, []string, error) {
	hook := preset != ""
	ts := l.agent.tools
	// The box's working directory is known only once it exists; the script
	// is built against it.
	b := l.newBox(nil, hook, preset)
	b.down = down
	main, sub := sc.script(ts, b.work)
	scripts := []Script{{Marker: sc.marker(), Turns: main}}
	if sub != nil {
		scripts = append(scripts, Script{Marker: sc.subMarker(), Turns: sub})
	}
	srv, err := Start(scripts...)
	if err != nil {
		return nil, nil, err
	}
	l.t.Cleanup(func() { srv.Close() })
	b.srv = srv
	for name, content := range sc.files {
		if err := os.WriteFile(filepath.Join(b.work, name), []byte(content), 0o644); err != nil {
			return nil, nil, err
		}
	}
	if err := l.agent.setup(b); err != nil {
		return nil, nil, fmt.Errorf("setup: %v", err)
	}
	if hook {
		if err := b.installHook(); err != nil {
			return nil, nil, err
		}
	}
	if sc.ownStop > 0 && l.agent.ownCutLingers != "" {
		// The agent's own guard ends the run at call ownStop, and the
		// agent may not exit then: the run is over once the model has
		// answered with that call and nothing more came.
		b.over = overAfter(srv, sc.marker(), stepOf(main, sc.ownStop), overQuiet)
	}
	texts := slices.Clone(sc.prompts)
	texts[0] = sc.marker() + ": " + texts[0]
	// before writes the files the user changed before prompt i.
	before := func(i int) error {
		for name, content := range sc.later[i] {
			if err := os.WriteFile(filepath.Join(b.work, name), []byte(content), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	if l.agent.session != nil && len(texts) > 1 {
		// The agent takes every prompt in one process (agent.session).
		if err := l.agent.session(b, texts, before); err != nil && !hook && sc.ownStop == 0 {
			return nil, nil, fmt.Errorf("%v: %s", err, b.tail())
		}
	} else {
		for i, text := range texts {
			if err := before(i); err != nil {
				return nil, nil, err
			}
			// An agent whose own guard ends the run (ownStop) fails its
			// command; the checks say whether it stopped where it should.
			if err := l.agent.prompt(b, text, i > 0); err != nil && !hook && sc.ownStop == 0 {
				return nil, nil, fmt.Errorf("%v: %s", err, b.tail())
			}
		}
	}
	files := b.transcripts()
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("no transcript found (%d requests reached the model): %s", len(srv.Requests()), b.tail())
	}
	return b, files, nil
}

type inspectReport struct {
	Sessions []struct {
		File     string `json:"file"`
		Format   string `json:"format"`
		ID       string `json:"id"`
		Agent    string `json:"agent"`
		Turns    int    `json:"turns"`
		Calls    int    `json:"calls"`
		CallList []struct {
			Turn        int    `json:"turn"`
			Call        int    `json:"call"`
			Tool        string `json:"tool"`
			Args        string `json:"args"`
			ResultChars int    `json:"result_chars"`
			IsError     bool   `json:"is_error"`
			HasResult   bool   `json:"has_result"`
		} `json:"call_list"`
	} `json:"sessions"`
	Problems []struct {
		File    string `json:"file"`
		Line    int    `json:"line"`
		Message string `json:"message"`
	} `json:"problems"`
}

type replayReport struct {
	Sessions []struct {
		Agent     string `json:"agent"`
		Calls     int    `json:"calls"`
		Redundant int    `json:"redundant"`
		Decisions []struct {
			Call     int    `json:"call"`
			Tool     string `json:"tool"`
			Action   string `json:"action"`
			Detector string `json:"detector"`
			Message  string `json:"message"`
		} `json:"decisions"`
	} `json:"sessions"`
	Summary struct {
		Problems int `json:"problems"`
	} `json:"summary"`
}

func (l *lab) checkReading(sc *scenario, b *box, files []string) []string {
	var fails []string
	var in inspectReport
	if err := l.loopgateJSON(&in, append([]string{"inspect", "--format", "json", "--calls", "--no-redact"}, files...)...); err != nil {
		return []string{err.Error()}
	}
	if n := len(in.Problems); n > 0 {
		p := in.Problems[0]
		fails = append(fails, fmt.Sprintf("%d problems, the first %s:%d: %s", n, filepath.Base(p.File), p.Line, p.Message))
	}
	var mains, subs int
	var got, gotSub []wantCall
	gotTurns := 0
	for _, s := range in.Sessions {
		if s.Format != l.agent.format {
			fails = append(fails, fmt.Sprintf("%s read as %s, want %s", filepath.Base(s.File), s.Format, l.agent.format))
		}
		if s.Agent == "main" {
			mains++
			gotTurns = s.Turns
		} else {
			subs++
		}
		for _, c := range s.CallList {
			w := wantCall{kind: c.Tool, arg: c.Args, err: c.IsError, minResult: c.ResultChars, sub: s.Agent != "main"}
			if w.sub {
				gotSub = append(gotSub, w)
			} else {
				got = append(got, w)
			}
			if !c.HasResult {
				fails = append(fails, fmt.Sprintf("call %d (%s) has no result", c.Call, c.Tool))
			}
		}
	}
	got = append(got, gotSub...)
	wantSubs := 0
	if sc.needs == "task" {
		wantSubs = 1
	}
	if mains != 1 || subs != wantSubs {
		fails = append(fails, fmt.Sprintf("%d main and %d subagent sessions, want 1 and %d", mains, subs, wantSubs))
	}
	wantTurns := sc.turns
	if gotTurns != wantTurns {
		fails = append(fails, fmt.Sprintf("%d turns, want %d", gotTurns, wantTurns))
	}
	ts := l.agent.tools
	wantCalls, wantRedundant := sc.calls, sc.redundant
	if n := l.agent.ownLoopStop; sc.name == "loop" && l.agent.ownLoopAborts && n > 1 && n <= len(sc.calls) {
		// The agent's own guard aborted the n-th identical call.
		wantCalls = append(slices.Clone(sc.calls[:n-1]), sc.calls[n-1])
		wantCalls[n-1].err = true
		wantRedundant = n - 2
	}
	if len(got) != len(wantCalls) {
		fails = append(fails, fmt.Sprintf("%d calls, want %d", len(got), len(wantCalls)))
	}
	for i := range min(len(got), len(wantCalls)) {
		w, g := wantCalls[i], got[i]
		name := toolName(ts, w.kind)
		switch {
		case g.kind != name:
			fails = append(fails, fmt.Sprintf("call %d is %s, want %s", i+1, g.kind, name))
		case !strings.Contains(g.arg, w.arg):
			fails = append(fails, fmt.Sprintf("call %d's arguments %s lack %q", i+1, g.arg, w.arg))
		case g.err != w.err && !w.denied:
			fails = append(fails, fmt.Sprintf("call %d's error flag is %v, want %v", i+1, g.err, w.err))
		case g.minResult < w.minResult:
			fails = append(fails, fmt.Sprintf("call %d's result has %d characters, want at least %d", i+1, g.minResult, w.minResult))
		case g.sub != w.sub:
			fails = append(fails, fmt.Sprintf("call %d is the subagent's: %v, want %v", i+1, g.sub, w.sub))
		}
	}
	var rp replayReport
	if err := l.loopgateJSON(&rp, append([]string{"replay", "--format", "json", "--preset", "loopgate"}, files...)...); err != nil {
		return append(fails, err.Error())
	}
	for _, s := range rp.Sessions {
		if s.Agent == "main" && s.Redundant != wantRedundant {
			fails = append(fails, fmt.Sprintf("%d redundant calls, want %d", s.Redundant, wantRedundant))
		}
	}
	return fails
}

func toolName(ts toolset, kind string) string {
	switch kind {
	case "shell":
		return ts.shell("").Name
	case "read":
		return ts.read("").Name
	case "write":
		return ts.write("", "").Name
	case "task":
		if ts.task != nil {
			return ts.task("").Name
		}
	}
	return kind
}

// checkLive checks the run with the hook: the hook took the scenario's
// actions, what they said reached the model in the next request, a halt
// ended the run, and a replay of the run's own transcript decides as the
// hook did.
func (l *lab) checkLive(sc *scenario, r run, b *box, files []string) []string {
	var fails []string
	lines, err := readLog(b.log)
	if err != nil {
		return []string{"decision log: " + err.Error() + ": " + b.tail()}
	}
	hook := map[int]logLine{}
	for _, ln := range lines {
		if ln.Event == "problem" {
			fails = append(fails, "hook problem: "+ln.Message)
		}
		// A call's final verdict is on its last line: the result's, where
		// a detector that reads results decided after the call.
		if (ln.Event == "call" || ln.Event == "result") && ln.Call > 0 && ln.Scope == "main" {
			hook[ln.Call] = ln
		}
	}
	main, _ := sc.script(l.agent.tools, b.work)
	ended := false // a block ended the run (agent.blockEnds)
	for _, w := range r.actions {
		if s := l.agent.ownLoopStop; s > 0 && w.call >= s && sc.name == "loop" {
			continue // the agent's own guard ended the loop first
		}
		if ended {
			continue
		}
		ln, ok := hook[w.call]
		if !ok {
			fails = append(fails, fmt.Sprintf("the hook saw no call %d", w.call))
			continue
		}
		if ln.Action != w.action {
			fails = append(fails, fmt.Sprintf("call %d: the hook's action is %q, want %q", w.call, ln.Action, w.action))
			continue
		}
		step := stepOf(main, w.call)
		switch {
		case (w.action == "block" || w.action == "dedup") && l.agent.blockEnds != "":
			ended = true
			if p := promptOf(main, step) + 1; p < len(sc.prompts) {
				// A later prompt goes on in the session: the blocked turn
				// is over, so every later request is the next prompt's.
				for _, rq := range b.srv.Conversation(sc.marker()) {
					if rq.Step > step && !rq.Contains(sc.prompts[p]) {
						fails = append(fails, fmt.Sprintf("call %d blocked (%s), but the model got a request in its turn", w.call, l.agent.blockEnds))
						break
					}
				}
			} else if m := b.srv.MaxStep(sc.marker()); m > step {
				fails = append(fails, fmt.Sprintf("call %d blocked (%s), but the model got %d more requests", w.call, l.agent.blockEnds, m-step))
			}
		case w.action == "halt" && l.agent.haltGoesOn == "":
			if m := b.srv.MaxStep(sc.marker()); m > step {
				fails = append(fails, fmt.Sprintf("call %d halted, but the model got %d more requests", w.call, m-step))
			}
		case w.action == "halt":
			// The agent goes on (haltGoesOn): the halting call and every
			// later call of the turn are denied with the halt's message,
			// which reaches the model as each deny's reason.
			for k := w.call + 1; k <= len(hook); k++ {
				if ln, ok := hook[k]; ok && ln.Action != "halt" {
					fails = append(fails, fmt.Sprintf("call %d after the halt (%s): the hook's action is %q, want it denied as \"halt\"", k, l.agent.haltGoesOn, ln.Action))
				}
			}
			fallthrough
		default:
			next := b.srv.AtStep(sc.marker(), step+1)
			if next == nil {
				fails = append(fails, fmt.Sprintf("no request reached the model after call %d", w.call))
				continue
			}
			if msg := firstLine(ln.Message); !next.Contains(msg) {
				fails = append(fails, fmt.Sprintf("call %d's %s message %q is not in the next request", w.call, w.action, msg))
			}
		}
	}
	// Live equals replay: every call's action and detector, as replay of
	// the run's own transcript decides them under the same preset.
	var rp replayReport
	if err := l.loopgateJSON(&rp, append([]string{"replay", "--format", "json", "--preset", r.preset}, files...)...); err != nil {
		return append(fails, err.Error())
	}
	replayed := map[int]string{}
	for _, s := range rp.Sessions {
		if s.Agent != "main" {
			continue
		}
		for _, d := range s.Decisions {
			if d.Action != "allow" {
				replayed[d.Call] = d.Action + "/" + d.Detector
			}
		}
	}
	calls := 0
	for k := range hook {
		calls = max(calls, k)
	}
	for k := range replayed {
		calls = max(calls, k)
	}
	for k := 1; k <= calls; k++ {
		live := ""
		if ln, ok := hook[k]; ok && ln.Action != "" && ln.Action != "allow" {
			live = ln.Action + "/" + ln.Detector
		}
		if live != replayed[k] {
			fails = append(fails, fmt.Sprintf("call %d: the hook did %q, replay of the transcript %q", k, live, replayed[k]))
		}
	}
	return fails
}

// blockEndsAt is the first call the run's hook blocks, where a block ends
// the agent's run (agent.blockEnds), else 0: the calls after it are not
// played as scripted.
func blockEndsAt(a *agent, r run) int {
	if a.blockEnds == "" {
		return 0
	}
	at := 0
	for _, w := range r.actions {
		if (w.action == "block" || w.action == "dedup") && (at == 0 || w.call < at) {
			at = w.call
		}
	}
	return at
}

// promptOf is the index of the user prompt whose turn holds the model
// response at step: a text answer ends a turn.
func promptOf(turns []Turn, step int) int {
	n := 0
	for _, t := range turns[:min(step, len(turns))] {
		if len(t.Calls) == 0 {
			n++
		}
	}
	return n
}

// stepOf is the step of the model response that issued the script's call
// k (1-based).
func stepOf(turns []Turn, k int) int {
	n := 0
	for i, t := range turns {
		n += len(t.Calls)
		if n >= k {
			return i
		}
	}
	return len(turns)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// agentFit is the scenario as the agent can play it: with the agent's own
// runs of it (agent.runs), and, where the agent's own guard ends the run
// at an identical call in a row (agent.ownLoopCut) that the script
// reaches, up to that call: the calls before it are read, the redundant
// calls after it are gone, the hook's actions on it and later are not
// expected (the hook never sees those calls), and the run must end there.
func agentFit(a *agent, sc *scenario) *scenario {
	c := *sc
	if r, ok := a.runs[sc.name]; ok {
		c.runs = r
	}
	same := 0
	for same < len(sc.calls) && sc.calls[same] == sc.calls[0] {
		same++
	}
	if a.ownLoopCut == 0 || same < a.ownLoopCut {
		return &c
	}
	cut := a.ownLoopCut - 1
	c.calls = sc.calls[:cut]
	c.redundant = sc.redundant - (len(sc.calls) - cut)
	c.ownStop = a.ownLoopCut
	runs := c.runs
	c.runs = nil
	for _, r := range runs {
		var kept []liveAction
		for _, w := range r.actions {
			if w.call < a.ownLoopCut {
				kept = append(kept, w)
			}
		}
		r.actions = kept
		c.runs = append(c.runs, r)
	}
	return &c
}
