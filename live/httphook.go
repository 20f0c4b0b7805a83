package live

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// An agent that can post its hook events over HTTP (Claude Code's hooks of
// type "http") is answered by `loopgate hook serve`, a process that stays
// up: no process starts for each tool call, and the rules and sessions
// are read once. The server answers on the loopback interface only, at
// HookPath(agent), and only a request that carries the state directory's
// token in TokenHeader: another local user's process cannot feed a
// session's state (docs/live.md, "The hook as a server").

// TokenHeader is the request header that carries the server's token.
const TokenHeader = "X-Loopgate-Token"

// hookPathPrefix starts the path of every hook URL the server answers.
const hookPathPrefix = "/loopgate/hook/"

// DefaultListen is where `loopgate hook serve` listens, and what `hook
// install --http` writes, unless told otherwise.
const DefaultListen = "127.0.0.1:7433"

// HealthPath answers any request with the server's build (BuildID), no
// token needed: `hook install --http` asks it whether a server of this
// build is listening, and a user's service manager may ask it too.
const HealthPath = "/loopgate/health"

// HookPathPattern is HookPath's form, for messages.
const HookPathPattern = hookPathPrefix + "AGENT"

// HookPath is the path the server answers an agent's events at.
func HookPath(agent string) string { return hookPathPrefix + Canonical(agent) }

// AgentOfPath is the agent a hook URL's path names ("" when it names none).
func AgentOfPath(path string) string {
	name, ok := strings.CutPrefix(path, hookPathPrefix)
	if !ok || strings.Contains(name, "/") {
		return ""
	}
	return Canonical(name)
}

// ListenLine is the line `loopgate hook serve` says first on stderr, once
// it listens at addr over the state directory dir: the address a caller
// that chose port 0 reads back (AddrOfListenLine).
func ListenLine(addr, dir string) string {
	return fmt.Sprintf("loopgate: hook server on http://%s%s (state %s); install it with: loopgate hook install --agent claude-code --http --listen %s",
		addr, HookPathPattern, dir, addr)
}

// AddrOfListenLine is the address a ListenLine names ("" if none).
func AddrOfListenLine(line string) string {
	_, rest, ok := strings.Cut(line, "http://")
	addr, _, _ := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	return addr
}

// HookURL is the URL of an agent's hooks on a server listening at addr.
func HookURL(addr, agent string) string {
	return (&url.URL{Scheme: "http", Host: addr, Path: HookPath(agent)}).String()
}

// IsHookURL reports whether an HTTP hook's URL is loopgate's: a loopback
// host and a path HookPath gives.
func IsHookURL(raw string) bool {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme != "http" {
		return false
	}
	return IsLoopback(u.Hostname()) && AgentOfPath(u.Path) != ""
}

// IsLoopback reports whether host (a name or an address, without port)
// is this machine's loopback: the only place the server listens.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// CheckListen refuses an address the server must not listen on: anything
// but the loopback interface, where the events of a user's agents would
// be open to the network.
func CheckListen(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: %v (want HOST:PORT, such as %s)", addr, err, DefaultListen)
	}
	if !IsLoopback(host) {
		return fmt.Errorf("--listen %q: the hook server listens on the loopback interface only (127.0.0.1, ::1 or localhost)", addr)
	}
	if port == "" {
		return fmt.Errorf("--listen %q: no port", addr)
	}
	return nil
}

// tokenFile is the token's file in the state directory.
const tokenFile = "serve.token"

// tokenLen is a token's length: 32 random bytes, in hex.
const tokenLen = 64

// ServeToken is the token of the state directory dir, written there
// (readable by its owner only) when it has none: the server and `hook
// install --http` read the same one, so a user's server answers that
// user's agents only.
func ServeToken(dir string) (string, error) {
	if err := ensureDir(dir); err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	path := filepath.Join(dir, tokenFile)
	if tok, err := readToken(path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return tok, err
	}
	var b [tokenLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b[:])
	f, err := openState(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if errors.Is(err, os.ErrExist) {
		// Another process wrote it first: theirs is the token.
		return readToken(path)
	}
	if err != nil {
		return "", err
	}
	_, err = io.WriteString(f, tok+"\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	return tok, nil
}

// readToken reads a token file, refusing one that is not a token (cut
// short by a crash, or written by hand).
func readToken(path string) (string, error) {
	f, err := openState(path, os.O_RDONLY)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4*tokenLen))
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) != tokenLen {
		return "", fmt.Errorf("%s is not a hook server token (%d characters, want %d): remove it, and a new one is written", path, len(tok), tokenLen)
	}
	if _, err := hex.DecodeString(tok); err != nil {
		return "", fmt.Errorf("%s is not a hook server token (not hex): remove it, and a new one is written", path)
	}
	return tok, nil
}

// TokenMatches compares a request's token with the server's in constant
// time.
func TokenMatches(got, want string) bool {
	return len(got) == len(want) && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
