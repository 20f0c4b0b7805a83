package jsonx

import (
	"encoding/binary"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Field is one member of an object that DecodeObjectNested reads. Name is the
// member's key; exactly one of the destinations is set, and its type says
// what the member may hold.
type Field struct {
	Name string
	// Str takes a string; null leaves it as it is (Unmarshal into a
	// string field does the same).
	Str *string
	// Ptr takes a string, as a new pointer, or null, as nil.
	Ptr **string
	// Raw takes any value, copied (a RawMessage field; null gives the
	// four bytes null, as Unmarshal gives).
	Raw *RawMessage
	// View makes Raw a view of the input instead of a copy, for a member
	// the caller decodes further before the input changes. With Str, a
	// string without escapes (valid UTF-8) shares the input's bytes
	// instead of being copied: for a member used only while the input is
	// unchanged (compared, parsed, measured, looked up). Whatever the
	// caller keeps past that must be copied (strings.Clone); a string
	// with escapes is decoded into a new string, as without View.
	View bool
	// Bool takes true or false; null leaves it as it is.
	Bool *bool
	// BoolPtr takes true or false, as a new pointer, or null, as nil.
	BoolPtr **bool
	// Int takes an integer; null leaves it as it is. Only integers written
	// without a fraction or an exponent, within int64, are read: for any
	// other number (1.0, 1e3, 2^63) the object is declined, and Unmarshal's
	// answer stands, whatever its library makes of it.
	Int *int64
	// IntPtr is Int as a new pointer, or null, as nil.
	IntPtr **int64
}

// maxFields is how many fields and nested members DecodeObjectNested
// takes: it marks the ones it has seen in one word.
const maxFields = 64

// unknownKey reports whether key, which names none of fields and nested,
// can be skipped: it is ASCII and no name equals it with case folded
// (encoding/json and goccy match names case-insensitively, with Unicode
// folding that only bytes outside ASCII can reach).
func unknownKey(key []byte, fields []Field, nested []Nested) bool {
	if !asciiKey(key) {
		return false
	}
	folds := func(name string) bool { return len(name) == len(key) && EqualFoldASCII(name, key) }
	for i := range fields {
		if folds(fields[i].Name) {
			return false
		}
	}
	for i := range nested {
		if folds(nested[i].Name) {
			return false
		}
	}
	return true
}

// EqualFoldASCII reports whether name and key, of the same length and key
// ASCII, are equal with ASCII letters' case folded: strings.EqualFold for
// them (a byte outside ASCII in name then never matches), without its
// Unicode path and a conversion of key. unknownKey and ingest's one-pass
// usage reading decline a key that folds to a name they read, as
// encoding/json and goccy match names whatever their case.
func EqualFoldASCII(name string, key []byte) bool {
	for i := 0; i < len(key); i++ {
		a, b := name[i], key[i]
		if a == b {
			continue
		}
		if a|0x20 != b|0x20 || a|0x20 < 'a' || a|0x20 > 'z' {
			return false
		}
	}
	return true
}

// field decodes the value at p.pos, depth levels deep in the input, into
// f: a raw member is checked against MaxDepth from there, as Valid of the
// whole input checks it. A value of a kind f does not take declines.
func (p *parser) field(f *Field, depth int) bool {
	if p.pos >= len(p.data) {
		return false
	}
	c := p.data[p.pos]
	switch {
	case f.Raw != nil:
		start := p.pos
		if p.skip(depth) != nil {
			return false
		}
		if f.View {
			*f.Raw = p.data[start:p.pos:p.pos]
		} else {
			*f.Raw = append(RawMessage(nil), p.data[start:p.pos]...)
		}
		return true
	case c == '"':
		if f.View && f.Str != nil {
			// str returns substrings of src for plain strings.
			p.src = unsafe.String(unsafe.SliceData(p.data), len(p.data))
		}
		s, err := p.str()
		p.src = ""
		if err != nil {
			return false
		}
		switch {
		case f.Str != nil:
			*f.Str = s
		case f.Ptr != nil:
			v := s // only this branch moves the string header to the heap
			*f.Ptr = &v
		default:
			return false
		}
		return true
	case c == 'n':
		if _, err := p.lit("null", Value{}); err != nil {
			return false
		}
		// Unmarshal sets a pointer to nil on null and leaves any other
		// destination as it is.
		switch {
		case f.Ptr != nil:
			*f.Ptr = nil
		case f.BoolPtr != nil:
			*f.BoolPtr = nil
		case f.IntPtr != nil:
			*f.IntPtr = nil
		}
		return true
	case c == 't' || c == 'f':
		if f.Bool == nil && f.BoolPtr == nil {
			return false
		}
		word, v := "true", true
		if c == 'f' {
			word, v = "false", false
		}
		if _, err := p.lit(word, Value{}); err != nil {
			return false
		}
		if f.Bool != nil {
			*f.Bool = v
		} else {
			b := v // only this branch moves a bool to the heap
			*f.BoolPtr = &b
		}
		return true
	case c == '-' || c >= '0' && c <= '9':
		if f.Int == nil && f.IntPtr == nil {
			return false
		}
		start := p.pos
		if p.scanNumber() != nil {
			return false
		}
		// ParseInt takes no fraction or exponent, and nothing past int64:
		// those are left to Unmarshal's judgement.
		v, err := strconv.ParseInt(string(p.data[start:p.pos]), 10, 64)
		if err != nil {
			return false
		}
		if f.Int != nil {
			*f.Int = v
		} else {
			n := v // only this branch moves an integer to the heap
			*f.IntPtr = &n
		}
		return true
	}
	return false
}

// Records nest what is worth decoding in place (a session's messages, a
// conversation's entries, a message's tool calls, a log line's items) in
// lists inside the record. Reading such a list as a raw member takes one
// pass over it, and its elements then take another each. The functions
// here read nested values in the same pass: DecodeObjectNested hands a
// member to the caller, which walks it with DecodeArrayEach and decodes
// each element where it lies. They take the nesting depth of the value
// they read, so that a value nested too deeply is declined just where
// Valid would find the whole input invalid.

// Nested is a member of an object that DecodeObjectNested leaves to its
// caller. Read reads the value that starts at data[pos] (white space
// already skipped; pos < len(data)), which is depth levels deep in the
// input, and returns the index just past it; ok false declines the whole
// object.
type Nested struct {
	Name string
	Read func(data []byte, pos, depth int) (end int, ok bool)
}

// DecodeObjectNested reads the JSON object that starts at data[pos] (after
// white space), depth levels deep in data (0 for the top level), into
// fields, in one pass: each member is checked and, when it is one of the
// fields, decoded where it lies, without the separate syntax pass,
// reflection and input copy of Unmarshal; the members named in nested are
// read by their Read. end is the index just past the object's closing
// brace.
//
// ok is false for anything it does not read exactly as Unmarshal into a
// struct with these fields (tagged with their names) would: a syntax error
// anywhere in the object, a member of another type than its field takes, a
// field or nested member that appears twice, a key with an escape or with
// bytes outside ASCII, or a key that matches a name only when case is
// folded (Unmarshal matches those too), and whatever a Read declines. The
// caller then decodes the object generically (Unmarshal), whose answer or
// error stands; Read may have run, and fields may be written, before a
// decline. TestDecodeObject and FuzzDecodeObject hold it to Unmarshal.
func DecodeObjectNested(data []byte, pos, depth int, fields []Field, nested []Nested) (end int, ok bool) {
	return decodeObject(data, pos, depth, fields, nested, nil)
}

// DecodeObjectIndexed is DecodeObjectNested for a call site that decodes
// many objects with the same names: x, which the call site keeps (a
// package variable of its own), is built from the names of the first call
// and finds each key's field by a hash instead of comparing the key with
// every name. Every call with x must pass the same names in the same
// order; a call with another number of names is read as by
// DecodeObjectNested.
func DecodeObjectIndexed(data []byte, pos, depth int, x *FieldIndex, fields []Field, nested []Nested) (end int, ok bool) {
	if !x.built.Load() {
		x.build(fields, nested)
	}
	if !x.serves(len(fields) + len(nested)) {
		x = nil
	}
	return decodeObject(data, pos, depth, fields, nested, x)
}

func decodeObject(data []byte, pos, depth int, fields []Field, nested []Nested, x *FieldIndex) (end int, ok bool) {
	if len(fields)+len(nested) > maxFields || depth > MaxDepth {
		return 0, false
	}
	// A parser of its own on the stack: it builds no value, and a string
	// with escapes borrows a buffer (str).
	p := parser{data: data, pos: pos}
	if empty, ok := p.openObject(); !ok || empty {
		return p.pos, ok
	}
	if depth+1 > MaxDepth {
		// The members would be too deep for Valid; the string fields,
		// unlike skipped values, are not checked for depth.
		return 0, false
	}
	var seen uint64
	var after *keySeen // the member before, as x saw it
	guess := x         // nil once a key is not learned (learn)
	for {
		f, known := -1, false
		if k := p.keyGuessed(guess.guesses(after)); k != nil {
			// A key that followed the same member before: what find
			// made of it then, it makes of it now.
			f, known, after = k.f, true, k
		} else {
			key, escaped, ok := p.memberKey()
			if !ok || escaped {
				return 0, false
			}
			if x != nil {
				var folded bool
				f, folded = x.find(key)
				// A key that folds to a name is declined; one that
				// matches none may be skipped when it is ASCII
				// (unknownKey).
				known = f >= 0 || (!folded && asciiKey(key))
				if guess != nil {
					if after = x.learn(x.guesses(after), key, f, known); after == nil {
						guess = nil // no guesses for the rest of the object
					}
				}
			} else {
				f = linearFind(key, fields, nested)
				known = f >= 0 || unknownKey(key, fields, nested)
			}
		}
		switch {
		case f < 0:
			if !known || p.skip(depth+1) != nil {
				return 0, false
			}
		case seen&(1<<f) != 0:
			return 0, false
		case f < len(fields):
			seen |= 1 << f
			if !p.field(&fields[f], depth+1) {
				return 0, false
			}
		case p.pos >= len(p.data):
			return 0, false
		default:
			seen |= 1 << f
			end, ok := nested[f-len(fields)].Read(p.data, p.pos, depth+1)
			if !ok || end <= p.pos || end > len(p.data) {
				return 0, false
			}
			p.pos = end
		}
		if more, ok := p.listNext('}'); !ok {
			return 0, false
		} else if !more {
			return p.pos, true
		}
	}
}

// linearFind is the index of key among fields then nested (nested[i] is
// len(fields)+i), -1 when it names none.
func linearFind(key []byte, fields []Field, nested []Nested) int {
	for i := range fields {
		if fields[i].Name == string(key) {
			return i
		}
	}
	for i := range nested {
		if nested[i].Name == string(key) {
			return len(fields) + i
		}
	}
	return -1
}

// FieldIndex finds the names of DecodeObjectIndexed's fields and nested
// members by a hash of a key's length and of its first and last bytes with
// ASCII case folded. Keys that are equal with case folded hash alike, so
// one probe finds both a key's own name and a name it would match only
// with case folded (which DecodeObjectNested declines). Before that, it
// guesses the key among the last few that followed the same key (guesses),
// which most keys of a JSONL file are. Its zero value is ready: it is
// built at first use.
type FieldIndex struct {
	// built is set once the rest is, under mu, by the first call.
	built atomic.Bool
	mu    sync.Mutex
	// names are the fields' names, then nested's; none when there were
	// more than maxFields of them, which the index does not serve.
	names []string
	// slots holds 1 + the index in names of the name whose hash sent it
	// there, or of a name probed past an occupied slot (open addressing,
	// linear probing); 0 is empty, and ends a probe.
	slots [fieldSlots]uint8
	// first guesses an object's first key; seen stands for each of
	// names, others for a key that names none, by the slot of its
	// foldHash.
	first       guesses
	seen        []keySeen
	others      [fieldSlots]atomic.Pointer[keySeen]
	unknownKeys atomic.Int64 // how many of others were made (learn)
}

// The bounds on what a FieldIndex learns of keys that name no field
// (learn): far above what a writer's records hold (a Claude Code line has
// fewer than ten such keys, of under 20 bytes).
const (
	maxGuessedKey  = 64
	maxUnknownKeys = 1024
)

// keySeen is a key a FieldIndex met, with what find made of it: the
// index f of its field, or -1 for a key that names none and may be
// skipped (a key that may not is never learned). next guesses the key
// that follows it.
type keySeen struct {
	written string // the key with its quotes and a colon: "key":
	// words and masks hold written's first 16 bytes, for a key no
	// longer than that (most are) to be compared in two loads.
	words, masks [2]uint64
	f            int
	next         guesses
}

// guesses are the last different keys that followed a key, or began an
// object: the most recent first. Several, because objects of a few kinds
// often alternate (a user line and an assistant line; a call, its result
// and a thought), and their keys part after the same key.
type guesses [3]atomic.Pointer[keySeen]

// set makes k the keySeen of key (without its quotes, no escapes), found
// as f.
func (k *keySeen) set(key string, f int) {
	k.written, k.f = `"`+key+`":`, f
	if len(k.written) > 16 {
		return
	}
	var b [16]byte
	copy(b[:], k.written)
	for i := range 2 {
		k.words[i] = binary.LittleEndian.Uint64(b[8*i:])
		if n := len(k.written) - 8*i; n >= 8 {
			k.masks[i] = ^uint64(0)
		} else if n > 0 {
			k.masks[i] = 1<<(8*n) - 1
		}
	}
}

// writtenAt reports whether data[pos:] begins with k.written, and where
// it ends.
func (k *keySeen) writtenAt(data []byte, pos int) (end int, ok bool) {
	end = pos + len(k.written)
	if k.masks[0] != 0 && pos+16 <= len(data) {
		a := binary.LittleEndian.Uint64(data[pos:])
		b := binary.LittleEndian.Uint64(data[pos+8:])
		return end, (a^k.words[0])&k.masks[0]|(b^k.words[1])&k.masks[1] == 0
	}
	return end, end <= len(data) && string(data[pos:end]) == k.written
}

// guesses returns the guesses of the key that follows after (nil: of
// an object's first key); nil without an index.
//
// An object's keys come in the same order object after object (a writer
// writes them from one struct), so the next key is most often one that
// came after the same key before: checking a guess takes one comparison,
// where reading a key and finding its name takes a scan and a probe. A
// wrong guess costs the comparison. Both decoding workers learn and guess
// through the same index; a guess one overwrites is only a worse guess
// for the other.
func (x *FieldIndex) guesses(after *keySeen) *guesses {
	if x == nil {
		return nil
	}
	if after == nil {
		return &x.first
	}
	return &after.next
}

// learn records that key, which find made f and known of, came where g
// guesses, and returns what stands for key; nil when nothing does (the
// object is declined, or key names no field and is not learned). A key is
// one keySeen for as long as no other key takes its slot, so that the
// guesses after it hold across objects whose keys differ earlier.
//
// What an index learns of keys that name no field is bounded, as the
// input is not: a key longer than maxGuessedKey is not learned, and an
// index makes at most maxUnknownKeys of them in all. Keys that take each
// other's slots in one long object would otherwise stay linked through
// their guesses, each holding a copy of its key, for as long as the
// process runs. Past the bound, such keys are only read and looked up.
func (x *FieldIndex) learn(g *guesses, key []byte, f int, known bool) *keySeen {
	var k *keySeen
	switch {
	case f >= 0:
		k = &x.seen[f]
	case !known || len(key) > maxGuessedKey:
		return nil
	default:
		slot := &x.others[foldHash(key)]
		if k = slot.Load(); k == nil || k.written[1:len(k.written)-2] != string(key) {
			if x.unknownKeys.Add(1) > maxUnknownKeys {
				return nil
			}
			k = new(keySeen)
			k.set(string(key), -1)
			slot.Store(k)
		}
	}
	// Stored only when it changes: the workers would otherwise write
	// the same line of memory at every key.
	for i := range g {
		if g[i].Load() == k {
			return k
		}
	}
	for i := len(g) - 1; i > 0; i-- {
		g[i].Store(g[i-1].Load())
	}
	g[0].Store(k)
	return k
}

// fieldSlots is the size of a FieldIndex's table, one slot per value of
// the byte foldHash gives: four times maxFields, so that probes stay short
// and a probe always meets an empty slot.
const fieldSlots = 256

func (x *FieldIndex) build(fields []Field, nested []Nested) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.built.Load() {
		return
	}
	defer x.built.Store(true)
	if len(fields)+len(nested) > maxFields {
		return
	}
	// The names are copied, so that the index keeps nothing of the
	// caller's fields: they stay on its stack.
	for _, f := range fields {
		x.names = append(x.names, strings.Clone(f.Name))
	}
	for _, f := range nested {
		x.names = append(x.names, strings.Clone(f.Name))
	}
	x.seen = make([]keySeen, len(x.names))
	for i, name := range x.names {
		x.seen[i].set(name, i)
		h := foldHash(name)
		for x.slots[h] != 0 {
			h++ // wraps around the table
		}
		x.slots[h] = uint8(i + 1)
	}
}

// serves reports whether x indexes the names of a call site with count
// of them: the number the first call had (names stays empty past
// maxFields).
func (x *FieldIndex) serves(count int) bool {
	return len(x.names) == count
}

// find returns the index of the name that is key (-1: none), and whether
// some name equals key only with ASCII case folded.
func (x *FieldIndex) find(key []byte) (i int, folded bool) {
	h := foldHash(key)
	for {
		s := x.slots[h]
		if s == 0 {
			return -1, folded
		}
		if name := x.names[s-1]; len(name) == len(key) {
			if name == string(key) {
				return int(s - 1), false
			}
			folded = folded || EqualFoldASCII(name, key)
		}
		h++ // wraps around the table
	}
}

// foldHash hashes a name or key by its length and its first and last
// bytes, with bit 0x20 set in both: ASCII letters' case folded, and any
// two strings equal with case folded (EqualFoldASCII) hash alike.
func foldHash[S string | []byte](s S) uint8 {
	if len(s) == 0 {
		return 0
	}
	a, b := uint(s[0]|0x20), uint(s[len(s)-1]|0x20)
	return uint8(uint(len(s))*37 + a*5 + b*11)
}

// asciiKey reports whether key has no byte outside ASCII: a key that has
// one may equal a name under Unicode case folding, which encoding/json and
// goccy apply, so it is declined (unknownKey).
func asciiKey(key []byte) bool {
	for len(key) >= 8 {
		if binary.LittleEndian.Uint64(key)&highs != 0 {
			return false
		}
		key = key[8:]
	}
	for _, c := range key {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// DecodeArrayEach reads the JSON array at data[pos] (after white space),
// which is depth levels deep in data, calling elem for each element in
// order with the element's start (white space skipped; within data) and
// depth; elem returns the index just past the element. end is the index
// just past the closing bracket. ok is false for anything but an array
// (null included: the caller decides what null means), a syntax error
// between the elements, or an elem that declines.
func DecodeArrayEach(data []byte, pos, depth int, elem func(data []byte, pos, depth int) (end int, ok bool)) (end int, ok bool) {
	if depth > MaxDepth {
		return 0, false
	}
	p := parser{data: data, pos: pos}
	if empty, ok := p.open('[', ']'); !ok || empty {
		return p.pos, ok
	}
	for {
		p.ws()
		if p.pos >= len(p.data) {
			return 0, false
		}
		end, ok := elem(p.data, p.pos, depth+1)
		if !ok || end <= p.pos || end > len(p.data) {
			return 0, false
		}
		p.pos = end
		if more, ok := p.listNext(']'); !ok {
			return 0, false
		} else if !more {
			return p.pos, true
		}
	}
}

// SkipValue moves past the value at data[pos] (after white space), which
// is depth levels deep in data, checking its syntax as Valid does and
// building nothing: for an element the caller's decoding declined, to be
// kept raw and read the plain way. start is where the value begins, end
// just past it.
func SkipValue(data []byte, pos, depth int) (start, end int, ok bool) {
	p := parser{data: data, pos: pos}
	p.ws()
	start = p.pos
	if p.skip(depth) != nil {
		return 0, 0, false
	}
	return start, p.pos, true
}

// AtEnd reports whether only JSON white space follows data[pos:].
func AtEnd(data []byte, pos int) bool {
	p := parser{data: data, pos: pos}
	return p.atEnd()
}
