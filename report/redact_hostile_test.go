package report

import "testing"

// TestRedactIssue29 holds each tightened rule and each new one both ways:
// what is a secret goes, what only looks like one stays.
func TestRedactIssue29(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		// OpenAI keys against names that start with sk-.
		{"cluster name is no key", `kubectl config use-context sk-prod-cluster-2024-eu-west-1a`, `kubectl config use-context sk-prod-cluster-2024-eu-west-1a`},
		{"hyphenated words are no key", `sk-staging-db-replica-0042-us-east`, `sk-staging-db-replica-0042-us-east`},
		{"legacy key mixed case", `sk-Tq3xV9bLm2Rf7KpW1sYz8NcD4hJe6GaU0oQi5tXv`, `[REDACTED:openai-key]`},
		{"legacy key one case", `sk-tq3xv9blm2rf7kpw1syz8ncd4hje6gau0oqi5txv`, `[REDACTED:openai-key]`},
		{"project key", `sk-proj-abc_def-0123456789ghijklmnop`, `[REDACTED:openai-key]`},
		// Passwords in prose and configuration against real ones.
		{"password policy prose", `Password: 8 characters minimum`, `Password: 8 characters minimum`},
		{"nsswitch passwd", `passwd: files systemd`, `passwd: files systemd`},
		{"nsswitch passwd alone", `passwd:         compat`, `passwd:         compat`},
		{"password at end of line", `Password: hunter22`, `Password: [REDACTED:secret]`},
		{"random password with words after", `password: Xk9#mQ2vLp then login`, `password: [REDACTED:secret] then login`},
		{"assigned password with words after", `PASSWORD=8 characters`, `PASSWORD=[REDACTED:secret] characters`},
		{"passwd with a real value", `passwd: S3cr3tPassw0rd`, `passwd: [REDACTED:secret]`},
		// Google API keys.
		{"google key", `https://maps.googleapis.com/maps/api/js?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY&x=1`, `https://maps.googleapis.com/maps/api/js?key=[REDACTED:google-api-key]&x=1`},
		{"google key too short", `AIzaShort`, `AIzaShort`},
		// Bare JWTs.
		{"bare jwt", `token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end`, `token [REDACTED:jwt] end`},
		{"jwt in json", `{"id_token":"eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2EifQ.c2lnbmF0dXJlX2hlcmU"}`, `{"id_token":"[REDACTED:jwt]"}`},
		{"eyJ word is no jwt", `eyJust a word.eyJoke.end`, `eyJust a word.eyJoke.end`},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("%s: Redact(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}
