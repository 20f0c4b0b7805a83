package ingest

// OpenCode's storage before its database (before v1.2): one JSON file per
// session, message and part under ~/.local/share/opencode/storage/:
//
//	session/<project id>/<session id>.json   the session's info
//	message/<session id>/<message id>.json   a message's info (role, time, tokens, ...)
//	part/<message id>/<part id>.json         one part (text, tool, step-finish, ...)
//
// The session file is the entry point: reading it reads its messages and
// their parts from the folders beside it, in the same shapes as the
// database's data columns (opencode.go builds both). Message and part files
// found in a directory walk are left to their session file
// (ReadWithAnother); named on their own, each is one problem saying which
// session file reads it. Docs: docs/formats/opencode.md.

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

const formatOpenCodeStorage = "opencode-storage"

func init() {
	register(&Format{
		ID:        formatOpenCodeStorage,
		Text:      true,
		Family:    "opencode",
		Reads:     "OpenCode's JSON storage from before opencode.db: `storage/session/<project>/<id>.json` read with its `storage/message/` and `storage/part/` files.",
		Detection: "One JSON object with `id`, `projectID`, `directory`, `title` and `time` (a session file); message (`sessionID`, `role`, `time`) and part (`messageID`, `sessionID`, `type`) files are read with their session.",
		Priority:  33,
		Sniff: func(h *Head) bool {
			if h.Array || !h.Doc {
				return false
			}
			return h.Has("id", "projectID", "directory", "title", "time") ||
				(h.Has("id", "sessionID", "role", "time") && strings.HasPrefix(h.String("id"), "msg_")) ||
				(h.Has("id", "messageID", "sessionID", "type") && strings.HasPrefix(h.String("id"), "prt_"))
		},
		ParseDoc: parseOpenCodeStorage,
	})
}

// ReadWithAnother reports whether a directory walk leaves the file to
// another that reads it: an OpenCode message or part file, which its
// session file reads; a Gemini CLI logs.json or saved chat beside the
// project's chats folder, whose recordings hold those sessions
// (geminiRestated).
func ReadWithAnother(path string) bool {
	if geminiRestated(path) {
		return true
	}
	dir := filepath.Dir(path)
	kind := filepath.Base(filepath.Dir(dir))
	parent := filepath.Base(dir)
	return filepath.Base(filepath.Dir(filepath.Dir(dir))) == "storage" &&
		((kind == "message" && strings.HasPrefix(parent, "ses_")) || (kind == "part" && strings.HasPrefix(parent, "msg_"))) &&
		strings.HasSuffix(path, ".json")
}

func parseOpenCodeStorage(doc []byte, h *Head, out *Sink) {
	var info struct {
		ID        string `json:"id"`
		ParentID  string `json:"parentID"`
		SessionID string `json:"sessionID"`
		ProjectID string `json:"projectID"`
	}
	if err := jsonx.Unmarshal(doc, &info); err != nil {
		out.Problemf(h.Line, "not an OpenCode storage file (%s)", decodeErr(err))
		return
	}
	if info.ProjectID == "" {
		// A message or part file on its own.
		out.Problemf(h.Line, "an OpenCode message or part file of session %s: it is read with its session file, storage/session/<project>/%s.json", info.SessionID, info.SessionID)
		return
	}
	storage := filepath.Dir(filepath.Dir(filepath.Dir(h.Path)))
	s := &Session{Format: formatOpenCodeStorage, ID: info.ID}
	if info.ParentID != "" {
		s.Agent, s.Parent = info.ID, info.ParentID
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(storage, p); err == nil {
			return "storage/" + filepath.ToSlash(r)
		}
		return p
	}
	msgFiles := jsonFilesIn(filepath.Join(storage, "message", info.ID))
	type stored struct {
		ocStored
		created int64
	}
	var msgs []stored
	for _, mf := range msgFiles {
		data, err := os.ReadFile(mf)
		if err != nil {
			out.Problemf(0, "%s: cannot be read: %v", rel(mf), errorText(err))
			continue
		}
		var head struct {
			ID   string `json:"id"`
			Time struct {
				Created int64 `json:"created"`
			} `json:"time"`
		}
		if err := jsonx.Unmarshal(data, &head); err != nil {
			out.Problemf(0, "%s: not an OpenCode message (%s); skipped", rel(mf), decodeErr(err))
			continue
		}
		m := stored{ocStored: ocStored{id: head.ID, data: data, where: rel(mf)}, created: head.Time.Created}
		for _, pf := range jsonFilesIn(filepath.Join(storage, "part", head.ID)) {
			pdata, err := os.ReadFile(pf)
			var p ocPart
			if err == nil {
				err = jsonx.Unmarshal(pdata, &p)
			}
			if err != nil {
				out.Problemf(0, "%s: not an OpenCode part (%s); skipped", rel(pf), decodeErr(err))
				continue
			}
			m.parts = append(m.parts, p)
		}
		msgs = append(msgs, m)
	}
	// OpenCode lists a session's messages by id, which grows with time.
	sort.SliceStable(msgs, func(i, j int) bool {
		if msgs[i].created != msgs[j].created {
			return msgs[i].created < msgs[j].created
		}
		return msgs[i].id < msgs[j].id
	})
	list := make([]ocStored, len(msgs))
	for i := range msgs {
		list[i] = msgs[i].ocStored
	}
	if len(list) == 0 {
		s.Notes = append(s.Notes, "no message files in "+rel(filepath.Join(storage, "message", info.ID)))
	}
	openCodeBuild(s, list, out)
}

// jsonFilesIn lists the .json files of a folder, sorted (none when it is
// absent).
func jsonFilesIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(files)
	return files
}
