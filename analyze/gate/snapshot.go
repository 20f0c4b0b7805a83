package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/internal/atomicfile"
)

// Snapshot is what a snapshot file records of a case: every decision of
// every session, without token figures (they depend on the tokenizer) or
// messages (the rules file owns them).
type Snapshot struct {
	Case     string            `json:"case"`
	Rules    string            `json:"rules"`
	Sessions []SnapshotSession `json:"sessions"`
}

// SnapshotSession is one session of a snapshot.
type SnapshotSession struct {
	// File is relative to the gate file, with forward slashes.
	File      string             `json:"file"`
	ID        string             `json:"id"`
	Agent     string             `json:"agent"`
	Calls     int                `json:"calls"`
	Decisions []SnapshotDecision `json:"decisions"`
}

// SnapshotDecision is one decision of a snapshot.
type SnapshotDecision struct {
	Call      int    `json:"call"`
	Line      int    `json:"line"`
	Tool      string `json:"tool"`
	Args      string `json:"args"`
	Action    string `json:"action"`
	Detector  string `json:"detector"`
	Count     int    `json:"count"`
	Redundant bool   `json:"redundant"`
	Harmful   bool   `json:"harmful"`
	// StoppedAction is left out when false, so that the snapshots taken
	// before effects existed still read the same.
	StoppedAction bool   `json:"stopped_action,omitempty"`
	Native        string `json:"native,omitempty"`
}

func makeSnapshot(g *Gate, c *Case, rep *analyze.Report, args, text func(string) string) *Snapshot {
	if text == nil {
		text = func(s string) string { return s }
	}
	snap := &Snapshot{Case: text(c.Name), Rules: rep.Rules.Name, Sessions: []SnapshotSession{}}
	for i := range rep.Sessions {
		s := &rep.Sessions[i]
		file := s.File
		if rel, err := filepath.Rel(g.Dir, s.File); err == nil {
			file = rel
		}
		ss := SnapshotSession{File: text(filepath.ToSlash(file)), ID: text(s.ID), Agent: text(s.Agent), Calls: s.Calls, Decisions: []SnapshotDecision{}}
		for _, d := range s.Decisions {
			a := d.Args
			if args != nil {
				a = args(a)
			}
			ss.Decisions = append(ss.Decisions, SnapshotDecision{Call: d.Call, Line: d.Line, Tool: text(d.Tool), Args: a,
				Action: d.Action.String(), Detector: d.Detector, Count: d.Count, Redundant: d.Redundant, Harmful: d.Harmful, StoppedAction: d.StoppedAction, Native: d.Native})
		}
		snap.Sessions = append(snap.Sessions, ss)
	}
	return snap
}

// Encode writes the snapshot as JSON with one decision per line, so that a
// version-control diff of it reads decision by decision.
func (s *Snapshot) Encode() []byte {
	var b bytes.Buffer
	str := func(v any) string { x, _ := json.Marshal(v); return string(x) }
	fmt.Fprintf(&b, "{\n  \"case\": %s,\n  \"rules\": %s,\n  \"sessions\": [", str(s.Case), str(s.Rules))
	for i, ss := range s.Sessions {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n    {\"file\": %s, \"id\": %s, \"agent\": %s, \"calls\": %d, \"decisions\": [", str(ss.File), str(ss.ID), str(ss.Agent), ss.Calls)
		for j, d := range ss.Decisions {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n      " + str(d))
		}
		if len(ss.Decisions) > 0 {
			b.WriteString("\n    ")
		}
		b.WriteString("]}")
	}
	if len(s.Sessions) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	return b.Bytes()
}

// writeSnapshot writes a case's snapshot, only inside the directory tree
// root (the gate file's directory): a snapshot path outside it, a symbolic
// link on the way (snapshots/ itself a link, or a link in it), or something
// other than a regular file where the snapshot goes is refused with an
// error, since os.WriteFile would follow the link and write anywhere. The
// data goes to a temporary file beside the snapshot, renamed over it.
func writeSnapshot(root, path string, snap *Snapshot) (bool, error) {
	data := snap.Encode()
	fail := func(format string, a ...any) (bool, error) {
		return false, fmt.Errorf("cannot write snapshot %s: %s", path, fmt.Sprintf(format, a...))
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fail("it is outside the gate file's directory %s", root)
	}
	// Each directory from root down, made when missing, never a link.
	dir := root
	parts := strings.Split(filepath.Dir(rel), string(filepath.Separator))
	for _, part := range parts {
		if part == "." || part == "" {
			continue
		}
		dir = filepath.Join(dir, part)
		info, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(dir, 0o755); err != nil {
				return fail("%v", errors.Unwrap(err))
			}
		case err != nil:
			return fail("%v", errors.Unwrap(err))
		case info.Mode()&fs.ModeSymlink != 0:
			return fail("%s is a symbolic link; snapshots are written only inside %s, never through a link", dir, root)
		case !info.IsDir():
			return fail("%s is not a directory", dir)
		}
	}
	if info, err := os.Lstat(path); err == nil {
		if info.Mode()&fs.ModeSymlink != 0 {
			return fail("it is a symbolic link; snapshots are written only inside %s, never through a link", root)
		}
		if !info.Mode().IsRegular() {
			return fail("it is not a regular file")
		}
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
			return false, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fail("%v", errors.Unwrap(err))
	}
	if err := atomicfile.Write(path, data, ".snapshot-*.tmp", 0o644); err != nil {
		// The temporary file's name means nothing to the reader: only why
		// it could not be made is said.
		if te := (*atomicfile.TempError)(nil); errors.As(err, &te) {
			err = errors.Unwrap(te.Err)
		}
		return fail("%v", err)
	}
	return true, nil
}

// checkSnapshot compares a case's decisions with its snapshot. A snapshot
// that does not exist yet is no failure (missing is true): a new case
// passes on its expectations, and the CLI says to record the snapshot with
// --update; once recorded, every difference fails.
func checkSnapshot(g *Gate, c *Case, got *Snapshot) (fails []Failure, missing bool, err error) {
	data, err := os.ReadFile(c.Snapshot)
	if errors.Is(err, os.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, errorf(g.File, c.Line, "cannot read snapshot %s: %v", c.Snapshot, errors.Unwrap(err))
	}
	var want Snapshot
	if err := json.Unmarshal(data, &want); err != nil {
		return nil, false, errorf(g.File, c.Line, "snapshot %s is not valid JSON (%v); rewrite it with --update", c.Snapshot, err)
	}
	return diffSnapshot(g, c, &want, got), false, nil
}

type snapKey struct {
	file, id, agent string
	call            int
}

// diffSnapshot lists every decision that changed, appeared or disappeared,
// one failure (one line) each, in session and call order.
func diffSnapshot(g *Gate, c *Case, want, got *Snapshot) []Failure {
	type entry struct {
		s *SnapshotSession
		d *SnapshotDecision
	}
	index := func(snap *Snapshot) (map[snapKey]entry, map[[3]string]*SnapshotSession) {
		ds := map[snapKey]entry{}
		ss := map[[3]string]*SnapshotSession{}
		for i := range snap.Sessions {
			s := &snap.Sessions[i]
			ss[[3]string{s.File, s.ID, s.Agent}] = s
			for j := range s.Decisions {
				d := &s.Decisions[j]
				ds[snapKey{s.File, s.ID, s.Agent, d.Call}] = entry{s, d}
			}
		}
		return ds, ss
	}
	wantD, wantS := index(want)
	gotD, gotS := index(got)
	var keys []snapKey
	for k := range wantD {
		keys = append(keys, k)
	}
	for k := range gotD {
		if _, ok := wantD[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.id != b.id {
			return a.id < b.id
		}
		if a.agent != b.agent {
			return a.agent < b.agent
		}
		return a.call < b.call
	})
	var out []Failure
	fail := func(s *SnapshotSession, d *SnapshotDecision, sign, msg, expected, actual string) {
		// Field names the kind of difference, so that a fingerprint
		// built from it (with session and call) survives a line shift.
		kind := map[string]string{"~": "changed", "+": "new", "-": "gone"}[sign]
		if d == nil {
			kind = "session " + kind
		}
		f := Failure{Kind: FailSnapshot, Field: kind, GateLine: c.Line, File: filepath.Join(g.Dir, filepath.FromSlash(s.File)), Session: s.ID,
			Expected: expected, Actual: actual, Message: "snapshot: " + sign + " " + msg}
		if d != nil {
			f.Line, f.Call, f.Action, f.Detector = d.Line, d.Call, d.Action, d.Detector
		}
		out = append(out, f)
	}
	// Sessions that appeared, disappeared or changed size.
	var sessKeys [][3]string
	for k := range wantS {
		sessKeys = append(sessKeys, k)
	}
	for k := range gotS {
		if _, ok := wantS[k]; !ok {
			sessKeys = append(sessKeys, k)
		}
	}
	sort.Slice(sessKeys, func(i, j int) bool {
		return strings.Join(sessKeys[i][:], "\x00") < strings.Join(sessKeys[j][:], "\x00")
	})
	for _, k := range sessKeys {
		w, g := wantS[k], gotS[k]
		switch {
		case g == nil:
			fail(w, nil, "-", fmt.Sprintf("%s: session %s is gone (it had %d calls)", w.File, w.ID, w.Calls), "present", "absent")
		case w == nil:
			fail(g, nil, "+", fmt.Sprintf("%s: new session %s (%d calls)", g.File, g.ID, g.Calls), "absent", "present")
		case w.Calls != g.Calls:
			fail(g, nil, "~", fmt.Sprintf("%s: session %s had %d calls, now %d", g.File, g.ID, w.Calls, g.Calls), strconv.Itoa(w.Calls), strconv.Itoa(g.Calls))
		}
	}
	for _, k := range keys {
		w, wok := wantD[k]
		g, gok := gotD[k]
		switch {
		case !gok:
			fail(w.s, w.d, "-", fmt.Sprintf("%s [%s] call %d: %s is gone", k.file, k.id, k.call, decisionText(w.d)), decisionText(w.d), "none")
		case !wok:
			fail(g.s, g.d, "+", fmt.Sprintf("%s [%s] call %d: %s is new", k.file, k.id, k.call, decisionText(g.d)), "none", decisionText(g.d))
		case *w.d != *g.d:
			fail(g.s, g.d, "~", fmt.Sprintf("%s [%s] call %d %s %s: %s", k.file, k.id, k.call, g.d.Tool, g.d.Args, decisionChanges(w.d, g.d)), decisionText(w.d), decisionText(g.d))
		}
	}
	return out
}

// decisionText words a snapshot decision on one line.
func decisionText(d *SnapshotDecision) string {
	var b strings.Builder
	b.WriteString(d.Action)
	if d.Detector != "" {
		b.WriteString(" by " + d.Detector)
	}
	if d.Count > 0 {
		fmt.Fprintf(&b, " #%d", d.Count)
	}
	fmt.Fprintf(&b, " %s %s (line %d", d.Tool, d.Args, d.Line)
	if d.Redundant {
		b.WriteString(", redundant")
	}
	if d.Harmful {
		b.WriteString(", harmful")
	}
	if d.StoppedAction {
		b.WriteString(", stopped action")
	}
	if d.Native != "" {
		b.WriteString(", native " + d.Native)
	}
	b.WriteString(")")
	return b.String()
}

// decisionChanges lists the fields that differ, "action steer -> block,
// count 3 -> 4".
func decisionChanges(was, now *SnapshotDecision) string {
	var parts []string
	add := func(name string, a, b any) {
		if a != b {
			parts = append(parts, fmt.Sprintf("%s %v -> %v", name, a, b))
		}
	}
	add("line", was.Line, now.Line)
	add("tool", was.Tool, now.Tool)
	add("args", was.Args, now.Args)
	add("action", was.Action, now.Action)
	add("detector", was.Detector, now.Detector)
	add("count", was.Count, now.Count)
	add("redundant", was.Redundant, now.Redundant)
	add("harmful", was.Harmful, now.Harmful)
	add("stopped action", was.StoppedAction, now.StoppedAction)
	add("native", was.Native, now.Native)
	return strings.Join(parts, ", ")
}
