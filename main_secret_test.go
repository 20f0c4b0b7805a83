package main

// Secrets at the command line: made-up secrets of every kind the
// redactor knows are planted in arguments, results, call ids, a problem
// (a result for an unknown call id) and a tool name of a hermes and an
// OpenAI transcript written into t.TempDir(); no command, format or file
// written (replay, inspect, compare, sweep, gate with its JUnit, SARIF,
// GitHub, step summary and snapshot outputs) may show one, and --no-redact
// shows them (so the check can fail). Tool names and session ids are
// redacted too (TestSecretsInToolNamesNeverShown). The redactor's rules are
// tested case by case in report/redact_test.go.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// plantedSecrets are the secrets, by kind. Each value, and each run of 6 or
// more letters and digits in it that holds both (secretFragments), must
// never appear in a redacted report: a partial leak, "&3xyz" of a
// password, is a leak.
var plantedSecrets = map[string]string{
	"openai":          "sk-proj-Pl4ntedOpenAIk3yZx8Qw3Lm9Tb2Vn7",
	"openai-call-id":  "sk-proj-Pl4ntedCallIdZx8Qw3Lm9Tb2Vn7Rk4",
	"anthropic":       "sk-ant-api03-Pl4ntedAnthr0picKq8Zx3Lm9Tb",
	"github":          "ghp_Pl4ntedGitHubT0kenXb7Nq2Lm9Tb2Vn7Rk4H",
	"github-call-id":  "ghp_Pl4ntedGitHubCallId7Nq2Lm9Tb2Vn7Rk4H",
	"github-pat":      "github_pat_11Pl4ntedFineGrained0123_abcdefghijKLMN",
	"aws-key-id":      "AKIAPL4NTEDAWSKEY0ID",
	"aws-call-id":     "AKIAPL4NTEDCALLID0ID",
	"aws-secret":      "wJalrPl4ntedAwsSecretK3y/bPxRfiCYzz9Qw3",
	"aws-sts-secret":  "Pl4ntedStsSecretAccessK3y+bPxRfiCYzz9Qw3",
	"aws-session":     "IQoJPl4ntedSessi0nT0ken//////wEaCXVz",
	"aws-env-secret":  "Pl4ntedAwsEnvSecretK3y/bPxRfiCYzz9Qw3Ab",
	"aws-sts-session": "FwoGPl4ntedStsSessi0nT0ken//////wEaDXVz",
	"slack-bot":       "xoxb-1234567890-Pl4ntedSlackB0tT0ken",
	"slack-app":       "xapp-1-A0PL4NTED-1234567890123-Pl4ntedSlackAppT0ken",
	"slack-webhook":   "T0PL4NTED/B0PL4NTED1/Pl4ntedW3bh00kSecretPath",
	"bearer":          "eyJhbGciOiJIUzI1NiJ9.UGw0bnRlZEJlYXJlcg.Pl4ntedBearerSignature",
	"authorization":   "Pl4ntedBasicAuthValue0x42==",
	"x-api-key":       "Pl4ntedXApiKeyHeader42",
	"api-key-env":     "rk_live_Pl4ntedStr1peApiKey",
	"secret-env":      "Pl4ntedWebh00kSecretValue",
	"private-key":     "b3BlbnNzaC1rZXktPl4ntedPemKeyB0dy",
	"pgp-key":         "lQOYBPl4ntedPgpPrivateKeyB0dy",
	"json-password":   "Pl4ntedPw&Amp3rsandTail;Semic0lonTail,C0mmaTail}Br4ceTail",
	"unicode-pw":      "Pl4ntedUnic0deQuotedPw",
	"go-escaped-pw":   "Pl4ntedG0Escaped&Amp3rsandTail2",
	"pgpassword":      "Pl4ntedPgPassw0rd",
	"mysql-pwd":       "Pl4ntedMysqlPwdValue",
	"password-flag":   "Pl4ntedFlagPw Sp4ceTail&Amp3rsandTail3;Semi3Tail",
	"url-password":    "Pl4ntedUrlPw;P@ss,W0rdTail4",
	"result-only":     "sk-proj-Pl4ntedResultOnlyKeyQw3Lm9Tb2V",
	"tool-name":       "ghp_Pl4ntedT00lNameGitHubT0ken7Nq2Lm9Tb",
	"orphan-call-id":  "ghp_Pl4ntedOrphanCallIdToken7Nq2Lm9TbXY",
	"escaped-aws-id":  "AKIAPL4NTEDESCAPED01",
	"escaped-newline": "sk-proj-Pl4ntedAfterNewlineZx8Qw3Lm9Tb2",
}

// secretFragments returns the runs of 6 or more letters and digits of a
// secret that hold both (not the fixed prefixes "github", "proj").
func secretFragments(secret string) []string {
	var frags []string
	for _, f := range strings.FieldsFunc(secret, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if len(f) >= 6 && strings.ContainsAny(f, "0123456789") && strings.Trim(f, "0123456789") != "" {
			frags = append(frags, f)
		}
	}
	return frags
}

// secretCalls are the planted calls: a tool, its arguments as JSON text
// (written by hand, so that escapes are exactly the ones that fooled the
// redactor), and its result. Each is made three times in a row, so that
// every preset's guard decides on it and the reports list its arguments.
// The secrets only an argument holds are planted in calls that observe
// (upload_note is of class other; the shell commands echo): a repeated
// observation is redundant and listed in every report, where a repeated
// write, or a shell command that runs a program, acts and is listed only
// when a guard stops it.
func secretCalls() [][3]string {
	s := plantedSecrets
	return [][3]string{
		{"shell", `{"command": "echo \"\n` + s["escaped-newline"] + `\""}`, "ok"},
		{"shell", `{"command": "echo \"\n` + s["openai"] + `\""}`, "ok " + s["result-only"]},
		{"shell", `{"command": "echo \"\n` + s["anthropic"] + `\""}`, "ok"},
		{"shell", `{"command": "echo x\t` + s["github"] + ` ` + s["github-pat"] + `"}`, "ok"},
		{"shell", `{"command": "echo \"` + s["escaped-aws-id"] + `\" ` + s["aws-key-id"] + `"}`, "ok"},
		{"upload_note", `{"path": "creds", "content": "[default]\naws_secret_access_key = ` + s["aws-secret"] + `\naws_session_token = ` + s["aws-session"] + `\n"}`,
			"[default]\naws_secret_access_key=" + s["aws-secret"]},
		{"shell", `{"command": "echo AWS_SECRET_ACCESS_KEY=` + s["aws-env-secret"] + ` aws s3 ls"}`, "ok"},
		{"upload_note", `{"path": "sts.json", "content": "{\"SecretAccessKey\": \"` + s["aws-sts-secret"] + `\", \"SessionToken\": \"` + s["aws-sts-session"] + `\"}"}`,
			`{"Credentials": {"SecretAccessKey": "` + s["aws-sts-secret"] + `", "SessionToken": "` + s["aws-sts-session"] + `"}}`},
		{"shell", `{"command": "echo \r` + s["slack-bot"] + ` ` + s["slack-app"] + `"}`, "ok"},
		{"shell", `{"command": "echo curl https://hooks.slack.com/services/` + s["slack-webhook"] + `"}`, "ok"},
		{"shell", `{"command": "echo curl -H \"Authorization: Bearer ` + s["bearer"] + `\" u"}`, "ok"},
		{"web_fetch", `{"url": "https://api.example.com", "headers": {"Authorization": "Basic ` + s["authorization"] + `", "X-API-Key": "` + s["x-api-key"] + `"}}`, "ok"},
		{"shell", `{"command": "echo STRIPE_API_KEY=` + s["api-key-env"] + ` WEBHOOK_SECRET=` + s["secret-env"] + ` run"}`, "ok"},
		{"write_file", `{"path": "id", "content": "-----BEGIN OPENSSH PRIVATE KEY-----\n` + s["private-key"] + `\n-----END OPENSSH PRIVATE KEY-----\n"}`, "ok"},
		{"write_file", `{"path": "k.asc", "content": "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n` + s["pgp-key"] + `\n-----END PGP PRIVATE KEY BLOCK-----\n"}`, "ok"},
		{"db_connect", `{"host": "db", "password": "` + s["json-password"] + `"}`, "connected"},
		{"write_file", `{"path": "c.json", "content": "{\u0022password\u0022: \u0022` + s["unicode-pw"] + `\u0022}"}`, "ok"},
		{"db_connect", `{"host": "db", "password": "` + strings.ReplaceAll(s["go-escaped-pw"], "&", `\u0026`) + `"}`, "connected"},
		{"shell", `{"command": "echo PGPASSWORD=` + s["pgpassword"] + ` psql -h db\necho MYSQL_PWD=` + s["mysql-pwd"] + ` mysql"}`, "ok"},
		{"shell", `{"command": "echo mysql --password='` + s["password-flag"] + `' db"}`, "ok"},
		{"shell", `{"command": "echo psql postgres://app:` + s["url-password"] + `@db.internal:5432/app"}`, "ok"},
		{s["tool-name"], `{"q": "x"}`, "ok"},
	}
}

// secretCallID gives most calls an id holding a secret: ids come from the
// transcript and may hold anything.
func secretCallID(i, repeat int) string {
	switch i % 4 {
	case 0:
		return fmt.Sprintf("%s-%d-%d", plantedSecrets["openai-call-id"], i, repeat)
	case 1:
		return fmt.Sprintf("%s-%d-%d", plantedSecrets["github-call-id"], i, repeat)
	case 2:
		return fmt.Sprintf("%s-%d-%d", plantedSecrets["aws-call-id"], i, repeat)
	}
	return fmt.Sprintf("call_%d_%d", i, repeat)
}

// writeSecretTranscripts writes a hermes gateway session (JSONL) and an
// OpenAI chat array holding the planted calls; it returns the directory.
func writeSecretTranscripts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	calls := secretCalls()

	// hermes gateway JSONL
	var h []string
	h = append(h, `{"role": "session_meta", "tools": [], "model": "gpt-5.4", "platform": "cli", "timestamp": "2026-04-13T08:37:59.000000"}`,
		`{"role": "user", "content": "Set up the deploy.", "timestamp": "2026-04-13T08:40:00.000000"}`)
	for i, c := range calls {
		for r := 0; r < 3; r++ {
			id := secretCallID(i, r)
			ts := fmt.Sprintf("2026-04-13T09:%02d:%02d.000000", i, r)
			h = append(h,
				fmt.Sprintf(`{"role": "assistant", "content": "", "finish_reason": "tool_calls", "tool_calls": [{"id": %s, "call_id": %s, "type": "function", "function": {"name": %s, "arguments": %s}}], "timestamp": %q}`,
					jsonString(id), jsonString(id), jsonString(c[0]), jsonString(c[1]), ts),
				fmt.Sprintf(`{"role": "tool", "content": %s, "tool_call_id": %s, "timestamp": %q}`, jsonString(c[2]), jsonString(id), ts))
		}
	}
	// A result whose call is unknown: the problem message may quote its id.
	h = append(h, fmt.Sprintf(`{"role": "tool", "content": "late", "tool_call_id": %s, "timestamp": "2026-04-13T10:00:00.000000"}`, jsonString(plantedSecrets["orphan-call-id"])),
		`{"role": "assistant", "content": "Done.", "finish_reason": "stop", "timestamp": "2026-04-13T10:00:01.000000"}`)
	if err := os.WriteFile(filepath.Join(dir, "hermes.jsonl"), []byte(strings.Join(h, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// OpenAI chat array
	msgs := []map[string]any{{"role": "user", "content": "Set up the deploy."}}
	for i, c := range calls {
		for r := 0; r < 3; r++ {
			id := secretCallID(i+1, r)
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
					"id": id, "type": "function", "function": map[string]any{"name": c[0], "arguments": c[1]}}}},
				map[string]any{"role": "tool", "tool_call_id": id, "content": c[2]})
		}
	}
	msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": plantedSecrets["orphan-call-id"], "content": "late"},
		map[string]any{"role": "assistant", "content": "Done."})
	data, err := json.MarshalIndent(msgs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "openai.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// leakedSecrets returns the kinds of the planted secrets text shows, in
// whole or in part.
func leakedSecrets(text string) []string {
	var kinds []string
	for kind, secret := range plantedSecrets {
		for _, f := range append([]string{secret}, secretFragments(secret)...) {
			if strings.Contains(text, f) {
				kinds = append(kinds, fmt.Sprintf("%s (%q)", kind, f))
				break
			}
		}
	}
	sort.Strings(kinds)
	return kinds
}

// shownSecrets returns the kinds of the planted secrets text shows: every
// fragment of it (JSON output escapes & as \u0026, so the whole secret may
// not be there as planted).
func shownSecrets(text string) map[string]bool {
	shown := map[string]bool{}
	for kind, secret := range plantedSecrets {
		all := true
		for _, f := range secretFragments(secret) {
			all = all && strings.Contains(text, f)
		}
		shown[kind] = all
	}
	return shown
}

// secretOutput is the text of one output of one command.
type secretOutput struct{ what, text string }

// secretOutputs runs every command over the planted transcripts and returns
// what each redacted run showed or wrote, and the kinds of secrets the
// --no-redact runs showed.
func secretOutputs(t *testing.T) ([]secretOutput, map[string]bool) {
	dir := writeSecretTranscripts(t)
	var outs []secretOutput
	unredacted := map[string]bool{}
	run := func(redact bool, args ...string) {
		t.Helper()
		what := "loopgate " + strings.Join(args[:len(args)-1], " ")
		if !redact {
			args = append(args, "--no-redact")
		}
		out, stderr, code := loopgate(t, args...)
		if code != exitOK && code != exitFindings {
			t.Fatalf("%s: exit %d\n%s", what, code, stderr)
		}
		if !redact {
			for kind, shown := range shownSecrets(out) {
				unredacted[kind] = unredacted[kind] || shown
			}
			return
		}
		outs = append(outs, secretOutput{what, out}, secretOutput{what + " (standard error)", stderr})
	}

	// Every report format, two presets; inspect with every call.
	for _, redact := range []bool{true, false} {
		for _, preset := range []string{"nanobot", "loopgate"} {
			for _, format := range []string{"table", "json", "jsonl", "markdown"} {
				run(redact, "replay", "--preset", preset, "--format", format, "--tokenizer", "chars4", "--max-decisions", "1000", dir)
			}
		}
		for _, format := range []string{"table", "json"} {
			run(redact, "inspect", "--calls", "--format", format, dir)
		}
	}
	// compare and sweep show no arguments.
	for _, format := range []string{"table", "json", "csv", "markdown"} {
		run(true, "compare", "--preset", "nanobot,loopgate", "--format", format, "--tokenizer", "chars4", dir)
		run(true, "sweep", "--preset", "nanobot", "--vary", "tools.class:read.block_at=2,3", "--format", format, "--tokenizer", "chars4", dir)
	}
	// With --strict they print the problems (one quotes a planted call id)
	// on standard error and exit 2.
	for _, cmd := range [][]string{
		{"compare", "--preset", "nanobot", "--strict", "--tokenizer", "chars4", dir},
		{"sweep", "--preset", "nanobot", "--vary", "tools.class:read.block_at=2,3", "--strict", "--tokenizer", "chars4", dir},
	} {
		for _, redact := range []bool{true, false} {
			args := cmd
			if !redact {
				args = append([]string{cmd[0], "--no-redact"}, cmd[1:]...)
			}
			out, stderr, code := loopgate(t, args...)
			if code != exitUsage {
				t.Fatalf("%v: exit %d, want %d (--strict with problems)\n%s", args, code, exitUsage, stderr)
			}
			if redact {
				outs = append(outs, secretOutput{strings.Join(args[:1], " ") + " --strict", out + stderr})
			} else if len(shownSecrets(stderr)) == 0 {
				t.Errorf("%v: --no-redact shows no planted secret on standard error:\n%s", args, stderr)
			}
		}
	}

	// gate: the snapshots --update writes, then every CI output, with a
	// drift (the rules changed since the snapshots) and failed
	// expectations.
	writeGate := func(preset string) string {
		file := filepath.Join(dir, "loopgate.gate.yaml")
		text := "preset: " + preset + "\ntokenizer: chars4\ncases:\n" +
			"  - {name: hermes secrets, transcript: hermes.jsonl, expect: {blocked: 0}}\n" +
			"  - {name: openai secrets, transcript: openai.json, expect: {blocked: 0}}\n"
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	file := writeGate("nanobot")
	out, stderr, _ := gate(t, file, "--update")
	outs = append(outs, secretOutput{"gate --update", out + stderr})
	snaps, err := filepath.Glob(filepath.Join(dir, "snapshots", "*.golden"))
	if err != nil || len(snaps) != 2 {
		t.Fatalf("snapshots written: %v %v\n%s%s", snaps, err, out, stderr)
	}
	for _, p := range snaps {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, secretOutput{"gate snapshot " + filepath.Base(p), string(data)})
	}
	writeGate("loopgate")
	summary := filepath.Join(dir, "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	for _, redact := range []bool{true, false} {
		junit, sarif := filepath.Join(dir, "gate.xml"), filepath.Join(dir, "gate.sarif")
		args := []string{file, "--junit", junit, "--sarif", sarif, "--sarif-decisions", "--github"}
		if !redact {
			args = append(args, "--no-redact")
		}
		out, stderr, code := gate(t, args...)
		if code != exitFindings {
			t.Fatalf("gate %s: exit %d, want 1\n%s%s", strings.Join(args, " "), code, out, stderr)
		}
		if !strings.Contains(out, "snapshot: ~") {
			t.Errorf("gate: no snapshot drift in the output (the test wants one):\n%s", out)
		}
		files := []secretOutput{{"gate standard output", out}, {"gate standard error", stderr}}
		for _, p := range []string{junit, sarif, summary} {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, secretOutput{"gate " + filepath.Base(p), string(data)})
		}
		if err := os.Remove(summary); err != nil {
			t.Fatal(err)
		}
		if redact {
			outs = append(outs, files...)
			continue
		}
		// The SARIF decisions show arguments: without redaction, secrets.
		if shown := shownSecrets(files[3].text); !shown["openai"] || !shown["github"] {
			t.Errorf("gate --no-redact: the SARIF decisions do not show the planted secrets (shown: %v)", shown)
		}
	}
	return outs, unredacted
}

// TestSecretsNeverShownAnywhere: no command, format or written file shows a
// planted secret, whole or in part; --no-redact shows each of them.
func TestSecretsNeverShownAnywhere(t *testing.T) {
	outs, unredacted := secretOutputs(t)
	for _, o := range outs {
		var leaks []string
		for _, kind := range leakedSecrets(o.text) {
			if !strings.HasPrefix(kind, "tool-name ") {
				leaks = append(leaks, kind)
			}
		}
		if len(leaks) > 0 {
			t.Errorf("%s shows secrets: %s", o.what, strings.Join(leaks, ", "))
		}
	}
	for kind := range plantedSecrets {
		switch kind {
		case "result-only", "orphan-call-id":
			continue // results are not shown; the orphan result is a problem, not a call
		}
		if !unredacted[kind] {
			t.Errorf("--no-redact shows the %s secret nowhere: the test no longer plants it where reports look", kind)
		}
	}
}

// TestSecretsInToolNamesNeverShown: a tool name may hold a secret too.
func TestSecretsInToolNamesNeverShown(t *testing.T) {
	outs, _ := secretOutputs(t)
	for _, o := range outs {
		for _, kind := range leakedSecrets(o.text) {
			if strings.HasPrefix(kind, "tool-name ") {
				t.Errorf("%s shows the secret in a tool name: %s", o.what, kind)
			}
		}
	}
}
