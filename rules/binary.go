package rules

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"

	"github.com/loopgate/loopgate/internal/snapbin"
)

// The binary form of parsed rules: what a process that starts once per
// call (the live hook) keeps beside its state so that the next call skips
// parsing the same YAML again (docs/performance.md, "The live hook, every
// preset": the parse was a quarter of a call's instructions).
//
// It is written and read by walking the schema's types, as the loader and
// Clone do, so that a field added to the schema is carried without a line
// here; what the walk cannot carry (an unexported setting, a function, an
// interface other than a detector's settings) makes AppendBinary fail, and
// the caller then simply parses each time. The form carries no description
// of the schema (working one out from the types took more than the rest
// of the read): it is read only by the program that wrote it, which its
// caller ensures (live keys it by the program's build and file). The
// derived index (compile) is not written: DecodeBinary builds it again.

// AppendBinary appends r's settings in binary form to b.
func AppendBinary(b []byte, r *Rules) ([]byte, error) {
	if r == nil || r.nativeTools {
		// A session's variant is derived by ForSession, never parsed.
		return b, errors.New("rules: only parsed rules have a binary form")
	}
	w := &snapbin.Writer{B: b}
	w.Uint(binaryVersion)
	if err := encodeValue(w, reflect.ValueOf(r).Elem()); err != nil {
		return b, err
	}
	return w.B, nil
}

// DecodeBinary reads rules AppendBinary wrote, compiled and ready to use.
// The strings of the result are data's own memory: data must not change
// afterwards. A corrupt input, or one of another schema, is an error,
// never a panic.
func DecodeBinary(data []byte) (r *Rules, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("rules: binary form unreadable: %v", p)
		}
	}()
	rd := snapbin.NewReader(data)
	if rd.Uint() != binaryVersion || rd.Err() != nil {
		return nil, errors.New("rules: binary form of another version")
	}
	r = &Rules{}
	decodeValue(rd, reflect.ValueOf(r).Elem())
	if rd.Err() == nil && rd.Rest() != 0 {
		rd.Fail(snapbin.ErrCorrupt)
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	r.compile()
	return r, nil
}

var rulesType = reflect.TypeOf(Rules{})

// binaryVersion starts the binary form; it changes with the form's
// encoding of a kind, not with the schema.
const binaryVersion = 1

// errNoBinary is the error of a value the binary form cannot carry.
func errNoBinary(t reflect.Type, why string) error {
	return fmt.Errorf("rules: no binary form for %s: %s", t, why)
}

func encodeValue(w *snapbin.Writer, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		w.Bool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.Int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.Uint(v.Uint())
	case reflect.Float32, reflect.Float64:
		w.Word(math.Float64bits(v.Float()))
	case reflect.String:
		w.String(v.String())
	case reflect.Pointer:
		if v.IsNil() {
			w.Uint(0)
			return nil
		}
		w.Uint(1)
		return encodeValue(w, v.Elem())
	case reflect.Slice:
		// nil and empty are kept apart: the rules tell "not given" from
		// "given empty" in places.
		if v.IsNil() {
			w.Uint(0)
			return nil
		}
		w.Uint(uint64(v.Len()) + 1)
		for i := 0; i < v.Len(); i++ {
			if err := encodeValue(w, v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return errNoBinary(v.Type(), "a map whose keys are not strings")
		}
		if v.IsNil() {
			w.Uint(0)
			return nil
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int {
			switch {
			case a.String() < b.String():
				return -1
			case a.String() > b.String():
				return 1
			}
			return 0
		})
		w.Uint(uint64(len(keys)) + 1)
		for _, k := range keys {
			w.String(k.String())
			if err := encodeMapValue(w, v.Type(), k.String(), v.MapIndex(k)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				// Rules' own unexported fields are derived (compile) or
				// set by ForSession only; anywhere else such a field
				// would be lost.
				if t == rulesType {
					continue
				}
				return errNoBinary(t, "unexported field "+f.Name)
			}
			if err := encodeValue(w, v.Field(i)); err != nil {
				return err
			}
		}
	default:
		return errNoBinary(v.Type(), "kind "+v.Kind().String())
	}
	return nil
}

// encodeMapValue writes one value of a map: a detector's settings (the
// pointer to its registered struct) by the detector's name, anything else
// as itself.
func encodeMapValue(w *snapbin.Writer, m reflect.Type, key string, v reflect.Value) error {
	if m != detectorsType {
		return encodeValue(w, v)
	}
	s := detectorByName[key]
	if s == nil || v.IsNil() || v.Elem().Type() != reflect.PointerTo(s.settings) || v.Elem().IsNil() {
		return errNoBinary(m, "detector "+strconv.Quote(key)+" not registered with these settings")
	}
	return encodeValue(w, v.Elem().Elem())
}

func decodeValue(r *snapbin.Reader, v reflect.Value) {
	if r.Err() != nil {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := r.Int()
		if v.OverflowInt(x) {
			r.Fail(snapbin.ErrCorrupt)
			return
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x := r.Uint()
		if v.OverflowUint(x) {
			r.Fail(snapbin.ErrCorrupt)
			return
		}
		v.SetUint(x)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(math.Float64frombits(r.Word()))
	case reflect.String:
		v.SetString(r.String())
	case reflect.Pointer:
		if r.Uint() == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		decodeValue(r, p.Elem())
		v.Set(p)
	case reflect.Slice:
		n := count(r)
		if n < 0 {
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n && r.Err() == nil; i++ {
			decodeValue(r, s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		n := count(r)
		if n < 0 {
			return
		}
		t := v.Type()
		m := reflect.MakeMapWithSize(t, n)
		for i := 0; i < n && r.Err() == nil; i++ {
			key := r.String()
			var e reflect.Value
			if t == detectorsType {
				s := detectorByName[key]
				if s == nil {
					r.Fail(snapbin.ErrCorrupt)
					return
				}
				p := reflect.New(s.settings)
				decodeValue(r, p.Elem())
				e = p
			} else {
				e = reflect.New(t.Elem()).Elem()
				decodeValue(r, e)
			}
			m.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), e)
		}
		v.Set(m)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField() && r.Err() == nil; i++ {
			if t.Field(i).IsExported() {
				decodeValue(r, v.Field(i))
			}
		}
	default:
		r.Fail(snapbin.ErrCorrupt)
	}
}

// count reads the length of a slice or map written as length+1 (0: nil);
// -1 for nil. A length cannot exceed the bytes left (each element takes
// at least one), so a corrupt length allocates nothing large.
func count(r *snapbin.Reader) int {
	n := r.Uint()
	if n == 0 || r.Err() != nil {
		return -1
	}
	if n-1 > uint64(r.Rest()) {
		r.Fail(snapbin.ErrCorrupt)
		return -1
	}
	return int(n - 1)
}
