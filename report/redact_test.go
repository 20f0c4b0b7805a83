package report

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		// Positive cases: the secret goes, its surroundings stay.
		{"openai", `curl -d x sk-abcdefghij0123456789KLMNOP`, `curl -d x [REDACTED:openai-key]`},
		{"openai project", `key sk-proj-Ab3_dEf-9hIjKlMnOpQrStUvWxYz01 done`, `key [REDACTED:openai-key] done`},
		{"anthropic", `ANTH sk-ant-api03-AbCdEf0123456789_ghIJ-klmn`, `ANTH [REDACTED:anthropic-key]`},
		{"github classic", `git clone https://ghp_0123456789abcdefghijABCDEFGHIJklmnop@github.com/a/b`, `git clone https://[REDACTED:github-token]@github.com/a/b`},
		{"github server", `token ghs_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789`, `token [REDACTED:github-token]`},
		{"github fine-grained", `github_pat_11ABCDEFG0123456789_abcdefghijKLMNOPQRSTUV`, `[REDACTED:github-token]`},
		{"aws key id", `{"key":"AKIAIOSFODNN7EXAMPLE"}`, `{"key":"[REDACTED:aws-access-key-id]"}`},
		{"aws session key id", `ASIAY34FZKBOKMUTVV7A,`, `[REDACTED:aws-access-key-id],`},
		{"aws secret env", `AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls`, `AWS_SECRET_ACCESS_KEY=[REDACTED:secret] aws s3 ls`},
		{"aws credentials file", `aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, `aws_secret_access_key = [REDACTED:secret]`},
		{"slack bot", `xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp`, `[REDACTED:slack-token]`},
		{"slack user", `SLACK xoxp-1111-2222-3333-abcdef`, `SLACK [REDACTED:slack-token]`},
		{"bearer", `curl -H "x: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc" u`, `curl -H "x: Bearer [REDACTED:bearer-token]" u`},
		{"authorization header", `Authorization: Basic dXNlcjpwYXNzd29yZA==`, `Authorization: Basic [REDACTED:authorization]`},
		{"authorization json escaped", `{"cmd":"curl -H \"Authorization: token abc123def456\" x"}`, `{"cmd":"curl -H \"Authorization: token [REDACTED:authorization]\" x"}`},
		{"authorization field", `{"Authorization": "Bearer abc.def.ghi123"}`, `{"Authorization": "Bearer [REDACTED:authorization]"}`},
		{"url password", `psql postgres://admin:s3cr3t-pw@db.internal:5432/app`, `psql postgres://admin:[REDACTED:url-password]@db.internal:5432/app`},
		{"url password empty user", `redis://:hunter2@cache:6379`, `redis://:[REDACTED:url-password]@cache:6379`},
		{"pem", "key -----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAbC=\n-----END RSA PRIVATE KEY----- end", "key [REDACTED:private-key] end"},
		{"pem json escaped", `{"content":"-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"}`, `{"content":"[REDACTED:private-key]\n"}`},
		{"pem cut short", `{"content":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXkt…`, `{"content":"[REDACTED:private-key]`},
		{"env api key", `OPENAI_API_KEY=abc123 python run.py`, `OPENAI_API_KEY=[REDACTED:secret] python run.py`},
		{"env api key with openai value", `OPENAI_API_KEY=sk-abcdefghij0123456789KLMNOP`, `OPENAI_API_KEY=[REDACTED:openai-key]`},
		{"export quoted", `export GITHUB_TOKEN="tok-42xyz"; make`, `export GITHUB_TOKEN="[REDACTED:secret]"; make`},
		{"json form", `{"OPENAI_API_KEY": "abc-123", "model": "gpt"}`, `{"OPENAI_API_KEY": "[REDACTED:secret]", "model": "gpt"}`},
		{"json escaped form", `{"content":"{\"DB_PASSWORD\": \"hunter2\"}"}`, `{"content":"{\"DB_PASSWORD\": \"[REDACTED:secret]\"}"}`},
		{"yaml form", `webhook_secret: abcdef`, `webhook_secret: [REDACTED:secret]`},
		{"bare api_key", `{"api_key": "abc123xyz"}`, `{"api_key": "[REDACTED:secret]"}`},
		{"bare password", `mysql -u root --password=hunter2 db`, `mysql -u root --password=[REDACTED:secret] db`},
		{"snake-looking password is kept only when it has no underscore", `DB_PASSWORD=hunter2`, `DB_PASSWORD=[REDACTED:secret]`},
		{"two secrets", `A_TOKEN=one1 B_TOKEN=two2`, `A_TOKEN=[REDACTED:secret] B_TOKEN=[REDACTED:secret]`},

		// Negative cases: nothing to redact.
		{"plain words", `read the file and ask for a token`, ``},
		{"git sha", `git show 3f9c2a7be41d0c6e5f8a9b0c1d2e3f4a5b6c7d8e`, ``},
		{"sha256", `sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855`, ``},
		{"sk inside a word", `task-0123456789abcdefghijklmnop and disk-0123456789abcdefghijk`, ``},
		{"sk hyphenated words", `sk-learn-is-a-python-library-for-ml`, ``},
		{"short sk", `sk-123`, ``},
		{"bearer prose", `the API wants a Bearer token in the header`, ``},
		{"authorization prose", `Authorization: required for this endpoint`, ``},
		{"url without password", `https://example.com:8443/path?q=1`, ``},
		{"url user only", `ssh://git@github.com/a/b.git`, ``},
		{"env reference", `export OPENAI_API_KEY=$OPENAI_API_KEY`, ``},
		{"env brace reference", `GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}`, ``},
		{"python annotation", `def f(api_key: str = None, model_token: Optional[str] = None):`, ``},
		{"python getenv", `client = OpenAI(api_key=os.getenv("OPENAI_API_KEY"))`, ``},
		{"python attribute", `OPENAI_API_KEY = os.environ["OPENAI_API_KEY"]; x.auth_token = self.token`, ``},
		{"python variable", `OpenAI(api_key=api_key, base_url=base_url)`, ``},
		{"bare token word", `{"token": "abc", "secret": "plan"}`, ``},
		{"token count field", `{"max_tokens": 512, "num_tokens": 3}`, ``},
		{"akia in a word", `KAKIAIOSFODNN7EXAMPLEX`, ``},
		{"empty", ``, ``},
		{"already redacted", `OPENAI_API_KEY=[REDACTED:openai-key]`, ``},
		{"documentation example", `DISCORD_BOT_TOKEN=MTIz...   # from the portal`, ``},
		{"documentation example unicode", `SLACK_APP_TOKEN: xapp-1…`, ``},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == "" {
				want = c.in
			}
			if got := Redact(c.in); got != want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, want)
			}
		})
	}
}

// Redaction is idempotent: a report redacted twice reads the same.
func TestRedactIdempotent(t *testing.T) {
	in := `OPENAI_API_KEY=sk-abcdefghij0123456789KLMNOP postgres://u:pw12345@h Authorization: Bearer abc123def456`
	once := Redact(in)
	if twice := Redact(once); twice != once {
		t.Errorf("second Redact changed the text:\n%q\n%q", once, twice)
	}
}

func TestRedactNoAllocWithoutNeedle(t *testing.T) {
	s := strings.Repeat(`{"path": "/src/main.go", "offset": 120} `, 20)
	if n := testing.AllocsPerRun(100, func() { _ = Redact(s) }); n != 0 {
		t.Errorf("Redact allocated %v times on text with no needle", n)
	}
}

func BenchmarkRedactClean(b *testing.B) {
	s := `{"path": "/home/user/project/src/main.go", "offset": 120, "limit": 400}`
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Redact(s)
	}
}

func BenchmarkRedactSecret(b *testing.B) {
	s := `{"command": "OPENAI_API_KEY=sk-abcdefghij0123456789KLMNOP python run.py --token-file x"}`
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Redact(s)
	}
}
