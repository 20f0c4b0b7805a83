package report

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/guard"
)

// encodedByEncodingJSON is what appendSessionJSON must write: s as
// json.Encoder writes it, HTML escaping off, compact or indented with
// prefix, without the final newline.
func encodedByEncodingJSON(t testing.TB, s *analyze.SessionResult, prefix string, indent bool) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent(prefix, "  ")
	}
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// checkSessionJSON compares appendSessionJSON with encoding/json, compact
// and indented.
func checkSessionJSON(t testing.TB, name string, s *analyze.SessionResult) {
	t.Helper()
	for _, indent := range []bool{false, true} {
		prefix := ""
		if indent {
			prefix = "    "
		}
		got, ok := appendSessionJSON([]byte("x"), s, prefix, indent)
		if !ok {
			t.Fatalf("%s: declined", name)
		}
		if want := "x" + encodedByEncodingJSON(t, s, prefix, indent); string(got) != want {
			t.Fatalf("%s (indent %v) differs from encoding/json:\n%s", name, indent, cmp.Diff(want, string(got)))
		}
	}
}

// fillSession sets every exported field of v, recursively, from *n (a new
// value each); a kind it does not know fails, so that a field added to
// SessionResult or Decision is filled, and appendSessionJSON, which does
// not write it, then differs from encoding/json.
func fillSession(t *testing.T, v reflect.Value, n *int) {
	t.Helper()
	u, ok := fillFields(v, n, func(v reflect.Value, n int) bool {
		switch v.Kind() {
		case reflect.String:
			v.SetString(strings.Repeat("é\"\n<", n%3+1) + string(rune('a'+n%26)))
		case reflect.Int, reflect.Int64:
			v.SetInt(int64(n) * 1000003)
		case reflect.Uint8:
			v.SetUint(uint64(n % 5))
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Float64:
			v.SetFloat(float64(n) / 7)
		default:
			return false
		}
		return true
	})
	if !ok {
		t.Fatalf("fillSession: no rule for a %s (%s)", u.Kind(), u.Type())
	}
}

// TestSessionJSONAsEncoded: every field set, the fields that omitempty
// leaves out, nil and empty decisions, strings with every kind of escape,
// floats on both sides of the exponent form, and the reports of the other
// tests' sessions: the bytes of encoding/json, compact and indented.
func TestSessionJSONAsEncoded(t *testing.T) {
	var full analyze.SessionResult
	n := 0
	fillSession(t, reflect.ValueOf(&full).Elem(), &n)
	checkSessionJSON(t, "every field", &full)

	var escapes strings.Builder
	for c := range 0x80 {
		escapes.WriteByte(byte(c))
	}
	escapes.WriteString("\xff\xc3(é\u2028\u2029\U0001F600<>&\x7f\xed\xa0\x80")
	cases := map[string]analyze.SessionResult{
		"zero":          {},
		"empty list":    {Decisions: []analyze.Decision{}},
		"escapes":       {File: escapes.String(), Timeline: "..|B", Decisions: []analyze.Decision{{Args: escapes.String(), Message: escapes.String(), Native: "x"}}},
		"actions":       {Decisions: []analyze.Decision{{Action: guard.Allow}, {Action: guard.Steer}, {Action: guard.Block}, {Action: guard.Dedup}, {Action: guard.Halt}, {Action: 250}}},
		"negative":      {Turns: -1, TokensSaved: math.MinInt64, RecordedInput: math.MaxInt64},
		"omitted empty": {Parent: "", Model: "", UsageUnused: "", RecordedOutput: 0, BytesPerToken: 0},
	}
	for _, f := range []float64{1e-7, 1e-6, 9.99e-7, 1e20, 1e21, 1.5e300, 0.1, 3, -2.5e-300, 123456789.125, 3.9999999999999996, math.SmallestNonzeroFloat64, math.MaxFloat64, -0.0} {
		cases["float "+strconv.FormatFloat(f, 'g', -1, 64)] = analyze.SessionResult{BytesPerToken: f}
	}
	for name, s := range cases {
		checkSessionJSON(t, name, &s)
	}
	for _, rep := range []*analyze.Report{fullReport(), quietReport()} {
		for i := range rep.Sessions {
			checkSessionJSON(t, "report session "+rep.Sessions[i].ID, &rep.Sessions[i])
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, ok := appendSessionJSON(nil, &analyze.SessionResult{BytesPerToken: f}, "", false); ok {
			t.Errorf("bytes_per_token %v: written, want declined (encoding/json refuses it)", f)
		}
	}
}

// FuzzSessionJSON: sessions made of the fuzzer's strings and numbers are
// written exactly as encoding/json writes them.
func FuzzSessionJSON(f *testing.F) {
	f.Add("a", "b\n\"c\"", int64(3), 0.25, uint8(2))
	f.Add("\xff\u2028", "\x00\x1f<>&", int64(-1), 1e-9, uint8(7))
	f.Fuzz(func(t *testing.T, a, b string, n int64, x float64, decisions uint8) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		s := analyze.SessionResult{File: a, ID: b, Agent: a + b, Selector: b + "/" + a, Parent: b, Model: a, Turns: int(n),
			TokensSaved: n, BytesPerToken: x, TokensFrom: b, UsageUnused: a, RecordedInput: n, Timeline: a}
		for i := range int(decisions % 4) {
			s.Decisions = append(s.Decisions, analyze.Decision{Turn: i, Args: a, Message: b, Tool: a, CallID: b,
				Action: guard.Action(decisions), Count: int(n), Harmful: i%2 == 0, Native: b})
		}
		checkSessionJSON(t, "fuzz", &s)
	})
}

// BenchmarkSessionJSON writes the sessions of the test reports as the JSON
// report does (indented, depth 2) and as JSONL does (compact), with
// appendSessionJSON (goccy/go-json) and with encoding/json;
// docs/performance.md weighs them.
func BenchmarkSessionJSON(b *testing.B) {
	var sessions []analyze.SessionResult
	for _, rep := range []*analyze.Report{fullReport(), quietReport()} {
		sessions = append(sessions, rep.Sessions...)
	}
	for _, indent := range []bool{true, false} {
		prefix, name := "    ", "indented"
		if !indent {
			prefix, name = "", "compact"
		}
		b.Run(name+"/appendSessionJSON", func(b *testing.B) {
			var buf []byte
			for b.Loop() {
				for i := range sessions {
					buf, _ = appendSessionJSON(buf[:0], &sessions[i], prefix, indent)
				}
			}
		})
		b.Run(name+"/encoding-json", func(b *testing.B) {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if indent {
				enc.SetIndent(prefix, "  ")
			}
			for b.Loop() {
				for i := range sessions {
					buf.Reset()
					if err := enc.Encode(&sessions[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// fillFields walks v, counting each value it visits in *n (before visiting
// it): a slice becomes two elements, a struct has its exported fields
// filled in order, and any other value is handed to leaf with the count,
// to be set to something other than its zero value. leaf reports whether
// it knew the value's kind; fillFields stops at the first it did not and
// returns that value and false, so that a new kind of field is not
// silently left zero.
func fillFields(v reflect.Value, n *int, leaf func(v reflect.Value, n int) bool) (reflect.Value, bool) {
	*n++
	switch v.Kind() {
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			if u, ok := fillFields(s.Index(i), n, leaf); !ok {
				return u, false
			}
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if u, ok := fillFields(v.Field(i), n, leaf); !ok {
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
