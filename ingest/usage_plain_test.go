package ingest

import (
	"strings"
	"testing"
)

// usagePlainCases are usage objects that anthropicUsagePlain must read
// as usageProblem and anthropicUsage do, or decline; plain says which.
var usagePlainCases = []struct {
	usage string
	plain bool
}{
	{`{"input_tokens":10,"cache_creation_input_tokens":3944,"cache_read_input_tokens":9119,"output_tokens":341}`, true},
	{` { "input_tokens" : 0 , "output_tokens" : 7 } `, true},
	{`{}`, true},
	{`{"output_tokens":5}`, true},
	{`{"input_tokens":1,"service_tier":"standard","server_tool_use":{"web_search_requests":0},"cache_creation":{"ephemeral_5m_input_tokens":12,"ephemeral_1h_input_tokens":0}}`, true},
	{`{"input_tokens":1,"a":{"b":{"c":7,"d":{"e":-1.5}}}}`, true}, // level 3 is not checked
	{`{"input_tokens":1,"a":[-1,1.5,{"x":-2}],"b":null,"c":true,"d":"x\u00e9\n"}`, true},
	{`{"input_tokens":123456789012345678}`, true},
	{`{"input_tokens":1,"s":"\u00e9","t":"é","u":"a\"b","v":"standard"}`, true},
	{`{"input_tokens":1,"s":"a` + "\x01" + `b"}`, false},
	{`{"input_tokens":1,"s":"a` + "\x7f" + `b"}`, true},
	{`{"input_tokens":1,"s":"abc}`, false},
	{`{"input_tokens":1,"output_tokens":2,"OUTPUT_TOKENS":3}`, false},
	{`{"input_tokens":1,"input_tokens` + "\x7f" + `":3}`, true},
	{`{"input_tokens":1,"\u0041":2}`, false},
	{`{"input_tokens":1,"Input_tokens":2}`, false},
	{`{"INPUT_TOKENS":2}`, false},
	{`{"input_tokens":1,"input_tokens":2}`, false},
	{`{"input_tokens":9223372036854775807}`, false},
	{`{"input_tokens":9223372036854775808}`, false},
	{`{"input_tokens":1234567890123456789012345678901234567890}`, false},
	{`{"input_tokens":-5}`, false},
	{`{"input_tokens":-0}`, false},
	{`{"input_tokens":1.0}`, false},
	{`{"input_tokens":1e3}`, false},
	{`{"input_tokens":1E3}`, false},
	{`{"input_tokens":012}`, false},
	{`{"input_tokens":null}`, false},
	{`{"input_tokens":"12"}`, false},
	{`{"input_tokens":[1]}`, false},
	{`{"input_tokens":{"x":1}}`, false},
	{`{"input_tokens":1,"other":-3}`, false},
	{`{"input_tokens":1,"a":{"b":{"c":2.5}}}`, false},
	{`{"input_tokens":1,"a":{"b":-1}}`, false},
	{`{"input_tokens":1,"a":1e400}`, false},
	{`{"input_tokens":1,}`, false},
	{`{"input_tokens":1 "x":2}`, false},
	{`{"input_tokens":1x}`, false},
	{`{"input_tokens":1} x`, false},
	{`{"input_tokens":1`, false},
	{`{"input_tokens":1,"a":"\x"}`, false},
	{`{"é":1,"input_tokens":1}`, false},
	{`{"input_to` + "\u212a" + `ens":1}`, false},
	{`null`, false},
	{`[]`, false},
	{`12`, false},
	{``, false},
}

// TestAnthropicUsagePlain: the one-pass reading of a usage takes the
// plain ones, and reads them exactly as usageProblem and anthropicUsage.
func TestAnthropicUsagePlain(t *testing.T) {
	for _, c := range usagePlainCases {
		if _, ok := anthropicUsagePlain([]byte(c.usage)); ok != c.plain {
			t.Errorf("%s: plain %v, want %v", c.usage, ok, c.plain)
		}
		checkUsagePlain(t, []byte(c.usage))
	}
}

// checkUsagePlain fails when anthropicUsagePlain takes raw and reads it
// otherwise than the generic functions.
func checkUsagePlain(t *testing.T, raw []byte) {
	t.Helper()
	u, ok := anthropicUsagePlain(raw)
	if !ok {
		return
	}
	if msg := usageProblem(raw); msg != "" {
		t.Errorf("%q: read as plain, but usageProblem says %q", raw, msg)
	}
	want := anthropicUsage(raw)
	if (u == nil) != (want == nil) || u != nil && *u != *want {
		t.Errorf("%q: plain reading %+v, anthropicUsage %+v", raw, u, want)
	}
}

// FuzzAnthropicUsagePlain holds the one-pass reading of a usage to
// usageProblem and anthropicUsage: on any bytes (raw), and on objects
// built of a key and a number, each put at the top, nested, or repeated.
func FuzzAnthropicUsagePlain(f *testing.F) {
	for _, c := range usagePlainCases {
		f.Add([]byte(c.usage), "input_tokens", "12", uint8(0))
	}
	f.Add([]byte(`{"input_tokens":1}`), "cache_read_input_tokens", "9223372036854775807", uint8(1))
	f.Add([]byte(`{}`), "output_tokens", "-0", uint8(2))
	f.Add([]byte(`{}`), "x", "1e2", uint8(3))
	f.Add([]byte(`{}`), "Output_Tokens", "007", uint8(4))
	f.Fuzz(func(t *testing.T, raw []byte, key, number string, shape uint8) {
		checkUsagePlain(t, raw)
		member := `"` + key + `":` + number
		var built string
		switch shape % 6 {
		case 0:
			built = `{` + member + `}`
		case 1:
			built = `{"input_tokens":3,` + member + `,"output_tokens":4}`
		case 2:
			built = `{"input_tokens":3,"a":{` + member + `}}`
		case 3:
			built = `{"a":{"b":{"c":{` + member + `}}},"input_tokens":1}`
		case 4:
			built = `{` + member + `,` + member + `}`
		default:
			built = `{"input_tokens":` + number + `,"cache_creation_input_tokens":` + number + `,"` + strings.ToLower(key) + `":2}`
		}
		checkUsagePlain(t, []byte(built))
	})
}

// BenchmarkAnthropicUsage: a Claude Code usage object read in one pass
// and by usageProblem and anthropicUsage.
func BenchmarkAnthropicUsage(b *testing.B) {
	raw := []byte(`{"input_tokens":10,"cache_creation_input_tokens":3944,"cache_read_input_tokens":9119,"output_tokens":341,"service_tier":"standard","cache_creation":{"ephemeral_5m_input_tokens":3944,"ephemeral_1h_input_tokens":0}}`)
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			anthropicUsagePlain(raw)
		}
	})
	b.Run("generic", func(b *testing.B) {
		for b.Loop() {
			usageProblem(raw)
			anthropicUsage(raw)
		}
	})
}
