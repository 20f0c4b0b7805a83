package analyze

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/corpusgen"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// memCache is a FileCache in memory that counts what it is asked.
type memCache struct {
	mu               sync.Mutex
	entries          map[string][]byte
	gets, hits, puts int
}

func newMemCache() *memCache { return &memCache{entries: map[string][]byte{}} }

// Identity is the file's size, time and a hash of all of it (the real
// one, internal/filecache, hashes its ends only).
func (m *memCache) Identity(path string) ([]byte, bool) {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return nil, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	sum := sha256.Sum256(data)
	b := binary.LittleEndian.AppendUint64(nil, uint64(info.Size()))
	b = binary.LittleEndian.AppendUint64(b, uint64(info.ModTime().UnixNano()))
	return append(b, sum[:]...), true
}

func (m *memCache) Get(key string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gets++
	b, ok := m.entries[key]
	if ok {
		m.hits++
	}
	return b, ok
}

func (m *memCache) Put(key string, payload []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.puts++
	m.entries[key] = append([]byte(nil), payload...)
	return nil
}

func (m *memCache) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gets, m.hits, m.puts = 0, 0, 0
}

// cacheCorpus writes a small generated corpus of every format and lists
// its files as a run would.
func cacheCorpus(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	if _, err := corpusgen.Generate(dir, corpusgen.Config{Seed: 5, TotalBytes: 1 << 20, MaxFileBytes: 96 << 10, MaxResultBytes: 8 << 10, Loops: true}); err != nil {
		t.Fatal(err)
	}
	var problems []ingest.Problem
	files := ingest.Expand([]string{dir}, func(p ingest.Problem) { problems = append(problems, p) })
	if len(problems) > 0 || len(files) < 10 {
		t.Fatalf("corpus: %d files, problems %v", len(files), problems)
	}
	return files
}

// reportJSON is the report as JSON, its sessions included.
func reportJSON(t *testing.T, r *Report) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReplayCacheHitsAndInvalidation: a replay repeated over unchanged
// files takes every file from the cache and gives the same report; a
// change of rules, tokenizer or version uses none of the entries; a file
// that grew is read again, alone; a session filter is applied to the
// entries as to the files.
func TestReplayCacheHitsAndInvalidation(t *testing.T) {
	files := cacheCorpus(t)
	preset := func(name string) *rules.Rules {
		r, err := rules.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	counter := func(name string) tokens.Counter {
		c, err := tokens.New(name)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	base := Options{Rules: preset("loopgate"), Tokens: counter("chars4"), Jobs: 2, CacheVersion: "v1"}
	mc := newMemCache()
	cached := func(opt Options) string {
		opt.Cache = mc
		return reportJSON(t, Replay(files, opt))
	}
	uncached := func(opt Options) string { return reportJSON(t, Replay(files, opt)) }

	if got, want := cached(base), uncached(base); got != want {
		t.Fatal("the first cached run's report differs from a run without the cache")
	}
	if mc.hits != 0 || mc.puts != len(files) {
		t.Fatalf("first run: %d hits, %d entries stored; want 0 and %d", mc.hits, mc.puts, len(files))
	}
	mc.reset()
	if got, want := cached(base), uncached(base); got != want {
		t.Fatal("the repeated run's report differs from a run without the cache")
	}
	if mc.hits != len(files) || mc.puts != 0 {
		t.Fatalf("repeated run: %d hits, %d stored; want %d and 0", mc.hits, mc.puts, len(files))
	}

	other := base
	other.Rules = preset("hermes")
	otherTok := base
	otherTok.Tokens = counter("cl100k_base")
	otherVersion := base
	otherVersion.CacheVersion = "v2"
	for _, tc := range []struct {
		name string
		opt  Options
	}{{"rules", other}, {"tokenizer", otherTok}, {"version", otherVersion}} {
		mc.reset()
		if got, want := cached(tc.opt), uncached(tc.opt); got != want {
			t.Errorf("%s changed: the cached run's report differs", tc.name)
		}
		if mc.hits != 0 {
			t.Errorf("%s changed: %d entries of the old %s were used", tc.name, mc.hits, tc.name)
		}
	}

	// A filter: the entries serve it, and the report is the filtered one.
	filtered := base
	filtered.Ingest.Keep = func(s *ingest.Session) bool {
		start, _ := s.Span()
		return len(s.ID)%2 == 0 && !start.IsZero()
	}
	mc.reset()
	if got, want := cached(filtered), uncached(filtered); got != want {
		t.Error("a filtered run from the cache differs from one without it")
	}
	if mc.hits != len(files) {
		t.Errorf("the filtered run took %d files from the cache, want %d", mc.hits, len(files))
	}
	if cached(filtered) == cached(base) {
		t.Error("the filter kept every session: the test checks nothing")
	}

	// One file grows: it alone is read again.
	sort.Strings(files)
	grown := files[len(files)/2]
	data, err := os.ReadFile(grown)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(grown, append(data, data...), 0o644); err != nil {
		t.Fatal(err)
	}
	mc.reset()
	if got, want := cached(base), uncached(base); got != want {
		t.Errorf("after %s grew the cached run's report differs", filepath.Base(grown))
	}
	// Every file read is stored again: one was.
	if mc.puts != 1 {
		t.Errorf("after one file grew: %d files read and stored, want 1", mc.puts)
	}
}
