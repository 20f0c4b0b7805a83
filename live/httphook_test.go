package live

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	tok, err := ServeToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) != tokenLen || strings.Trim(tok, "0123456789abcdef") != "" {
		t.Fatalf("token %q", tok)
	}
	fi, err := os.Stat(filepath.Join(dir, tokenFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v", err, fi.Mode())
	}
	if again, err := ServeToken(dir); err != nil || again != tok {
		t.Errorf("second read %q, %v: want the same token", again, err)
	}
	other, _ := ServeToken(t.TempDir())
	if other == tok {
		t.Error("two state directories got the same token")
	}
	// A token file cut short is refused, not used.
	os.WriteFile(filepath.Join(dir, tokenFile), []byte(tok[:20]), 0o600)
	if _, err := ServeToken(dir); err == nil || !strings.Contains(err.Error(), "not a hook server token") {
		t.Errorf("short token file: %v", err)
	}
	if !TokenMatches(tok, tok) || TokenMatches(tok[:63], tok) || TokenMatches("", tok) {
		t.Error("TokenMatches")
	}
}

func TestHookURLs(t *testing.T) {
	if u := HookURL("127.0.0.1:7433", "claude"); u != "http://127.0.0.1:7433/loopgate/hook/claude-code" {
		t.Errorf("HookURL = %q", u)
	}
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"http://127.0.0.1:7433/loopgate/hook/claude-code", true},
		{"http://localhost:9/loopgate/hook/claude-code", true},
		{"http://[::1]:9/loopgate/hook/codex", true},
		{"http://127.0.0.1:7433/loopgate/hook/nobody", false},
		{"http://127.0.0.1:7433/loopgate/hook/claude-code/x", false},
		{"http://hooks.example.com/loopgate/hook/claude-code", false},
		{"https://127.0.0.1/loopgate/hook/claude-code", false},
		{"http://127.0.0.1:8080/audit", false},
		{"", false},
	} {
		if got := IsHookURL(tc.url); got != tc.want {
			t.Errorf("IsHookURL(%q) = %v", tc.url, got)
		}
	}
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:7433", true}, {"localhost:0", true}, {"[::1]:80", true},
		{"0.0.0.0:7433", false}, {":7433", false}, {"192.168.1.2:7433", false}, {"127.0.0.1", false}, {"127.0.0.1:", false},
	} {
		if err := CheckListen(tc.addr); (err == nil) != tc.ok {
			t.Errorf("CheckListen(%q) = %v", tc.addr, err)
		}
	}
}

// TestInstallHTTPHooks: the HTTP hooks replace loopgate's command hooks
// (and the command hooks the HTTP ones), the user's own hooks (an HTTP
// hook of their own among them) stay, and uninstall gives back the
// original settings.
func TestInstallHTTPHooks(t *testing.T) {
	original := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"http","url":"http://127.0.0.1:8080/audit"}]}]}}`
	home, path := userSettingsFile(t, "claude-code", original)
	const url, token = "http://127.0.0.1:7433/loopgate/hook/claude-code", "feedface"
	if _, err := InstallHooks("claude-code", "user", home, "", "/opt/loopgate-hook --agent claude-code", false, false); err != nil {
		t.Fatal(err)
	}
	in, err := InstallHTTPHooks("claude-code", "user", home, "", url, token, false)
	if err != nil || !in.Changed {
		t.Fatalf("changed %v, %v", in != nil && in.Changed, err)
	}
	got, _ := os.ReadFile(path)
	s := string(got)
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 || len(in.Notes) == 0 {
		t.Errorf("settings holding the token: mode %04o (want 0600), notes %q", fi.Mode().Perm(), in.Notes)
	}
	if n := strings.Count(s, `"url": "`+url+`"`); n != len(in.Events) || strings.Contains(s, "loopgate-hook") {
		t.Errorf("%d HTTP entries for %d events; command left: %v\n%s", n, len(in.Events), strings.Contains(s, "loopgate-hook"), s)
	}
	if strings.Count(s, `"`+TokenHeader+`": "`+token+`"`) != len(in.Events) || !strings.Contains(s, "/audit") {
		t.Errorf("token headers or the user's own hook:\n%s", s)
	}
	if _, err := InstallHooks("claude-code", "user", home, "", "/opt/loopgate-hook --agent claude-code", false, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); strings.Contains(string(got), url) {
		t.Error("the command hook did not replace the HTTP hook")
	}
	InstallHTTPHooks("claude-code", "user", home, "", url, token, false)
	if _, err := InstallHooks("claude-code", "user", home, "", "", true, false); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); canonical(t, after) != canonical(t, []byte(original)) {
		t.Errorf("uninstall left\n%s\nwant\n%s", after, original)
	}
	if _, err := InstallHTTPHooks("codex", "user", home, "", url, token, false); err == nil {
		t.Error("Codex's hooks took a URL")
	}
	qwen, err := InstallHTTPHooks("qwen-code", "user", home, "", HookURL("127.0.0.1:7433", "qwen-code"), token, true)
	if err != nil || strings.Count(string(qwen.Content), `"type": "http"`) != len(qwen.Events) {
		t.Errorf("Qwen Code's HTTP hooks: %v\n%s", err, qwen.Content)
	}
}

// TestListenLine: the address the server announces is read back.
func TestListenLine(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:7433", "[::1]:51234", "localhost:9"} {
		if got := AddrOfListenLine(ListenLine(addr, "/w/state")); got != addr {
			t.Errorf("AddrOfListenLine(ListenLine(%q)) = %q", addr, got)
		}
	}
	if got := AddrOfListenLine("loopgate: listen tcp: address in use"); got != "" {
		t.Errorf("a line naming no address gave %q", got)
	}
}
