package ingest

// Claude Code's subagent metadata: beside each subagent transcript
// subagents/agent-<id>.jsonl, Claude Code writes agent-<id>.meta.json, one
// JSON object (the transcript's path with .jsonl replaced by .meta.json).
// Read in the published Claude Code 2.1.332 (its compiled CLI; the source
// is not public) and seen in the lab's subagent run:
//
//	{"agentType":"general-purpose","isBuiltIn":true,"description":"lab subagent",
//	 "toolUseId":"toolu_lab1_0","spawnDepth":1,"model":"claude-sonnet-4-5",...}
//
// agentType is always written; description, toolUseId (the delegating
// call in the parent), parentAgentId (a subagent started by another
// subagent) and spawnDepth only when known. It holds no conversation: a
// walk skips it (NotTranscript), the reader of its transcript reads it, and
// named on its own it is one problem saying so (claudeMetaProblem).

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// claudeMetaMax bounds the metadata file read: Claude Code's are a few
// hundred bytes.
const claudeMetaMax = 64 << 10

type claudeAgentMeta struct {
	AgentType     string `json:"agentType"`
	Description   string `json:"description"`
	ToolUseID     string `json:"toolUseId"`
	ParentAgentID string `json:"parentAgentId"`
}

// claudeAgentDir says whether dir holds subagent transcripts: a session's
// subagents/, or a workflow's folder under it, subagents/workflows/<id>/
// (CLI 2.1.16x, real sessions: the agents a workflow ran, each with its
// agent-<id>.meta.json, {"agentType":"workflow-subagent"}, and the
// workflow's journal.jsonl beside them).
func claudeAgentDir(dir string) bool {
	if filepath.Base(dir) == "subagents" {
		return true
	}
	up := filepath.Dir(dir)
	return filepath.Base(up) == "workflows" && filepath.Base(filepath.Dir(up)) == "subagents"
}

// claudeWorkflowJournal says whether path is a workflow's journal,
// subagents/workflows/<id>/journal.jsonl: a record as each of its agents
// starts ({"type":"started","key","agentId"}) and one with the agent's
// result ({"type":"result",...,"result":{...}}). It holds no conversation:
// the agents' transcripts are the agent-<id>.jsonl files beside it.
func claudeWorkflowJournal(path string) bool {
	dir := filepath.Dir(path)
	return filepath.Base(dir) != "subagents" && claudeAgentDir(dir) &&
		strings.TrimSuffix(filepath.Base(path), ".gz") == "journal.jsonl"
}

// claudeJournalProblem is the problem for a workflow's journal named on
// its own, "" for any other file.
func claudeJournalProblem(path string) string {
	if !claudeWorkflowJournal(path) {
		return ""
	}
	return fmt.Sprintf("not a transcript: Claude Code's journal of workflow %s (each agent it started, and the agent's result); its agents' transcripts are the agent-*.jsonl files beside it", filepath.Base(filepath.Dir(path)))
}

// claudeSubagentMeta is the path of the metadata file of a subagent
// transcript subagents/agent-<id>.jsonl (or a workflow's agent,
// claudeAgentDir), and the subagent's id; "" when path is not such a
// transcript.
func claudeSubagentMeta(path string) (meta, id string) {
	name := strings.TrimSuffix(filepath.Base(path), ".gz")
	if !claudeAgentDir(filepath.Dir(path)) || !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
		return "", ""
	}
	id = strings.TrimSuffix(strings.TrimPrefix(name, "agent-"), ".jsonl")
	return filepath.Join(filepath.Dir(path), "agent-"+id+".meta.json"), id
}

// claudeReadMeta adds what a subagent's metadata file says to the
// subagent's session s read from path: a note with its type, description
// and delegating call, and its parent when another subagent started it. A
// missing file (older versions wrote none) says nothing; an unreadable one
// is a problem naming it.
func claudeReadMeta(path string, s *Session, out *Sink) {
	metaPath, id := claudeSubagentMeta(path)
	if metaPath == "" || id != s.Agent {
		return
	}
	f, err := os.Open(metaPath)
	if err != nil {
		if !os.IsNotExist(err) {
			out.problem(Problem{File: metaPath, Message: "cannot read Claude Code's subagent metadata: " + errorText(err)})
		}
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, claudeMetaMax+1))
	if err != nil {
		out.problem(Problem{File: metaPath, Message: "cannot read Claude Code's subagent metadata: " + errorText(err)})
		return
	}
	if len(data) > claudeMetaMax {
		out.problem(Problem{File: metaPath, Message: fmt.Sprintf("Claude Code's subagent metadata is larger than %d bytes; not read", claudeMetaMax)})
		return
	}
	var m claudeAgentMeta
	if err := jsonx.Unmarshal(data, &m); err != nil {
		out.problem(Problem{File: metaPath, Line: 1, Message: "not Claude Code's subagent metadata (" + decodeErr(err) + "); not read"})
		return
	}
	if m.ParentAgentID != "" {
		s.Parent = m.ParentAgentID
	}
	var facts []string
	if m.AgentType != "" {
		facts = append(facts, fmt.Sprintf("type %q", m.AgentType))
	}
	if m.Description != "" {
		facts = append(facts, fmt.Sprintf("description %q", m.Description))
	}
	if m.ToolUseID != "" {
		facts = append(facts, "started by call "+m.ToolUseID)
	}
	if m.ParentAgentID != "" {
		facts = append(facts, "of subagent "+m.ParentAgentID)
	}
	if len(facts) > 0 {
		s.Notes = append(s.Notes, "subagent "+strings.Join(facts, ", ")+" ("+filepath.Base(metaPath)+")")
	}
}

// claudeMetaID is the subagent id of a subagent metadata file
// subagents/agent-<id>.meta.json (or a workflow's agent's, claudeAgentDir),
// "" for any other file.
func claudeMetaID(path string) string {
	name := filepath.Base(path)
	if !claudeAgentDir(filepath.Dir(path)) || !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".meta.json") {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(name, "agent-"), ".meta.json")
}

// claudeMetaProblem is the problem for a subagent metadata file named on
// its own, "" for any other file.
func claudeMetaProblem(path string) string {
	id := claudeMetaID(path)
	if id == "" {
		return ""
	}
	return fmt.Sprintf("not a transcript: Claude Code's metadata of subagent %s (its type, description, the call that started it); it is read with its transcript agent-%s.jsonl", id, id)
}
