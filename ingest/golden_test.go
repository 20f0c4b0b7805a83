package ingest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// readAll reads one file through detection and returns what it yielded.
func readAll(t testing.TB, path string, opt Options) ([]*Session, []Problem) {
	t.Helper()
	var sessions []*Session
	var problems []Problem
	ReadFile(path, opt, &Sink{
		OnSession: func(s *Session) { sessions = append(sessions, s) },
		OnProblem: func(p Problem) { problems = append(problems, p) },
	})
	return sessions, problems
}

// TestGolden reads every transcript under fixtures/ingest and compares what
// was read with the .golden file beside it. Run with -update to rewrite
// them, then review the diff: the golden files are the specification.
func TestGolden(t *testing.T) {
	root := filepath.Join("..", "fixtures", "ingest")
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && IsTranscriptName(d.Name()) && !strings.HasSuffix(p, ".golden") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no fixtures found under fixtures/ingest")
	}
	for _, f := range files {
		f := f
		rel, _ := filepath.Rel(root, f)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			sessions, problems := readAll(t, f, Options{})
			for i := range problems {
				problems[i].File = filepath.ToSlash(rel)
			}
			golden := strings.TrimSuffix(strings.TrimSuffix(f, ".gz"), filepath.Ext(strings.TrimSuffix(f, ".gz"))) + ".golden"
			checkGolden(t, golden, DumpOf(sessions, problems).MarshalIndent())
		})
	}
}

// checkGolden compares got with the golden file, or rewrites it under
// -update.
func checkGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("no golden file (run go test ./ingest -run TestGolden -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("read differs from %s (rerun with -update and review the diff)\n%s", golden, firstDiff(string(want), string(got)))
	}
}

// firstDiff shows how two texts differ, line by line (-want +got).
var firstDiff = cmp.Diff

// TestGoldenGzip reads every fixture again gzipped (written by the test, in
// the same relative place under a temporary directory, as NAME.gz) and
// expects exactly its golden file: a .gz variant of every format and file
// kind reads the same as the plain file.
func TestGoldenGzip(t *testing.T) {
	root := filepath.Join("..", "fixtures", "ingest")
	tmp := t.TempDir()
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		// An OpenCode storage session file reads the plain message and
		// part files beside it, which a gzipped copy has not.
		storageSession := strings.Contains(filepath.ToSlash(p), "opencode/storage/session/")
		if err == nil && !d.IsDir() && IsTranscriptName(d.Name()) && !strings.HasSuffix(p, ".gz") && !storageSession {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			zipped := filepath.Join(tmp, rel+".gz")
			if err := os.MkdirAll(filepath.Dir(zipped), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(zipped, gzipped(data), 0o644); err != nil {
				t.Fatal(err)
			}
			sessions, problems := readAll(t, zipped, Options{})
			for i := range problems {
				problems[i].File = filepath.ToSlash(rel)
			}
			got := DumpOf(sessions, problems).MarshalIndent()
			want, err := os.ReadFile(strings.TrimSuffix(f, filepath.Ext(f)) + ".golden")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("gzipped %s reads differently from its golden file\n%s", rel, firstDiff(string(want), string(got)))
			}
		})
	}
}
