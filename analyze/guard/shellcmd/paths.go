package shellcmd

import (
	"path"
	"strings"
)

// Overlap reports whether a write to one path may change what a read of
// the other returned: the same file, a directory and a path under it, in
// either order. The directory a session started in is not known, so a
// relative path may be anywhere: it overlaps any path in which its
// components appear in a row ("src/a.go" overlaps "/repo/src/a.go" and
// "src"). Two absolute paths overlap when one is a prefix of the other.
// A path with ".." in it, or no path, overlaps everything. Overlap errs
// towards yes: a wrong yes only lets a repeat run, a wrong no would stop a
// read whose file changed.
func Overlap(a, b string) bool { return OverlapReach(Reach(a), Reach(b)) }

// Reach is a path as Overlap compares it: cleaned (its separators, a
// leading "~", a glob's tail and "." or ".." components read as Overlap
// reads them), or "." for a path that overlaps everything (none, the
// working directory, the root, a path that climbs). Overlap(a, b) is
// OverlapReach(Reach(a), Reach(b)): a caller that compares one path with
// many, again and again (the guard's observations, each act), works out
// each path's reach once instead of cleaning both paths at every test.
func Reach(p string) string {
	if p == "" {
		return "."
	}
	p = clean(p)
	if p == "/" || climbs(p) {
		return "."
	}
	return p
}

// OverlapReach is Overlap of two paths given as Reach returns them.
func OverlapReach(a, b string) bool {
	if a == "." || b == "." {
		return true
	}
	// The paths are compared as text, component by component, without
	// splitting them: a replay asks this for every act and every file
	// observed before it.
	absA, absB := path.IsAbs(a), path.IsAbs(b)
	ra, rb := strings.TrimPrefix(a, "/"), strings.TrimPrefix(b, "/")
	if absA && absB {
		return prefix(ra, rb) || prefix(rb, ra)
	}
	if inRow(ra, rb) || inRow(rb, ra) {
		return true
	}
	// An absolute directory and a relative path that goes on from it
	// ("/repo/src" and "src/a.go": the session's directory /repo).
	switch {
	case absA && !absB:
		return tailHead(ra, rb)
	case absB && !absA:
		return tailHead(rb, ra)
	}
	return false
}

// tailHead reports whether the last components of abs (without its leading
// "/") are the first ones of rel: rel may name a path under abs.
func tailHead(abs, rel string) bool {
	for i := 0; i < len(abs); i++ {
		if i > 0 && abs[i-1] != '/' {
			continue
		}
		if prefix(abs[i:], rel) {
			return true
		}
	}
	return false
}

// OverlapAny reports whether any of the written paths overlaps any of the
// read ones.
func OverlapAny(writes, reads []string) bool {
	for _, w := range writes {
		for _, r := range reads {
			if Overlap(w, r) {
				return true
			}
		}
	}
	return false
}

func clean(p string) string {
	// A Windows path: its separators read as "/".
	p = strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(p, "~") {
		p = strings.TrimLeft(strings.TrimPrefix(p, "~"), "/")
		if p == "" {
			return "."
		}
	}
	return path.Clean(beforeGlob(p))
}

// climbs reports whether a cleaned path has a ".." component.
func climbs(p string) bool {
	for i := 0; ; {
		j := strings.Index(p[i:], "..")
		if j < 0 {
			return false
		}
		i += j
		if (i == 0 || p[i-1] == '/') && (i+2 == len(p) || p[i+2] == '/') {
			return true
		}
		i++
	}
}

// prefix reports whether the components of short (a cleaned path without
// its leading "/") are the first ones of long's.
func prefix(short, long string) bool {
	return long == short || len(long) > len(short) && long[len(short)] == '/' && long[:len(short)] == short
}

// inRow reports whether short's components appear in a row in long's.
func inRow(short, long string) bool {
	for i := 0; ; {
		j := strings.Index(long[i:], short)
		if j < 0 {
			return false
		}
		i += j
		if (i == 0 || long[i-1] == '/') && (i+len(short) == len(long) || long[i+len(short)] == '/') {
			return true
		}
		i++
	}
}

// The kinds of Effect.
const (
	// EffectNone: the call neither reads files by name nor acts (web
	// lookups, polls, other tools): no act invalidates it, and it
	// invalidates nothing.
	EffectNone uint8 = iota
	// EffectObserve: the call reads Paths (and anything, when All).
	EffectObserve
	// EffectAct: the call changes Paths (anything, when All).
	EffectAct
)

// Effect is what a call does to the files a session sees: it observes
// paths, acts on paths, acts on anything, or neither (a web lookup, a
// poll, a tool we do not know). The guard works it out from a call
// (analyze/guard's callEffect): the truth of a replay and the guard's path
// invalidation share it.
type Effect struct {
	Kind  uint8
	Paths []string
	// All: an observation that reads what it does not name (a search of
	// the working directory), or an act of unknown reach.
	All bool
}

// Invalidates reports whether an act invalidates what an observation
// returned: an act of unknown reach invalidates every observation, an
// observation of anything is invalidated by any act, and otherwise their
// paths must overlap (shellcmd.Overlap).
func (act Effect) Invalidates(obs Effect) bool {
	if act.Kind != EffectAct || obs.Kind != EffectObserve {
		return false
	}
	return act.All || obs.All || OverlapAny(act.Paths, obs.Paths)
}
