package report

import (
	"encoding/json"
	"io"

	"github.com/loopgate/loopgate/analyze"
)

// JSON writes the report as one indented document whose fields are exactly
// the analyze types' JSON tags (the --format json contract, DESIGN.md
// "Reports"). Lists are [] when empty, never null.
func JSON(w io.Writer, rep *analyze.Report, opt Options) error {
	return writeJSON(w, prepared(rep, opt), "  ")
}

// writeJSON encodes v with the given indent ("" for one line) and a final
// newline. HTML characters stay as written: reports are not HTML.
func writeJSON(w io.Writer, v any, indent string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	return enc.Encode(v)
}
