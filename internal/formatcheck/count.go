package formatcheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
)

// Count is what one reading finds in a file.
type Count struct {
	// Format is the reading's name for the file's format.
	Format string
	// Sessions, Calls: the sessions and tool calls the file holds.
	Sessions, Calls int
	// WithResults: calls whose result the file holds.
	WithResults int
	// Repeats: calls with the same tool and arguments as an earlier call
	// of the same session.
	Repeats int
	// Tokens: the usage the file records, input (cached included) plus
	// output.
	Tokens int64
}

// ErrUnknown is returned for a file this reading does not know.
var ErrUnknown = errors.New("no independent reading of this format")

// call is one tool call as the independent reading sees it.
type call struct {
	id, tool, args string
	hasResult      bool
}

// session gathers the calls, the ids of the results and the tokens of one
// session.
type session struct {
	calls   []*call
	byID    map[string]*call
	results map[string]bool
	tokens  int64
}

func newSession() *session {
	return &session{byID: map[string]*call{}, results: map[string]bool{}}
}

// add records a call; a call id already seen in the session is the same
// call written again (a streamed message split over several lines), and is
// not counted twice.
func (s *session) add(id, tool, args string) *call {
	if id != "" {
		if c := s.byID[id]; c != nil {
			return c
		}
	}
	c := &call{id: id, tool: tool, args: args}
	s.calls = append(s.calls, c)
	if id != "" {
		s.byID[id] = c
	}
	return c
}

// result records a result by its call id: it counts for the call with that
// id wherever the two are in the session.
func (s *session) result(id string) {
	if id != "" {
		s.results[id] = true
	}
}

// tally adds a session's figures to the count.
func (c *Count) tally(s *session) {
	c.Sessions++
	seen := map[string]bool{}
	for _, k := range s.calls {
		c.Calls++
		if k.hasResult || (k.id != "" && s.results[k.id]) {
			c.WithResults++
		}
		key := k.tool + "\x00" + Canonical(k.args)
		if seen[key] {
			c.Repeats++
		}
		seen[key] = true
	}
	c.Tokens += s.tokens
}

// Canonical is the arguments text in one spelling: JSON re-encoded with
// sorted keys and no spaces, or the text itself when it is not JSON. Two
// calls repeat each other when their tools and canonical arguments are
// equal.
func Canonical(args string) string {
	t := strings.TrimSpace(args)
	if t == "" {
		return ""
	}
	var v any
	d := json.NewDecoder(strings.NewReader(t))
	d.UseNumber()
	if err := d.Decode(&v); err != nil || d.More() {
		return t
	}
	b, err := json.Marshal(v)
	if err != nil {
		return t
	}
	return string(b)
}

// rawText is a JSON value as arguments text: a string's content, or the
// compact JSON of anything else.
func rawText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	if v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, v) == nil {
		return b.String()
	}
	return string(v)
}

// CountFile reads a file the independent way: its format is recognized
// from its name and first record, then the reader of that format counts.
func CountFile(path string) (Count, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Count{}, err
	}
	name := path[strings.LastIndexAny(path, `/\`)+1:]
	switch {
	case bytes.HasPrefix(data, []byte("SQLite format 3\x00")):
		return countSQLite(path)
	case strings.HasSuffix(name, ".md"):
		return countAider(data)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return Count{}, ErrUnknown
	}
	// One JSON document, or JSON lines.
	if doc, ok := oneDocument(trimmed); ok {
		return countDocument(name, doc)
	}
	lines := jsonLines(data)
	if len(lines) == 0 {
		return Count{}, ErrUnknown
	}
	return countLines(name, lines)
}

// oneDocument is the file as one JSON value, when it is one.
func oneDocument(data []byte) (json.RawMessage, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// line is one JSON line: its object's members (nil when it is not an
// object).
type line map[string]json.RawMessage

// jsonLines splits a file into its JSON object lines; lines that are not
// JSON objects (a truncated last line, a stray value) are left out: the
// independent count counts what the file holds, not its damage.
func jsonLines(data []byte) []line {
	var out []line
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || b[0] != '{' {
			continue
		}
		var m line
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		out = append(out, m)
	}
	return out
}

// decode decodes a member into v, leaving v as it is when the member is
// absent or of another type.
func (l line) decode(key string, v any) {
	if raw, ok := l[key]; ok {
		_ = json.Unmarshal(raw, v)
	}
}

// str is a member's string value ("" when absent or not a string).
func (l line) str(key string) string {
	var s string
	l.decode(key, &s)
	return s
}

func (l line) has(key string) bool {
	_, ok := l[key]
	return ok
}

// obj is a member decoded as an object (nil when it is not one).
func (l line) obj(key string) line {
	var m line
	l.decode(key, &m)
	return m
}

// list is a member decoded as an array of raw values.
func (l line) list(key string) []json.RawMessage {
	var a []json.RawMessage
	l.decode(key, &a)
	return a
}

// num is a member's integer value (0 when absent or not a number).
func (l line) num(key string) int64 {
	var n json.Number
	if v, ok := l[key]; ok {
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if d.Decode(&n) == nil {
			if i, err := n.Int64(); err == nil {
				return i
			}
		}
	}
	return 0
}

func asLine(v json.RawMessage) line {
	var m line
	_ = json.Unmarshal(v, &m)
	return m
}

func asLines(vs []json.RawMessage) []line {
	out := make([]line, 0, len(vs))
	for _, v := range vs {
		if m := asLine(v); m != nil {
			out = append(out, m)
		}
	}
	return out
}

// mustJSON encodes a value the reading built itself (it cannot fail).
func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
