package jsonx

import (
	"math"
	"strconv"
	"strings"
)

// PyNumber returns a JSON number literal as Python writes it back after
// json.loads: json.dumps(json.loads(lit)). Designs written in Python
// (nanobot, hermes) key calls on that text, so 1e2, 1E2 and 100.0 are one
// value there ("100.0") while 100 is another ("100").
//
// Python's json reads a literal without '.', 'e' or 'E' as an int (exact,
// any size, "-0" is 0) and any other as a float, printed by repr: the
// shortest digits that read back the same, in fixed notation with at least
// one decimal when the decimal exponent is in [-4, 16), else as d.ddde+XX
// with at least two exponent digits. A float out of range is inf, which
// json.dumps writes as Infinity. A text that is not a number is returned
// as it is.
func PyNumber(lit string) string {
	if !strings.ContainsAny(lit, ".eE") {
		neg := strings.HasPrefix(lit, "-")
		digits := strings.TrimLeft(strings.TrimPrefix(lit, "-"), "0")
		switch {
		case digits == "":
			return "0"
		case neg:
			return "-" + digits
		}
		return digits
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		return lit
	}
	return pyFloatRepr(f)
}

// pyFloatRepr is Python's repr of a float (float_repr_style "short").
func pyFloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	sign := ""
	if math.Signbit(f) {
		sign, f = "-", -f
	}
	if f == 0 {
		return sign + "0.0"
	}
	// The shortest digits and the decimal exponent of the first digit.
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	if exp >= -4 && exp < 16 {
		var b strings.Builder
		b.WriteString(sign)
		if exp < 0 {
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -exp-1))
			b.WriteString(digits)
			return b.String()
		}
		intLen := exp + 1
		if len(digits) <= intLen {
			b.WriteString(digits)
			b.WriteString(strings.Repeat("0", intLen-len(digits)))
			b.WriteString(".0")
			return b.String()
		}
		b.WriteString(digits[:intLen])
		b.WriteByte('.')
		b.WriteString(digits[intLen:])
		return b.String()
	}
	m := digits[:1]
	if len(digits) > 1 {
		m += "." + digits[1:]
	}
	es := "+"
	if exp < 0 {
		es, exp = "-", -exp
	}
	x := strconv.Itoa(exp)
	if len(x) < 2 {
		x = "0" + x
	}
	return sign + m + "e" + es + x
}

// PyNumbers returns v with every number written as PyNumber writes it. It
// copies only what changes: a value without numbers to rewrite is returned
// as it is.
func PyNumbers(v Value) Value {
	switch v.Kind {
	case Number:
		if p := PyNumber(v.Str); p != v.Str {
			v.Str = p
		}
		return v
	case Array:
		for i, e := range v.Arr {
			if n := PyNumbers(e); !sameNumbers(n, e) {
				arr := make([]Value, len(v.Arr))
				copy(arr, v.Arr[:i])
				arr[i] = n
				for j := i + 1; j < len(v.Arr); j++ {
					arr[j] = PyNumbers(v.Arr[j])
				}
				v.Arr = arr
				return v
			}
		}
	case Object:
		for i, m := range v.Obj {
			if n := PyNumbers(m.Val); !sameNumbers(n, m.Val) {
				obj := make([]Member, len(v.Obj))
				copy(obj, v.Obj[:i])
				obj[i] = Member{m.Key, n}
				for j := i + 1; j < len(v.Obj); j++ {
					obj[j] = Member{v.Obj[j].Key, PyNumbers(v.Obj[j].Val)}
				}
				v.Obj = obj
				return v
			}
		}
	}
	return v
}

// sameNumbers reports whether PyNumbers left a value as it was: it returns
// the very slices of a value it did not change.
func sameNumbers(a, b Value) bool {
	switch a.Kind {
	case Number:
		return a.Str == b.Str
	case Array:
		return len(a.Arr) == 0 || &a.Arr[0] == &b.Arr[0]
	case Object:
		return len(a.Obj) == 0 || &a.Obj[0] == &b.Obj[0]
	}
	return true
}

// PyTruthy is Python's truth test of the value json.loads makes of v:
// null, false, 0, 0.0, "", [] and {} are false.
func (v Value) PyTruthy() bool {
	switch v.Kind {
	case Null:
		return false
	case Bool:
		return v.Bool
	case Number:
		return !v.PyZero()
	case String:
		return v.Str != ""
	case Array:
		return len(v.Arr) > 0
	}
	return len(v.Obj) > 0
}

// PyZero is Python's v == 0 for the value json.loads makes of v: 0, 0.0,
// -0.0, a float too small to be told from 0, and false equal 0; text,
// lists, objects and other numbers do not.
func (v Value) PyZero() bool {
	switch v.Kind {
	case Bool:
		return !v.Bool
	case Number:
		f, err := strconv.ParseFloat(v.Str, 64)
		return err == nil && f == 0
	}
	return false
}
