package redact

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
		{"bare KEY and SECRET with random values", `Demo API: KEY=Q7vX2pLm9TnRw4Ks8B, SECRET=Zt3kPq8WmN2xVb7Rc4Ly9Hd6Jf1Gs5Ae0Uo, URL=x`, `Demo API: KEY=[REDACTED:secret], SECRET=[REDACTED:secret], URL=x`},
		{"bare --token= with a random value", `cli --token=Xy7Pq2Lm9Nb4Vc8Rt3Ws6K`, `cli --token=[REDACTED:secret]`},
		{"a router's key, one case, hyphenated", `KEY=\"sk-0f1e2d3c4b5a6978-ab12cd-9e8f7a6b\"`, `KEY=\"[REDACTED:openai-key]\"`},
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

		// A token right after a JSON escape (\n, \t, \r, \", \\, \uXXXX written
		// out in the argument text): the escape ends a word.
		{"openai after escaped newline", `{"cmd":"echo \nsk-proj-Ab3dEf9hIjKlMnOpQrStUvWxYz01"}`, `{"cmd":"echo \n[REDACTED:openai-key]"}`},
		{"anthropic after escaped newline", `"a\nsk-ant-api03-AbCdEf0123456789_ghIJ-klmn"`, `"a\n[REDACTED:anthropic-key]"`},
		{"github after escaped tab", `{"cmd":"x\tghp_0123456789abcdefghijABCDEFGHIJklmnop"}`, `{"cmd":"x\t[REDACTED:github-token]"}`},
		{"aws after escaped quote", `{"cmd":"echo \"AKIAIOSFODNN7EXAMPLE\""}`, `{"cmd":"echo \"[REDACTED:aws-access-key-id]\""}`},
		{"aws after escaped newline", `{"out":"id\nAKIAIOSFODNN7EXAMPLE\n"}`, `{"out":"id\n[REDACTED:aws-access-key-id]\n"}`},
		{"slack after escaped return", `"\rxoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp"`, `"\r[REDACTED:slack-token]"`},
		{"github after escaped backslash", `"C:\\ghp_0123456789abcdefghijABCDEFGHIJklmnop"`, `"C:\\[REDACTED:github-token]"`},
		{"openai after unicode escape", `"\u0022sk-proj-Ab3dEf9hIjKlMnOpQrStUvWxYz01\u0022"`, `"\"[REDACTED:openai-key]\""`},
		{"bearer after escaped newline", `{"out":"h\nBearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc"}`, `{"out":"h\nBearer [REDACTED:bearer-token]"}`},
		{"authorization after escaped newline", `{"out":"h\nAuthorization: token abc123def456"}`, `{"out":"h\nAuthorization: token [REDACTED:authorization]"}`},
		{"password after escaped newline", `{"out":"user=a\npassword=hunter2\n"}`, `{"out":"user=a\npassword=[REDACTED:secret]\n"}`},
		{"api_key after escaped newline", `{"out":"x\napi_key: abc123xyz"}`, `{"out":"x\napi_key: [REDACTED:secret]"}`},
		// A match dropped because it does not start a word hides nothing.
		{"overlapping authorization", `TokenAuthorization: Authorization: abc123XYZdef`, `TokenAuthorization: Authorization: [REDACTED:authorization]`},
		{"overlapping openai", `xsk-abc-sk-proj-Ab3dEf9hIjKlMnOpQrStUvWxYz01`, `xsk-abc-[REDACTED:openai-key]`},
		// After an escaped backslash the n is a letter: "\\nsk-" is not a boundary.
		{"escaped backslash then n", `"\\nsk-proj-Ab3dEf9hIjKlMnOpQrStUvWxYz01"`, ``},

		// AWS secret access keys and session tokens.
		{"aws credentials file no spaces", `aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, `aws_secret_access_key=[REDACTED:secret]`},
		{"aws credentials file escaped", `{"out":"[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\naws_session_token = IQoJb3JpZ2luX2VjEJr//////////wEaCXVz+LWVhc3Q=\n"}`,
			`{"out":"[default]\naws_access_key_id = [REDACTED:aws-access-key-id]\naws_secret_access_key = [REDACTED:secret]\naws_session_token = [REDACTED:secret]\n"}`},
		{"aws sts json", `{"Credentials": {"AccessKeyId": "ASIAY34FZKBOKMUTVV7A", "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "SessionToken": "IQoJb3JpZ2luX2VjEJr//////////wEaCXVz", "Expiration": "2026-01-01T00:00:00Z"}}`,
			`{"Credentials": {"AccessKeyId": "[REDACTED:aws-access-key-id]", "SecretAccessKey": "[REDACTED:secret]", "SessionToken": "[REDACTED:secret]", "Expiration": "2026-01-01T00:00:00Z"}}`},
		{"aws sts json escaped", `{"out":"{\"SecretAccessKey\": \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"}"}`, `{"out":"{\"SecretAccessKey\": \"[REDACTED:secret]\"}"}`},
		{"aws secrets manager", `{"Name": "prod/db", "SecretString": "{\"password\":\"x&y;z\"}"}`, `{"Name": "prod/db", "SecretString": "[REDACTED:secret]"}`},

		// JSON \uXXXX escapes around names and values.
		{"unicode-escaped quotes", `{"content":"{\u0022password\u0022: \u0022hunter2pw\u0022}"}`, `{"content":"{\"password\": \"[REDACTED:secret]\"}"}`},
		{"unicode-escaped quote before value", `DB_PASSWORD=\u0022hunter2 pw\u0022`, `DB_PASSWORD=\"[REDACTED:secret]\"`},
		{"unicode-escaped name", `OPENAI\u005fAPI\u005fKEY=abc123`, `OPENAI_API_KEY=[REDACTED:secret]`},
		{"unicode-escaped ampersand in value", `{"password":"Tr0ub4dor\u00263xyz"}`, `{"password":"[REDACTED:secret]"}`},
		{"unicode-escaped token", `key \u0073k-proj-Ab3dEf9hIjKlMnOpQrStUvWxYz01`, `key [REDACTED:openai-key]`},

		// Slack app tokens and webhooks, API-key headers, PGP keys.
		{"slack app token", `token xapp-1-A0123456789-1234567890123-0123456789abcdef0123`, `token [REDACTED:slack-token]`},
		{"slack refresh token", `xoxe.xoxp-1-Mi0yLTE0NjM4MDY3MjQ2LTE0`, `[REDACTED:slack-token]`},
		{"slack webhook", `curl -X POST https://hooks.slack.com/services/T01234567/B0123456789/AbCdEfGhIjKlMnOpQrStUvWx -d x`, `curl -X POST https://hooks.slack.com/services/[REDACTED:slack-webhook] -d x`},
		{"slack webhook json", `{"url":"https://hooks.slack.com/services/T01234567/B0123456789/AbCdEfGhIjKlMnOpQrStUvWx"}`, `{"url":"https://hooks.slack.com/services/[REDACTED:slack-webhook]"}`},
		{"x-api-key header", `curl -H "X-API-Key: a1b2c3d4e5f6" https://api.example.com`, `curl -H "X-API-Key: [REDACTED:secret]" https://api.example.com`},
		{"x-api-key header escaped", `{"cmd":"curl -H \"x-api-key: a1b2c3d4e5f6\" u"}`, `{"cmd":"curl -H \"x-api-key: [REDACTED:secret]\" u"}`},
		{"api-key header", `api-key: 0f1e2d3c4b5a`, `api-key: [REDACTED:secret]`},
		{"apikey query", `https://api.example.com/v1?apikey=a1b2c3d4&q=1`, `https://api.example.com/v1?apikey=[REDACTED:secret]&q=1`},
		{"camel api key", `{"apiKey": "a1b2c3d4e5", "clientSecret": "s3cr3t", "accessToken": "at-123"}`, `{"apiKey": "[REDACTED:secret]", "clientSecret": "[REDACTED:secret]", "accessToken": "[REDACTED:secret]"}`},
		{"pgp private key", `{"content":"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGF0ZXN0\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----\n"}`, `{"content":"[REDACTED:private-key]\n"}`},

		// Passwords: a quoted value goes whole, to its closing quote.
		{"json password with punctuation", `{"password":"Tr0ub4dor&3xyz"}`, `{"password":"[REDACTED:secret]"}`},
		{"json password with delimiters", `{"password": "a;b,c}d&e f", "user": "u"}`, `{"password": "[REDACTED:secret]", "user": "u"}`},
		{"json password escaped quote inside", `{"password": "ab\"c&d"}`, `{"password": "[REDACTED:secret]"}`},
		{"escaped json password", `{"cmd":"export DB_PASSWORD=\"p&ss;w,rd\" && run"}`, `{"cmd":"export DB_PASSWORD=\"[REDACTED:secret]\" && run"}`},
		{"single-quoted", `export API_TOKEN='a b&c;d' && go`, `export API_TOKEN='[REDACTED:secret]' && go`},
		{"pgpassword", `PGPASSWORD=s3cr3tpw psql -h db`, `PGPASSWORD=[REDACTED:secret] psql -h db`},
		{"mysql pwd", `MYSQL_PWD=s3cr3tpw mysql -u root`, `MYSQL_PWD=[REDACTED:secret] mysql -u root`},
		{"password flag quoted", `mysql --password='p&ss w;rd' db`, `mysql --password='[REDACTED:secret]' db`},
		{"camel password", `{"userPassword": "x&y1"}`, `{"userPassword": "[REDACTED:secret]"}`},
		{"url password with punctuation", `psql postgres://user:p@ss;w,rd@db.host:5432/app`, `psql postgres://user:[REDACTED:url-password]@db.host:5432/app`},
		{"url password and an @ in the query", `https://u:pw1@example.com?email=a@b.com`, `https://u:[REDACTED:url-password]@example.com?email=a@b.com`},
		{"url password, e-mail user", `smtp://me@corp.example:pw1@mail.example:587`, `smtp://me@corp.example:[REDACTED:url-password]@mail.example:587`},
		{"numeric password", `DB_PASSWORD=123456`, `DB_PASSWORD=[REDACTED:secret]`},
		{"secret inside a value that is not one", `API_TOKEN="$(cat f) password=hunter2"`, `API_TOKEN="$(cat f) password=[REDACTED:secret]"`},
		{"unquoted value in a call", `connect(password=hunter2)`, `connect(password=[REDACTED:secret])`},

		// Negative cases: nothing to redact.
		{"plain words", `read the file and ask for a token`, ``},
		{"git sha", `git show 3f9c2a7be41d0c6e5f8a9b0c1d2e3f4a5b6c7d8e`, ``},
		{"sha256", `sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855`, ``},
		{"sk inside a word", `task-0123456789abcdefghijklmnop and disk-0123456789abcdefghijk`, ``},
		{"sk hyphenated words", `sk-learn-is-a-python-library-for-ml`, ``},
		{"bare key and secret words, ordinary values", `key=user_profile secret: true token=EOF KEY=cache-v2 --token 3f2a9c1d8e7b6a5f4c3d2e1f`, ``},
		{"bare token, a path", `token=/run/secrets/AbCdEf0123456789xyz`, ``},
		{"sk hyphenated words and a year", `sk-prod-cluster-2024-eu-west-1a`, ``},
		{"sk hyphenated words, no digit", `sk-tipping-oddsen-probing`, ``},
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

		// Counts, limits and placeholders are not secrets. Choice: "changeme"
		// (and xxx, ***, your-key, <...>, ${VAR}) is a placeholder, left
		// visible; a real password of "changeme" is a public default anyway.
		{"max_tokens", `max_tokens=2048`, ``},
		{"max_token", `max_token=2048 MAX_TOKEN=4096 --max-token=100`, ``},
		{"max_token quoted", `{"max_token": "2048", "maxToken": 1024}`, ``},
		{"token_count", `token_count: 12`, ``},
		{"tokens_saved", `{"tokens_saved": 30, "context_tokens_saved": 90}`, ``},
		{"token null", `{"token": null, "api_key": null, "password": ""}`, ``},
		{"input_tokens", `{"input_tokens": 5, "output_tokens": 7, "prompt_tokens": 3}`, ``},
		{"env brace placeholder", `OPENAI_API_KEY="${OPENAI_API_KEY}"`, ``},
		{"angle placeholder", `{"api_key": "<your-key>"}`, ``},
		{"your-key placeholder", `API_KEY=your-api-key-here`, ``},
		{"x placeholder", `API_KEY=xxx DB_PASSWORD=xxxxxxxx`, ``},
		{"changeme", `DB_PASSWORD=changeme`, ``},
		{"schema type", `{"password": "string", "api_key": {"type": "string"}}`, ``},
		{"variable passed on", `connect(user=user, password=password)`, ``},
		{"dotted attribute", `api_key=settings.openai_key`, ``},
		{"sudoers", `deploy ALL=(ALL) NOPASSWD: ALL`, ``},
		{"working directory", `PWD=/home/user OLDPWD=/tmp echo $PWD`, ``},
		{"public key", `-----BEGIN PUBLIC KEY-----\nMIIBIjANBg\n-----END PUBLIC KEY-----`, ``},
		{"token file flag", `python run.py --token-file x`, ``},
		{"prose before a closing quote", `{"content":"Enter your password: ", "next": "value1"}`, ``},
		{"prose before an escaped closing quote", `{"cmd":"echo \"Paste API_TOKEN: \" && read -s x"}`, ``},
		{"prose at the end", `{"content":"Enter your password: "}`, ``},
		{"cache key", `{"cache_key": "abc123", "sort_key": "k2"}`, ``},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == "" {
				want = c.in
			}
			got := Redact(c.in)
			if got != want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, want)
			}
			if again := Redact(got); again != got {
				t.Errorf("Redact is not idempotent on %q:\n%q", got, again)
			}
		})
	}
}

func TestIsSecretName(t *testing.T) {
	yes := []string{"password", "PASSWORD", "PGPASSWORD", "userPassword", "--password", "db-passwd", "GPG_PASSPHRASE",
		"api_key", "apikey", "API-KEY", "X-API-Key", "apiKey", "APIKey", "stripeApiKey", "OPENAI_API_KEY",
		"secret_key", "SecretKey", "aws_secret_access_key", "SecretAccessKey", "secretaccess_key", "access_key", "AccessKey",
		"private_key", "privateKey", "SSH_PRIVATE_KEY", "MYSQL_PWD", "client_secret", "clientSecret", "webhook_secret",
		"GITHUB_TOKEN", "access_token", "SessionToken", "aws_session_token", "x-auth-token", "--token", "_authToken",
		"SecretString"}
	no := []string{"", "token", "Token", "secret", "SECRET", "key", "KEY", "pwd", "PWD", "OLDPWD", "tokens", "max_tokens",
		"input_tokens", "token_count", "tokens_saved", "tokenizer", "cache_key", "sort_key", "primaryKey", "api_key_id",
		"AccessKeyId", "password_hash", "passwordless", "token_", "secret-", "monkey", "turkey", "mytoken", "keyToken2"}
	for _, w := range yes {
		if !isSecretName(w) {
			t.Errorf("isSecretName(%q) = false, want true", w)
		}
	}
	for _, w := range no {
		if isSecretName(w) {
			t.Errorf("isSecretName(%q) = true, want false", w)
		}
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
	for _, s := range []string{
		strings.Repeat(`{"path": "/src/main.go", "offset": 120} `, 20),
		// A \u escape of no ASCII character: nothing to decode.
		`{"text": "caf\u00e9 cr\u00e8me", "lang": "fr"}`,
	} {
		if n := testing.AllocsPerRun(100, func() { _ = Redact(s) }); n != 0 {
			t.Errorf("Redact allocated %v times on text with no needle: %q", n, s)
		}
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
