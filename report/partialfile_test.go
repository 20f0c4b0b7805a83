package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/analyze"
)

// shardReport writes a replay shard's report in JSON lines, as a sharded
// run does, with the given files and one session per file.
func shardReport(t *testing.T, files []string, index []int) []byte {
	t.Helper()
	var b bytes.Buffer
	p := &analyze.Partial{Version: "v1", RulesHashes: []string{"h"}, Tokenizer: "chars4", Shard: "1/2", TotalFiles: 10, Files: files, FileIndex: index}
	j := NewJSONL(&b, Options{Partial: p})
	rep := &analyze.Report{Summary: analyze.Summary{Files: len(files), Sessions: len(files)}, Tools: []analyze.ToolStat{{Tool: "Read", Calls: 3}}}
	for i, f := range files {
		s := analyze.SessionResult{File: f, ID: "s" + f, Calls: i + 1, Decisions: []analyze.Decision{}}
		if err := j.Session(&s); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Finish(rep); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// resorted rewrites the summary line (the last line) with its keys in
// another order (encoding/json sorts a map's keys), as a tool that edits
// a report would write it, and with the line ending given.
func resorted(t *testing.T, data []byte, eol string) []byte {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(last, "", "")
	if err != nil {
		t.Fatal(err)
	}
	// One line again, with spaces between tokens.
	lines[len(lines)-1] = strings.ReplaceAll(string(b), "\n", " ")
	return []byte(strings.Join(lines, eol) + eol + eol)
}

// TestOpenPartialReadsAsStored: a replay partial opened from a file gives
// the same summary, files and sessions as the whole report read into
// memory, for file names that need escapes, a summary line whose members
// come in another order with white space, and CRLF line endings.
func TestOpenPartialReadsAsStored(t *testing.T) {
	files := []string{`a.jsonl`, `dir/quote"d.jsonl`, `back\slash\\.jsonl`, "tab\tand\u00e9.jsonl", strings.Repeat("long/", 20000) + "x.jsonl"}
	index := []int{0, 2, 3, 7, 9}
	plain := shardReport(t, files, index)
	cases := []struct {
		name string
		data []byte
	}{
		{"as written", plain},
		{"keys resorted, spaces", resorted(t, plain, "\n")},
		{"CRLF", resorted(t, plain, "\r\n")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "part.jsonl")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			whole, _, err := ReadPartialMax(path, bytes.NewReader(tc.data), 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			rp, tp, closeFile, err := OpenPartial(path, 1<<30)
			if err != nil || tp != nil || rp == nil || rp.Source == nil {
				t.Fatalf("OpenPartial: %v, %v, %v", rp, tp, err)
			}
			defer closeFile()
			if !reflect.DeepEqual(rp.Report, whole.Report) {
				t.Errorf("report:\n got %+v\nwant %+v", rp.Report, whole.Report)
			}
			wantPartial := whole.Partial
			wantPartial.Files, wantPartial.FileIndex = nil, nil
			if !reflect.DeepEqual(rp.Partial, wantPartial) {
				t.Errorf("partial: got %+v, want %+v", rp.Partial, wantPartial)
			}
			var gotFiles []string
			var gotIndex []int
			fc, err := rp.Source.Files()
			if err != nil {
				t.Fatal(err)
			}
			for {
				at, ok, err := fc.Next()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				gotFiles, gotIndex = append(gotFiles, at.File), append(gotIndex, at.Index)
			}
			if !reflect.DeepEqual(gotFiles, files) || !reflect.DeepEqual(gotIndex, index) {
				t.Errorf("files %q %v, want %q %v", gotFiles, gotIndex, files, index)
			}
			sc, err := rp.Source.Sessions()
			if err != nil {
				t.Fatal(err)
			}
			var got []analyze.SessionResult
			for {
				s, ok, err := sc.Next()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				got = append(got, *s)
			}
			if !reflect.DeepEqual(got, whole.Sessions) {
				t.Errorf("sessions differ:\n got %+v\nwant %+v", got, whole.Sessions)
			}
		})
	}
}

// TestOpenPartialRefuses: what is not one shard's report is refused with
// a message naming the file and, where there is one, the line.
func TestOpenPartialRefuses(t *testing.T) {
	good := shardReport(t, []string{"a", "b"}, []int{1, 4})
	lines := strings.SplitAfter(string(good), "\n")
	summary := lines[len(lines)-2]
	cases := []struct {
		name string
		data string
		want string // in the error of opening, or of reading on
	}{
		{"no summary line", lines[0] + lines[1], "no summary line"},
		{"not JSON at the end", lines[0] + "{oops\n", "part.jsonl:2: not a JSON line of a replay report"},
		{"no partial", lines[0] + `{"summary":{"files":1},"tools":[],"problems":[]}` + "\n", `part.jsonl:2: the summary line has no "partial" member`},
		{"two summary lines", summary + lines[0] + summary, "part.jsonl:2: a line after the summary line"},
		{"a bad session line", lines[0] + "[1,2]\n" + summary, "part.jsonl:2: session line"},
		{"files longer than file_index", strings.Replace(string(good), `"file_index":[1,4]`, `"file_index":[1]`, 1), "differ in length"},
		{"an index not a whole number", strings.Replace(string(good), `"file_index":[1,4]`, `"file_index":[1,4.5]`, 1), "partial.file_index[1]: 4.5 is not a whole number"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "part.jsonl")
			if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			err := openAndRead(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// openAndRead opens a partial and reads all its files and sessions,
// returning the first error.
func openAndRead(path string) error {
	rp, _, closeFile, err := OpenPartial(path, 1<<30)
	if err != nil {
		return err
	}
	defer closeFile()
	fc, err := rp.Source.Files()
	if err != nil {
		return err
	}
	for {
		_, ok, err := fc.Next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
	}
	sc, err := rp.Source.Sessions()
	if err != nil {
		return err
	}
	for {
		_, ok, err := sc.Next()
		if err != nil || !ok {
			return err
		}
	}
}
