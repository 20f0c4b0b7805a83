// Package testfill sets every exported field of a value by reflection, for
// tests that must fail when a field is added and not handled: the session
// spill's round trip (analyze) and the session JSON encoder (report) fill
// a SessionResult whole and compare it with what comes back.
package testfill

import "reflect"

// Fill walks v, counting each value it visits in *n (before visiting it):
// a slice becomes two elements, a struct has its exported fields filled in
// order, and any other value is handed to leaf with the count, to be set
// to something other than its zero value. leaf reports whether it knew
// the value's kind; Fill stops at the first it did not, and returns that
// value and false, so that a new kind of field is not silently left zero.
func Fill(v reflect.Value, n *int, leaf func(v reflect.Value, n int) bool) (reflect.Value, bool) {
	*n++
	switch v.Kind() {
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			if u, ok := Fill(s.Index(i), n, leaf); !ok {
				return u, false
			}
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if u, ok := Fill(v.Field(i), n, leaf); !ok {
					return u, false
				}
			}
		}
	default:
		if !leaf(v, *n) {
			return v, false
		}
	}
	return v, true
}
