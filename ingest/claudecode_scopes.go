package ingest

import "strings"

// uuidScopes remembers the agent scope of each line's uuid in a Claude
// Code file, for the sidechain lines without an agentId that join their
// parent's scope. Nearly every line has a uuid but such lookups are rare
// (sidechain lines carry an agentId since Claude Code 2.x), so the
// assignments of canonical uuids are logged, 20 bytes each (the uuid's 16
// bytes and the number of its scope's name), in chunks of a fixed size:
// a log grown by doubling allocated about four times what it held, a
// tenth of a replay's allocations on a Claude Code corpus. They are
// indexed in a map only at the first lookup; a uuid of another form (a
// test's "u1", upper-case hex) is kept by its text. A uuid assigned again
// takes its latest scope, as in a map assigned in order. The zero value
// is empty and ready.
type uuidScopes struct {
	log    [][]uuidScope
	scopes []string           // the scope names, numbered in order of first use
	number map[string]uint32  // a scope name's number
	last   uint32             // the number set used last
	index  map[uuidKey]string // once looked up: every canonical uuid
	other  map[string]string
}

type uuidScope struct {
	id    uuidKey
	scope uint32 // in uuidScopes.scopes
}

// uuidLogChunk is how many assignments a chunk of the log holds.
const uuidLogChunk = 4096

// uuidKey is a canonical uuid's 16 bytes.
type uuidKey [16]byte

// setKey records that the line with uuid id is in scope (not ""); k and
// ok are canonicalUUID(id), worked out where the line was decoded.
func (u *uuidScopes) setKey(id string, k uuidKey, ok bool, scope string) {
	switch {
	case !ok:
		if u.other == nil {
			u.other = map[string]string{}
		}
		u.other[strings.Clone(id)] = scope // id may be a view of the line
	case u.index != nil:
		u.index[k] = scope
	default:
		n := len(u.log)
		if n == 0 || len(u.log[n-1]) == uuidLogChunk {
			u.log = append(u.log, make([]uuidScope, 0, uuidLogChunk))
			n++
		}
		u.log[n-1] = append(u.log[n-1], uuidScope{k, u.scopeNumber(scope)})
	}
}

// scopeNumber is the number of a scope's name; the one used last is
// checked first, as consecutive lines are mostly of one scope.
func (u *uuidScopes) scopeNumber(scope string) uint32 {
	if int(u.last) < len(u.scopes) && u.scopes[u.last] == scope {
		return u.last
	}
	if u.number == nil {
		u.number = map[string]uint32{}
	}
	n, ok := u.number[scope]
	if !ok {
		n = uint32(len(u.scopes))
		u.scopes = append(u.scopes, scope)
		u.number[scope] = n
	}
	u.last = n
	return n
}

// get is the scope of the line with uuid id, "" when none was recorded.
func (u *uuidScopes) get(id string) string {
	k, ok := canonicalUUID(id)
	if !ok {
		return u.other[id]
	}
	if u.index == nil {
		size := 0
		for _, chunk := range u.log {
			size += len(chunk)
		}
		u.index = make(map[uuidKey]string, size)
		for _, chunk := range u.log {
			for _, e := range chunk {
				u.index[e.id] = u.scopes[e.scope]
			}
		}
		u.log = nil
	}
	return u.index[k]
}

// canonicalUUID reads a uuid written as Claude Code writes them, 8-4-4-4-12
// lower-case hex digits, into its bytes. Only that form is read, so that
// two different texts never share a key.
func canonicalUUID(s string) (k uuidKey, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return k, false
	}
	bad := byte(0)
	for j, i := range uuidPairs {
		hi, lo := lowerHexValue[s[i]], lowerHexValue[s[i+1]]
		bad |= hi | lo
		k[j] = hi<<4 | lo&0xf
	}
	return k, bad&0xf0 == 0
}

// uuidPairs are where the 16 pairs of digits of a canonical uuid start.
var uuidPairs = [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// lowerHexValue is a lower-case hex digit's value, 0xff for other bytes.
var lowerHexValue = func() (t [256]byte) {
	for c := range t {
		switch {
		case c >= '0' && c <= '9':
			t[c] = byte(c - '0')
		case c >= 'a' && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		default:
			t[c] = 0xff
		}
	}
	return t
}()
