package ingest

// Fuzz targets for detection, every ingester, the line reader and the JSON
// layer under them (docs/reliability.md:
// loopgate must never crash on a transcript, never lose a session to one bad
// line, and give the same answer for the same input). Run them with
// `bash .ci/fuzz.sh` (10s each) or longer with `bash .ci/fuzz.sh 5m`; a
// failing input is saved under testdata/fuzz/FuzzName/ and kept there as a
// regression input that plain `go test` replays.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// fuzzNames are the file names a fuzzed input is read under: detection and
// session ids depend on the name (hermes snapshot and gateway names, nanobot's
// base64 stems, codex rollouts), so the fuzzer picks one.
var fuzzNames = []string{
	"x.jsonl",
	"x.json",
	"session_20260203_090000_c0ffee.json",
	"20260413_083748_5a617929.jsonl",
	"c2xhY2s6VDA0Mg.jsonl",
	"rollout-2026-02-03T10-00-00-0a0a0a0a-0000-4000-8000-00000000abcd.jsonl",
	"batch_0.jsonl",
	"telegram_42.jsonl",
	"", // standard input has no useful name
}

// fuzzFormat maps the fuzzer's format byte to "" (auto-detection) or one
// format id, so that one target forces every ingester on every input.
func fuzzFormat(b uint8) string {
	ids := FormatIDs()
	i := int(b) % (len(ids) + 1)
	if i == 0 {
		return ""
	}
	return ids[i-1]
}

// fixtureTranscripts returns every transcript under fixtures/ (the seeds).
func fixtureTranscripts(tb testing.TB) map[string][]byte {
	tb.Helper()
	files := readFixtureTranscripts()
	if len(files) == 0 {
		tb.Fatal("no transcripts found under fixtures/ to seed the fuzzer")
	}
	return files
}

// readFixtureTranscripts reads every transcript under fixtures/, by path.
func readFixtureTranscripts() map[string][]byte {
	files := map[string][]byte{}
	root := filepath.Join("..", "fixtures")
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !IsTranscriptName(d.Name()) {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil {
			files[p] = data
		}
		return nil
	})
	return files
}

// readBytes runs Read over data and collects what it yields.
func readBytes(data []byte, name string, format string) ([]*Session, []Problem) {
	return readBytesWith(data, name, Options{Format: format})
}

// readBytesWith reads data through Read with opt.
func readBytesWith(data []byte, name string, opt Options) ([]*Session, []Problem) {
	var sessions []*Session
	var problems []Problem
	Read(bytes.NewReader(data), name, opt, &Sink{
		OnSession: func(s *Session) { sessions = append(sessions, s) },
		OnProblem: func(p Problem) { problems = append(problems, p) },
	})
	return sessions, problems
}

// checkReadInvariants asserts what must hold of any Read, whatever the input:
// the properties docs/reliability.md asks for beyond "no panic".
func checkReadInvariants(t *testing.T, data []byte, name, format string, sessions []*Session, problems []Problem) {
	t.Helper()
	// Lines in the input (after gzip, if any): every line number reported
	// must point inside it.
	plain := data
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			plain, _ = io.ReadAll(io.LimitReader(zr, 1<<24))
		}
	}
	maxLine := bytes.Count(plain, []byte("\n")) + 1
	for _, p := range problems {
		if strings.TrimSpace(p.Message) == "" {
			t.Errorf("problem with an empty message: %+v", p)
		}
		if strings.Contains(p.Message, "internal error") {
			t.Errorf("a parser panicked (recovered by Read): %s", p.Message)
		}
		if p.File != name {
			t.Errorf("problem names file %q, want %q", p.File, name)
		}
		if p.Line < 0 || p.Line > maxLine {
			t.Errorf("problem at line %d of a %d-line input: %s", p.Line, maxLine, p.Message)
		}
	}
	if len(bytes.TrimSpace(plain)) > 0 && len(sessions)+len(problems) == 0 {
		t.Errorf("a non-empty input yielded neither a session nor a problem (format %q)", format)
	}
	for _, s := range sessions {
		if s.File != name {
			t.Errorf("session %q names file %q, want %q", s.ID, s.File, name)
		}
		if LookupFormat(s.Format) == nil {
			t.Errorf("session %q has format %q, not a known format id", s.ID, s.Format)
		}
		if format != "" && familyOf(s.Format) != familyOf(format) {
			t.Errorf("forced format %s yielded a session of format %s", format, s.Format)
		}
		if s.Agent == "" {
			t.Errorf("session %q has no agent scope", s.ID)
		}
		if s.Line < 0 || s.Line > maxLine {
			t.Errorf("session %q starts at line %d of a %d-line input", s.ID, s.Line, maxLine)
		}
		for i, turn := range s.Turns {
			if turn.Index != i+1 {
				t.Errorf("session %q: turn %d has index %d", s.ID, i+1, turn.Index)
			}
			if turn.Line < 0 || turn.Line > maxLine || turn.UserChars < 0 {
				t.Errorf("session %q turn %d: line %d, user chars %d", s.ID, i+1, turn.Line, turn.UserChars)
			}
			for _, r := range turn.Requests {
				if r.Line < 0 || r.Line > maxLine || r.TextChars < 0 {
					t.Errorf("session %q turn %d: request at line %d with %d text chars", s.ID, i+1, r.Line, r.TextChars)
				}
				for _, c := range r.Calls {
					checkCall(t, s.ID, c, maxLine)
				}
			}
		}
	}
}

func checkCall(t *testing.T, session string, c Call, maxLine int) {
	t.Helper()
	if !c.HasResult && (c.Result != "" || c.IsError || c.ResultLine != 0) {
		t.Errorf("session %q call %q (%s): no result, yet result %.40q, error %v, result line %d", session, c.ID, c.Tool, c.Result, c.IsError, c.ResultLine)
	}
	if c.Line < 0 || c.Line > maxLine || c.ResultLine < 0 || c.ResultLine > maxLine {
		t.Errorf("session %q call %q: line %d, result line %d, input has %d lines", session, c.ID, c.Line, c.ResultLine, maxLine)
	}
	// ArgsOK must say whether ArgsRaw is JSON: guards key on Args when it
	// is, on the raw text when it is not.
	_, err := jsonx.ParseString(c.ArgsRaw)
	if c.ArgsOK != (err == nil) {
		t.Errorf("session %q call %q: ArgsOK %v but parsing %.60q gives %v", session, c.ID, c.ArgsOK, c.ArgsRaw, err)
	}
	// Arguments said to be written compact are what Value.String writes,
	// and pending ones are valid and compact: keys are built from them.
	if c.ArgsPending && (!c.ArgsOK || !c.ArgsCompact) {
		t.Errorf("session %q call %q: arguments pending, but ArgsOK %v, ArgsCompact %v", session, c.ID, c.ArgsOK, c.ArgsCompact)
	}
	if c.ArgsCompact && c.ArgsOK && c.ArgsValue().String() != c.ArgsRaw {
		t.Errorf("session %q call %q: ArgsCompact, but %.60q is not its value written compact", session, c.ID, c.ArgsRaw)
	}
}

func familyOf(id string) string {
	if f := LookupFormat(id); f != nil {
		return f.Family
	}
	return id
}

// FuzzRead reads arbitrary bytes under every format (forced, or detected)
// and checks the invariants above, plus determinism (the same input gives
// the same sessions and problems, also with its lines decoded ahead on
// other cores), gzip transparency (the gzipped input reads the same) and
// CRLF transparency (Windows line endings read the same).
func FuzzRead(f *testing.F) {
	seeds := readSeeds(f)
	if fuzzing() {
		seeds = fuzzStarts(f, seeds)
	}
	for _, s := range seeds {
		f.Add(s.data, s.format, s.name)
	}
	f.Add([]byte(""), uint8(0), uint8(0))
	f.Add([]byte("\x00\x00\x00"), uint8(0), uint8(0))
	f.Add([]byte("{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"x\\\"}\"}}]}\n{\"role\":\"tool\",\"tool_call_id\":\"a\",\"content\":\"ok\"}\n{\"role\":\"tool\",\"tool_call_id\":\"a\",\"content\":\"again\"}\n{\"role\":\"tool\""), uint8(0), uint8(0))
	f.Add([]byte(strings.Repeat("[", 2000)), uint8(0), uint8(1))

	f.Fuzz(readOne)
}

// readOne is FuzzRead's check of one input.
func readOne(t *testing.T, data []byte, formatByte, nameByte uint8) {
	defer watchdog(t, fuzzDeadline)()
	format := fuzzFormat(formatByte)
	name := fuzzNames[int(nameByte)%len(fuzzNames)]
	sessions, problems := readBytes(data, name, format)
	checkReadInvariants(t, data, name, format, sessions, problems)
	want := DumpOf(sessions, problems).MarshalIndent()

	again := DumpOf(readBytes(data, name, format)).MarshalIndent()
	if !bytes.Equal(want, again) {
		t.Fatalf("two reads of the same input differ:\n%s", firstDiff(string(want), string(again)))
	}
	// Lines decoded ahead on other cores (ahead.go) read the same.
	ahead := DumpOf(readBytesWith(data, name, Options{Format: format, Workers: 3, aheadAfter: 1})).MarshalIndent()
	if !bytes.Equal(want, ahead) {
		t.Fatalf("the input decoded ahead reads differently:\n%s", firstDiff(string(want), string(ahead)))
	}

	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return // already gzip: the transformations below change its meaning
	}
	var gz bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(&gz)
	zw.Write(data)
	zw.Close()
	gzipWriters.Put(zw)
	zipped := DumpOf(readBytes(gz.Bytes(), name, format)).MarshalIndent()
	if !bytes.Equal(want, zipped) {
		t.Errorf("the gzipped input reads differently:\n%s", firstDiff(string(want), string(zipped)))
	}

	crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	if !bytes.Equal(crlf, data) {
		windows := DumpOf(readBytes(crlf, name, format)).MarshalIndent()
		if !bytes.Equal(want, windows) {
			t.Errorf("the input with CRLF line endings reads differently:\n%s", firstDiff(string(want), string(windows)))
		}
	}
}

// readSeed is one of FuzzRead's seeds: a fixture read under one format
// (format 0: detected), under the fixture's own kind of name.
type readSeed struct {
	path         string // under fixtures/, with forward slashes
	data         []byte
	format, name uint8
}

// key names the seed in testdata/fuzzread-starts.txt: its path and the
// format forced, "auto" when detected (format ids, not their indexes,
// which move when a format is added).
func (s readSeed) key() string {
	if f := fuzzFormat(s.format); f != "" {
		return s.path + " " + f
	}
	return s.path + " auto"
}

// readSeeds are every fixture under detection and under every format
// forced (-short: detection and one format forced, a different one per
// fixture), in path order.
func readSeeds(tb testing.TB) []readSeed {
	formats := len(FormatIDs()) + 1
	fixtures := fixtureTranscripts(tb)
	var seeds []readSeed
	for k, p := range slices.Sorted(maps.Keys(fixtures)) {
		base := filepath.Base(strings.TrimSuffix(p, ".gz"))
		nameIndex := uint8(0)
		for i, n := range fuzzNames {
			if n == base {
				nameIndex = uint8(i)
			}
		}
		rel, _ := filepath.Rel(filepath.Join("..", "fixtures"), p)
		for fi := 0; fi < formats; fi++ {
			if testing.Short() && fi != 0 && fi != 1+(k+1)%(formats-1) {
				continue
			}
			seeds = append(seeds, readSeed{filepath.ToSlash(rel), fixtures[p], uint8(fi), nameIndex})
		}
	}
	return seeds
}

// fuzzStarts are the seeds a fuzzing run of FuzzRead starts from: those
// listed in testdata/fuzzread-starts.txt. Go's fuzzer gathers the coverage
// of every seed before it mutates any, at 10 to 20 ms a seed in this
// package whatever the seed (the coordinator and its worker exchange the
// whole coverage map, 120 KB, as JSON for each), so all 3,388 seeds took a
// short run's whole time and more. The list is a greedy cover: a seed for
// every edge of loopgate's code that some seed reaches
// (scripts/fuzzread-starts.sh writes it again). Plain go test still
// replays every seed. A listed seed that no longer exists fails the run.
func fuzzStarts(tb testing.TB, seeds []readSeed) []readSeed {
	data, err := os.ReadFile(filepath.Join("testdata", "fuzzread-starts.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	want := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			want[l] = true
		}
	}
	var starts []readSeed
	for _, s := range seeds {
		if want[s.key()] {
			starts = append(starts, s)
			delete(want, s.key())
		}
	}
	if len(want) > 0 && !testing.Short() {
		tb.Fatalf("testdata/fuzzread-starts.txt lists %d seeds FuzzRead no longer has (%v): run scripts/fuzzread-starts.sh", len(want), slices.Sorted(maps.Keys(want)))
	}
	return starts
}

// fuzzing says whether this run fuzzes (go test -fuzz), rather than only
// replaying the seeds.
func fuzzing() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
}

// gzipWriters keeps FuzzRead's gzip writers for reuse: a new one allocates
// and clears about a megabyte of compressor state, which was a third of the
// target's CPU per input (-cpuprofile); a Reset writer writes the same bytes.
var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// fuzzDeadline bounds one fuzz input's run: the inputs are small, so a run
// this long is a hang (an infinite loop in a parser), which go test -fuzz
// would otherwise wait on forever without saving the input.
const fuzzDeadline = 20 * time.Second

// watchdog crashes the fuzz worker when a run outlives d, so that the fuzzer
// records the input that hung as a failure. Call the returned function when
// the run ends.
func watchdog(t *testing.T, d time.Duration) (stop func()) {
	name := t.Name()
	timer := time.AfterFunc(d, func() {
		panic(fmt.Sprintf("%s: one input ran longer than %v: a hang", name, d))
	})
	return func() { timer.Stop() }
}

// FuzzLineReader checks the line reader against a plain split: the lines it
// yields are the input's non-blank lines in order, numbered from 1, without
// their line endings, in valid UTF-8, and only the last line of an input
// with no final newline is marked cut short.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\r\n\n  \nb\n\xff\xfec\nlast"))
	f.Add([]byte("\n\n\n"))
	f.Add([]byte("x\r\r\n\ry"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		lr := NewLineReader(bytes.NewReader(data))
		raw := bytes.Split(data, []byte("\n"))
		if len(raw) > 0 && len(raw[len(raw)-1]) == 0 {
			raw = raw[:len(raw)-1] // the final newline ends the last line
		}
		type want struct {
			text      []byte
			n         int
			truncated bool
		}
		var wants []want
		for i, l := range raw {
			l = bytes.TrimRight(l, "\r\n")
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			last := i == len(raw)-1 && !bytes.HasSuffix(data, []byte("\n"))
			wants = append(wants, want{bytes.ToValidUTF8(l, []byte("\uFFFD")), i + 1, last})
		}
		for i, w := range wants {
			line, n, ok := lr.Next()
			if !ok {
				t.Fatalf("reader ended after %d lines, want %d", i, len(wants))
			}
			if !bytes.Equal(line, w.text) || n != w.n || lr.Truncated() != w.truncated {
				t.Fatalf("line %d: got (%q, %d, truncated=%v), want (%q, %d, %v)", i+1, line, n, lr.Truncated(), w.text, w.n, w.truncated)
			}
			if !utf8.Valid(line) {
				t.Fatalf("line %d is not valid UTF-8: %q", n, line)
			}
		}
		if line, n, ok := lr.Next(); ok {
			t.Fatalf("reader yielded an extra line %d: %q", n, line)
		}
		if lr.Err() != nil {
			t.Fatalf("clean end reported error %v", lr.Err())
		}
	})
}

// FuzzJSON checks internal/jsonx, through which ingest reads every line
// (its own parser, tuned for speed, and goccy/go-json for structs), against
// encoding/json: the same texts are valid, they decode to the same values, Valid agrees with Parse, a
// printed value parses back to itself, and TopLevel/TopLevelFields return
// a member's raw text. It lives here because ingest is jsonx's user.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{"a": 1, "b": [true, false, null], "c": {"d": "e"}}`, `"\ud83d\ude00 \ud800 \u00e9\n"`, "\"caf\xc3\xa9 \xff\xfe\"",
		`-0.0e+5`, `1e400`, `[1, 2,]`, `{"a" 1}`, `"\x01"`, `{"a": 1, "a": 2}`, `  [] `, `{"k\"ey": "v"}`, `[[[[[[[[[[]]]]]]]]]]`,
		`"0123456789abcdef0123456789\"abcdef"`, `012`, `1.`, `.5`, `tru`, `nul`, `"\u12"`, `{"a":"` + strings.Repeat("x", 70) + `\\"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := jsonx.Parse(data)
		if errors.Is(err, jsonx.ErrTooDeep) {
			return // encoding/json allows 10000 levels, jsonx 512 on purpose
		}
		if valid := jsonx.Valid(data); valid != (err == nil) {
			t.Fatalf("Valid says %v, Parse says %v", valid, err)
		}
		refOK := json.Valid(data)
		if refOK != (err == nil) {
			t.Fatalf("encoding/json valid %v, jsonx.Parse error %v", refOK, err)
		}
		// jsonx.Unmarshal (the struct decoder every ingester uses) must
		// accept and refuse the same texts.
		var decoded, refDecoded any
		refErr := json.Unmarshal(data, &refDecoded)
		if uerr := jsonx.Unmarshal(data, &decoded); (uerr == nil) != (refErr == nil) {
			t.Fatalf("encoding/json.Unmarshal error %v, jsonx.Unmarshal error %v", refErr, uerr)
		} else if uerr == nil && !reflect.DeepEqual(decoded, refDecoded) {
			t.Fatalf("jsonx.Unmarshal gives %#v, encoding/json %#v", decoded, refDecoded)
		}
		if err != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var ref any
		if err := dec.Decode(&ref); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		if got := jsonxToAny(v); !reflect.DeepEqual(got, ref) {
			t.Fatalf("values differ:\n jsonx %#v\n json  %#v", got, ref)
		}
		again, err := jsonx.ParseString(v.String())
		if err != nil || again.String() != v.String() {
			t.Fatalf("printed value %q does not parse back to itself: %v", v.String(), err)
		}
		if v.Kind == jsonx.Object {
			for _, m := range v.Obj {
				raw, ok := jsonx.TopLevel(data, m.Key)
				fields := jsonx.TopLevelFields(string(data), m.Key)
				if ok && (!jsonx.Valid(raw) || fields[0] != string(raw)) {
					t.Fatalf("member %q: TopLevel %q (%v), TopLevelFields %q", m.Key, raw, ok, fields[0])
				}
			}
		}
	})
}

// jsonxToAny converts a jsonx value to what encoding/json decodes with
// UseNumber (objects: the last of repeated keys wins).
func jsonxToAny(v jsonx.Value) any {
	switch v.Kind {
	case jsonx.Null:
		return nil
	case jsonx.Bool:
		return v.Bool
	case jsonx.Number:
		return json.Number(v.Str)
	case jsonx.String:
		return v.Str
	case jsonx.Array:
		out := make([]any, len(v.Arr))
		for i, e := range v.Arr {
			out[i] = jsonxToAny(e)
		}
		return out
	}
	out := map[string]any{}
	for _, m := range v.Obj {
		out[m.Key] = jsonxToAny(m.Val)
	}
	return out
}
