package report

import "github.com/loopgate/loopgate/internal/redact"

// Redact removes secrets from a text shown in a report (internal/redact,
// shared with the live hook's decision log).
func Redact(s string) string { return redact.Redact(s) }
