package rules

import (
	"errors"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// The key section's field paths as validation reads them (key.tools'
// drop). The guard builds keys by the key section (analyze/guard,
// callkey.go); rules holds its schema and checks it.

// dropSeg is one step of a drop path: a member name, and whether the
// member is an array whose every element the rest applies to ("edits[]").
type dropSeg struct {
	name string
	each bool
}

func parseDrop(p string) ([]dropSeg, error) {
	if p == "" {
		return nil, errors.New("an empty field path")
	}
	var segs []dropSeg
	for _, part := range strings.Split(p, ".") {
		each := strings.HasSuffix(part, "[]")
		name := strings.TrimSuffix(part, "[]")
		if name == "" || strings.ContainsAny(name, "[]") {
			return nil, errors.New("field path " + quote(p) + " must read like name, a.b or edits[].newText")
		}
		segs = append(segs, dropSeg{name, each})
	}
	if segs[len(segs)-1].each {
		return nil, errors.New("field path " + quote(p) + " must end with a field name, not []")
	}
	return segs, nil
}

func quote(s string) string { return jsonx.Quote(s) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
