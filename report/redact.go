package report

import (
	"regexp"
	"strings"
)

// Redaction removes secrets from the text that reports show: tool-call
// arguments, guard messages and problem messages. It runs on every argument
// of every decision, so each rule first looks for a cheap literal needle and
// only then runs its (precompiled) regexp; text with no needle is returned as
// is, without allocating.
//
// A secret is replaced by a marker naming its kind, "[REDACTED:openai-key]";
// the text around it (the variable name, the URL's user and host, the
// "Bearer" scheme) is kept so the reader still sees what the call did.
//
// Arguments reach us as JSON text, so a value may be surrounded by escaped
// quotes (\") and a PEM block's line breaks may be the two characters \n;
// the patterns allow for both. Abbreviated arguments may cut a PEM block
// before its END line: the block is then redacted to the end of the text.

// redactRule is one kind of secret.
type redactRule struct {
	kind string
	// needles: the rule runs only when the text contains one of them
	// (foldNeedles: compared ignoring ASCII case).
	needles     []string
	foldNeedles []string
	re          *regexp.Regexp
	// secretGroup is the submatch holding the secret (0: the whole match);
	// the rest of the match is kept.
	secretGroup int
	// plausible, when set, rejects matches that are not secrets (prose,
	// placeholders, values redacted by an earlier rule).
	plausible func(secret string) bool
}

// redactRules run in order: specific token formats before the generic
// assignment rule, so "OPENAI_API_KEY=sk-..." is named an openai key.
var redactRules = []*redactRule{
	{
		kind:    "private-key",
		needles: []string{"PRIVATE KEY-----"},
		re:      regexp.MustCompile(`(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY-----|.*)`),
	},
	{
		kind:    "anthropic-key",
		needles: []string{"sk-ant-"},
		re:      regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{16,}`),
	},
	{
		kind:      "openai-key",
		needles:   []string{"sk-"},
		re:        regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`),
		plausible: hasLetterAndDigit, // not "sk-a-long-hyphenated-phrase-of-words"
	},
	{
		kind:    "github-token",
		needles: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re:      regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`),
	},
	{
		kind:    "aws-access-key-id",
		needles: []string{"AKIA", "ASIA"},
		re:      regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`),
	},
	{
		kind:    "slack-token",
		needles: []string{"xox"},
		re:      regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`),
	},
	{
		// An Authorization header or field, with or without a scheme:
		// "Authorization: Bearer x", "\"Authorization\": \"Basic x\"",
		// "-H 'authorization: token x'". The scheme is kept.
		kind:        "authorization",
		foldNeedles: []string{"authorization"},
		re: regexp.MustCompile(`(?i)\bauthorization(?:\\?["'])?\s*[:=]\s*(?:\\?["'])?` +
			`(?:(?:bearer|basic|token|digest|bot)\s+)?([^\s"'\\,;}]+)`),
		secretGroup: 1,
		plausible:   looksRandom,
	},
	{
		kind:        "bearer-token",
		foldNeedles: []string{"bearer"},
		re:          regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]+=*)`),
		secretGroup: 1,
		plausible:   looksRandom, // not "a bearer token is needed"
	},
	{
		// scheme://user:password@host: the user and host are kept.
		kind:        "url-password",
		needles:     []string{"://"},
		re:          regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://[^:@/\s"'\\\[\]]*:([^@/\s"'\\]+)@`),
		secretGroup: 1,
		plausible:   notPlaceholder,
	},
	{
		// NAME_API_KEY=value, export NAME_TOKEN="value", name_secret: value,
		// "NAME_PASSWORD": "value" (also with JSON-escaped quotes), and the
		// bare names api_key, apikey and password. Bare "token" and
		// "secret" are left alone: they name too many harmless things.
		kind:        "secret",
		foldNeedles: []string{"key", "secret", "token", "passw"},
		re: regexp.MustCompile(`(?i)\b(?:[A-Z0-9_]*_(?:API_?KEY|SECRET|SECRET_KEY|SECRET_ACCESS_KEY|ACCESS_KEY|PRIVATE_KEY|TOKEN|PASSWORD|PASSWD)|API_?KEY|PASSWORD|PASSWD)` +
			`(?:\\?["'])?\s*[:=]\s*(?:\\?["'])?([^\s"'\\,;}&]+)`),
		secretGroup: 1,
		plausible:   notCode,
	},
}

// Redact returns s with the secrets it recognizes replaced by markers.
func Redact(s string) string {
	for _, r := range redactRules {
		if r.applies(s) {
			s = r.replace(s)
		}
	}
	return s
}

func (r *redactRule) applies(s string) bool {
	for _, n := range r.needles {
		if strings.Contains(s, n) {
			return true
		}
	}
	for _, n := range r.foldNeedles {
		if containsFold(s, n) {
			return true
		}
	}
	return false
}

func (r *redactRule) replace(s string) string {
	marker := "[REDACTED:" + r.kind + "]"
	locs := r.re.FindAllStringSubmatchIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		start, end := loc[2*r.secretGroup], loc[2*r.secretGroup+1]
		if start < 0 || (r.plausible != nil && !r.plausible(s[start:end])) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(marker)
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// containsFold reports whether s contains needle (lower-case ASCII),
// ignoring ASCII case, without allocating.
func containsFold(s, needle string) bool {
	first := needle[0]
	upper := first - 'a' + 'A'
	for i := 0; i+len(needle) <= len(s); i++ {
		if c := s[i]; (c == first || c == upper) && strings.EqualFold(s[i:i+len(needle)], needle) {
			return true
		}
	}
	return false
}

func hasLetterAndDigit(s string) bool {
	letter, digit := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		}
	}
	return letter && digit
}

// looksRandom accepts a credential-shaped value: 8 characters or more with a
// digit, or mixing lower and upper case (base64). It rejects prose ("token",
// "required"), placeholders and values already redacted.
func looksRandom(s string) bool {
	if len(s) < 8 || !notPlaceholder(s) {
		return false
	}
	lower, upper, digit := false, false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		}
	}
	return digit || (lower && upper)
}

// notCode rejects, besides placeholders, an assignment in source code that
// agents read and write all the time: api_key=os.getenv("X"),
// api_key: str = None, token=self.token, api_key=api_key (values with a
// call, an index, a type name or a snake_case variable are not secrets).
func notCode(s string) bool {
	if !notPlaceholder(s) || strings.ContainsAny(s, "()[]") {
		return false
	}
	switch s {
	case "str", "string", "int", "bool", "bytes", "any", "Optional", "String":
		return false
	}
	if isSnakeIdentifier(s) { // api_key=api_key: a variable, passed on
		return false
	}
	return !strings.HasPrefix(s, "self.") && !strings.HasPrefix(s, "this.") &&
		!strings.HasPrefix(s, "os.") && !strings.HasPrefix(s, "process.env")
}

// isSnakeIdentifier: lower-case letters, digits and at least one underscore.
func isSnakeIdentifier(s string) bool {
	underscore := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '_':
			underscore = true
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return underscore
}

// notPlaceholder rejects values that hold no secret: a variable reference
// ($VAR, ${VAR}, %VAR%), a template (<token>, {{ }}), a mask (***, xxx),
// an example cut short in documentation ("MTIz...", seen in hermes' setup
// docs that agents read), null/empty words, and an earlier marker.
func notPlaceholder(s string) bool {
	if s == "" || strings.HasPrefix(s, "[REDACTED") ||
		strings.HasSuffix(s, "...") || strings.HasSuffix(s, "…") {
		return false
	}
	switch s[0] {
	case '$', '<', '{', '%', '*':
		return false
	}
	switch strings.ToLower(s) {
	case "null", "none", "nil", "true", "false", "xxx", "xxxx", "redacted", "changeme":
		return false
	}
	return true
}
