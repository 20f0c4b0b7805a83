package live

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// An agent whose hooks can only run a command (Codex, Gemini CLI, Cursor,
// OpenHands, hermes, Cline) starts a process for every event. A Go
// program's start alone takes most of the time a hook may take
// (docs/performance.md, "The live hook, every preset"), so `hook install
// --http` gives those agents a hook client instead of loopgate-hook: a
// small bash script that posts the event to `loopgate hook serve` and
// prints the server's answer, which is the answer `loopgate hook` would
// have printed for it (the server runs Handle). bash starts in a fraction
// of a Go program's time, opens the connection itself (/dev/tcp) and
// forks at most twice: to read the event, and to copy a non-empty answer
// out.
//
// The client fails open as the hook does: whatever goes wrong (no server,
// a refused token, a time-out, a missing token file) it prints no answer
// and exits 0, and the agent's call goes on; a refusal is said on stderr.

// HookClientProgram is the hook client's file name, in the state
// directory whose token it sends.
const HookClientProgram = "loopgate-hook-client"

// IsHookClient reports whether a program's path names the hook client.
func IsHookClient(path string) bool {
	path = strings.Trim(path, `'"`)
	return path[strings.LastIndexAny(path, `/\`)+1:] == HookClientProgram
}

// clientTimeout bounds each wait of the client on the server, in seconds:
// the hooks' own limit (settingsFormat.timeout) is 10 s, and a client that
// gave up later would be killed by the agent first.
const clientTimeout = 9

// HookClientScript is the client's text: run by bash (its absolute path),
// it posts the event on its stdin to the server listening at addr as the
// agent named by its arguments (--agent NAME), with the token read from
// the state directory dir at each run.
func HookClientScript(bash, addr, dir string) (string, error) {
	if err := CheckListen(addr); err != nil {
		return "", err
	}
	host, port, _ := net.SplitHostPort(addr)
	q := shellQuote
	var b strings.Builder
	fmt.Fprintf(&b, "#!%s\n", bash)
	b.WriteString(`# loopgate-hook-client: written by 'loopgate hook install --http' for the
# agents whose hooks run a command (docs/live.md, "The hook as a server").
# It posts the hook event on its stdin to 'loopgate hook serve' and prints
# the server's answer. Whatever fails, it prints no answer and exits 0: the
# agent's call then goes on unguarded (the hook fails open).
# Rewritten by each 'loopgate hook install --http' for this state directory.
LC_ALL=C
[ "$1" = --agent ] && [ -n "$2" ] || { echo "loopgate-hook-client: usage: loopgate-hook-client --agent AGENT" >&2; exit 0; }
`)
	fmt.Fprintf(&b, "host=%s port=%s hostport=%s token_file=%s limit=%d\n",
		q(host), q(port), q(net.JoinHostPort(host, port)), q(filepath.Join(dir, tokenFile)), clientTimeout)
	b.WriteString(`IFS= read -r token <"$token_file" || { echo "loopgate-hook-client: no token in $token_file: start 'loopgate hook serve' once (the call goes on unguarded)" >&2; exit 0; }
# The event, whole (read in a subshell, which reads in blocks where the read
# builtin reads a pipe a byte at a time); bash cannot hold a NUL byte, which
# JSON text has none of.
event=$(</dev/stdin)
{ exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || exit 0
printf 'POST /loopgate/hook/%s HTTP/1.0\r\nHost: %s\r\nX-Loopgate-Token: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
  "$2" "$hostport" "$token" "${#event}" "$event" >&3 2>/dev/null || exit 0
IFS=' ' read -r -t "$limit" proto status reason <&3 || exit 0
if [ "$status" != 200 ]; then
  echo "loopgate-hook-client: the hook server at $hostport answered $status ${reason%$'\r'} (the call goes on unguarded)" >&2
  exit 0
fi
length=
while IFS= read -r -t "$limit" line <&3; do
  line=${line%$'\r'}
  [ -n "$line" ] || break
  case ${line,,} in content-length:*) length=${line#*:} length=${length// /} ;; esac
done
# An empty answer (the call is allowed) needs no copy.
[ "$length" = 0 ] && exit 0
cat <&3
exit 0
`)
	return b.String(), nil
}

// WriteHookClient writes the hook client for a server listening at addr
// over the state directory dir into dir (executable by its owner only),
// and returns its path. bash is the shell's absolute path.
func WriteHookClient(bash, addr, dir string) (string, error) {
	text, err := HookClientScript(bash, addr, dir)
	if err != nil {
		return "", err
	}
	if err := ensureDir(dir); err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	path := filepath.Join(dir, HookClientProgram)
	tmp, err := os.CreateTemp(dir, HookClientProgram+".*")
	if err != nil {
		return "", err
	}
	_, werr := tmp.WriteString(text)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o700)
	}
	if werr == nil {
		// Renamed over the old one: an agent running it meanwhile reads
		// either whole.
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", werr
	}
	return path, nil
}

// shellQuote quotes s for a POSIX shell (bash reads it).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
