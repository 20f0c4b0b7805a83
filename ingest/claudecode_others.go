package ingest

// The calls of a Claude Code session's other agents (Session.Others).
// Claude Code runs subagents beside the agent that started them: several
// at once when the model starts them in one response, or in the background
// while the main agent goes on. Each subagent's transcript is a file of its
// own, <session>/subagents/agent-<id>.jsonl beside the main transcript
// <session>.jsonl (claudecode_meta.go; older versions kept subagents' lines
// in the main file, as scopes of their own). A file read alone says nothing
// of what its siblings did at the same time: a real session's subagent
// listed a directory, a sibling wrote into it, and the same listing returned
// new files. So the reader of one of these files also reads the calls of
// the others, with their times, and the replay lets what they changed clear
// this agent's observations (guard.OtherAgentCall).

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// claudeOthersMax bounds the bytes of other agents' files read for one
// file: a session with hundreds of subagents reads its siblings' calls up
// to this much, and says so past it.
const claudeOthersMax = 64 << 20

// claudeFamily returns the other transcripts of the session whose
// transcript is path: for a subagent's file, the other subagents' files
// and the main transcript; for a main transcript, its subagents' files.
// Two layouts: CLI 2.1 keeps a session's subagents in
// <session>/subagents/agent-<id>.jsonl; CLI 2.0 kept them beside the
// sessions, agent-<id>.jsonl, whose session is named only by the sessionId
// of their lines (claudeAgentSession). Nothing for a file of another shape
// (standard input, a file renamed).
func claudeFamily(path string) []string {
	if path == "" || path == "-" {
		return nil
	}
	self := filepath.Clean(path)
	var files []string
	// addAgents adds the subagents' transcripts in dir, those of session
	// when it is not "" (the older layout, where a folder holds the
	// subagents of every session).
	addAgents := func(dir, session string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := e.Name()
			full := filepath.Join(dir, name)
			if full == self || !e.Type().IsRegular() || !strings.HasPrefix(name, "agent-") ||
				!strings.HasSuffix(name, ".jsonl") && !strings.HasSuffix(name, ".jsonl.gz") {
				continue
			}
			if session != "" && claudeAgentSession(full) != session {
				continue
			}
			files = append(files, full)
		}
	}
	addMain := func(main string) {
		for _, m := range []string{main, main + ".gz"} {
			if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
				files = append(files, m)
				return
			}
		}
	}
	dir := filepath.Dir(path)
	switch {
	case claudeAgentFileID(path) != "" && filepath.Base(dir) == "subagents":
		session := filepath.Dir(dir)
		addAgents(dir, "")
		addMain(filepath.Join(filepath.Dir(session), filepath.Base(session)+".jsonl"))
	case claudeAgentFileID(path) != "":
		if session := claudeAgentSession(path); session != "" {
			addAgents(dir, session)
			addMain(filepath.Join(dir, session+".jsonl"))
		}
	default:
		stem, ok := strings.CutSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".jsonl")
		if !ok {
			return nil
		}
		addAgents(filepath.Join(dir, stem, "subagents"), "")
		addAgents(dir, stem)
	}
	slices.Sort(files)
	return files
}

// claudeAgentFileID is the subagent id of a subagent's transcript
// agent-<id>.jsonl (either layout), "" for any other file.
func claudeAgentFileID(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".gz")
	id, ok := strings.CutPrefix(name, "agent-")
	if !ok {
		return ""
	}
	id, ok = strings.CutSuffix(id, ".jsonl")
	if !ok {
		return ""
	}
	return id
}

// claudeAgentSession is the session id a subagent's transcript of the
// older layout names: the sessionId of its first lines (read from its
// first 16 KiB, once per process while the file is unchanged); "" when
// none is found.
func claudeAgentSession(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	e := otherEntry(path, st)
	e.sessionOnce.Do(func() {
		f, err := os.Open(path)
		if err != nil {
			return
		}
		defer f.Close()
		buf := make([]byte, min(st.Size(), 16<<10))
		n, _ := io.ReadFull(f, buf)
		marker := []byte(`"sessionId":"`)
		if i := bytes.Index(buf[:n], marker); i >= 0 {
			rest := buf[i+len(marker) : n]
			if j := bytes.IndexByte(rest, '"'); j > 0 {
				e.session = string(rest[:j])
			}
		}
	})
	return e.session
}

// Companions are the files beside path that a reading of path reads too,
// whatever its format turns out to be (found by path alone: Claude Code's
// subagent metadata and the session's other agents' transcripts, by their
// layout): a cached reading of path is valid only while they are
// unchanged as well.
func Companions(path string) []string {
	files := claudeFamily(path)
	if meta, _ := claudeSubagentMeta(path); meta != "" {
		files = append(files, meta)
	}
	return files
}

// claudeAttachOthers fills Session.Others of each session read from the
// file at path (by scope key), from the file's other scopes and the
// session's other transcripts. A session is given others only when two of
// its calls are the same tool with the same arguments: only a repeat can be
// redundant or stopped, so a file of no repeat reads no other file.
func claudeAttachOthers(path string, keys []string, scopes map[string]*ccScope, out *Sink) {
	for _, key := range keys {
		s := scopes[key].b.s
		first, last, repeats := claudeCallSpan(s)
		if !repeats {
			continue
		}
		family, familyNote := claudeReadFamily(path, s, first, last, out)
		var others []OtherCall
		for _, other := range keys {
			if other == key {
				continue
			}
			for _, t := range scopes[other].b.s.Turns {
				for _, r := range t.Requests {
					for _, c := range r.Calls {
						others = append(others, OtherCall{Agent: scopes[other].b.s.Agent, Tool: c.Tool, ArgsRaw: c.ArgsRaw, Start: c.Time})
					}
				}
			}
		}
		for _, o := range family {
			if o.Agent != s.Agent {
				others = append(others, o)
			}
		}
		kept := others[:0]
		for _, o := range others {
			// What ended before this agent's first call cleared nothing it
			// had seen; what began after its last changed nothing it saw
			// again.
			if at := o.At(); !at.IsZero() && at.After(first) && !o.Start.After(last) {
				kept = append(kept, o)
			}
		}
		slices.SortStableFunc(kept, func(a, b OtherCall) int { return a.At().Compare(b.At()) })
		if len(kept) > 0 {
			s.Others = slices.Clip(kept)
		}
		if familyNote != "" {
			s.Notes = append(s.Notes, familyNote)
		}
	}
}

// claudeCallSpan returns the times of a session's first and last calls
// with a time, and whether two of its calls are the same tool with the
// same arguments.
func claudeCallSpan(s *Session) (first, last time.Time, repeats bool) {
	seed := maphash.MakeSeed()
	seen := map[uint64]bool{}
	for _, t := range s.Turns {
		for _, r := range t.Requests {
			for _, c := range r.Calls {
				if !c.Time.IsZero() {
					if first.IsZero() || c.Time.Before(first) {
						first = c.Time
					}
					if c.Time.After(last) {
						last = c.Time
					}
				}
				var h maphash.Hash
				h.SetSeed(seed)
				h.WriteString(c.Tool)
				h.WriteByte(0)
				h.WriteString(c.ArgsRaw)
				k := h.Sum64()
				if seen[k] {
					repeats = true
				}
				seen[k] = true
			}
		}
	}
	return first, last, repeats && !first.IsZero()
}

// claudeReadFamily reads the calls of the session's other transcripts
// (claudeFamily) that may have run beside s, whose calls span first to
// last, up to claudeOthersMax bytes; note says what was not read. A
// subagent's transcript is passed over when its lines' times do not meet
// that span (claudeFileSpan), and by a main transcript's session that never
// worked while a subagent it started ran (claudeWorksBeside): it waited.
func claudeReadFamily(path string, s *Session, first, last time.Time, out *Sink) (calls []OtherCall, note string) {
	// A main session that waited on its subagents reads none of theirs.
	waited := claudeAgentFileID(path) == "" && !claudeWorksBeside(s)
	budget := int64(claudeOthersMax)
	for _, f := range claudeFamily(path) {
		agent := "main"
		id := claudeAgentFileID(f)
		if id != "" {
			agent = id
			if waited {
				continue
			}
		}
		st, err := os.Stat(f)
		if err == nil && id != "" {
			if from, to, ok := otherSpanOf(f, st); ok && (to.Before(first) || from.After(last)) {
				continue
			}
		}
		if err == nil && st.Size() > budget {
			note = fmt.Sprintf("the session's other agents' transcripts were read up to %d MiB: the calls of the others do not clear this agent's observations in a replay", claudeOthersMax>>20)
			break
		}
		var got []OtherCall
		if err == nil {
			budget -= st.Size()
			got, err = otherCallsOf(f, st, agent)
		}
		if err != nil {
			out.problem(Problem{File: f, Message: "cannot read the calls of another agent of the session: " + errorText(err)})
			continue
		}
		calls = append(calls, got...)
	}
	return calls, note
}

// claudeDelegates are Claude Code's tools that start a subagent.
var claudeDelegates = map[string]bool{"Task": true, "Agent": true}

// claudeWorksBeside reports whether the main agent's session s made a
// call while a subagent it started was running: a call (not another
// subagent's start) after a delegating call and before that call's result
// line, or after one started in the background (run_in_background) or that
// never got a result. Otherwise the main agent waited on
// every subagent, and they changed nothing while it observed.
func claudeWorksBeside(s *Session) bool {
	open := false
	var until []int // the result lines of the delegating calls still running
	for _, t := range s.Turns {
		for _, r := range t.Requests {
			for _, c := range r.Calls {
				if claudeDelegates[c.Tool] {
					// A subagent started in the background answers at once
					// ("Async agent launched") and works on.
					if !c.HasResult || c.ResultLine == 0 || strings.Contains(c.ArgsRaw, `"run_in_background":true`) {
						open = true
					} else {
						until = append(until, c.ResultLine)
					}
					continue
				}
				if open {
					return true
				}
				for _, u := range until {
					if c.Line > 0 && c.Line < u {
						return true
					}
				}
			}
		}
	}
	return false
}

// claudeFileSpan returns the first and last times a Claude Code
// transcript's lines record, read from its first and last 64 KiB; ok is
// false when either is not found (a gzip file is not looked into).
func claudeFileSpan(path string, st os.FileInfo) (first, last time.Time, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return first, last, false
	}
	defer f.Close()
	const window = 64 << 10
	buf := make([]byte, min(st.Size(), window))
	if _, err := io.ReadFull(f, buf); err != nil {
		return first, last, false
	}
	if gzipped := len(buf) >= 2 && buf[0] == 0x1f && buf[1] == 0x8b; gzipped {
		return first, last, false
	}
	marker := []byte(`"timestamp":"`)
	stamp := func(b []byte, i int) time.Time {
		b = b[i+len(marker):]
		if j := bytes.IndexByte(b, '"'); j > 0 {
			return parseTime(string(b[:j]))
		}
		return time.Time{}
	}
	if i := bytes.Index(buf, marker); i >= 0 {
		first = stamp(buf, i)
	}
	if st.Size() > window {
		if _, err := f.ReadAt(buf, st.Size()-window); err != nil {
			return first, last, false
		}
	}
	if i := bytes.LastIndex(buf, marker); i >= 0 {
		last = stamp(buf, i)
	}
	return first, last, !first.IsZero() && !last.IsZero()
}

// otherMemo keeps, for one process, the calls read from the session
// transcripts that other files of the same session read too
// (claudeScanCalls): each member of a session with a repeated call reads
// the others, and without it a session of many subagents read each of
// them once for every member. An entry is a file as it was (path, size,
// modification time); the memo is dropped whole once it holds
// otherMemoMax bytes of calls.
var otherMemo struct {
	sync.Mutex
	m     map[otherMemoKey]*otherMemoEntry
	bytes int
}

const otherMemoMax = 16 << 20

type otherMemoKey struct {
	path  string
	size  int64
	mtime int64
}

type otherMemoEntry struct {
	once  sync.Once
	calls []OtherCall
	err   error
	// The file's span (claudeFileSpan), worked out once too.
	spanOnce         sync.Once
	spanFrom, spanTo time.Time
	spanOK           bool
	// The session an older layout's subagent transcript names
	// (claudeAgentSession).
	sessionOnce sync.Once
	session     string
}

// otherEntry is the memo's entry for the transcript f as it is (st).
func otherEntry(f string, st os.FileInfo) *otherMemoEntry {
	key := otherMemoKey{f, st.Size(), st.ModTime().UnixNano()}
	otherMemo.Lock()
	defer otherMemo.Unlock()
	if otherMemo.m == nil || otherMemo.bytes > otherMemoMax {
		otherMemo.m, otherMemo.bytes = map[otherMemoKey]*otherMemoEntry{}, 0
	}
	e := otherMemo.m[key]
	if e == nil {
		e = &otherMemoEntry{}
		otherMemo.m[key] = e
		otherMemo.bytes += 128 + len(f)
	}
	return e
}

// otherSpanOf is claudeFileSpan of f, worked out once per process while
// it is unchanged.
func otherSpanOf(f string, st os.FileInfo) (from, to time.Time, ok bool) {
	e := otherEntry(f, st)
	e.spanOnce.Do(func() { e.spanFrom, e.spanTo, e.spanOK = claudeFileSpan(f, st) })
	return e.spanFrom, e.spanTo, e.spanOK
}

// otherCallsOf returns the calls of the transcript f (whose Stat is st),
// read once per process while it is unchanged.
func otherCallsOf(f string, st os.FileInfo, agent string) ([]OtherCall, error) {
	e := otherEntry(f, st)
	e.once.Do(func() {
		e.calls, e.err = claudeScanCalls(f, agent)
		n := 0
		for _, c := range e.calls {
			n += 64 + len(c.Agent) + len(c.Tool) + len(c.ArgsRaw)
		}
		otherMemo.Lock()
		otherMemo.bytes += n
		otherMemo.Unlock()
	})
	return e.calls, e.err
}

// otherArgsMax bounds the argument text kept of another agent's call. What
// its effect is read from (a path, a short command) is short, while a
// write's content may be a whole file, and a session may hold the calls of
// many agents.
const otherArgsMax = 4096

// keptOtherArgs is the argument text kept of another agent's call: the
// whole text when short, else the object without its members longer than
// a quarter of otherArgsMax. What is dropped can only widen what the call
// is taken to change: a shell command too long to keep is one whose reach
// is unknown, a write without its path one of every path.
func keptOtherArgs(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) <= otherArgsMax {
		return string(raw)
	}
	v, err := jsonx.ParseString(string(raw))
	if err != nil || v.Kind != jsonx.Object {
		return ""
	}
	kept := make([]jsonx.Member, 0, len(v.Obj))
	for _, m := range v.Obj {
		if len(m.Val.String()) <= otherArgsMax/4 {
			kept = append(kept, m)
		}
	}
	return jsonx.Value{Kind: jsonx.Object, Obj: kept}.String()
}

// claudeScanCalls reads the tool calls of a Claude Code transcript with
// their times, and when each result came: what Session.Others needs, and
// nothing else (the lines are not checked as the reader checks them; a line
// that does not parse is passed over).
func claudeScanCalls(path, agent string) ([]OtherCall, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	r, _, err := openMaybeGzip(br)
	if err != nil {
		return nil, err
	}
	lr := NewLineReader(r)
	defer lr.release()
	var calls []OtherCall
	pending := map[string]int{} // call id -> index in calls
	for {
		line, _, ok := lr.Next()
		if !ok {
			break
		}
		if !bytes.Contains(line, []byte(`"tool_`)) {
			continue
		}
		// The content decoded as parts, without a copy of it: a line
		// whose content is text (which cannot hold a call or a result)
		// does not decode, and is passed over.
		var rec struct {
			Type      string `json:"type"`
			Timestamp string `json:"timestamp"`
			Message   struct {
				Content []struct {
					Type      string           `json:"type"`
					ID        string           `json:"id"`
					Name      string           `json:"name"`
					Input     jsonx.RawMessage `json:"input"`
					ToolUseID string           `json:"tool_use_id"`
				} `json:"content"`
			} `json:"message"`
		}
		if jsonx.Unmarshal(line, &rec) != nil {
			continue
		}
		parts := rec.Message.Content
		t := parseTime(rec.Timestamp)
		for _, p := range parts {
			switch {
			case p.Type == "tool_use" && rec.Type == "assistant" && p.Name != "":
				pending[p.ID] = len(calls)
				calls = append(calls, OtherCall{Agent: agent, Tool: p.Name, ArgsRaw: keptOtherArgs(p.Input), Start: t})
			case p.Type == "tool_result" && rec.Type == "user":
				if i, ok := pending[p.ToolUseID]; ok {
					calls[i].End = t
					delete(pending, p.ToolUseID)
				}
			}
		}
	}
	if err := lr.Err(); err != nil {
		return calls, err
	}
	return calls, nil
}
