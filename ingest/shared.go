package ingest

import (
	"bytes"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// The helpers several formats' readers share: times, raw members, file
// stems, notes. Content flattening is in content.go, usage in usage.go,
// the session builder in sessionbuilder.go, line reading in lines.go.

// parseTime reads an ISO-8601 timestamp. One without a zone (OpenHands
// writes Python's naive isoformat) is taken as UTC.
func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	if t, ok := parseTimeUTC(s); ok {
		return t
	}
	return parseTimeLayouts(s)
}

// parseTimeLayouts is parseTime by time.Parse's layouts.
func parseTimeLayouts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if t, err = time.Parse("2006-01-02T15:04:05.999999999", s); err != nil {
			return time.Time{}
		}
	}
	return t.UTC()
}

// parseTimeUTC reads the form that nearly every timestamp takes
// (2026-03-02T08:37:27.145Z: UTC, a fraction of 1 to 9 digits or none)
// without time.Parse's general layout machinery; ok false for anything
// else, or a date or time out of range, which parseTime then leaves to
// time.Parse. TestParseTimeUTC and FuzzParseTime hold it to time.Parse.
func parseTimeUTC(s string) (t time.Time, ok bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return t, false
	}
	year, ok1 := fixedDigits(s[0:4])
	month, ok2 := fixedDigits(s[5:7])
	day, ok3 := fixedDigits(s[8:10])
	hour, ok4 := fixedDigits(s[11:13])
	minute, ok5 := fixedDigits(s[14:16])
	sec, ok6 := fixedDigits(s[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 ||
		month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return t, false
	}
	ns := 0
	if frac := s[19 : len(s)-1]; frac != "" {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return t, false
		}
		n, ok := fixedDigits(frac[1:])
		if !ok {
			return t, false
		}
		for i := len(frac); i <= 9; i++ {
			n *= 10
		}
		ns = n
	}
	// time.Date's normalizing is not needed: the date is valid. Unix
	// then UTC makes the same Time as Date in UTC (no location).
	days := daysSinceEpoch(year, month, day)
	return time.Unix(days*86400+int64(hour*3600+minute*60+sec), int64(ns)).UTC(), true
}

// daysSinceEpoch is the number of days from 1970-01-01 to a valid date of
// the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
func daysSinceEpoch(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	m := int64(month)
	if m > 2 {
		m -= 3
	} else {
		m += 9
	}
	doy := (153*m+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// fixedDigits is the value of s, which must be ASCII digits only.
func fixedDigits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// daysIn is the number of days of a month (1 to 12) of the proleptic
// Gregorian calendar, as time.Parse checks a day.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// countNotes words per-type counts as notes, sorted by type.
func countNotes(counts map[string]int, format string) []string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var notes []string
	for _, k := range keys {
		notes = append(notes, strconv.Itoa(counts[k])+" "+strings.Replace(format, "%s", k, 1))
	}
	return notes
}

// docLine is the line to give records of a one-document file: the file's
// line when the document is a single line (a one-record JSONL file), else 0.
func docLine(doc []byte, h *Head) int {
	if bytes.Contains(bytes.TrimSpace(doc), []byte("\n")) {
		return 0
	}
	return h.Line
}

// docLineOf is the line to give the records of a one-document file: its
// line when the file is a one-line JSONL file, else 0.
func docLineOf(doc []byte, h *Head) int {
	if strings.HasSuffix(h.Name, ".jsonl") && !bytes.Contains(bytes.TrimSpace(doc), []byte("\n")) {
		return h.Line
	}
	return 0
}

func rawIsArray(raw jsonx.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '['
}

func rawIsObject(raw jsonx.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// keysOf gives the members of a JSON object, or nil when raw is not one.
// The members are views of raw (jsonx.SplitObject), not copies: raw must
// stay unchanged while they are used, which holds for every caller here,
// since nothing read from them is kept but decoded strings.
func keysOf(raw jsonx.RawMessage) map[string]jsonx.RawMessage {
	if !rawIsObject(raw) {
		return nil
	}
	if m, ok := jsonx.SplitObject(raw); ok {
		return m
	}
	var m map[string]jsonx.RawMessage
	_ = jsonx.Unmarshal(raw, &m)
	return m
}

// elementsOf decodes a JSON array into its elements: views of raw when
// jsonx.SplitArray can read it (see keysOf), else jsonx.Unmarshal's
// answer, errors included.
func elementsOf(raw jsonx.RawMessage) ([]jsonx.RawMessage, error) {
	if elems, ok := jsonx.SplitArray(raw); ok {
		return elems, nil
	}
	var elems []jsonx.RawMessage
	err := jsonx.Unmarshal(raw, &elems)
	return elems, err
}

func fileStem(name string) string {
	name = strings.TrimSuffix(name, ".gz")
	return strings.TrimSuffix(name, filepath.Ext(name))
}

func firstString(m map[string]jsonx.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if raw, ok := m[k]; ok && jsonx.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// inputArgs is the pseudo-argument object {"input": text} that stands for
// the free-text input of a custom tool call.
func inputArgs(text string) jsonx.Value {
	return jsonx.Value{Kind: jsonx.Object, Obj: []jsonx.Member{{Key: "input", Val: jsonx.Value{Kind: jsonx.String, Str: text}}}}
}
