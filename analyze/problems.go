package analyze

import (
	"fmt"

	"github.com/loopgate/loopgate/ingest"
)

// maxListedProblems is how many problems of one file a report lists; the
// rest are counted, and one more entry says how many there were and on
// which lines. A log whose every line is something else (health checks
// between the requests of a proxy's log) would otherwise give one problem
// per line, and a report of one message repeated millions of times.
const maxListedProblems = 1000

// FileProblems gathers the problems of one file as a report lists them: the
// first maxListedProblems, then, once Close is called, one entry that
// stands for the rest. Count counts every one. replay, compare, sweep and
// gate list a file's problems this way, and so does inspect.
type FileProblems struct {
	// List is the problems listed, in order (with the entry for the
	// unlisted ones last, after Close).
	List []Problem
	// unlisted counts the problems past maxListedProblems: counted, not
	// listed.
	unlisted                    int
	unlistedFirst, unlistedLast int // their lines
}

// Add lists p, or counts it once the file has maxListedProblems.
func (f *FileProblems) Add(p Problem) {
	if len(f.List) < maxListedProblems {
		f.List = append(f.List, p)
		return
	}
	if f.unlisted == 0 {
		f.unlistedFirst = p.Line
	}
	f.unlisted++
	f.unlistedLast = p.Line
}

// Count is the number of the file's problems, listed or not (after Close
// as before it).
func (f *FileProblems) Count() int {
	n := len(f.List) + f.unlisted
	if f.closed() {
		n-- // the entry that stands for the unlisted ones
	}
	return n
}

// closed reports whether Close added its entry.
func (f *FileProblems) closed() bool {
	return f.unlisted > 0 && len(f.List) > maxListedProblems
}

// Close appends the entry that stands for the unlisted problems of file,
// if any; it is called once the file is read.
func (f *FileProblems) Close(file string) {
	if f.unlisted == 0 || f.closed() {
		return
	}
	lines := fmt.Sprintf("on lines %d to %d", f.unlistedFirst, f.unlistedLast)
	if f.unlistedFirst == 0 { // whole-document formats have no lines
		lines = "in the document"
	}
	f.List = append(f.List, Problem{File: file, Line: f.unlistedFirst, Message: fmt.Sprintf(
		"%d more problems %s are counted but not listed (a report lists the first %d problems of a file)",
		f.unlisted, lines, maxListedProblems)})
}

// problemsLeftOut counts the problems of a file whose sessions the filters
// all left out to in.ProblemsLeftOut, as ingest does when it applies the
// filters itself, and leaves the file none to list.
func problemsLeftOut(p FileProblems, in ingest.Options) FileProblems {
	if n := p.Count(); n > 0 && in.ProblemsLeftOut != nil {
		in.ProblemsLeftOut(n)
	}
	return FileProblems{}
}
