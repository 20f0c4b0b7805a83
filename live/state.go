package live

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// DefaultStateDir is $XDG_STATE_HOME/loopgate, or ~/.local/state/loopgate.
func DefaultStateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "loopgate"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state directory: %w (give --state-dir)", err)
	}
	return filepath.Join(home, ".local", "state", "loopgate"), nil
}

// fileKey turns an agent's session id (or scope id) into a file name part.
// The id comes from the agent's JSON and may hold anything ("../..", NUL,
// a megabyte): only letters, digits, '-' and '_' of its first 40 bytes are
// kept, and a digest of the whole id follows, so that two ids never share
// a name and no id becomes a path.
func fileKey(id string) string {
	var b strings.Builder
	for i := 0; i < len(id) && b.Len() < 40; i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
		}
	}
	sum := sha256.Sum256([]byte(id))
	return b.String() + "-" + hex.EncodeToString(sum[:8])
}

// sessionFiles are one session's files in the state directory.
type sessionFiles struct {
	lock, index string
	dir, base   string
	// agents lists the session's scope logs by name, one a line, each
	// added when its first record is written: where a call that may
	// change what the others observed is told to them (hook.tellOthers).
	agents string
}

// statePrefix starts every file the hook writes in the state directory,
// so that expiry removes nothing else.
const statePrefix = "s-"

func filesOf(dir, session string) sessionFiles {
	base := statePrefix + fileKey(session)
	return sessionFiles{
		dir: dir, base: base,
		lock:   filepath.Join(dir, base+".lock"),
		index:  filepath.Join(dir, base+".tx"),
		agents: filepath.Join(dir, base+".agents"),
	}
}

// log is the event log of one agent scope of the session.
func (f sessionFiles) log(scope string) string {
	name := f.base + ".main.log"
	if scope != "" && scope != "main" {
		name = f.base + "." + fileKey(scope) + ".log"
	}
	return filepath.Join(f.dir, name)
}

// lockFile takes the session's lock (an exclusive flock), waiting at most
// wait; release with unlock. Hooks of parallel calls of one session run at
// the same moment, and each reads, decides and appends under this lock.
func lockFile(path string, wait time.Duration) (*os.File, error) {
	f, err := openState(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		busy, err := tryLock(f)
		if err == nil && !busy {
			return f, nil
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("session lock busy for %s", wait)
		}
		time.Sleep(time.Millisecond)
	}
}

func unlock(f *os.File) {
	unlockFile(f)
	f.Close()
}

// appendLines appends complete lines with one write: under the lock no
// other hook writes, and a crash leaves at worst a last line cut short,
// which reading skips (readLog).
func appendLines(path string, data []byte) error {
	if len(data) == 0 {
		return nil
	}
	f, err := openState(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Log lines: fields separated by tabs, each escaped (escapeField).

func escapeField(b []byte, s string) []byte {
	if !strings.ContainsAny(s, "\\\t\n\r") {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, '\\', '\\')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, c)
		}
	}
	return b
}

func unescapeField(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// encode appends the record as one log line.
func (r *record) encode(b []byte) []byte {
	b = append(b, r.kind)
	field := func(s string) { b = escapeField(append(b, '\t'), s) }
	// A call's tool and arguments: a B record's last fields, an O record's
	// only ones.
	call := func() {
		field(r.tool)
		if r.argsOK {
			field("1")
		} else {
			field("0")
		}
		field(r.args)
	}
	switch r.kind {
	case 'B':
		field(r.id)
		b = strconv.AppendInt(append(b, '\t'), r.time, 10)
		field(r.request)
		call()
	case 'A':
		field(r.id)
		b = strconv.AppendUint(append(b, '\t'), r.hash, 16)
		flags := ""
		if r.failed {
			flags += "f"
		}
		if r.blank {
			flags += "b"
		}
		if r.exit1 {
			flags += "n"
		}
		if r.isError {
			flags += "e"
		}
		if r.size > 0 {
			// The text was not kept: its length is.
			flags += "c" + strconv.Itoa(r.size)
		}
		field(flags)
		field(r.result)
	case 'O':
		call()
	case 'E':
		field(r.id)
	case 'P':
		if r.id != "" || r.known {
			field(r.id)
		}
		if r.known {
			field(r.paths)
		}
	case 'S':
		field(r.result)
	}
	return append(b, '\n')
}

// decodeRecord reads one log line (without its newline). The fields are
// cut from the line in place: a hook call reads thousands of lines.
func decodeRecord(line string) (record, error) {
	var f [7]string
	n := 0
	for n < len(f) {
		i := strings.IndexByte(line, '\t')
		if i < 0 {
			f[n] = line
			n++
			line = ""
			break
		}
		f[n] = line[:i]
		n++
		line = line[i+1:]
	}
	if line != "" || len(f[0]) != 1 {
		return record{}, errors.New("not a record")
	}
	r := record{kind: f[0][0]}
	need := 0
	switch r.kind {
	case 'C', 'D':
		need = 1
	case 'P':
		need = 1
		if n == 2 || n == 3 {
			need = n // with the agent's turn id, and the prompt's paths
		}
	case 'S':
		need = 2
	case 'B':
		need = 7
	case 'A':
		need = 5
	case 'O':
		need = 4
	case 'E':
		need = 2
	}
	if need == 0 || n != need {
		return record{}, fmt.Errorf("record %q with %d fields", f[0], n)
	}
	var err error
	switch r.kind {
	case 'B':
		r.id = unescapeField(f[1])
		if r.time, err = parseDecimal(f[2]); err != nil {
			return record{}, err
		}
		r.request, r.tool = unescapeField(f[3]), unescapeField(f[4])
		r.argsOK = f[5] == "1"
		r.args = unescapeField(f[6])
	case 'A':
		r.id = unescapeField(f[1])
		if r.hash, err = parseHex(f[2]); err != nil {
			return record{}, err
		}
		r.failed = strings.Contains(f[3], "f")
		r.blank = strings.Contains(f[3], "b")
		r.isError = strings.Contains(f[3], "e")
		r.exit1 = strings.Contains(f[3], "n")
		if i := strings.IndexByte(f[3], 'c'); i >= 0 {
			if r.size, err = strconv.Atoi(f[3][i+1:]); err != nil || r.size <= 0 {
				return record{}, fmt.Errorf("result size %q", f[3][i+1:])
			}
		}
		r.result = unescapeField(f[4])
	case 'O':
		r.tool, r.argsOK, r.args = unescapeField(f[1]), f[2] == "1", unescapeField(f[3])
	case 'E':
		r.id = unescapeField(f[1])
	case 'P':
		if n >= 2 {
			r.id = unescapeField(f[1])
		}
		if n == 3 {
			r.known, r.paths = true, unescapeField(f[2])
		}
	case 'S':
		r.result = unescapeField(f[1])
	}
	return r, nil
}

// parseDecimal and parseHex read a record's time and hash: strconv's
// general parsers were a tenth of reading the log. A number they do not
// take on their fast path (a sign, too many digits, another letter) goes
// to strconv, which takes or refuses it.
func parseDecimal(s string) (int64, error) {
	if len(s) == 0 || len(s) > 18 {
		return strconv.ParseInt(s, 10, 64)
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return strconv.ParseInt(s, 10, 64)
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

func parseHex(s string) (uint64, error) {
	if len(s) == 0 || len(s) > 16 {
		return strconv.ParseUint(s, 16, 64)
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		var d byte
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return strconv.ParseUint(s, 16, 64)
		}
		n = n<<4 | uint64(d)
	}
	return n, nil
}

// openSession builds a scope's session from its log: from the log's
// checkpoint when one of this tag serves (checkpoint.go) and the lines after
// it, else from the log alone. fresh returns a new session of the
// scope's rules. It returns the session, where the log was read to, and
// the log's problems.
func openSession(path string, fresh func() *session, tag string) (s *session, pos logPos, problems []string, err error) {
	f, err := openState(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return fresh(), logPos{whole: true}, nil, nil
	}
	if err != nil {
		return nil, pos, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, pos, nil, err
	}
	size := fi.Size()
	if tag != "" {
		if s, pos, problems, ok := fromCheckpoint(f, fi, path, fresh, tag); ok {
			return s, pos, problems, nil
		}
	}
	data := make([]byte, size)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, pos, nil, err
	}
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, pos, nil, err
	}
	// One string for the whole log: the records' fields are substrings of
	// it, not a copy each. A call is about two lines (B and A). The string
	// is the bytes read, not a copy of them (data is not written after
	// this): a copy would touch as many new pages as the log has.
	text := unsafe.String(unsafe.SliceData(data), len(data))
	s = fresh()
	n := 0
	if s.g.TurnForgets() {
		// Nothing before the latest prompt changes a verdict to come:
		// start there, numbering the calls before it.
		if i := lastPrompt(text); i >= 0 {
			skipped := text[:i+1]
			s.index = strings.Count(skipped, "\nB\t")
			if strings.HasPrefix(skipped, "B\t") {
				s.index++
			}
			s.bLines = s.index
			n = strings.Count(skipped, "\n")
			text = text[i+1:]
		}
	}
	s.expect(strings.Count(text, "\nB\t") + 2)
	pos = logPos{size: size, crc: crc32.Checksum(data, crcTable)}
	problems, pos.lines, pos.whole = applyLines(text, s, path, n, nil)
	return s, pos, problems, nil
}

// lastPrompt is the offset of the newline before the log's latest prompt
// line ("P", or "P" and a turn id), -1 if none.
func lastPrompt(text string) int {
	return max(strings.LastIndex(text, "\nP\n"), strings.LastIndex(text, "\nP\t"))
}

// fromCheckpoint builds the session from the log's checkpoint and the lines
// after it, when the checkpoint serves: of this tag, of this very log file
// (device and inode), covering no more than the log holds, and the bytes
// of the log it covers have the checksum (CRC-32) it recorded, so that a
// log cut, edited or written again is read whole. ok false: build from
// the log.
func fromCheckpoint(f *os.File, fi os.FileInfo, path string, fresh func() *session, tag string) (s *session, pos logPos, problems []string, ok bool) {
	sn := readCheckpoint(checkpointPath(path), tag)
	if sn == nil {
		return nil, pos, nil, false
	}
	dev, ino := fileID(fi)
	size := fi.Size()
	if sn.pos.dev != dev || sn.pos.ino != ino || sn.pos.size > size || sn.pos.size < 0 {
		return nil, pos, nil, false
	}
	// The covered bytes are read in small pieces, only to check them: a
	// buffer the log's size would touch as many new pages.
	var crc uint32
	buf := make([]byte, 16<<10)
	for left := sn.pos.size; left > 0; {
		n := int(min(left, int64(len(buf))))
		if _, err := io.ReadFull(f, buf[:n]); err != nil {
			return nil, pos, nil, false
		}
		crc = crc32.Update(crc, crcTable, buf[:n])
		left -= int64(n)
	}
	if crc != sn.pos.crc {
		return nil, pos, nil, false
	}
	data := make([]byte, size-sn.pos.size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, pos, nil, false
	}
	s = fresh()
	if err := restoreSafely(s, sn.session); err != nil {
		return nil, pos, nil, false
	}
	text := unsafe.String(unsafe.SliceData(data), len(data))
	pos = logPos{size: size, crc: crc32.Update(crc, crcTable, data)}
	problems, pos.lines, pos.whole = applyLines(text, s, path, sn.pos.lines, sn.problems)
	restoredCheckpoints.Add(1)
	return s, pos, problems, true
}

// restoreSafely restores a checkpoint that passed its checksum; a panic
// (a checkpoint that reads but holds nonsense) is an error, and the hook
// then builds from the log.
func restoreSafely(s *session, b []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("snapshot: %v", p)
		}
	}()
	return s.restore(b)
}

// applyLines applies the log's lines in text to s, numbering them from
// n+1, and returns the problems (appended to problems), the lines read and
// whether text ended with a complete line. Under rules whose turn forgets
// everything (Guard.TurnForgets), a prompt drops the problems before it,
// as a rebuild from the latest prompt never reads them.
func applyLines(text string, s *session, path string, n int, problems []string) ([]string, int, bool) {
	forgets := s.g.TurnForgets()
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			problems = append(problems, fmt.Sprintf("%s:%d: last line cut short, skipped", path, n+1))
			return problems, n, false
		}
		n++
		line := text[:i]
		text = text[i+1:]
		rec, err := decodeRecord(line)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: %v, skipped", path, n, err))
			if strings.HasPrefix(line, "B\t") {
				s.bLines++ // a rebuild from a later prompt counts it (session.bLines)
			}
			continue
		}
		if forgets && rec.kind == 'P' {
			problems = problems[:0]
		}
		s.apply(&rec)
	}
	return problems, n, true
}

// expire removes the files of sessions untouched for ttl, at most once an
// hour (a marker file's time says when it last ran), so that the state
// directory stays bounded. Only the hook's own files (statePrefix) go.
func expire(dir string, ttl time.Duration, now time.Time) {
	if ttl <= 0 {
		return
	}
	marker := filepath.Join(dir, ".expired")
	if fi, err := os.Stat(marker); err == nil && now.Sub(fi.ModTime()) < time.Hour {
		return
	}
	if f, err := openState(marker, os.O_WRONLY|os.O_CREATE|os.O_TRUNC); err == nil {
		f.Close()
		os.Chtimes(marker, now, now)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), statePrefix) || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > ttl {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
