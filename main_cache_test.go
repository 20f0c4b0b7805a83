package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopgate/loopgate/internal/corpusgen"
	"github.com/loopgate/loopgate/internal/filecache"
)

// cacheTestCorpus writes a small generated corpus of every format.
func cacheTestCorpus(t *testing.T, seed int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	if _, err := corpusgen.Generate(dir, corpusgen.Config{Seed: seed, TotalBytes: 1 << 20, MaxFileBytes: 64 << 10, MaxResultBytes: 8 << 10, Loops: true}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// corpusFiles lists the files under dir, sorted.
func corpusFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// sameWithAndWithoutCache runs args with the cache in cacheDir and with
// --no-cache, and fails unless both reports are the same byte for byte.
func sameWithAndWithoutCache(t *testing.T, what, cacheDir string, args ...string) {
	t.Helper()
	got, errs, code := loopgate(t, append(args, "--cache-dir", cacheDir)...)
	want, errs2, code2 := loopgate(t, append(args, "--no-cache")...)
	if code != code2 || errs != errs2 {
		t.Errorf("%s: exit %d, stderr %q with the cache; exit %d, stderr %q without", what, code, errs, code2, errs2)
	}
	if got != want {
		t.Errorf("%s: %s: the report with the cache differs from the one without:\n%s", what, strings.Join(args, " "), firstDifference(got, want))
	}
}

// firstDifference shows where two reports part.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(i-200, 0)
	return fmt.Sprintf("at byte %d:\n  with:    %q\n  without: %q", i, a[lo:min(i+200, len(a))], b[lo:min(i+200, len(b))])
}

// TestCacheIncrementalEquality is the replay cache's contract (docs/cli.md,
// "The replay cache"): over random changes to a corpus (files appended
// to, rewritten, cut short, deleted, renamed, touched without a change),
// a replay that uses the cache writes exactly the report of one that does
// not, in json, table and jsonl, with and without session filters.
func TestCacheIncrementalEquality(t *testing.T) {
	corpus := cacheTestCorpus(t, 21)
	cache := t.TempDir()
	rng := rand.New(rand.NewPCG(21, 54))
	when := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	ops := []struct {
		name string
		do   func(f string, files []string) error
	}{
		{"append", func(f string, files []string) error {
			// A line of the file again, or of another: a grown session,
			// a new one, or a problem, as the format takes it.
			src := files[rng.IntN(len(files))]
			b, err := os.ReadFile(src)
			if err != nil {
				return err
			}
			lines := bytes.SplitAfter(b, []byte("\n"))
			add := lines[rng.IntN(len(lines))]
			if !bytes.HasSuffix(add, []byte("\n")) {
				add = append(append([]byte{}, add...), '\n')
			}
			fh, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, err = fh.Write(add)
			return errorsJoin(err, fh.Close())
		}},
		{"rewrite with another's content", func(f string, files []string) error {
			b, err := os.ReadFile(files[rng.IntN(len(files))])
			if err != nil {
				return err
			}
			return os.WriteFile(f, b, 0o644)
		}},
		{"cut short", func(f string, files []string) error {
			st, err := os.Stat(f)
			if err != nil {
				return err
			}
			return os.Truncate(f, st.Size()/2)
		}},
		{"delete", func(f string, files []string) error { return os.Remove(f) }},
		{"rename", func(f string, files []string) error {
			ext := filepath.Ext(f)
			return os.Rename(f, strings.TrimSuffix(f, ext)+fmt.Sprintf("-r%d", rng.IntN(1000))+ext)
		}},
		{"touch", func(f string, files []string) error {
			when = when.Add(time.Hour)
			return os.Chtimes(f, when, when)
		}},
		{"rewrite unchanged", func(f string, files []string) error {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			return os.WriteFile(f, b, 0o644)
		}},
	}
	run := func(round string) {
		base := []string{"replay", corpus, "--tokenizer", "chars4"}
		for _, format := range []string{"json", "table", "jsonl"} {
			sameWithAndWithoutCache(t, round+" "+format, cache, append(base, "--format", format)...)
		}
		sameWithAndWithoutCache(t, round+" --tool", cache, append(base, "--format", "json", "--tool", "Read")...)
		sameWithAndWithoutCache(t, round+" --since", cache, append(base, "--format", "json", "--since", "2026-01-01", "--until", "2026-07-01")...)
	}
	run("before any change")
	for round := 1; round <= 6; round++ {
		files := corpusFiles(t, corpus)
		var done []string
		for range 4 {
			op := ops[rng.IntN(len(ops))]
			f := files[rng.IntN(len(files))]
			if _, err := os.Stat(f); err != nil {
				continue // deleted or renamed this round
			}
			if err := op.do(f, files); err != nil {
				t.Fatalf("%s %s: %v", op.name, f, err)
			}
			done = append(done, op.name+" "+filepath.Base(f))
		}
		run(fmt.Sprintf("round %d (%s)", round, strings.Join(done, ", ")))
	}
	if c, err := filecache.Open(cache, 0); err != nil || c.Size() == 0 {
		t.Errorf("the cache holds nothing after the runs (%v): they did not use it", err)
	}
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// entries lists a cache folder's entries (not its temporary files).
func entries(t *testing.T, cache string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".tmp-") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// TestCacheTornEntries: entries cut short or altered (a run killed while
// writing one, with no atomic rename to protect it; a disk error) and
// temporary files of a writer that died are not used: the next run's
// report is still the one without the cache, and the entries are whole
// again after it.
func TestCacheTornEntries(t *testing.T) {
	corpus := cacheTestCorpus(t, 22)
	cache := t.TempDir()
	args := []string{"replay", corpus, "--tokenizer", "chars4", "--format", "json"}
	sameWithAndWithoutCache(t, "filling", cache, args...)
	list := entries(t, cache)
	if len(list) < 10 {
		t.Fatalf("only %d entries after a run", len(list))
	}
	for i, p := range list {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		switch i % 4 {
		case 0:
			b = b[:len(b)/2] // cut mid-write
		case 1:
			b[len(b)-1] ^= 1 // altered
		case 2:
			// A writer that died before its rename left its temporary
			// file and no entry.
			if err := os.WriteFile(filepath.Join(filepath.Dir(p), ".tmp-died"), b[:len(b)/3], 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		default:
			continue
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sameWithAndWithoutCache(t, "after the entries were torn", cache, args...)
	sameWithAndWithoutCache(t, "the run after", cache, args...)
	c, err := filecache.Open(cache, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range entries(t, cache) {
		if _, ok := c.Get(filepath.Base(p)); !ok {
			t.Errorf("entry %s is still torn after a run", filepath.Base(p))
		}
	}
	if got := len(entries(t, cache)); got != len(list) {
		t.Errorf("%d entries after the runs, %d before they were torn", got, len(list))
	}
}

// TestCacheTwoRunsAtOnce: two replays at once over one empty cache both
// write the right report, and the cache they leave serves a third.
func TestCacheTwoRunsAtOnce(t *testing.T) {
	corpus := cacheTestCorpus(t, 23)
	cache := t.TempDir()
	t.Setenv("COLUMNS", "100")
	t.Setenv("NO_COLOR", "1")
	args := []string{"loopgate", "replay", corpus, "--tokenizer", "chars4", "--format", "json", "--jobs", "2"}
	want, _, _ := loopgate(t, append(args[1:], "--no-cache")...)
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out, errb bytes.Buffer
			run(append(args, "--cache-dir", cache), &out, &errb)
			outs[i] = out.String()
		}()
	}
	wg.Wait()
	for i, got := range outs {
		if got != want {
			t.Errorf("run %d of two at once: the report differs from the one without the cache:\n%s", i+1, firstDifference(got, want))
		}
	}
	sameWithAndWithoutCache(t, "after two runs at once", cache, args[1:]...)
	c, err := filecache.Open(cache, 0)
	if err != nil {
		t.Fatal(err)
	}
	list := entries(t, cache)
	if len(list) < 10 {
		t.Errorf("only %d entries after two runs", len(list))
	}
	for _, p := range list {
		if _, ok := c.Get(filepath.Base(p)); !ok {
			t.Errorf("entry %s unreadable after two runs at once", filepath.Base(p))
		}
	}
}

// TestCacheSizeBound: a cache given a bound smaller than its entries
// keeps to it (the entries used least recently go), and the reports stay
// right.
func TestCacheSizeBound(t *testing.T) {
	corpus := cacheTestCorpus(t, 24)
	cache := t.TempDir()
	args := []string{"replay", corpus, "--tokenizer", "chars4", "--format", "json"}
	sameWithAndWithoutCache(t, "unbounded", cache, args...)
	c, err := filecache.Open(cache, 0)
	if err != nil {
		t.Fatal(err)
	}
	full := c.Size()
	bound := full / 3
	bounded := append(args, "--cache-size", fmt.Sprint(bound))
	sameWithAndWithoutCache(t, "bounded", cache, bounded...)
	if got := c.Size(); got > bound || got == 0 {
		t.Errorf("the cache holds %d bytes under a bound of %d (unbounded: %d)", got, bound, full)
	}
	sameWithAndWithoutCache(t, "bounded again", cache, bounded...)
}

// TestCacheInvalidation: entries made under other rules or another
// tokenizer are not used (the reports would differ if they were).
func TestCacheInvalidation(t *testing.T) {
	corpus := cacheTestCorpus(t, 25)
	cache := t.TempDir()
	for _, tc := range []struct{ name, flag, a, b string }{
		{"rules", "--preset", "loopgate", "hermes"},
		{"tokenizer", "--tokenizer", "chars4", "cl100k_base"},
	} {
		args := func(v string) []string {
			a := []string{"replay", corpus, "--format", "json", tc.flag, v}
			if tc.flag != "--tokenizer" {
				a = append(a, "--tokenizer", "chars4")
			}
			return a
		}
		ra, _, _ := loopgate(t, append(args(tc.a), "--no-cache")...)
		rb, _, _ := loopgate(t, append(args(tc.b), "--no-cache")...)
		if ra == rb {
			t.Fatalf("%s: %s and %s give the same report: the test would check nothing", tc.name, tc.a, tc.b)
		}
		sameWithAndWithoutCache(t, tc.name+" "+tc.a, cache, args(tc.a)...)
		sameWithAndWithoutCache(t, tc.name+" "+tc.b+" after "+tc.a, cache, args(tc.b)...)
		sameWithAndWithoutCache(t, tc.name+" "+tc.a+" again", cache, args(tc.a)...)
	}
}

// TestCacheFiltersAndProblems: the session filters leave out the problems
// of a file whose sessions they all left out, and count them on standard
// error; with the cache, cold and warm, the report and that count are the
// same as without it. The fixtures hold files with problems whose sessions
// a filter leaves out.
func TestCacheFiltersAndProblems(t *testing.T) {
	cache := t.TempDir()
	for _, filters := range [][]string{
		{"--tool", "read_file", "--since", "2020-01-01"},
		{"--since", "2026-01-01"},
		{"--session", "no-such-session"},
	} {
		for _, pass := range []string{"cold", "warm"} {
			args := append([]string{"replay", "--format", "json", "fixtures"}, filters...)
			sameWithAndWithoutCache(t, pass+" "+strings.Join(filters, " "), cache, args...)
		}
	}
}
