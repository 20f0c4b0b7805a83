package report

import (
	"math"

	gojson "github.com/goccy/go-json"

	"github.com/loopgate/loopgate/analyze"
)

// appendSessionJSON appends s as encoding/json writes it with HTML escaping
// off: compact when indent is false, else as Encoder.SetIndent(prefix,
// "  ") lays it out, without the final newline. ok is false for what it
// does not write (a bytes_per_token that is NaN or infinite, which
// encoding/json refuses with an error): the caller then uses
// encoding/json.
//
// The JSON and JSONL reports write every session through it: a report of
// 200 000 short sessions spent a fifth of its time in encoding/json, most
// of it re-indenting what it had just encoded. goccy/go-json, which the
// module already uses to decode (internal/jsonx), writes the same bytes
// faster (docs/performance.md); TestSessionJSONAsEncoded and
// FuzzSessionJSON hold it to encoding/json's bytes, every field set.
func appendSessionJSON(b []byte, s *analyze.SessionResult, prefix string, indent bool) ([]byte, bool) {
	if math.IsNaN(s.BytesPerToken) || math.IsInf(s.BytesPerToken, 0) {
		return b, false
	}
	var out []byte
	var err error
	if indent {
		out, err = gojson.MarshalIndentWithOption(s, prefix, "  ", gojson.DisableHTMLEscape())
	} else {
		out, err = gojson.MarshalWithOption(s, gojson.DisableHTMLEscape())
	}
	if err != nil {
		return b, false
	}
	return append(b, out...), true
}
