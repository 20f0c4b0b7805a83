package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/formatcheck"
)

// row is one file's two readings and what the comparison found.
type row struct {
	File        string
	Loopgate    formatcheck.Count
	Independent formatcheck.Count
	// Known: the independent reading knows the format.
	Known bool
	// Unread: loopgate reads no session of the file, a failure the
	// conformance test's "format" entry covers; the figures are not
	// compared.
	Unread bool
	// Differ names the figures that differ.
	Differ []string
	// Notes name the expectations' entries that cover this file's
	// differences, with their owners.
	Notes []string
}

// readLoopgate counts loopgate's reading of a file the way the
// independent reading counts: sessions, calls, calls with a result, calls
// repeating an earlier call's tool and arguments in the session, and the
// tokens (input with cache, plus output) of the usage recorded.
func readLoopgate(path string) formatcheck.Count {
	var c formatcheck.Count
	ingest.ReadFile(path, ingest.Options{}, &ingest.Sink{
		OnSession: func(s *ingest.Session) {
			c.Format = s.Format
			c.Sessions++
			seen := map[string]bool{}
			for _, t := range s.Turns {
				for _, r := range t.Requests {
					if r.Usage != nil {
						c.Tokens += r.Usage.Input + r.Usage.Output
					}
					for _, k := range r.Calls {
						c.Calls++
						if k.HasResult {
							c.WithResults++
						}
						key := k.Tool + "\x00" + formatcheck.Canonical(k.ArgsRaw)
						if seen[key] {
							c.Repeats++
						}
						seen[key] = true
					}
				}
			}
		},
		OnProblem: func(ingest.Problem) {},
	})
	return c
}

// figures are the compared figures with their check names.
func figures(c formatcheck.Count) []struct {
	check string
	value int64
} {
	return []struct {
		check string
		value int64
	}{
		{"sessions", int64(c.Sessions)},
		{"calls", int64(c.Calls)},
		{"with-results", int64(c.WithResults)},
		{"repeats", int64(c.Repeats)},
		{"tokens", c.Tokens},
	}
}

// compare reads every file under root both ways (loopgate's reading is
// readLoopgate, or a stand-in a test gives) and weighs the differences
// against the expectations. It returns the rows and the failures:
// differences not listed, entries that are stale.
func compare(root string, x *formatcheck.Expectations, loopgate func(path string) formatcheck.Count) ([]row, []string, error) {
	files, err := formatcheck.SampleFiles(root)
	if err != nil {
		return nil, nil, err
	}
	var rows []row
	var failures []string
	for _, rel := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		r := row{File: rel, Loopgate: loopgate(path)}
		ind, err := formatcheck.CountFile(path)
		switch {
		case errors.Is(err, formatcheck.ErrUnknown):
		case err != nil:
			return nil, nil, err
		default:
			r.Known = true
			r.Independent = ind
		}
		unknown := ""
		if !r.Known {
			unknown = "no independent reading of this file's format"
		}
		if msg := x.Judge(rel, "independent", unknown); msg != "" {
			failures = append(failures, msg)
		}
		if e := x.Entry(rel, "independent"); e != nil {
			r.Notes = append(r.Notes, "independent ("+e.Owner+")")
		}
		// A file loopgate reads no session of is the conformance test's
		// "format" failure: its figures are compared once it is read.
		unread := r.Loopgate.Sessions == 0 && x.Entry(rel, "format") != nil
		r.Unread = unread
		if unread {
			r.Notes = append(r.Notes, "format ("+x.Entry(rel, "format").Owner+")")
		}
		lf, inf := figures(r.Loopgate), figures(r.Independent)
		for i := range lf {
			failure := ""
			if r.Known && !unread && lf[i].value != inf[i].value {
				failure = fmt.Sprintf("loopgate %d, independent %d", lf[i].value, inf[i].value)
				r.Differ = append(r.Differ, lf[i].check)
			}
			if !r.Known || unread {
				// Nothing to compare: an entry for a figure is stale only
				// once both readings exist.
				if e := x.Entry(rel, lf[i].check); e != nil {
					failure = "not compared (" + strings.TrimSpace(unknown+" "+map[bool]string{true: "loopgate reads no session"}[unread]) + ")"
				}
			}
			if msg := x.Judge(rel, lf[i].check, failure); msg != "" {
				failures = append(failures, msg)
			}
			if e := x.Entry(rel, lf[i].check); e != nil {
				r.Notes = append(r.Notes, lf[i].check+" ("+e.Owner+")")
			}
		}
		rows = append(rows, r)
	}
	failures = append(failures, x.Unjudged("independent", "sessions", "calls", "with-results", "repeats", "tokens")...)
	return rows, failures, nil
}
