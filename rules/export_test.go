package rules

import (
	"reflect"
	"strings"

	"github.com/loopgate/loopgate/internal/snapbin"
)

// What the external tests (package rules_test, which imports
// analyze/guard to register the detectors) need of this package's
// internals.

// SchemaDetectors lists the detectors' keys as an error message lists
// them: in schema order.
func SchemaDetectors() string { return strings.Join(mustNames(schemaType(detectorsType)), ", ") }

// LeafKind returns the kind of the value a dotted key names.
func LeafKind(key string) reflect.Kind {
	return leafKind(reflect.TypeOf(Rules{}), strings.Split(key, "."))
}

// ForgetIndex drops the index compile derived, for comparisons.
func ForgetIndex(r *Rules) { r.idx = nil }

// KeyText is keyText as a string.
func KeyText(k KeyRules, c ClassTable) string { return string(keyText(nil, k, c)) }

// EncodeValue writes any value as AppendBinary writes the rules' fields.
func EncodeValue(v any) error {
	return encodeValue(&snapbin.Writer{}, reflect.ValueOf(v))
}
