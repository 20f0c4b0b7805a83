package ingest

import (
	"bytes"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// The helpers several formats' readers share: times, raw members, file
// stems, notes. Content flattening is in content.go, usage in usage.go,
// the session builder in sessionbuilder.go, line reading in lines.go.

// parseTime reads an ISO-8601 timestamp. One without a zone (OpenHands
// writes Python's naive isoformat) is taken as UTC.
func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if t, err = time.Parse("2006-01-02T15:04:05.999999999", s); err != nil {
			return time.Time{}
		}
	}
	return t.UTC()
}

// countNotes words per-type counts as notes, sorted by type.
func countNotes(counts map[string]int, format string) []string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var notes []string
	for _, k := range keys {
		notes = append(notes, strconv.Itoa(counts[k])+" "+strings.Replace(format, "%s", k, 1))
	}
	return notes
}

// docLine is the line to give records of a one-document file: the file's
// line when the document is a single line (a one-record JSONL file), else 0.
func docLine(doc []byte, h *Head) int {
	if bytes.Contains(bytes.TrimSpace(doc), []byte("\n")) {
		return 0
	}
	return h.Line
}

// docLineOf is the line to give the records of a one-document file: its
// line when the file is a one-line JSONL file, else 0.
func docLineOf(doc []byte, h *Head) int {
	if strings.HasSuffix(h.Name, ".jsonl") && !bytes.Contains(bytes.TrimSpace(doc), []byte("\n")) {
		return h.Line
	}
	return 0
}

func rawIsArray(raw jsonx.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '['
}

func rawIsObject(raw jsonx.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// keysOf gives the members of a JSON object, or nil when raw is not one.
// The members are views of raw (jsonx.SplitObject), not copies: raw must
// stay unchanged while they are used, which holds for every caller here,
// since nothing read from them is kept but decoded strings.
func keysOf(raw jsonx.RawMessage) map[string]jsonx.RawMessage {
	if !rawIsObject(raw) {
		return nil
	}
	if m, ok := jsonx.SplitObject(raw); ok {
		return m
	}
	var m map[string]jsonx.RawMessage
	_ = jsonx.Unmarshal(raw, &m)
	return m
}

// elementsOf decodes a JSON array into its elements: views of raw when
// jsonx.SplitArray can read it (see keysOf), else jsonx.Unmarshal's
// answer, errors included.
func elementsOf(raw jsonx.RawMessage) ([]jsonx.RawMessage, error) {
	if elems, ok := jsonx.SplitArray(raw); ok {
		return elems, nil
	}
	var elems []jsonx.RawMessage
	err := jsonx.Unmarshal(raw, &elems)
	return elems, err
}

func fileStem(name string) string {
	name = strings.TrimSuffix(name, ".gz")
	return strings.TrimSuffix(name, filepath.Ext(name))
}

func firstString(m map[string]jsonx.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if raw, ok := m[k]; ok && jsonx.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// inputArgs is the pseudo-argument object {"input": text} that stands for
// the free-text input of a custom tool call.
func inputArgs(text string) jsonx.Value {
	return jsonx.Value{Kind: jsonx.Object, Obj: []jsonx.Member{{Key: "input", Val: jsonx.Value{Kind: jsonx.String, Str: text}}}}
}
