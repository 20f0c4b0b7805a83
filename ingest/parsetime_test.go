package ingest

import (
	"testing"
	"time"
)

// parseTimeCases are timestamps parseTimeUTC must read as time.Parse
// does, or leave to it; fast says which.
var parseTimeCases = []struct {
	s    string
	fast bool
}{
	{"2026-03-02T08:37:27.145Z", true},
	{"2026-03-02T08:37:27Z", true},
	{"2026-03-02T08:37:27.1Z", true},
	{"2026-03-02T08:37:27.123456789Z", true},
	{"0000-01-01T00:00:00.000Z", true},
	{"9999-12-31T23:59:59.999Z", true},
	{"2024-02-29T12:00:00.000Z", true},
	{"2000-02-29T12:00:00.000Z", true},
	{"2026-04-30T12:00:00.000Z", true},
	{"2026-03-02T08:37:27.1234567891Z", false},
	{"2026-03-02T08:37:27.Z", false},
	{"2026-03-02T08:37:27,145Z", false},
	{"2026-03-02T08:37:27.145z", false},
	{"2026-03-02t08:37:27.145Z", false},
	{"2026-03-02T08:37:27.145+00:00", false},
	{"2026-03-02T08:37:27.145+01:00", false},
	{"2026-03-02T08:37:27.145", false},
	{"2026-03-02 08:37:27.145Z", false},
	{"2023-02-29T12:00:00.000Z", false},
	{"1900-02-29T12:00:00.000Z", false},
	{"2026-04-31T12:00:00.000Z", false},
	{"2026-13-02T08:37:27.145Z", false},
	{"2026-00-02T08:37:27.145Z", false},
	{"2026-03-00T08:37:27.145Z", false},
	{"2026-03-02T24:00:00.000Z", false},
	{"2026-03-02T08:60:27.145Z", false},
	{"2026-03-02T08:37:60.145Z", false},
	{"2026-03-02T08:37:27.1a5Z", false},
	{"2026-03-02T08:37:27.-45Z", false},
	{"+026-03-02T08:37:27.145Z", false},
	{"2026-3-02T08:37:27.145Z", false},
	{"12026-03-02T08:37:27.145Z", false},
	{"2026-03-02T08:37:27.145ZZ", false},
	{"", false},
}

// TestParseTimeUTC: the common form is read without time.Parse, exactly
// as time.Parse reads it; every other form is left to time.Parse.
func TestParseTimeUTC(t *testing.T) {
	for _, c := range parseTimeCases {
		if _, ok := parseTimeUTC(c.s); ok != c.fast {
			t.Errorf("%q: read by parseTimeUTC %v, want %v", c.s, ok, c.fast)
		}
		checkParseTime(t, c.s)
	}
	if got := parseTime("2026-03-02T08:37:27.145Z"); got != time.Date(2026, 3, 2, 8, 37, 27, 145e6, time.UTC) {
		t.Errorf("parseTime = %v", got)
	}
}

// checkParseTime fails when parseTimeUTC reads s otherwise than
// time.Parse (parseTimeLayouts).
func checkParseTime(t *testing.T, s string) {
	t.Helper()
	got, ok := parseTimeUTC(s)
	if !ok {
		return
	}
	// == compares the location too: both must be UTC the same way.
	if want := parseTimeLayouts(s); got != want {
		t.Errorf("%q: parseTimeUTC %v (%#v), time.Parse %v (%#v)", s, got, got, want, want)
	}
}

// FuzzParseTime holds parseTimeUTC to time.Parse on any string, and on a
// valid timestamp with one byte replaced (at, by).
func FuzzParseTime(f *testing.F) {
	for _, c := range parseTimeCases {
		f.Add(c.s, uint8(0), byte('0'))
	}
	f.Add("2026-03-02T08:37:27.145Z", uint8(9), byte('3'))
	f.Fuzz(func(t *testing.T, s string, at uint8, by byte) {
		checkParseTime(t, s)
		valid := []byte(time.Date(int(at)*37, time.Month(1+at%12), 1+int(by)%31, int(at)%24, int(by)%60, int(at^by)%60, int(by)*1e6, time.UTC).Format("2006-01-02T15:04:05.000Z"))
		checkParseTime(t, string(valid))
		valid[int(at)%len(valid)] = by
		checkParseTime(t, string(valid))
	})
}

// BenchmarkParseTime: the common form, read by parseTime (fast path) and
// by time.Parse's layouts.
func BenchmarkParseTime(b *testing.B) {
	for _, c := range []struct {
		name  string
		parse func(string) time.Time
	}{{"parseTime", parseTime}, {"layouts", parseTimeLayouts}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.parse("2026-03-02T08:37:27.145Z")
			}
		})
	}
}
