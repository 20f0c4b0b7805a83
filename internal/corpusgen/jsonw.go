package corpusgen

import (
	"bufio"
	"sort"
	"strconv"
)

// This file holds the small JSON encoder the writers use. It exists for two
// reasons: speed (a 1 GiB corpus is mostly long strings, escaped once or
// twice), and fidelity (Python's json.dumps writes ", " and ": " separators
// and does not escape <, > and &, which is what hermes and nanobot files look
// like; encoding/json cannot do either).

// kv is one member of an object, in the order it is written.
type kv struct {
	k string
	v any
}

// raw is JSON text inserted as it is (a value already encoded).
type raw string

// appendStr appends s as a JSON string. Only the characters JSON requires are
// escaped (no HTML escaping, UTF-8 kept as is).
func appendStr(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			const hex = "0123456789abcdef"
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendValue appends v: string, int, int64, float (see flt), bool, nil,
// []string, []kv (an object), []any (an array) or raw.
func appendValue(b []byte, v any, py bool) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendStr(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case flt:
		return strconv.AppendFloat(b, float64(x), 'f', -1, 64)
	case bool:
		return strconv.AppendBool(b, x)
	case raw:
		return append(b, x...)
	case []string:
		b = append(b, '[')
		for i, s := range x {
			if i > 0 {
				b = appendSep(b, py)
			}
			b = appendStr(b, s)
		}
		return append(b, ']')
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = appendSep(b, py)
			}
			b = appendValue(b, e, py)
		}
		return append(b, ']')
	case []kv:
		return appendObj(b, x, py)
	}
	panic("gen: unsupported JSON value type") // a programming error in this package, never input-driven
}

// flt is a float written in its shortest form (Python-like for timestamps).
type flt float64

func appendSep(b []byte, py bool) []byte {
	if py {
		return append(b, ',', ' ')
	}
	return append(b, ',')
}

func appendObj(b []byte, members []kv, py bool) []byte {
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = appendSep(b, py)
		}
		b = appendStr(b, m.k)
		if py {
			b = append(b, ':', ' ')
		} else {
			b = append(b, ':')
		}
		b = appendValue(b, m.v, py)
	}
	return append(b, '}')
}

// objString encodes an object as a Go string.
func objString(members []kv, py bool) string {
	return string(appendObj(nil, members, py))
}

// canonicalArgs is the rules-independent identity of arguments: compact
// JSON with keys sorted (the same identity as analyze's truth signature, appendSignature).
func canonicalArgs(args []kv) string {
	sorted := append([]kv(nil), args...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].k < sorted[j].k })
	return objString(sorted, false)
}

// lineWriter streams records to a file: each record is appended to a
// scratch buffer that is handed to the bufio.Writer whenever it grows past
// a threshold, so a 50 MB record is never held twice.
type lineWriter struct {
	w   *bufio.Writer
	b   []byte
	n   int64 // bytes written so far
	err error
}

const flushAt = 256 << 10

func (lw *lineWriter) flushMaybe() {
	if len(lw.b) >= flushAt {
		lw.flush()
	}
}

func (lw *lineWriter) flush() {
	if len(lw.b) == 0 {
		return
	}
	n, err := lw.w.Write(lw.b)
	lw.n += int64(n)
	if err != nil && lw.err == nil {
		lw.err = err
	}
	lw.b = lw.b[:0]
}

func (lw *lineWriter) raw(s string) {
	lw.b = append(lw.b, s...)
	lw.flushMaybe()
}

func (lw *lineWriter) str(s string) {
	lw.b = appendStr(lw.b, s)
	lw.flushMaybe()
}

func (lw *lineWriter) val(v any, py bool) {
	lw.b = appendValue(lw.b, v, py)
	lw.flushMaybe()
}
