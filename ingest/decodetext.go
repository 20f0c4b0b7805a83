package ingest

import (
	"fmt"
	"strings"
)

// decodeText words a JSON decoder's error for users: which member holds
// which JSON type, without the Go types the decoder names ("cannot
// unmarshal string into Go value of type ingest.ccLine").
func decodeText(err error) string {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	what, ok := strings.CutPrefix(msg, "cannot unmarshal ")
	if !ok {
		return msg
	}
	kind, into, _ := strings.Cut(what, " into ")
	if _, field, ok := strings.Cut(into, "Go struct field "); ok {
		field, typ, _ := strings.Cut(field, " of type ")
		// "ccLine.message.content": the record's own type goes.
		if _, path, ok := strings.Cut(field, "."); ok {
			field = path
		}
		return fmt.Sprintf("its member `%s` is a JSON %s, not %s", field, kind, jsonKindOf(typ))
	}
	_, typ, _ := strings.Cut(into, "Go value of type ")
	return fmt.Sprintf("a JSON %s, not %s", kind, jsonKindOf(typ))
}

// jsonKindOf is the JSON a Go type decodes from, with its article.
func jsonKindOf(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "a boolean"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"), strings.HasPrefix(goType, "float"):
		return "a number"
	}
	return "an object" // a struct or a map
}
