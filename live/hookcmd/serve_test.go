package hookcmd

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/loopgate/loopgate/live"
)

// serverFor starts a hook server over a new state directory.
func serverFor(t *testing.T, preset string) (*httptest.Server, string) {
	t.Helper()
	f := Args{strings: map[string]string{"state-dir": t.TempDir(), "preset": preset}, expire: DefaultExpire}
	var log bytes.Buffer
	s, err := NewServer(f, &log)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	tok, err := live.ServeToken(s.StateDir())
	if err != nil {
		t.Fatal(err)
	}
	return ts, tok
}

func post(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set(live.TokenHeader, token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// claudeSession is a Claude Code session's hook events: a prompt, a read
// repeated three times with its results, an edit of the file, the read
// again, and a failing command retried.
func claudeSession(session string) []string {
	ev := func(name, extra string) string {
		return `{"hook_event_name":"` + name + `","session_id":"` + session + `","cwd":"/w"` + extra + `}`
	}
	read := `,"tool_name":"Read","tool_input":{"file_path":"/w/a.go"}`
	out := []string{ev("UserPromptSubmit", `,"prompt":"fix a.go"`)}
	for i, result := range []string{"package a", "package a", "package a", "", "package a // fixed"} {
		id := fmt.Sprintf(`,"tool_use_id":"t%d"`, i)
		if i == 3 {
			edit := `,"tool_name":"Edit","tool_input":{"file_path":"/w/a.go","old_string":"a","new_string":"a // fixed"}`
			out = append(out, ev("PreToolUse", edit+id), ev("PostToolUse", edit+id+`,"tool_response":"ok"`))
			continue
		}
		out = append(out, ev("PreToolUse", read+id), ev("PostToolUse", read+id+`,"tool_response":"`+result+`"`))
	}
	for i := 5; i < 8; i++ {
		cmd := `,"tool_name":"Bash","tool_input":{"command":"make test"}` + fmt.Sprintf(`,"tool_use_id":"t%d"`, i)
		out = append(out, ev("PreToolUse", cmd), ev("PostToolUseFailure", cmd+`,"error":"Exit code 2\nFAIL"`))
	}
	return append(out, ev("Stop", ""))
}

// TestServerAnswersAsTheHook: a session's events posted to the server get
// the answers that `loopgate hook` gives them on stdout, event by event,
// under every preset; the server's state is the hook's (a session begun by
// one goes on in the other).
func TestServerAnswersAsTheHook(t *testing.T) {
	for _, preset := range []string{"loopgate", "hermes", "claude-code"} {
		t.Run(preset, func(t *testing.T) {
			ts, tok := serverFor(t, preset)
			hookState := t.TempDir()
			url := ts.URL + live.HookPath("claude-code")
			denied := 0
			for i, ev := range claudeSession("s1") {
				var want, stderr bytes.Buffer
				f := Args{strings: map[string]string{"agent": "claude-code", "preset": preset, "state-dir": hookState}, expire: DefaultExpire}
				if code := Run(f, strings.NewReader(ev), &want, &stderr); code != 0 || stderr.Len() > 0 {
					t.Fatalf("event %d: the hook exited %d: %s", i, code, stderr.String())
				}
				status, got := post(t, url, tok, ev)
				if status != http.StatusOK || got != want.String() {
					t.Errorf("event %d: server %d %q, hook %q", i, status, got, want.String())
				}
				if strings.Contains(got, `"deny"`) {
					denied++
				}
			}
			if preset == "loopgate" && denied != 2 {
				t.Errorf("%d calls denied, want the 2 repeated reads", denied)
			}
		})
	}
}

// TestServerRefuses: what is not a hook event of this server's is refused
// with a status an agent takes as the hook's failure (the call goes on),
// and nothing of it reaches a session.
func TestServerRefuses(t *testing.T) {
	ts, tok := serverFor(t, "loopgate")
	ev := claudeSession("s1")[1]
	for _, tc := range []struct {
		name, method, path, token, body string
		status                          int
	}{
		{"no token", http.MethodPost, live.HookPath("claude-code"), "", ev, http.StatusForbidden},
		{"wrong token", http.MethodPost, live.HookPath("claude-code"), strings.Repeat("0", 64), ev, http.StatusForbidden},
		{"short token", http.MethodPost, live.HookPath("claude-code"), tok[:10], ev, http.StatusForbidden},
		{"no agent", http.MethodPost, "/loopgate/hook/nobody", tok, ev, http.StatusNotFound},
		{"other path", http.MethodPost, "/", tok, ev, http.StatusNotFound},
		{"GET", http.MethodGet, live.HookPath("claude-code"), tok, "", http.StatusMethodNotAllowed},
		{"too large", http.MethodPost, live.HookPath("claude-code"), tok, `{"x":"` + strings.Repeat("a", maxInput) + `"}`, http.StatusRequestEntityTooLarge},
		{"not JSON", http.MethodPost, live.HookPath("claude-code"), tok, "not json", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, ts.URL+tc.path, strings.NewReader(tc.body))
			if tc.token != "" {
				req.Header.Set(live.TokenHeader, tc.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d (%s)", resp.StatusCode, tc.status, b)
			}
			if strings.Contains(string(b), "deny") {
				t.Errorf("answered a denial: %s", b)
			}
		})
	}
	// None of those reached the session: its first read runs.
	if _, got := post(t, ts.URL+live.HookPath("claude-code"), tok, ev); got != "" {
		t.Errorf("first read after refused requests answered %q", got)
	}
}

// TestServerParallelCalls: the hooks of a response's parallel calls come
// at once, in four sessions at once; each session's events are decided
// one at a time (the state directory's lock), and none is lost: after a
// first round of eight identical reads (whichever run, their results in),
// a second round of the same eight is answered whole.
func TestServerParallelCalls(t *testing.T) {
	ts, tok := serverFor(t, "loopgate")
	url := ts.URL + live.HookPath("claude-code")
	var wg sync.WaitGroup
	var mu sync.Mutex
	denied := map[string]int{}
	round := func(session string, first int, post func(string) string) {
		read := `,"tool_name":"Read","tool_input":{"file_path":"/w/a.go"}`
		var calls sync.WaitGroup
		for i := first; i < first+8; i++ {
			calls.Add(1)
			go func(i int) {
				defer calls.Done()
				id := fmt.Sprintf(`,"tool_use_id":"t%d"`, i)
				got := post(`{"hook_event_name":"PreToolUse","session_id":"` + session + `","cwd":"/w"` + read + id + `}`)
				if strings.Contains(got, `"deny"`) {
					mu.Lock()
					denied[session]++
					mu.Unlock()
					return
				}
				post(`{"hook_event_name":"PostToolUse","session_id":"` + session + `","cwd":"/w"` + read + id + `,"tool_response":"package a"}`)
			}(i)
		}
		calls.Wait()
	}
	for s := 0; s < 4; s++ {
		wg.Add(1)
		go func(session string) {
			defer wg.Done()
			p := func(body string) string {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header.Set(live.TokenHeader, tok)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return ""
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusOK {
					t.Errorf("status %d: %s", resp.StatusCode, b)
				}
				return string(b)
			}
			round(session, 0, p)
			mu.Lock()
			first := denied[session]
			mu.Unlock()
			round(session, 8, p)
			mu.Lock()
			defer mu.Unlock()
			if denied[session]-first != 8 {
				t.Errorf("%s: %d of the second 8 reads answered, want 8", session, denied[session]-first)
			}
		}(fmt.Sprintf("p%d", s))
	}
	wg.Wait()
}

// TestServerHealth: the health path answers without the token with the
// build, and with one whether it is the server's; Probe reads both; a
// port where nothing listens is an error.
func TestServerHealth(t *testing.T) {
	ts, tok := serverFor(t, "loopgate")
	if status, body := post(t, ts.URL+live.HealthPath, "", ""); status != http.StatusOK || strings.TrimSpace(body) != HealthLine() {
		t.Errorf("health: %d %q", status, body)
	}
	addr := strings.TrimPrefix(ts.URL, "http://")
	for _, tc := range []struct {
		token string
		known bool
	}{{tok, true}, {strings.Repeat("0", 64), false}, {"", false}} {
		if got, known, err := Probe(addr, tc.token); err != nil || got != HealthLine() || known != tc.known {
			t.Errorf("Probe(token %.8q) = %q, %v, %v; want the build, %v", tc.token, got, known, err, tc.known)
		}
	}
	ts.Close()
	if got, _, err := Probe(addr, tok); err == nil {
		t.Errorf("Probe of a closed server = %q", got)
	}
}
