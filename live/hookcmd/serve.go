package hookcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/loopgate/loopgate/live"
)

// Server answers hook events that agents post over HTTP (`loopgate hook
// serve`): each request is one event, answered as `loopgate hook` answers
// it on stdout (live.Handle), with the same state directory, so the two
// can take turns on one session. Its rules are loaded once; a request's
// path names the agent (live.HookPath), its TokenHeader the state
// directory's token (live.ServeToken). Like the hook, it fails open:
// whatever it cannot read is answered with an empty body or an error
// status, and an agent takes neither as a denial (Claude Code goes on
// after a failed HTTP hook unless the hook's onFailure says "block",
// which install never writes).
type Server struct {
	base  live.Config // every setting but the agent's protocol
	token string
	log   io.Writer // where each reply's notes and each refused request are said

	mu      sync.Mutex
	configs map[string]live.Config // by agent
}

// NewServer reads the hook's flags (but --agent: the path names it) and
// the state directory's token. log receives each reply's notes.
func NewServer(f Flags, log io.Writer) (*Server, error) {
	base, err := configFor(f, nil)
	if err != nil {
		return nil, err
	}
	tok, err := live.ServeToken(base.StateDir)
	if err != nil {
		return nil, err
	}
	return &Server{base: base, token: tok, log: log, configs: map[string]live.Config{}}, nil
}

// StateDir is the state directory the server keeps sessions in.
func (s *Server) StateDir() string { return s.base.StateDir }

// config is the server's config for an agent (nil: no such agent).
func (s *Server) config(agent string) (live.Config, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.configs[agent]; ok {
		return c, true
	}
	p := live.Lookup(agent)
	if p == nil {
		return live.Config{}, false
	}
	c := s.base
	c.Protocol = p
	s.configs[agent] = c
	return c, true
}

// ServeHTTP answers one request: the health path, or one agent's hook
// event. A web page in the user's browser cannot post an event: the
// token header it would need makes the browser ask first (CORS), which
// the server never allows.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == live.HealthPath {
		// With a token, it also says whether the token is this server's
		// (hook install --http checks the one it wrote): a server that
		// reads another state directory refuses every event of the agent,
		// which then runs unguarded.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, HealthLine()+"\n")
		if tok := r.Header.Get(live.TokenHeader); tok != "" {
			if live.TokenMatches(tok, s.token) {
				io.WriteString(w, tokenOK+"\n")
			} else {
				io.WriteString(w, tokenRefused+"\n")
			}
		}
		return
	}
	agent := live.AgentOfPath(r.URL.Path)
	switch {
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		s.refuse(w, r, http.StatusMethodNotAllowed, "hook events are POSTed")
		return
	case !live.TokenMatches(r.Header.Get(live.TokenHeader), s.token):
		// Said without the token either way.
		s.refuse(w, r, http.StatusForbidden, "no "+live.TokenHeader+" header with the state directory's token (loopgate hook install --http writes it)")
		return
	case agent == "":
		s.refuse(w, r, http.StatusNotFound, "no such hook: the path is "+live.HookPathPattern+" with AGENT one of "+strings.Join(live.AgentNames(), ", "))
		return
	}
	cfg, _ := s.config(agent)
	input, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxInput))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("hook event larger than %d bytes (allowed: the hook fails open)", maxInput))
			return
		}
		s.refuse(w, r, http.StatusBadRequest, "reading the hook event: "+err.Error()+" (allowed: the hook fails open)")
		return
	}
	reply := live.Handle(cfg, input)
	if reply.Stderr != "" && s.log != nil {
		fmt.Fprintf(s.log, "%s %s", agent, strings.ReplaceAll(reply.Stderr, "\nloopgate: ", "\n"+agent+" loopgate: "))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(reply.Stdout)
}

// HealthLine is what the server answers at live.HealthPath: its build.
func HealthLine() string { return "loopgate hook serve " + live.BuildID() }

// The health answer's second line, when asked with a token.
const (
	tokenOK      = "token: this server's"
	tokenRefused = "token: not this server's"
)

// Probe asks the server at addr for its build (HealthLine) and whether
// token is its token, within a second; an error when none answers.
func Probe(addr, token string) (build string, tokenKnown bool, err error) {
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+live.HealthPath, nil)
	if err != nil {
		return "", false, err
	}
	if token != "" {
		req.Header.Set(live.TokenHeader, token)
	}
	c := &http.Client{Timeout: time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return "", false, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if err != nil {
		return "", false, err
	}
	if resp.StatusCode != http.StatusOK {
		return "", false, fmt.Errorf("%s answered %s", addr, resp.Status)
	}
	build, rest, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return build, strings.TrimSpace(rest) == tokenOK, nil
}

// refuse answers a request that is not a hook event of this server's.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if s.log != nil {
		fmt.Fprintf(s.log, "loopgate: %s %s from %s: %d: %s\n", r.Method, r.URL.Path, r.RemoteAddr, status, msg)
	}
	http.Error(w, "loopgate: "+msg, status)
}

// Serve answers on ln until ctx ends, then stops taking requests and
// waits up to ten seconds for those under way.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := hs.Shutdown(stop)
	<-done
	return err
}
