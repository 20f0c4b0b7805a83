package ingest

// pi coding agent sessions (badlogic/pi-mono, packages/coding-agent,
// src/core/session-manager.ts; file format docs/session.md):
// ~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl. The first line is
// a header {"type":"session","version":3,"id","timestamp","cwd"}; every
// other line is an entry with id and parentId, so that a file holds a
// tree: /tree and /fork move the leaf back to an earlier entry and new
// entries grow a new branch from it. Docs: docs/formats/pi.md.
//
// Readings taken:
//   - The session is the path from the file's last entry (pi's leaf when
//     it loads a file: SessionManager._buildIndex) back to the root, as
//     buildSessionContext walks it. The entries of the other branches were
//     run too: each branch, taken from its most recent leaf back to where
//     it leaves the entries already read, is a session of its own (agent
//     "branch-<first entry id>", parent the session id), so that no call is
//     lost and none is counted twice.
//   - Version 1 files have no ids: entries are linked in file order, as
//     migrateV1ToV2 does.
//   - A user message opens a turn; an assistant message is a request, its
//     toolCall blocks the calls (tool names as pi writes them: read, bash,
//     edit, write, grep, find, ls, and extensions' own); a toolResult
//     message is the result of the call its toolCallId names.
//   - bashExecution messages (the user's own `!` commands), custom and
//     custom_message entries (extensions' messages) and branch summaries
//     are not user prompts and not model calls: they are counted in notes.
//   - A compaction entry marks the next turn as compacted.
//   - Usage: pi's input excludes cached tokens (pi-ai subtracts them), so
//     Input is input + cacheRead + cacheWrite.

import (
	"fmt"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatPi = "pi"

func init() {
	register(&Format{
		ID:         formatPi,
		Text:       true,
		Family:     "pi",
		Reads:      "pi coding agent session JSONL (`~/.pi/agent/sessions/**/*.jsonl`), versions 1 to 3, with the session tree's branches.",
		Detection:  "First record has `type: session` with `id` and `cwd` (the pi header), or is a pi entry (`type: message`, `parentId`, `message`).",
		Priority:   25,
		Sniff:      sniffPi,
		ParseLines: parsePi,
	})
}

func sniffPi(h *Head) bool {
	if h.Array {
		return false
	}
	switch h.String("type") {
	case "session":
		return h.Has("id", "cwd", "timestamp")
	case "message":
		return h.Has("id", "parentId", "message")
	}
	return false
}

type piEntry struct {
	Type      string           `json:"type"`
	ID        string           `json:"id"`
	ParentID  *string          `json:"parentId"`
	Timestamp string           `json:"timestamp"`
	Message   jsonx.RawMessage `json:"message"`
	// header
	Version int    `json:"version"`
	Cwd     string `json:"cwd"`
	Parent  string `json:"parentSession"`
	// auto_compaction_end, an event of pi --mode json (piStreamEvent)
	Result  jsonx.RawMessage `json:"result"`
	Aborted bool             `json:"aborted"`

	line int
}

type piMessage struct {
	Role       string           `json:"role"`
	Content    jsonx.RawMessage `json:"content"`
	Model      string           `json:"model"`
	ToolCallID string           `json:"toolCallId"`
	ToolName   string           `json:"toolName"`
	IsError    bool             `json:"isError"`
	Usage      *struct {
		Input      int64 `json:"input"`
		Output     int64 `json:"output"`
		CacheRead  int64 `json:"cacheRead"`
		CacheWrite int64 `json:"cacheWrite"`
	} `json:"usage"`
}

type piBlock struct {
	Type      string           `json:"type"`
	Text      string           `json:"text"`
	Thinking  string           `json:"thinking"`
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Arguments jsonx.RawMessage `json:"arguments"`
}

// piValues splits a line holding several JSON objects one after another
// ("{...}{...}": real sessions hold such lines, an entry whose newline is
// missing before the next one), or returns nil when the line is not that.
func piValues(line []byte) [][]byte {
	var vals [][]byte
	pos := 0
	for !jsonx.AtEnd(line, pos) {
		start, end, ok := jsonx.SkipValue(line, pos, 0)
		if !ok || line[start] != '{' {
			return nil
		}
		vals = append(vals, line[start:end])
		pos = end
	}
	if len(vals) < 2 {
		return nil
	}
	return vals
}

func parsePi(lr *LineReader, h *Head, out *Sink) {
	var header *piEntry
	var entries []*piEntry
	joined := 0 // lines holding more than one entry
	eachRecord(lr.Next, lr, h, func(_ *LineReader, line []byte, _ int, notValid *bool) {
		*notValid = !jsonx.Valid(line)
	}, func(lines *LineReader, line []byte, n int, notValid *bool) {
		if !*notValid {
			piLine(line, n, &header, &entries, out)
			return
		}
		vals := piValues(line)
		if vals == nil {
			out.BadLine(lines, n, notJSON(line))
			return
		}
		joined++
		for _, v := range vals {
			piLine(v, n, &header, &entries, out)
		}
	})
	finishPi(h, out, header, entries, joined)
}

// piLine reads one entry: the header, or an entry of the tree.
func piLine(line []byte, n int, header **piEntry, entries *[]*piEntry, out *Sink) {
	{
		e := &piEntry{}
		if err := jsonx.Unmarshal(line, e); err != nil {
			out.Problemf(n, "not a pi session entry: %s; skipped", decodeErr(err))
			return
		}
		e.line = n
		piStreamEvent(e)
		if e.Type == "session" {
			if *header == nil {
				*header = e
			} else {
				out.Problemf(n, "a second session header (id %q) in one file; ignored", e.ID)
			}
			return
		}
		*entries = append(*entries, e)
	}
}

// piStreamEvents are the events of pi's JSON mode (pi --mode json "prompt"
// prints the session header, then every AgentSessionEvent as a line:
// packages/coding-agent/docs/json.md, src/modes/print-mode.ts; AgentEvent in
// packages/agent/src/types.ts). Each message ends with a message_end event
// holding it whole (the prompt, the model's reply, each tool result:
// agent-loop.ts); the others repeat it in parts or carry no message.
var piStreamEvents = map[string]bool{
	"agent_start": true, "agent_end": true, "turn_start": true, "turn_end": true,
	"message_start": true, "message_update": true, "tool_execution_start": true,
	"tool_execution_update": true, "tool_execution_end": true, "auto_compaction_start": true,
	"auto_retry_start": true, "auto_retry_end": true,
}

// piStreamEvent reads an event of pi's JSON mode as the session entry it
// stands for: message_end as a message entry (the event has no id: the
// entries are linked in file order, as version 1's), a finished
// auto_compaction_end as a compaction, the other events as "stream"
// entries, counted in a note. The message's time (Unix milliseconds) is
// the entry's.
func piStreamEvent(e *piEntry) {
	switch {
	case e.Type == "message_end" && e.ID == "":
		e.Type = "message"
		var m struct {
			Timestamp float64 `json:"timestamp"`
		}
		if jsonx.Unmarshal(e.Message, &m) == nil && m.Timestamp > 0 && e.Timestamp == "" {
			e.Timestamp = time.UnixMilli(int64(m.Timestamp)).UTC().Format(time.RFC3339Nano)
		}
	case e.Type == "auto_compaction_end" && e.ID == "":
		e.Type = "stream"
		if !e.Aborted && len(e.Result) > 0 && string(e.Result) != "null" {
			e.Type = "compaction"
		}
	case piStreamEvents[e.Type] && e.ID == "":
		e.Type = "stream"
	}
}

// finishPi builds the sessions from the header and the entries; joined
// counts the lines that held several entries.
func finishPi(h *Head, out *Sink, header *piEntry, entries []*piEntry, joined int) {
	id := fileStem(h.Name)
	version := 0
	if header != nil {
		version = header.Version
		if header.ID != "" { // else the file's name, as for a file with no header
			id = header.ID
		}
		if version == 0 {
			version = 1
		}
	}
	if len(entries) == 0 && header == nil {
		out.Problemf(h.Line, "no pi session entries in this file")
		return
	}
	byID := map[string]*piEntry{}
	var prev *string
	for i, e := range entries {
		if version == 1 || (e.ID == "" && e.ParentID == nil) {
			// migrateV1ToV2: entries are a list; link them in order.
			if e.ID == "" {
				e.ID = fmt.Sprintf("#%d", i+1)
			}
			e.ParentID = prev
		}
		p := e.ID
		prev = &p
		if _, dup := byID[e.ID]; dup {
			out.Problemf(e.line, "entry id %q is used again; the later entry is the one the tree links to", e.ID)
		}
		byID[e.ID] = e
	}
	parentOf := func(e *piEntry) *piEntry {
		if e.ParentID == nil || *e.ParentID == "" {
			return nil
		}
		p, ok := byID[*e.ParentID]
		if !ok || p == e {
			out.Problemf(e.line, "entry %q names parent %q, which is not in the file; read as the start of its branch", e.ID, *e.ParentID)
			return nil
		}
		return p
	}
	// Partition the tree into paths: the leaf's path first, then each
	// branch from its most recent entry back to the entries already taken.
	taken := map[*piEntry]bool{}
	type branch struct {
		entries []*piEntry
		from    string // the entry it forks from ("" for the main path)
	}
	var branches []branch
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if taken[e] {
			continue
		}
		var path []*piEntry
		from := ""
		for cur := e; cur != nil; {
			if taken[cur] {
				from = cur.ID
				break
			}
			taken[cur] = true
			path = append(path, cur)
			if len(path) > len(entries) {
				break // a parent cycle: each entry is taken once anyway
			}
			cur = parentOf(cur)
		}
		for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
			path[l], path[r] = path[r], path[l]
		}
		branches = append(branches, branch{path, from})
	}
	if len(branches) == 0 {
		// A header alone: a session pi started and nothing was said in. It
		// is read as a session with no turns, as a Codex rollout of its
		// meta line alone is, rather than as nothing at all.
		branches = append(branches, branch{})
	}
	for i, br := range branches {
		s := &Session{Format: formatPi, ID: id}
		if header != nil {
			s.Line = header.line
			if header.Parent != "" {
				s.Notes = append(s.Notes, "forked from session file "+header.Parent)
			}
			s.Notes = append(s.Notes, fmt.Sprintf("pi session format version %d", version))
		}
		if joined > 0 && i == 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%d line(s) hold two entries or more with no newline between them; each entry is read", joined))
		}
		if i > 0 {
			s.Agent = "branch-" + br.entries[0].ID
			s.Parent = id
			s.Line = br.entries[0].line
			where := "the root"
			if br.from != "" {
				where = "entry " + br.from
			}
			s.Notes = append(s.Notes, fmt.Sprintf("a branch of the session tree left for another (it grows from %s); its calls ran before the move", where))
		} else if len(branches) > 1 {
			s.Notes = append(s.Notes, fmt.Sprintf("the path to the last entry; %d other branch(es) of the tree are sessions of their own", len(branches)-1))
		}
		piSession(s, br.entries, out)
	}
}

// piSession builds one path of entries into a session and emits it.
func piSession(s *Session, path []*piEntry, out *Sink) {
	b := newConvBuilder(s, out)
	if s.Agent != "" {
		b.where = s.Agent + ": "
	}
	skipped := map[string]int{}
	for _, e := range path {
		t := isoTime(e.Timestamp)
		switch e.Type {
		case "message":
			var m piMessage
			if err := jsonx.Unmarshal(e.Message, &m); err != nil || len(e.Message) == 0 {
				why := "no message"
				if err != nil {
					why = decodeErr(err)
				}
				out.Problemf(e.line, "%smessage entry %q: %s; skipped", b.where, e.ID, why)
				continue
			}
			piMessageEntry(b, s, e, &m, t, skipped)
		case "compaction":
			b.compaction()
		case "branch_summary", "custom_message", "custom", "stream":
			skipped[e.Type]++
		case "model_change", "thinking_level_change", "label", "session_info":
			// Settings and bookmarks: nothing the model saw or ran.
		default:
			out.Problemf(e.line, "%sentry %q of unknown type %q; skipped", b.where, e.ID, e.Type)
		}
	}
	b.finish()
	for _, k := range []string{"bashExecution", "custom", "custom_message", "branch_summary", "stream"} {
		what := map[string]string{
			"stream":         "pi --mode json event(s) other than message_end (agent, turn, tool execution, message start and update) carry nothing the message_end events do not; not read",
			"bashExecution":  "user `!` command(s) (bashExecution messages: run by the user, not the model) not counted as calls",
			"custom":         "extension entries or messages (custom) not read as prompts",
			"custom_message": "extension messages (custom_message) not read as prompts",
			"branch_summary": "branch summaries (branch_summary) not read as prompts",
		}[k]
		noteSkipped(s, skipped[k], what)
	}
	out.Session(s)
}

func piMessageEntry(b *convBuilder, s *Session, e *piEntry, m *piMessage, t time.Time, skipped map[string]int) {
	switch m.Role {
	case "user":
		text, _ := contentText(m.Content)
		b.turn(e.line, t, len(text))
		keepUserText(s, text)
	case "assistant":
		var blocks []piBlock
		if len(m.Content) > 0 && m.Content[0] == '[' {
			if err := jsonx.Unmarshal(m.Content, &blocks); err != nil {
				b.out.Problemf(e.line, "%sassistant content of an unexpected shape (%s); its calls are skipped", b.where, decodeErr(err))
			}
		}
		chars := 0
		for _, bl := range blocks {
			chars += len(bl.Text) + len(bl.Thinking)
		}
		var u *Usage
		if m.Usage != nil {
			u = &Usage{Input: m.Usage.Input + m.Usage.CacheRead + m.Usage.CacheWrite, Output: m.Usage.Output, CacheRead: m.Usage.CacheRead, CacheWrite: m.Usage.CacheWrite}
		}
		if m.Model != "" && s.Model == "" {
			s.Model = m.Model
		}
		b.request(e.line, t, chars, u)
		for _, bl := range blocks {
			if bl.Type == "text" {
				b.text(bl.Text)
			}
		}
		for _, bl := range blocks {
			if bl.Type != "toolCall" {
				continue
			}
			c := Call{ID: bl.ID, Tool: bl.Name, Time: t, Line: e.line}
			c.SetArgsField(bl.Arguments)
			b.call(c)
		}
	case "toolResult":
		text, _ := contentText(m.Content)
		b.result(m.ToolCallID, m.ToolName, text, m.IsError, e.line, t)
	case "bashExecution", "custom":
		skipped[m.Role]++
	case "hookMessage": // version 2's name of custom (migrateV2ToV3)
		skipped["custom"]++
	case "branchSummary", "compactionSummary":
		if m.Role == "compactionSummary" {
			b.compaction()
		} else {
			skipped["branch_summary"]++
		}
	default:
		b.out.Problemf(e.line, "%smessage entry %q with unknown role %q; skipped", b.where, e.ID, m.Role)
	}
}
