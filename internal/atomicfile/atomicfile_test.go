package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: a file is made or replaced whole with its mode, and a write
// that fails leaves the old file and no temporary file behind.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, old, data string
		perm            os.FileMode
	}{
		{"new.txt", "", "first", 0o644},
		{"old.txt", "before", "after", 0o600},
		{"empty.txt", "before", "", 0o644},
	} {
		path := filepath.Join(dir, tc.name)
		if tc.old != "" {
			if err := os.WriteFile(path, []byte(tc.old), 0o666); err != nil {
				t.Fatal(err)
			}
		}
		if err := Write(path, []byte(tc.data), "."+tc.name+".tmp*", tc.perm); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != tc.data {
			t.Errorf("%s: read %q, %v; want %q", tc.name, got, err, tc.data)
		}
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != tc.perm {
			t.Errorf("%s: mode %v, %v; want %v", tc.name, info.Mode().Perm(), err, tc.perm)
		}
	}
	// A rename that cannot happen (path is a directory that is not empty)
	// fails, and leaves the directory and no temporary file.
	target := filepath.Join(dir, "adir")
	if err := os.MkdirAll(filepath.Join(target, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, []byte("x"), ".adir.tmp*", 0o644); err == nil {
		t.Error("replacing a directory that is not empty succeeded")
	}
	if info, err := os.Stat(target); err != nil || !info.IsDir() {
		t.Errorf("the directory was not left as it was: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// A directory that does not exist: the temporary file cannot be made.
	err := Write(filepath.Join(dir, "no", "such"), []byte("x"), ".such.tmp*", 0o644)
	if te := (*TempError)(nil); !errors.As(err, &te) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("writing into a missing directory: %v, want a TempError of a missing file", err)
	}
}

// TestCreate: a File written in parts replaces its path only when
// committed; until then, and after Abort, the old file stands and no
// temporary file is left.
func TestCreate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		commit bool
		want   string
	}{
		{"committed", true, "part one, part two"},
		{"aborted", false, "old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "report.json")
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Create(path, ".report.tmp*", 0o640)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("part one, ")
			if got, _ := os.ReadFile(path); string(got) != "old" {
				t.Errorf("while being written, the path holds %q", got)
			}
			f.WriteString("part two")
			if tc.commit {
				if err := f.Commit(); err != nil {
					t.Fatal(err)
				}
			} else {
				f.Abort()
			}
			if got, _ := os.ReadFile(path); string(got) != tc.want {
				t.Errorf("the path holds %q, want %q", got, tc.want)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".report.tmp*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}
