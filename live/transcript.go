package live

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// Claude Code's hook events carry no time and no model request, but their
// transcript_path names the session file, where each tool_use sits in an
// assistant line with its timestamp, message.id and requestId. replay reads
// call times (scope.window) and requests (round-level checks) from there,
// so the hook reads them from there too: an index of the transcript's
// tool_use ids, kept next to the session's state and extended from where it
// stopped (only complete lines are read), so a hook call reads only what
// the transcript gained since the last one.
//
// Index lines: "O offset path" (how far the transcript was read),
// "I id request time agent" per tool_use, and "U uuid scope" per sidechain
// line (a subagent's), whose scope a later line without an agentId joins.
//
// A subagent's calls are scoped as replay scopes them (ingest's
// claudecode.go, scopeOf): a sidechain line's agentId, else the scope of
// its parentUuid's line, else "sidechain-" and the first 8 letters of its
// own uuid (the chain's root). Claude Code sends an agent_id with a
// subagent's hook events since 2.x; older versions send none, and their
// sidechain lines carry no agentId either, so the transcript alone scopes
// them. One reading differs from ingest's: the parent of a sidechain line
// is looked for among sidechain lines only (the index keeps no main-chain
// uuids), so a sidechain line whose parent is a main-chain line starts a
// chain of its own here, where ingest would put it in the main scope; the
// sidechains Claude Code writes start at a line without a parent.

// txCall is what the transcript says of one tool_use.
type txCall struct {
	request string
	time    int64
	agent   string // a sidechain's agentId, "" in the main chain
}

type txIndex struct {
	path  string
	off   int64
	calls map[string]txCall
	// byRequest lists the tool_use ids of each request, in order.
	byRequest map[string][]string
	// scopes is the scope of each sidechain line, by uuid.
	scopes map[string]string
}

func loadIndex(file string) *txIndex {
	x := &txIndex{calls: map[string]txCall{}, byRequest: map[string][]string{}, scopes: map[string]string{}}
	data, err := readState(file)
	if err != nil {
		return x
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		switch {
		case len(f) == 3 && f[0] == "O":
			off, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				x.off, x.path = off, unescapeField(f[2])
			}
		case len(f) == 3 && f[0] == "U":
			x.scopes[unescapeField(f[1])] = unescapeField(f[2])
		case len(f) == 5 && f[0] == "I":
			t, _ := strconv.ParseInt(f[3], 10, 64)
			x.add(unescapeField(f[1]), txCall{request: unescapeField(f[2]), time: t, agent: unescapeField(f[4])})
		}
	}
	return x
}

func (x *txIndex) add(id string, c txCall) {
	if _, ok := x.calls[id]; ok {
		return
	}
	x.calls[id] = c
	x.byRequest[c.request] = append(x.byRequest[c.request], id)
}

// maxTranscriptRead bounds what one hook call reads of a transcript.
const maxTranscriptRead = 256 << 20

// update reads what the transcript gained since the index last read it
// and appends the new entries to the index file.
func (x *txIndex) update(indexFile, transcript string) error {
	if transcript != x.path {
		x.path, x.off = transcript, 0
	}
	f, err := os.Open(transcript)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < x.off {
		x.off = 0 // rewritten
	}
	if fi.Size() == x.off {
		return nil
	}
	if _, err := f.Seek(x.off, io.SeekStart); err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTranscriptRead))
	if err != nil {
		return err
	}
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		return nil
	}
	var out []byte
	pos := x.off
	for _, line := range bytes.Split(data[:end], []byte("\n")) {
		lineOff := pos
		pos += int64(len(line)) + 1
		if !bytes.Contains(line, []byte(`"tool_use"`)) && !bytes.Contains(line, []byte(`"isSidechain":true`)) {
			continue
		}
		uses, uuid, scope := x.toolUses(line, lineOff)
		if uuid != "" && scope != "" {
			if _, ok := x.scopes[uuid]; !ok {
				x.scopes[uuid] = scope
				out = append(out, 'U')
				out = escapeField(append(out, '\t'), uuid)
				out = escapeField(append(out, '\t'), scope)
				out = append(out, '\n')
			}
		}
		for _, e := range uses {
			if _, ok := x.calls[e.id]; ok {
				continue
			}
			x.add(e.id, e.c)
			out = append(out, 'I')
			for _, s := range []string{e.id, e.c.request, strconv.FormatInt(e.c.time, 10), e.c.agent} {
				out = escapeField(append(out, '\t'), s)
			}
			out = append(out, '\n')
		}
	}
	x.off += int64(end) + 1
	out = append(out, 'O', '\t')
	out = strconv.AppendInt(out, x.off, 10)
	out = escapeField(append(out, '\t'), x.path)
	out = append(out, '\n')
	return appendLines(indexFile, out)
}

type txEntry struct {
	id string
	c  txCall
}

// toolUses reads the tool_use blocks of one assistant line, and the
// line's uuid and agent scope when it is a sidechain line ("" else). A
// line without message.id and requestId is a request of its own (as
// ingest reads it), named by its offset.
func (x *txIndex) toolUses(line []byte, off int64) (uses []txEntry, uuid, scope string) {
	var l struct {
		Type        string `json:"type"`
		UUID        string `json:"uuid"`
		ParentUUID  string `json:"parentUuid"`
		Timestamp   string `json:"timestamp"`
		RequestID   string `json:"requestId"`
		IsSidechain bool   `json:"isSidechain"`
		AgentID     string `json:"agentId"`
		Message     struct {
			ID      string           `json:"id"`
			Model   string           `json:"model"`
			Content jsonx.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &l) != nil {
		return nil, "", ""
	}
	agent := ""
	if l.IsSidechain {
		switch {
		case l.AgentID != "":
			agent = l.AgentID
		case l.ParentUUID != "" && x.scopes[l.ParentUUID] != "":
			agent = x.scopes[l.ParentUUID]
		default:
			id := l.UUID
			if len(id) > 8 {
				id = id[:8]
			}
			agent = "sidechain-" + id
		}
	}
	if l.Type != "assistant" || l.Message.Model == "<synthetic>" {
		return nil, l.UUID, agent
	}
	var blocks []struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return nil, l.UUID, agent
	}
	req := "line " + strconv.FormatInt(off, 10)
	if l.Message.ID != "" && l.RequestID != "" {
		req = l.Message.ID + ":" + l.RequestID
	}
	var t int64
	if ts, err := parseTimestamp(l.Timestamp); err == nil {
		t = ts.UnixNano()
	}
	for _, b := range blocks {
		if (b.Type == "tool_use" || b.Type == "server_tool_use") && b.ID != "" {
			uses = append(uses, txEntry{b.ID, txCall{request: req, time: t, agent: agent}})
		}
	}
	return uses, l.UUID, agent
}

// parseTimestamp reads an ISO-8601 time; one without a zone is UTC, as
// ingest reads transcripts.
func parseTimestamp(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("no time")
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Parse("2006-01-02T15:04:05.999999999", s)
}
