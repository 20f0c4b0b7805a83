package shellcmd

import (
	"slices"
	"strings"
	"sync"
)

// Why commands read are remembered: a replay reads each shell call's
// command several times, for the truth (whether an act came between two
// identical calls) and for the guard (whether the call acts, what it
// observes under path invalidation), and parsing a command allocates a
// parser and its syntax tree each time, which made parsing the largest
// part of a replay of a corpus of shell-heavy sessions
// (docs/performance.md, "Shell commands read once").
//
// The memo holds the commands read lately in two generations: a look-up
// tries the current one, then the previous one (and moves a command found
// there into the current one); when the current one is full it becomes the
// previous one, and the oldest is dropped. A session's commands are read
// by the truth, then by the guard a little later: two generations of
// memoEntries hold the shell calls of a long session. Memory stays bounded
// by memoEntries and memoBytes per generation whatever the corpus.
const (
	memoEntries = 1 << 14
	memoBytes   = 2 << 20
	// memoMaxCommand: a longer command (a script pasted whole) is parsed
	// each time rather than kept.
	memoMaxCommand = 4 << 10
)

type memoKey struct{ command, cwd string }

type memoTable struct {
	mu       sync.Mutex
	cur, old map[memoKey]Command
	bytes    int // of the keys in cur
}

var memo memoTable

// get returns the command remembered under (command, cwd).
func (m *memoTable) get(command, cwd string) (Command, bool) {
	k := memoKey{command, cwd}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.cur[k]; ok {
		return c, true
	}
	if c, ok := m.old[k]; ok {
		delete(m.old, k)
		m.putLocked(k, c)
		return c, true
	}
	return Command{}, false
}

// put remembers c as what (command, cwd) does. The strings are copied (a
// command may be a view of a transcript's memory, which the memo must not
// keep), and c's lists are clipped so that a caller appending to them
// copies them instead of writing into what the memo shares.
func (m *memoTable) put(command, cwd string, c Command) Command {
	c.Writes, c.Reads = slices.Clip(c.Writes), slices.Clip(c.Reads)
	if len(command)+len(cwd) > memoMaxCommand {
		return c
	}
	k := memoKey{strings.Clone(command), strings.Clone(cwd)}
	m.mu.Lock()
	m.putLocked(k, c)
	m.mu.Unlock()
	return c
}

func (m *memoTable) putLocked(k memoKey, c Command) {
	if m.cur == nil || len(m.cur) >= memoEntries || m.bytes >= memoBytes {
		m.old, m.cur, m.bytes = m.cur, make(map[memoKey]Command, 1024), 0
	}
	m.cur[k] = c
	m.bytes += len(k.command) + len(k.cwd)
}
