package formatcheck

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Checks are the names an expectations entry may give. The first four are
// the real-file conformance test's (ingest): the file is read by a known
// format, every call has its result, the reading reports no other problem,
// every session has times. The rest are the independent count's
// (cmd/formatcheck): each figure of loopgate's reading equals the
// independent reading's, and the file has an independent reading at all.
var Checks = []string{
	"format", "results", "problems", "times",
	"sessions", "calls", "with-results", "repeats", "tokens", "independent",
}

// Entry is one line of the expectations file: a check that fails on a
// file, and why.
type Entry struct {
	Line   int
	Text   string
	File   string
	Check  string
	Owner  string // "file" (the file's own fault) or "issue N" (loopgate's known failure)
	Reason string
	judged bool
}

// Expectations is the expectations file: the checks known to fail on the
// real files, each with its reason.
type Expectations struct {
	Path    string
	entries []*Entry
	byKey   map[string]*Entry
}

// LoadExpectations reads an expectations file. Each line that is not blank
// and does not start with # is
//
//	FILE | CHECK | OWNER | REASON
//
// FILE is a path under the samples folder with forward slashes, CHECK one of
// Checks, OWNER "file" or "issue N", REASON free text. A file and check take
// one line.
func LoadExpectations(path string) (*Expectations, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	x := &Expectations{Path: path, byKey: map[string]*Entry{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		parts := strings.SplitN(text, "|", 4)
		if len(parts) != 4 {
			return nil, fmt.Errorf("%s:%d: want FILE | CHECK | OWNER | REASON, got %q", path, n, text)
		}
		e := &Entry{Line: n, Text: text}
		e.File = strings.TrimSpace(parts[0])
		e.Check = strings.TrimSpace(parts[1])
		e.Owner = strings.TrimSpace(parts[2])
		e.Reason = strings.TrimSpace(parts[3])
		if !knownCheck(e.Check) {
			return nil, fmt.Errorf("%s:%d: unknown check %q (one of %s)", path, n, e.Check, strings.Join(Checks, ", "))
		}
		if !validOwner(e.Owner) {
			return nil, fmt.Errorf("%s:%d: owner %q is neither \"file\" nor \"issue N\"", path, n, e.Owner)
		}
		if e.Reason == "" {
			return nil, fmt.Errorf("%s:%d: no reason given", path, n)
		}
		if e.File == "" {
			return nil, fmt.Errorf("%s:%d: no file given", path, n)
		}
		key := e.File + "\x00" + e.Check
		if prev, dup := x.byKey[key]; dup {
			return nil, fmt.Errorf("%s:%d: %s | %s is already listed at line %d", path, n, e.File, e.Check, prev.Line)
		}
		x.byKey[key] = e
		x.entries = append(x.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return x, nil
}

func knownCheck(c string) bool {
	for _, k := range Checks {
		if k == c {
			return true
		}
	}
	return false
}

func validOwner(o string) bool {
	if o == "file" {
		return true
	}
	n, ok := strings.CutPrefix(o, "issue ")
	if !ok {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil
}

// Judge weighs one check of one file. failure is what went wrong ("" when
// the check passed). It returns "" when all is as expected: the check
// passed and no entry lists it, or it failed and an entry does. Otherwise it
// returns the message a test fails with: an unlisted failure, or a stale
// entry (the check passes now) with the line to remove.
func (x *Expectations) Judge(file, check, failure string) string {
	e := x.byKey[file+"\x00"+check]
	if e != nil {
		e.judged = true
	}
	switch {
	case failure != "" && e == nil:
		return fmt.Sprintf("%s: %s: %s\n\t(if this is the file's fault or a known reader failure, add to %s: %s | %s | file or issue N | reason)",
			file, check, failure, x.Path, file, check)
	case failure == "" && e != nil:
		return fmt.Sprintf("%s: %s passes now: stale entry, remove line %d of %s:\n\t%s", file, check, e.Line, x.Path, e.Text)
	}
	return ""
}

// Entry returns the entry for a file and check, or nil.
func (x *Expectations) Entry(file, check string) *Entry {
	return x.byKey[file+"\x00"+check]
}

// Unjudged lists the entries of the given checks that no Judge call
// weighed: their file is gone or no longer read, so they are stale too.
func (x *Expectations) Unjudged(checks ...string) []string {
	var out []string
	for _, e := range x.entries {
		for _, c := range checks {
			if e.Check == c && !e.judged {
				out = append(out, fmt.Sprintf("%s: no such file was checked: stale entry, remove line %d of %s:\n\t%s", e.File, e.Line, x.Path, e.Text))
			}
		}
	}
	sort.Strings(out)
	return out
}
