package ingest

// Aider's chat history, .aider.chat.history.md in the repository's root: the
// markdown log Aider-AI/aider writes through InputOutput.append_chat_history
// (aider/io.py):
//   - "# aider chat started at YYYY-MM-DD HH:MM:SS" opens each run;
//   - user_input writes the user's input as "#### " lines (a blank line
//     before each input);
//   - ai_output writes the model's reply as plain markdown;
//   - tool_output, tool_error, tool_warning and the confirmation questions
//     write "> " lines (blockquote), each ending in two spaces.
// Edits are SEARCH/REPLACE blocks in the reply (aider/coders/
// editblock_coder.py: a file name, then "<<<<<<< SEARCH", "=======",
// ">>>>>>> REPLACE"), applied after the reply, which apply_updates
// (aider/coders/base_coder.py) reports as "Applied edit to <path>" or, on a
// failure, with the reason ("SEARCH/REPLACE block failed to match"), then
// sent back to the model (a reflection: another reply with no user input
// between). /run (and !) and /test run a command (aider/commands.py
// cmd_run); the model's own shell suggestions run as "Running <command>"
// (base_coder.handle_shell_commands). The command's output goes to the
// terminal, not to this file: the history keeps the questions and notes
// that follow ("Add 0.2k tokens of command output to the chat? y", "Added
// 6 lines of output to the chat.").
// Docs: docs/formats/aider.md.
//
// Readings taken:
//   - Each "aider chat started" run is a session; its time opens the first
//     turn (local time, read as UTC: the file gives no zone).
//   - A user input opens a turn, except Aider's commands (/add, /model,
//     /clear, ...: a note counts them); /ask, /code, /architect and
//     /context with a message are prompts.
//   - A reply is a request; every SEARCH/REPLACE block in it (with its
//     "=======" and REPLACE markers: Aider refuses a block cut short) is a
//     call "edit" {path, search, replace}. Its result is apply_updates'
//     lines after the reply that name its path ("Applied edit to x",
//     "Skipping edits to x"); when they report a failure, the report (an
//     error for the blocks it quotes).
//   - /run, !, /test and "Running <command>" are calls "run" {command},
//     their result the blockquote lines after them (no lines: no result).
//   - "Tokens: N sent, [C cache write, H cache hit,] M received." is the
//     usage of the reply before it, as rounded as Aider prints it.

import (
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/lazyre"
)

const formatAider = "aider"

// AiderHistoryName is the chat history's file name: a dot-file that a
// directory walk reads by name.
const AiderHistoryName = ".aider.chat.history.md"

func init() {
	register(&Format{
		ID:        formatAider,
		Family:    "aider",
		Reads:     "Aider's chat history `.aider.chat.history.md` (markdown): user inputs, replies with their SEARCH/REPLACE edit blocks, /run commands, and the notes Aider wrote after them.",
		Detection: "A file named `.aider.chat.history.md`.",
		Priority:  3,
		Sniff: func(h *Head) bool {
			return h.Name == AiderHistoryName
		},
		ParseLines: parseAider,
	})
}

var aiderStart = lazyre.New(`^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)`)
var aiderTokens = lazyre.New(`^Tokens: ([0-9.]+k?) sent(?:, ([0-9.]+k?) cache write)?(?:, ([0-9.]+k?) cache hit)?, ([0-9.]+k?) received\.`)
var aiderFailed = lazyre.New(`^> # \d+ SEARCH/REPLACE blocks? failed to match!`)
var aiderSearch = lazyre.New(`^<{5,9} SEARCH>?\s*$`)
var aiderDivider = lazyre.New(`^={5,9}\s*$`)
var aiderReplace = lazyre.New(`^>{5,9} REPLACE\s*$`)

// aiderCount reads a format_tokens count ("638", "1.9k", "30k").
func aiderCount(s string) int64 {
	mult := 1.0
	if strings.HasSuffix(s, "k") {
		s, mult = strings.TrimSuffix(s, "k"), 1000
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return int64(f*mult + 0.5)
}

// aiderPromptCommands are the commands whose message is sent to the model.
var aiderPromptCommands = map[string]bool{"/ask": true, "/code": true, "/architect": true, "/context": true, "/help": true}

// aiderEdit is a SEARCH/REPLACE block found in a reply.
type aiderEdit struct{ path, search, replace string }

// aiderEdits finds the SEARCH/REPLACE blocks of a reply, each with the file
// name find_filename would take: the nearest of the three lines before it
// that is not only a fence, else the block before's file.
func aiderEdits(lines []string) []aiderEdit {
	var edits []aiderEdit
	last := ""
	for i := 0; i < len(lines); i++ {
		if !aiderSearch.Get().MatchString(lines[i]) {
			continue
		}
		path := ""
		for k := i - 1; k >= 0 && k >= i-3; k-- {
			l := strings.TrimSpace(lines[k])
			if strings.HasPrefix(l, "```") {
				if c := strings.TrimPrefix(l, "```"); strings.ContainsAny(c, "./") {
					path = c
					break
				}
				continue
			}
			path = strings.Trim(strings.TrimLeft(strings.TrimRight(l, ":"), "#"), " `*")
			break
		}
		if path == "" || path == "..." {
			path = last
		}
		last = path
		var search, replace []string
		j, inReplace, closed := i+1, false, false
		for ; j < len(lines); j++ {
			if !inReplace && aiderDivider.Get().MatchString(lines[j]) {
				inReplace = true
				continue
			}
			if inReplace && aiderReplace.Get().MatchString(lines[j]) {
				closed = true
				break
			}
			if inReplace {
				replace = append(replace, lines[j])
			} else {
				search = append(search, lines[j])
			}
		}
		// A block cut before its REPLACE marker (a reply cut short) is
		// not an edit: Aider's parser refuses it.
		if closed {
			edits = append(edits, aiderEdit{path, strings.Join(search, "\n"), strings.Join(replace, "\n")})
		}
		i = j
	}
	return edits
}

type aiderReader struct {
	out      *Sink
	h        *Head
	s        *Session
	b        *convBuilder
	runs     int
	commands int
	// prompted says the session has had a user input that opens a turn
	// (or has no start line, a trimmed file): before it, Aider has called
	// no model, so plain text is the rest of a note, not a reply.
	prompted bool
	// The block being gathered: its kind ('#' user, '>' note, 't' reply),
	// lines and first line number.
	kind  byte
	lines []string
	at    int
	// Calls still waiting for the note lines after them.
	edits  []*aiderWait
	runCmd *aiderWait
}

type aiderWait struct {
	id, path, search string
	line             int
	// group are the commands run before this one in the same group, with
	// no line of their own: Aider runs a reply's commands one after the
	// other and asks once about their output, all of it
	// (handle_shell_commands in aider/coders/base_coder.py, Aider-AI/aider
	// at 5dc9490b), so the lines that follow answer each of them.
	group []string
}

func parseAider(lr *LineReader, h *Head, out *Sink) {
	r := &aiderReader{out: out, h: h}
	prev := 0
	// Inside an edit failure report: 1 its body, 2 after its closing
	// sentence, 3 in the note on the blocks applied.
	report := 0
	// spaced: the file keeps the two spaces Aider ends its own lines with
	// (a "> " or "#### " line ending so was seen). Aider writes a user
	// input's every line as "#### <text>  " (io.py user_input, through
	// append_chat_history with linebreak; Aider-AI/aider at 5dc9490b),
	// while the reply is written as the model wrote it: a "#### " line
	// without them is then the reply's own heading, not an input. A file
	// whose trailing spaces were stripped reads every "#### " line as
	// input.
	spaced := false
	for {
		raw, n, ok := lr.Next()
		if !ok {
			break
		}
		line := strings.TrimRight(string(raw), " \r")
		ownLine := strings.HasSuffix(strings.TrimRight(string(raw), "\r"), "  ")
		input := strings.HasPrefix(line, "####") && (ownLine || !spaced)
		if ownLine && (strings.HasPrefix(line, "> ") || strings.HasPrefix(line, "####")) {
			spaced = true
		}
		// The reader skips blank lines; a gap ends a user input (each
		// input is written after a blank line).
		if n > prev+1 && r.kind == '#' {
			r.flush()
		}
		follows := n == prev+1
		prev = n
		// A failure report is one tool_error whose lines after the first
		// carry no "> " (apply_edits' ValueError text): its lines go with
		// the note it starts, up to the text that ends it.
		if report > 0 && !strings.HasPrefix(line, "> ") && !input {
			switch {
			case report == 2 && strings.HasPrefix(line, "# The other"):
				report = 3
			case report == 2:
				report = 0
			case report == 1 && strings.HasPrefix(line, "The SEARCH section must exactly match"):
				report = 2
			case report == 3 && strings.HasPrefix(line, "Just reply with fixed versions"):
				r.add('>', line, n)
				report = 0
				continue
			}
			if report > 0 {
				r.add('>', line, n)
				continue
			}
		}
		report = 0
		if aiderFailed.Get().MatchString(line) {
			report = 1
		}
		switch {
		case aiderStart.Get().MatchString(line):
			r.flush()
			r.endSession()
			r.startSession(n, aiderStart.Get().FindStringSubmatch(line)[1])
		case input:
			r.add('#', strings.TrimPrefix(strings.TrimPrefix(line, "####"), " "), n)
		case strings.HasPrefix(line, "> ") || line == ">":
			r.add('>', strings.TrimPrefix(strings.TrimPrefix(line, ">"), " "), n)
		case ownLine && follows && r.kind == '>':
			// A note of several lines is quoted on its first alone
			// (append_chat_history puts "> " before the text): the
			// commands a confirmation asks about, one a line.
			r.add('>', line, n)
		default:
			r.add('t', line, n)
		}
	}
	if err := lr.Err(); err != nil {
		out.Problemf(lr.Lines(), "file could not be read to the end: %v", err)
	}
	r.flush()
	r.endSession()
}

func (r *aiderReader) startSession(n int, started string) {
	r.runs++
	id := started
	if id == "" {
		id = fileStem(r.h.Name)
	}
	r.s = &Session{Format: formatAider, ID: id, Line: n}
	r.prompted = started == ""
	r.b = newConvBuilder(r.s, r.out)
	if started != "" {
		r.b.turn(0, parseTime(strings.Replace(started, " ", "T", 1)+"Z"), 0)
		r.s.Notes = append(r.s.Notes, "aider chat started at "+started+" (local time; read as UTC)")
	}
}

func (r *aiderReader) endSession() {
	if r.s == nil {
		return
	}
	r.b.finish()
	// The start opened an empty turn; the first input fills it. A run that
	// ends with no input and no reply (Aider started and left, or given
	// commands only: /add, /exit) has no turn; the session keeps the
	// start's time.
	if ts := r.s.Turns; len(ts) == 1 && ts[0].Line == 0 && ts[0].UserChars == 0 && len(ts[0].Requests) == 0 && len(ts[0].Notices) == 0 {
		r.s.Time, r.s.Turns = ts[0].Time, nil
	}
	noteSkipped(r.s, r.commands, "Aider command(s) (/add, /model, /clear, ...) not read as prompts")
	r.out.Session(r.s)
	r.s, r.commands, r.edits, r.runCmd = nil, 0, nil, nil
}

// add appends a line to the block being gathered, ending it when the kind
// changes.
func (r *aiderReader) add(kind byte, text string, n int) {
	if kind != r.kind {
		r.flush()
		r.kind, r.at = kind, n
	}
	r.lines = append(r.lines, text)
}

// flush reads the block gathered.
func (r *aiderReader) flush() {
	kind, lines, at := r.kind, r.lines, r.at
	r.kind, r.lines = 0, nil
	if kind == 0 {
		return
	}
	if r.s == nil {
		r.startSession(at, "")
	}
	switch kind {
	case '#':
		r.userInput(lines, at)
	case 't':
		text := strings.TrimSpace(strings.Join(lines, "\n"))
		if text == "" {
			return
		}
		if !r.prompted {
			// io.tool_output writes "> " before a note's first line only:
			// the rest of a note of several lines (the repo map that
			// --show-repo-map prints at start, "Here are summaries of some
			// files present in my git repository.") is plain text. No
			// model was asked anything yet, so it is no reply.
			return
		}
		r.edits, r.runCmd = nil, nil
		r.b.request(at, timeZero, len(text), nil)
		for k, e := range aiderEdits(lines) {
			c := Call{ID: "edit-" + strconv.Itoa(at) + "-" + strconv.Itoa(k+1), Tool: "edit", Line: at}
			c.SetArgsValue(aiderArgs("path", e.path, "search", e.search, "replace", e.replace))
			r.b.call(c)
			r.edits = append(r.edits, &aiderWait{id: c.ID, path: e.path, search: e.search, line: at})
		}
	case '>':
		r.notes(lines, at)
	}
}

func (r *aiderReader) userInput(lines []string, at int) {
	text := strings.Join(lines, "\n")
	if text == "<blank>" {
		text = ""
	}
	r.edits, r.runCmd = nil, nil
	cmd, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	switch {
	case strings.HasPrefix(text, "!"):
		r.run(strings.TrimPrefix(text, "!"), at, true)
	case cmd == "/run" || cmd == "/test":
		r.run(rest, at, true)
	case strings.HasPrefix(cmd, "/") && !(aiderPromptCommands[cmd] && strings.TrimSpace(rest) != ""):
		r.commands++
	default:
		r.openTurn(at, len(text))
		keepUserText(r.s, text)
	}
}

// openTurn opens a turn at a user input; the session's first input fills
// the turn its start opened.
func (r *aiderReader) openTurn(at, chars int) {
	r.prompted = true
	if ts := r.s.Turns; len(ts) == 1 && ts[0].Line == 0 && len(ts[0].Requests) == 0 && ts[0].UserChars == 0 {
		ts[0].Line, ts[0].UserChars = at, chars
		return
	}
	r.b.turn(at, timeZero, chars)
}

// run adds a shell call; the user's own (/run) opens a turn and a request
// of its own.
func (r *aiderReader) run(command string, at int, user bool) {
	if user {
		r.openTurn(at, len(command))
		r.b.request(at, timeZero, 0, nil)
	}
	c := Call{ID: "run-" + strconv.Itoa(at), Tool: "run", Line: at}
	c.SetArgsValue(aiderArgs("command", strings.TrimSpace(command)))
	r.b.call(c)
	r.runCmd = &aiderWait{id: c.ID, line: at}
}

// notes reads a blockquote block: usage, the model's commands run, and the
// results of the calls before it.
func (r *aiderReader) notes(lines []string, at int) {
	var kept []string // the lines that are not usage or a command's start
	// editLines are the lines before the block's first command: Aider
	// reports the reply's edits (apply_updates) and commits them before it
	// runs the shell commands the reply suggested (base_coder.py
	// send_message, then run_shell_commands), whose lines follow.
	var editLines []string
	started := false
	var group []string // runs of this block still without a line
	flushRun := func() {
		if r.runCmd == nil {
			return
		}
		text := strings.TrimSpace(strings.Join(kept, "\n"))
		ids := append(r.runCmd.group, r.runCmd.id)
		if text == "" {
			group = ids
		} else {
			for _, id := range ids {
				r.b.result(id, "", text, false, at, timeZero)
			}
		}
		r.runCmd = nil
	}
	for i, l := range lines {
		if m := aiderTokens.Get().FindStringSubmatch(l); m != nil {
			if rq := geminiStreamLastRequest(r.s); rq != nil {
				rq.Usage = &Usage{Input: aiderCount(m[1]), Output: aiderCount(m[4]), CacheWrite: aiderCount(m[2]), CacheRead: aiderCount(m[3])}
			}
			continue
		}
		if cmd, ok := strings.CutPrefix(l, "Running "); ok && len(r.s.Turns) > 0 {
			if !started {
				editLines, started = kept, true
			}
			group = nil
			flushRun()
			kept = nil
			r.run(cmd, at+i, false)
			r.runCmd.group = group
			continue
		}
		kept = append(kept, l)
	}
	if r.runCmd != nil && len(kept) > 0 {
		flushRun()
	}
	if !started {
		editLines = kept
	}
	r.editResults(editLines, at)
}

// editResults joins the edits of the last reply to the lines that name
// their paths, or to the failure report: an edit whose SEARCH text the
// report quotes failed; the others were applied when it says so.
func (r *aiderReader) editResults(lines []string, at int) {
	if len(r.edits) == 0 || len(lines) == 0 {
		return
	}
	all := strings.TrimSpace(strings.Join(lines, "\n"))
	// The reply's whole failure (apply_updates in aider/coders/
	// base_coder.py, Aider-AI/aider at 5dc9490b): blocks that failed to
	// match, or an edit format not followed. Aider's other "Unable to ..."
	// errors are the git repository's ("Unable to list files in git repo",
	// "Unable to commit"), said beside edits that were applied; "Unable to
	// create <path>, skipping edits." names its file and is that edit's
	// result below.
	failed := strings.Contains(all, "failed to match") || strings.Contains(all, "did not conform")
	var applied string
	if i := strings.Index(all, "# The other "); i >= 0 {
		applied, _, _ = strings.Cut(all[i+2:], "\n")
	}
	var left []*aiderWait
	for _, e := range r.edits {
		var mine []string
		for _, l := range lines {
			// apply_updates' outcome lines: "Applied edit to", "Did not
			// apply edit to", "Skipping edits to", "Unable to create".
			if e.path != "" && (strings.Contains(l, "edit to "+e.path) || strings.Contains(l, "edits to "+e.path) || strings.Contains(l, "create "+e.path)) {
				mine = append(mine, l)
			}
		}
		switch {
		case failed && applied != "" && !strings.Contains(all, "<<<<<<< SEARCH\n"+e.search+"\n======="):
			r.b.result(e.id, "", applied, false, at, timeZero)
		case failed:
			r.b.result(e.id, "", all, true, at, timeZero)
		case len(mine) > 0:
			text := strings.Join(mine, "\n")
			r.b.result(e.id, "", text, strings.HasPrefix(text, "Skipping") || strings.Contains(text, "Unable"), at, timeZero)
		default:
			left = append(left, e)
		}
	}
	r.edits = left
}

// aiderArgs builds an arguments object from key, value pairs.
func aiderArgs(kv ...string) jsonx.Value {
	v := jsonx.Value{Kind: jsonx.Object}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Obj = append(v.Obj, jsonx.Member{Key: kv[i], Val: jsonx.Value{Kind: jsonx.String, Str: kv[i+1]}})
	}
	return v
}
