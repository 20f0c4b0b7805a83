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
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
// Nothing for a file of another shape (standard input, a file renamed).
func claudeFamily(path string) []string {
	if path == "" || path == "-" {
		return nil
	}
	var dir, main string
	if _, id := claudeSubagentMeta(path); id != "" {
		dir = filepath.Dir(path)
		session := filepath.Dir(dir)
		main = filepath.Join(filepath.Dir(session), filepath.Base(session)+".jsonl")
	} else {
		name := filepath.Base(path)
		stem, ok := strings.CutSuffix(strings.TrimSuffix(name, ".gz"), ".jsonl")
		if !ok {
			return nil
		}
		dir = filepath.Join(filepath.Dir(path), stem, "subagents")
	}
	var files []string
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			name := e.Name()
			full := filepath.Join(dir, name)
			if full == path || !e.Type().IsRegular() || !strings.HasPrefix(name, "agent-") {
				continue
			}
			if strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".jsonl.gz") {
				files = append(files, full)
			}
		}
	}
	if main != "" {
		for _, m := range []string{main, main + ".gz"} {
			if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
				files = append(files, m)
				break
			}
		}
	}
	slices.Sort(files)
	return files
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
	var family []OtherCall
	familyRead := false
	var familyNote string
	for _, key := range keys {
		s := scopes[key].b.s
		first, last, repeats := claudeCallSpan(s)
		if !repeats {
			continue
		}
		if !familyRead {
			familyRead = true
			family, familyNote = claudeReadFamily(path, out)
		}
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
	seen := map[string]bool{}
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
				k := c.Tool + "\x00" + c.ArgsRaw
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
// (claudeFamily), up to claudeOthersMax bytes; note says what was not read.
func claudeReadFamily(path string, out *Sink) (calls []OtherCall, note string) {
	budget := int64(claudeOthersMax)
	for _, f := range claudeFamily(path) {
		agent := "main"
		if _, id := claudeSubagentMeta(f); id != "" {
			agent = id
		}
		got, err := claudeScanCalls(f, agent, &budget)
		if err != nil {
			out.problem(Problem{File: f, Message: "cannot read the calls of another agent of the session: " + errorText(err)})
			continue
		}
		calls = append(calls, got...)
		if budget <= 0 {
			note = fmt.Sprintf("the session's other agents' transcripts were read up to %d MiB: the calls past that do not clear this agent's observations in a replay", claudeOthersMax>>20)
			break
		}
	}
	return calls, note
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
func claudeScanCalls(path, agent string, budget *int64) ([]OtherCall, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(io.LimitReader(f, max(*budget, 0)), 64<<10)
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
		*budget -= int64(len(line)) + 1
		hasUse := bytes.Contains(line, []byte(`"tool_use"`))
		hasResult := bytes.Contains(line, []byte(`"tool_result"`))
		if !hasUse && !hasResult {
			continue
		}
		var rec struct {
			Type      string `json:"type"`
			Timestamp string `json:"timestamp"`
			Message   struct {
				Content jsonx.RawMessage `json:"content"`
			} `json:"message"`
		}
		if jsonx.Unmarshal(line, &rec) != nil || len(rec.Message.Content) == 0 || rec.Message.Content[0] != '[' {
			continue
		}
		var parts []struct {
			Type      string           `json:"type"`
			ID        string           `json:"id"`
			Name      string           `json:"name"`
			Input     jsonx.RawMessage `json:"input"`
			ToolUseID string           `json:"tool_use_id"`
		}
		if jsonx.Unmarshal(rec.Message.Content, &parts) != nil {
			continue
		}
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
