package jsonx

import "unsafe"

// RawMember is one member of an object's top level as TopMembers reads it:
// its key and its raw value, both substrings of the object's text.
type RawMember struct {
	Key, Val string
}

// TopMembers reads the top level of the JSON object s into dst (appended
// to dst[:0]), in order, without building or copying values: a reader of a
// few members of a call's arguments looks them up here and parses only
// those (ParseMemberShared), not the whole object. ok is false, and the
// members are not all read, when s is not an object, has a syntax error
// or has more than cap(dst) members, or a key holds escapes (its name is
// only known decoded): the caller then parses s whole. What follows the
// object must be white space only, as for Parse.
func TopMembers(s string, dst []RawMember) (members []RawMember, ok bool) {
	members = dst[:0]
	full := false
	end, complete := Members(ReadOnlyBytes(s), func(k []byte, escaped bool, v []byte) bool {
		if escaped || len(members) == cap(members) {
			full = true
			return false
		}
		members = append(members, RawMember{
			Key: unsafe.String(unsafe.SliceData(k), len(k)),
			Val: unsafe.String(unsafe.SliceData(v), len(v)),
		})
		return true
	})
	if !complete || full {
		return members, false
	}
	p := parser{data: ReadOnlyBytes(s), pos: end}
	p.ws()
	return members, p.pos == len(s)
}

// ParseMemberShared parses a member's raw value as TopMembers gives it,
// sharing its memory as ParseStringShared does, at the depth the member
// has inside its object: the value equals the member's in the object
// parsed whole.
func ParseMemberShared(val string) (Value, error) {
	p := parserPool.Get().(*parser)
	defer p.release()
	p.data = ReadOnlyBytes(val)
	p.src = val
	return p.parseAt(1)
}
