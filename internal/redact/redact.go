// Package redact removes secrets (API keys, bearer tokens, passwords in URLs,
// private keys) from text that loopgate shows or writes: reports and the live
// hook's decision log.
package redact

import (
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/lazyre"
)

// Redaction removes secrets from the text that reports show: tool-call
// arguments, call ids, guard messages and problem messages. It runs on every
// argument of every decision, so one pass over the text first looks for the
// cheap literal needles of every rule, and a rule's (precompiled) regexp
// runs only when one of its needles is there; text with no needle is
// returned as is, without allocating.
//
// A secret is replaced by a marker naming its kind, "[REDACTED:openai-key]";
// the text around it (the variable name, the URL's user and host, the
// "Bearer" scheme) is kept so the reader still sees what the call did.
//
// Arguments reach us as JSON text, so a value may be surrounded by escaped
// quotes (\") and a PEM block's line breaks may be the two characters \n;
// the patterns allow for both. A token right after such an escape (\n, \t,
// \r, \uXXXX) starts a word even though the escape ends in a letter or a
// digit. Text holding \uXXXX escapes of printable ASCII characters (Go's
// encoder writes & < > that way; others escape quotes) is also read with
// them decoded, and when that finds a secret the report shows the decoded
// text, redacted. Abbreviated arguments may cut a PEM block before its END
// line: the block is then redacted to the end of the text.
//
// Known limits (docs/cli.md, "Redaction", lists them for users): an
// unquoted value ends at white space or at one of " ' \ , ; } & | ) ] `
// (the characters that end a value in a shell command, a URL query or
// code), so an unquoted password holding one of them is redacted only up
// to it; a quoted one goes whole. A bare "token", "secret" or "*_key" name
// is not a secret name (max_tokens, cache_key), nor is a name that does not
// end in a secret word (SECRET_KEY_BASE); "-p" is not taken for a password
// flag (it is a port or "parents" for most tools); a token glued to a word
// character before it (call_ghp_...) does not start a word.

// redactRule is one kind of secret.
type redactRule struct {
	kind string
	// needs: the rule runs only when the text holds one of these needles.
	needs needleSet
	re    *lazyre.Regexp // compiled at first use (package lazyre)
	// find, when set, replaces re: it returns the matches as
	// FindAllStringSubmatchIndex would.
	find func(s string) [][]int
	// starts, when set, makes re anchored (^): it is tried only where one
	// of these literals (compared ignoring ASCII case when foldStarts)
	// starts a word (see atWordStart). A regexp cannot say "starts a word"
	// with \b, which takes the n of an escaped \n for a letter; and a
	// match found by an unanchored regexp, then dropped because it does not
	// start a word, would hide the matches it overlaps.
	starts     []string
	foldStarts bool
	// secretGroup is the submatch holding the secret (0: the whole match);
	// the rest of the match is kept.
	secretGroup int
	// plausible, when set, rejects matches that are not secrets (prose,
	// placeholders, values redacted by an earlier rule).
	plausible func(secret string) bool
	// span, when set, replaces secretGroup and plausible: it returns the
	// bounds in s of the value the match loc holds, and whether it is a
	// secret. A value that is not is searched again for matches (a secret
	// may sit inside a quoted value that is not one), -1 -1: none.
	span func(s string, loc []int) (start, end int, secret bool)
}

// needleSet is a set of needles found in a text (scanNeedles).
type needleSet uint16

const (
	needPrivateKey    needleSet = 1 << iota // "PRIVATE KEY"
	needSk                                  // "sk-"
	needGitHub                              // "ghp_" "gho_" "ghu_" "ghs_" "ghr_" "github_pat_"
	needAWS                                 // "AKIA" "ASIA"
	needSlack                               // "xox" "xapp-"
	needSlackHook                           // "hooks.slack.com"
	needScheme                              // "://"
	needAuthorization                       // "authorization", any case
	needBearer                              // "bearer", any case
	needAssignment                          // "key" "secret" "token" "passw" "passp" "pwd", any case
	needUnicodeEscape                       // `\u`
	needGoogle                              // "AIza"
	needJWT                                 // "eyJ"
)

// redactRules run in order: specific token formats before the generic
// assignment rule, so "OPENAI_API_KEY=sk-..." is named an openai key.
var redactRules = []*redactRule{
	{
		// PEM (RSA, EC, OPENSSH, ENCRYPTED, PKCS#8) and PGP private keys.
		kind:  "private-key",
		needs: needPrivateKey,
		re:    lazyre.New(`(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*)`),
	},
	{
		kind:   "anthropic-key",
		needs:  needSk,
		re:     lazyre.New(`^sk-ant-[A-Za-z0-9_-]{16,}`),
		starts: []string{"sk-ant-"},
	},
	{
		kind:      "openai-key",
		needs:     needSk,
		re:        lazyre.New(`^sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`),
		starts:    []string{"sk-"},
		plausible: openAIKeyLike, // not "sk-prod-cluster-2024-eu-west-1a"
	},
	{
		kind:   "github-token",
		needs:  needGitHub,
		re:     lazyre.New(`^(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`),
		starts: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
	},
	{
		kind:   "aws-access-key-id",
		needs:  needAWS,
		re:     lazyre.New(`^(?:AKIA|ASIA)[A-Z0-9]{16}\b`),
		starts: []string{"AKIA", "ASIA"},
	},
	{
		// Bot, user, app-level (xapp-) and rotated (xoxe.xoxp-) tokens.
		kind:   "slack-token",
		needs:  needSlack,
		re:     lazyre.New(`^(?:(?:xoxe\.)?xox[abeoprs]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,})`),
		starts: []string{"xox", "xapp-"},
	},
	{
		// Google API keys: AIza and 35 more characters.
		kind:   "google-api-key",
		needs:  needGoogle,
		re:     lazyre.New(`^AIza[0-9A-Za-z_-]{35}`),
		starts: []string{"AIza"},
	},
	{
		// https://hooks.slack.com/services/T.../B.../secret: the whole path
		// after the kind is the credential.
		kind:        "slack-webhook",
		needs:       needSlackHook,
		re:          lazyre.New(`hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/-]{8,})`),
		secretGroup: 1,
	},
	{
		// An Authorization header or field, with or without a scheme:
		// "Authorization: Bearer x", "\"Authorization\": \"Basic x\"",
		// "-H 'authorization: token x'". The scheme is kept.
		kind:  "authorization",
		needs: needAuthorization,
		re: lazyre.New(`(?i)^authorization(?:\\?["'])?\s*[:=]\s*(?:\\?["'])?` +
			`(?:(?:bearer|basic|token|digest|bot)\s+)?([^\s"'\\,;}]+)`),
		starts:      []string{"authorization"},
		foldStarts:  true,
		secretGroup: 1,
		plausible:   looksRandom,
	},
	{
		kind:        "bearer-token",
		needs:       needBearer,
		re:          lazyre.New(`(?i)^bearer\s+([A-Za-z0-9._~+/-]+=*)`),
		starts:      []string{"bearer"},
		foldStarts:  true,
		secretGroup: 1,
		plausible:   looksRandom, // not "a bearer token is needed"
	},
	{
		// A JSON Web Token standing alone (not after "Bearer", which the
		// bearer rule names): a base64url header and payload, each a
		// JSON object, so each starting with "eyJ", and a signature.
		kind:   "jwt",
		needs:  needJWT,
		re:     lazyre.New(`^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
		starts: []string{"eyJ"},
	},
	{
		// scheme://user:password@host: the user and host are kept. The
		// password runs to the last @ before the path or query, so it may
		// hold @ ; , (the user may hold an @ too: an e-mail address).
		kind:        "url-password",
		needs:       needScheme,
		re:          lazyre.New(`\b[A-Za-z][A-Za-z0-9+.-]*://[^:/\s"'\\\[\]]*:([^/?#\s"'\\]+)@`),
		secretGroup: 1,
		plausible:   notPlaceholder,
	},
	{
		// A secret's name, a separator, its value: NAME_API_KEY=value,
		// export NAME_TOKEN="value", name_secret: value, "NAME_PASSWORD":
		// "value" (also with JSON-escaped quotes), X-API-Key: value,
		// --password=value, PGPASSWORD=, MYSQL_PWD=, camelCase names
		// (apiKey, clientSecret, accessToken, SecretAccessKey,
		// SessionToken, userPassword) and the bare names api_key, apikey,
		// api-key, password and passphrase. See assignmentSpan for what is
		// redacted.
		kind:  "secret",
		needs: needAssignment,
		find:  findAssignments,
		span:  assignmentSpan,
	},
}

// An assignment is found from its name's needle (findAssignments), not by
// one regexp over the whole text: a name starting with [A-Za-z0-9_-]* would
// make the regexp try every word of the text. The name is checked by
// isSecretName, the rest by this anchored regexp.
var (
	// assignmentValue follows the name: a closing quote, a separator, and
	// the value (groups 1 to 4).
	assignmentValue = lazyre.New(`^(?:\\*["'])?\s*(?::=|=>|[:=])\s*` +
		`(?:\\+"((?:[^"\\]|\\[^"\\])*)` + // \"value\": to the next escaped quote
		`|"((?:[^"\\]|\\.)*)` + // "value": to the closing quote
		`|'([^']*)` + // 'value': to the closing quote
		"|([^\\s\"'\\\\,;}&|)\\]`]+))") // bare value
)

// findAssignments returns the assignments in s as regexp submatch indexes:
// the whole match, the name (group 1), the value (one of groups 2 to 5).
func findAssignments(s string) [][]int {
	var locs [][]int
	for i := 0; i < len(s); i++ {
		if !isAssignmentNeedle(s[i:]) {
			continue
		}
		start, end := i, i
		for start > 0 && isNameByte(s[start-1]) {
			start--
		}
		for end < len(s) && isNameByte(s[end]) {
			end++
		}
		i = end // one look per word
		// The n of an escaped \n, or an escaped \uXXXX, before the name
		// is not part of it.
		if start+1 < end && strings.IndexByte("ntrbf", s[start]) >= 0 && start > 0 && escapes(s, start-1) {
			start++
		} else if start+5 < end && s[start] == 'u' && start > 0 && escapes(s, start-1) && isHex4(s, start+1) {
			start += 5
		}
		if !isSecretName(s[start:end]) && !isBareSecretWord(s[start:end]) {
			continue
		}
		m := assignmentValue.Get().FindStringSubmatchIndex(s[end:])
		if m == nil {
			continue
		}
		loc := make([]int, 12)
		loc[0], loc[1], loc[2], loc[3] = start, end+m[1], start, end
		for g := 1; g <= 4; g++ {
			loc[2+2*g], loc[3+2*g] = -1, -1
			if m[2*g] >= 0 {
				loc[2+2*g], loc[3+2*g] = end+m[2*g], end+m[2*g+1]
			}
		}
		locs = append(locs, loc)
		i = loc[1] - 1
	}
	return locs
}

// isSecretName reports whether a word (a run of [A-Za-z0-9_-]) names a
// secret. Its parts are split at _ and - and at camelCase humps
// (SecretAccessKey, x-api-key, OPENAI_API_KEY, APIKey); it names a secret
// when it
//   - ends with password, passwd or passphrase, in any case, whatever comes
//     before (PGPASSWORD, userPassword, --password);
//   - ends with the parts api key, secret key, secret access key, access
//     key or private key, written together or apart (apikey, api_key,
//     X-API-Key, SecretAccessKey), with or without parts before;
//   - ends with the part pwd, secret or token after other parts
//     (MYSQL_PWD, client_secret, clientSecret, SessionToken, --token):
//     alone, "token" and "secret" name too many harmless things, and a
//     bare "key" or "*_key" (cache_key, primaryKey) even more.
func isSecretName(w string) bool {
	if hasSuffixFold(w, "password") || hasSuffixFold(w, "passwd") || hasSuffixFold(w, "passphrase") {
		return true
	}
	p, n, more := lastNameParts(w)
	if n == 0 {
		return false
	}
	switch last := p[0]; {
	case strings.EqualFold(last, "pwd"), strings.EqualFold(last, "secret"), strings.EqualFold(last, "token"):
		return more
	case strings.EqualFold(last, "apikey"), strings.EqualFold(last, "secretkey"), strings.EqualFold(last, "accesskey"),
		strings.EqualFold(last, "privatekey"), strings.EqualFold(last, "secretaccesskey"):
		return true
	case strings.EqualFold(last, "key"):
		if n < 2 {
			return false
		}
		prev := p[1]
		return strings.EqualFold(prev, "api") || strings.EqualFold(prev, "secret") || strings.EqualFold(prev, "access") ||
			strings.EqualFold(prev, "private") || strings.EqualFold(prev, "secretaccess")
	case strings.EqualFold(last, "string"): // AWS Secrets Manager's SecretString
		return n >= 2 && strings.EqualFold(p[1], "secret")
	}
	return false
}

// lastNameParts returns the last two parts of a name (the last first), how
// many there are (up to 2), and whether anything comes before the last
// part. A name ending in _ or - has none.
func lastNameParts(w string) (p [2]string, n int, more bool) {
	end := len(w)
	for n < len(p) && end > 0 {
		if c := w[end-1]; c == '_' || c == '-' {
			return p, n, more
		}
		i := end - 1
		for i > 0 && !isPartBreak(w, i, end) {
			i--
		}
		p[n] = w[i:end]
		if n == 0 {
			more = i > 0
		}
		n++
		if i == 0 {
			break
		}
		end = i
		if c := w[end-1]; c == '_' || c == '-' {
			end-- // a separator between two parts
			if end == 0 {
				break
			}
		}
	}
	return p, n, more
}

// isPartBreak reports whether a part of w[:end] starts at i: after _ or -,
// at a hump (aB, 1B), or at the last capital of an acronym (APIKey).
func isPartBreak(w string, i, end int) bool {
	a, b := w[i-1], w[i]
	switch {
	case a == '_' || a == '-':
		return true
	case isUpper(b) && (a >= 'a' && a <= 'z' || a >= '0' && a <= '9'):
		return true
	case isUpper(a) && isUpper(b) && i+1 < end && w[i+1] >= 'a' && w[i+1] <= 'z':
		return true
	}
	return false
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// hasSuffixFold reports whether s ends with suffix (lower-case ASCII),
// ignoring ASCII case.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// isAssignmentNeedle reports whether s starts with a needle of an
// assignment's name, in any case.
func isAssignmentNeedle(s string) bool {
	switch s[0] | 0x20 {
	case 'k':
		return hasPrefixFold(s, "key")
	case 's':
		return hasPrefixFold(s, "secret")
	case 't':
		return hasPrefixFold(s, "token")
	case 'p':
		return hasPrefixFold(s, "passw") || hasPrefixFold(s, "passp") || hasPrefixFold(s, "pwd")
	}
	return false
}

func isNameByte(c byte) bool { return isWordByte(c) || c == '-' }

// Redact returns s with the secrets it recognizes replaced by markers.
func Redact(s string) string {
	found := scanNeedles(s)
	if found == 0 {
		return s
	}
	if found&needUnicodeEscape != 0 {
		if u, ok := unescapeASCII(s); ok {
			if r := redactFound(u, scanNeedles(u)); r != u {
				return r
			}
		}
	}
	return redactFound(s, found)
}

func redactFound(s string, found needleSet) string {
	for _, r := range redactRules {
		if found&r.needs != 0 {
			s = r.replace(s)
		}
	}
	return s
}

func (r *redactRule) replace(s string) string {
	marker := "[REDACTED:" + r.kind + "]"
	var locs [][]int
	switch {
	case r.find != nil:
		locs = r.find(s)
	case r.starts != nil:
		locs = r.findAtWordStarts(s)
	default:
		locs = r.re.Get().FindAllStringSubmatchIndex(s, -1)
	}
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		start, end, secret := loc[2*r.secretGroup], loc[2*r.secretGroup+1], true
		if r.span != nil {
			start, end, secret = r.span(s, loc)
		} else if start >= 0 && r.plausible != nil {
			secret = r.plausible(s[start:end])
		}
		if start < 0 {
			continue
		}
		replacement := marker
		if !secret {
			if r.span == nil {
				continue
			}
			// Shorter than s: the recursion ends.
			if replacement = r.replace(s[start:end]); replacement == s[start:end] {
				continue
			}
		}
		b.WriteString(s[last:start])
		b.WriteString(replacement)
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// findAtWordStarts returns the matches of r.re (anchored) where one of
// r.starts starts a word, as FindAllStringSubmatchIndex would: the text
// after a match is searched again, the text of a match is not.
func (r *redactRule) findAtWordStarts(s string) [][]int {
	var locs [][]int
	for i := 0; i < len(s); i++ {
		if !r.startsAt(s[i:]) || !atWordStart(s, i) {
			continue
		}
		loc := r.re.Get().FindStringSubmatchIndex(s[i:])
		if loc == nil {
			continue
		}
		for k := range loc {
			if loc[k] >= 0 {
				loc[k] += i
			}
		}
		locs = append(locs, loc)
		i = max(loc[1], i+1) - 1
	}
	return locs
}

// startsAt reports whether s starts with one of r.starts.
func (r *redactRule) startsAt(s string) bool {
	for _, lit := range r.starts {
		if r.foldStarts {
			if s[0]|0x20 == lit[0] && hasPrefixFold(s, lit) {
				return true
			}
		} else if s[0] == lit[0] && strings.HasPrefix(s, lit) {
			return true
		}
	}
	return false
}

// scanNeedles returns the needles s holds, in one pass.
func scanNeedles(s string) needleSet {
	var found needleSet
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !needleStart[c] {
			continue
		}
		rest := s[i:]
		switch c {
		case 'P':
			if strings.HasPrefix(rest, "PRIVATE KEY") {
				found |= needPrivateKey
			}
		case 's':
			if strings.HasPrefix(rest, "sk-") {
				found |= needSk
			}
		case 'g':
			if len(rest) >= 4 && rest[1] == 'h' && rest[3] == '_' && strings.IndexByte("pousr", rest[2]) >= 0 ||
				strings.HasPrefix(rest, "github_pat_") {
				found |= needGitHub
			}
		case 'A':
			if strings.HasPrefix(rest, "AKIA") || strings.HasPrefix(rest, "ASIA") {
				found |= needAWS
			} else if strings.HasPrefix(rest, "AIza") {
				found |= needGoogle
			}
		case 'e':
			if strings.HasPrefix(rest, "eyJ") {
				found |= needJWT
			}
		case 'x':
			if strings.HasPrefix(rest, "xox") || strings.HasPrefix(rest, "xapp-") {
				found |= needSlack
			}
		case 'h':
			if strings.HasPrefix(rest, "hooks.slack.com") {
				found |= needSlackHook
			}
		case ':':
			if strings.HasPrefix(rest, "://") {
				found |= needScheme
			}
		case '\\':
			if len(rest) > 1 && rest[1] == 'u' {
				found |= needUnicodeEscape
			}
		}
		// c|0x20 is a lower-case letter only when c is a letter.
		switch c | 0x20 {
		case 'a':
			if hasPrefixFold(rest, "authorization") {
				found |= needAuthorization
			}
		case 'b':
			if hasPrefixFold(rest, "bearer") {
				found |= needBearer
			}
		case 'k', 's', 't', 'p':
			if isAssignmentNeedle(rest) {
				found |= needAssignment
			}
		}
	}
	return found
}

// needleStart marks the bytes a needle starts with.
var needleStart = func() (t [256]bool) {
	for _, c := range []byte(`PsgAxhe:\aAbBkKsStTpP`) {
		t[c] = true
	}
	return t
}()

// hasPrefixFold reports whether s starts with prefix (lower-case ASCII),
// ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// isHex4 reports whether s[i:] starts with four hex digits.
func isHex4(s string, i int) bool {
	_, ok := jsonx.HexRune(s, i)
	return ok
}

// atWordStart reports whether s[i:] starts a word: s[i-1] is no letter,
// digit or underscore, or it ends a JSON escape (\n, \t, \r, \b, \f,
// \uXXXX) written out in the text, as in `"echo \nsk-..."`.
func atWordStart(s string, i int) bool {
	if i == 0 || !isWordByte(s[i-1]) {
		return true
	}
	switch s[i-1] {
	case 'n', 't', 'r', 'b', 'f':
		if escapes(s, i-2) {
			return true
		}
	}
	return i >= 6 && s[i-5] == 'u' && isHex4(s, i-4) && escapes(s, i-6)
}

// escapes reports whether s[j] is a backslash that escapes the byte after
// it: it ends an odd run of backslashes.
func escapes(s string, j int) bool {
	n := 0
	for ; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// unescapeASCII decodes the \uXXXX escapes of printable ASCII characters in
// s: \u0041 becomes A, and \u0022 and \u005c become \" and \\, so that JSON
// text stays JSON. Other escapes are kept. ok is false when there was none
// to decode.
func unescapeASCII(s string) (string, bool) {
	var b strings.Builder
	last := 0
	for i := 0; i+6 <= len(s); i++ {
		if s[i] != '\\' || s[i+1] != 'u' || !escapes(s, i) {
			continue
		}
		v, ok := jsonx.HexRune(s, i+2)
		if !ok || v < 0x20 || v > 0x7e {
			continue
		}
		b.WriteString(s[last:i])
		if v == '"' || v == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(byte(v))
		last = i + 6
		i += 5
	}
	if last == 0 {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// assignmentSpan picks the value of an assignment match (the first value
// group that matched) and says whether it is a secret.
func assignmentSpan(s string, loc []int) (int, int, bool) {
	name := s[loc[2]:loc[3]]
	for g := 2; g <= 5; g++ {
		if start, end := loc[2*g], loc[2*g+1]; start >= 0 {
			if !isSecretName(name) {
				// A bare KEY, SECRET or TOKEN: only a value that can be
				// nothing but a credential.
				return start, end, credentialLike(s[start:end])
			}
			secret := plausibleAssignment(name, s[start:end], g < 5)
			if secret && g == 5 && !strings.Contains(s[loc[3]:start], "=") && proseValue(name, s[start:end], s[end:]) {
				secret = false
			}
			return start, end, secret
		}
	}
	return -1, -1, false
}

// proseValue reports whether an unquoted value after "name:" reads as
// prose or configuration rather than a secret: "Password: 8 characters
// minimum" (a value that does not look random with more words after it on
// the line) or nsswitch.conf's "passwd: files systemd" (its sources).
func proseValue(name, value, rest string) bool {
	if strings.EqualFold(name, "passwd") || strings.EqualFold(name, "shadow") {
		switch strings.ToLower(value) {
		case "files", "compat", "systemd", "db", "nis", "nisplus", "ldap", "sss", "winbind", "dns", "hesiod", "cache":
			return true
		}
	}
	if looksRandom(value) {
		return false
	}
	// More words on the same line: blanks, then a letter.
	rest = strings.TrimLeft(rest, " \t")
	if rest == "" {
		return false
	}
	c := rest[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// openAIKeyLike accepts what an OpenAI key looks like after "sk-": a
// project, service-account or admin key (sk-proj-...), or a legacy key's
// random letters and digits (mixed case, a digit). A name made of
// lower-case words and numbers joined by hyphens
// (sk-prod-cluster-2024-eu-west-1a) is not one.
func openAIKeyLike(s string) bool {
	body := strings.TrimPrefix(s, "sk-")
	for _, p := range []string{"proj-", "svcacct-", "admin-"} {
		if strings.HasPrefix(body, p) {
			return hasLetterAndDigit(body[len(p):])
		}
	}
	lower, upper, digit, _ := charClasses(body)
	if upper && lower && digit {
		return true
	}
	// Without mixed case: a long unbroken run of letters and digits still
	// reads as random (a key written in one case), hyphenated words do not;
	// nor does a hyphenated key with a long random part, in one case
	// (sk-0123456789abcdef-ab12cd-0123abcd: OpenAI-compatible routers' keys,
	// seen in a real transcript's shell command), where words and years
	// are short or letters alone.
	if digit && (lower || upper) && !strings.ContainsAny(body, "-_") && len(body) >= 32 {
		return true
	}
	for part := range strings.FieldsFuncSeq(body, func(r rune) bool { return r == '-' || r == '_' }) {
		if len(part) >= 12 && hasLetterAndDigit(part) {
			return true
		}
	}
	return false
}

// plausibleAssignment reports whether value, assigned to name, is a secret.
// It is not when it is a placeholder, the name itself passed on
// (password=password), a number under a name that is no password's
// (max_token=2048: a count), code (for an unquoted value) or a type name
// (a quoted "string" in a schema). A value quoted in the text is a literal,
// so it is not checked for variables and calls as an unquoted one is; but
// the quote may have closed a string instead (see below).
func plausibleAssignment(name, value string, quoted bool) bool {
	// A quoted JSON object ("SecretString": "{\"user\": ...}") is a value,
	// not a template.
	object := quoted && strings.HasPrefix(value, "{") && !strings.HasPrefix(value, "{{")
	if !object && !notPlaceholder(value) || strings.EqualFold(strings.TrimLeft(name, "-"), value) ||
		strings.EqualFold(name, "NOPASSWD") { // sudoers: "ALL=(ALL) NOPASSWD: ALL"
		return false
	}
	lower := strings.ToLower(name)
	password := strings.Contains(lower, "passw") || strings.Contains(lower, "passphrase") || strings.HasSuffix(lower, "pwd")
	if !password && allDigits(value) {
		return false
	}
	if quoted {
		// A quote followed by white space or punctuation closed a string:
		// `"echo Password: ", "x": 1` holds no value after the colon.
		return !isTypeName(value) && strings.IndexByte(" \t\r\n,;)]}", value[0]) < 0 &&
			!strings.HasPrefix(value, `\n`)
	}
	return notCode(value)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isTypeName(s string) bool {
	switch s {
	case "str", "string", "int", "integer", "number", "bool", "boolean", "bytes", "any", "object",
		"Optional", "String", "SecretStr":
		return true
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
	lower, upper, digit, _ := charClasses(s)
	return digit || (lower && upper)
}

// charClasses reports which kinds of ASCII characters s holds: lower-case
// letters, upper-case letters, digits, and anything else.
func charClasses(s string) (lower, upper, digit, other bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		default:
			other = true
		}
	}
	return lower, upper, digit, other
}

// isBareSecretWord reports whether a name is key, secret or token alone,
// in any case, with dashes before it (--token): names that isSecretName
// leaves out, being too common (a map's key, a parser's token, a config's
// "secret: true"), but that a credential is written under all the same
// (a note of "KEY=... SECRET=..." for an exchange's API, seen in a real
// hermes memory).
func isBareSecretWord(w string) bool {
	w = strings.TrimLeft(w, "-")
	return strings.EqualFold(w, "key") || strings.EqualFold(w, "secret") || strings.EqualFold(w, "token")
}

// credentialLike reports whether a value can be nothing but a credential:
// 16 or more characters, letters and digits and - _ . + = alone (no /: a
// path is not one), with lower case, upper case and digits mixed. Words,
// identifiers, hashes in one case and paths are not.
func credentialLike(v string) bool {
	if len(v) < 16 || !notPlaceholder(v) {
		return false
	}
	lower, upper, digit, other := charClasses(v)
	if other && strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.+=") != "" {
		return false
	}
	return lower && upper && digit
}

// notCode rejects, besides placeholders, an assignment in source code that
// agents read and write all the time: api_key=os.getenv("X"),
// api_key: str = None, token=self.token, api_key=api_key,
// api_key=settings.openai_key (values with a call, an index, a type name,
// a snake_case variable or a dotted lower-case attribute are not secrets).
func notCode(s string) bool {
	if !notPlaceholder(s) || strings.ContainsAny(s, "()[]") || isTypeName(s) {
		return false
	}
	if isSnakeIdentifier(s) || isDottedIdentifier(s) {
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

// isDottedIdentifier: lower-case identifiers joined by dots
// (settings.openai_key, config.api.token).
func isDottedIdentifier(s string) bool {
	parts := 0
	for part := range strings.SplitSeq(s, ".") {
		if part == "" || part[0] >= '0' && part[0] <= '9' {
			return false
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
				return false
			}
		}
		parts++
	}
	return parts > 1
}

// notPlaceholder rejects values that hold no secret: a variable reference
// ($VAR, ${VAR}, %VAR%), a template (<token>, {{ }}), a mask (***, xxx, any
// run of one character), an example ("your-api-key", "key_here", one cut
// short in documentation: "MTIz...", seen in hermes' setup docs that agents
// read), null/empty words, and anything holding an earlier marker. "changeme" counts as a
// placeholder too: it is the stock example value, and as a real password it
// is a public default, so showing it discloses nothing.
func notPlaceholder(s string) bool {
	if s == "" || strings.Contains(s, "[REDACTED") ||
		strings.HasSuffix(s, "...") || strings.HasSuffix(s, "…") {
		return false
	}
	switch s[0] {
	case '$', '<', '{', '%', '*':
		return false
	}
	if len(s) >= 3 && strings.Count(s, s[:1]) == len(s) {
		return false // xxx, 000000, ----
	}
	lower := strings.ToLower(s)
	switch lower {
	case "null", "none", "nil", "true", "false", "redacted", "changeme":
		return false
	}
	return !strings.HasPrefix(lower, "your-") && !strings.HasPrefix(lower, "your_") &&
		!strings.HasSuffix(lower, "-here") && !strings.HasSuffix(lower, "_here")
}
