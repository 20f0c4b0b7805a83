package tokens

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopgate/loopgate/internal/corpusgen"
	"github.com/tiktoken-go/tokenizer"
)

// TestMain keeps every test off the real cache directory: tests that use
// a cache give it a temporary one (useCache).
func TestMain(m *testing.M) {
	os.Setenv(CacheDirEnv, "off")
	os.Exit(m.Run())
}

// testLibrary is the library version tests key their caches with (test
// binaries carry no module list, so libraryVersion has none).
const testLibrary = "github.com/tiktoken-go/tokenizer@v0.10.0 h1:test"

// useCache points the cache at a temporary directory and gives it a
// library version for the test's duration, and returns the directory.
func useCache(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv(CacheDirEnv, dir)
	setLibraryVersion(t, testLibrary, true)
	return dir
}

func setLibraryVersion(t testing.TB, version string, ok bool) {
	old := libraryVersion
	libraryVersion = func() (string, bool) { return version, ok }
	t.Cleanup(func() { libraryVersion = old })
}

// builtVocabularies are the tables of each encoding as built from the
// library, once per test process.
var builtVocabularies = sync.OnceValue(func() map[string]vocabulary {
	out := map[string]vocabulary{}
	for _, name := range []string{O200kBase, Cl100kBase} {
		c, err := tokenizer.Get(tokenizer.Encoding(name))
		if err != nil {
			panic(err)
		}
		f, err := newFastBPE(tokenizer.Encoding(name), c)
		if err != nil {
			panic(err)
		}
		out[name] = f.ranks
	}
	return out
})

// sameTokens tells whether a and b hold the same tokens with the same
// ranks in tables of the same sizes. Two builds place colliding tokens
// differently (the library's map is read in random order), so slots are
// compared as sets.
func sameTokens(a, b vocabulary) bool {
	type key struct {
		lo, hi uint64
		size   uint8
	}
	entries := func(v vocabulary) map[key]uint32 {
		m := map[key]uint32{}
		for _, s := range v.short.slots {
			if s.size != 0 {
				m[key{s.lo, 0, s.size}] = s.rank
			}
		}
		for _, s := range v.mid.slots {
			if s.size != 0 {
				m[key{s.lo, s.hi, s.size}] = s.rank
			}
		}
		return m
	}
	return len(a.short.slots) == len(b.short.slots) && len(a.mid.slots) == len(b.mid.slots) &&
		maps.Equal(entries(a), entries(b)) && maps.Equal(a.long, b.long)
}

// sameVocabulary tells whether a and b are the same tables, slot by slot.
func sameVocabulary(a, b vocabulary) bool {
	return slices.Equal(a.short.slots, b.short.slots) && a.short.shift == b.short.shift &&
		slices.Equal(a.mid.slots, b.mid.slots) && a.mid.shift == b.mid.shift &&
		maps.Equal(a.long, b.long)
}

// freshCounter is a counter of name that has loaded, the way a new process
// loads (reading the cache when there is one) and writes the cache when it
// built its tables from the library.
func freshCounter(t testing.TB, name string) *bpe {
	t.Helper()
	b := &bpe{name: name, enc: tokenizer.Encoding(name)}
	if err := b.wait(); err != nil || b.fast == nil {
		t.Fatalf("%s did not load: %v", name, b.err)
	}
	return b
}

// TestCacheRoundTrip: tables written and read back equal the tables built
// from the library; a new counter reads them instead of the library and
// counts the corpus as tiktoken-go does.
func TestCacheRoundTrip(t *testing.T) {
	files, err := corpusgen.GenerateInMemory(64<<10, 32<<10)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{O200kBase, Cl100kBase} {
		t.Run(name, func(t *testing.T) {
			dir := useCache(t)
			built := builtVocabularies()[name]
			_, key, _ := cachePath(name)
			decoded, err := decodeVocabulary(encodeVocabulary(&built, key), key)
			if err != nil {
				t.Fatalf("decoding what was encoded: %v", err)
			}
			if !sameVocabulary(decoded, built) {
				t.Fatal("the decoded tables differ from the built ones")
			}

			first := freshCounter(t, name)
			if !first.fromLibrary {
				t.Fatal("with no cache file, the tables did not come from the library")
			}
			if _, err := os.Stat(filepath.Join(dir, name+".bpe")); err != nil {
				t.Fatalf("no cache written: %v", err)
			}
			second := freshCounter(t, name)
			if second.fromLibrary {
				t.Fatal("with a cache file, the tables were built from the library again")
			}
			if !sameVocabulary(second.fast.ranks, first.fast.ranks) {
				t.Fatal("the tables read from the cache differ from the ones written")
			}
			if !sameTokens(second.fast.ranks, built) || sameTokens(second.fast.ranks, builtVocabularies()[otherEncoding(name)]) {
				t.Fatal("the tables read from the cache hold other tokens than the library's")
			}
			lib := libraryCodec(t, name)
			texts := 0
			for _, f := range files {
				for _, line := range strings.Split(string(f.Data), "\n") {
					checkSame(t, second, lib, line)
					texts++
				}
			}
			for _, text := range splitCases {
				checkSame(t, second, lib, text)
			}
			t.Logf("%d texts counted as tiktoken-go counts them, from the cache", texts)
		})
	}
}

func otherEncoding(name string) string {
	if name == O200kBase {
		return Cl100kBase
	}
	return O200kBase
}

// resum rewrites a file's checksum after a test changed its contents, so
// that the check after the checksum is what refuses it.
func resum(data []byte) []byte {
	body := data[:len(data)-4]
	binary.LittleEndian.PutUint32(data[len(data)-4:], crc32.Checksum(body, castagnoli()))
	return data
}

// slotOffset is where the short table's slot i starts in a cache file of
// o200k_base written under key.
func slotOffset(key string, i int) int {
	return len(cacheMagic) + 4 + 4 + len(key) + 8 + 3*4 + i*shortSlotBytes
}

// TestCacheRefused: a file that is wrong in any way is refused, the
// tables are built from the library, counts are right, and the file is
// replaced by a good one.
func TestCacheRefused(t *testing.T) {
	setLibraryVersion(t, testLibrary, true)
	t.Setenv(CacheDirEnv, t.TempDir())
	built := builtVocabularies()[O200kBase]
	_, key, _ := cachePath(O200kBase)
	good := encodeVocabulary(&built, key)
	// A used slot of the short table and the first empty one after it:
	// every slot between the used one's home and the empty one is used.
	used := slices.IndexFunc(built.short.slots, func(s shortSlot) bool { return s.size != 0 })
	empty := used
	for built.short.slots[empty].size != 0 {
		empty = (empty + 1) % len(built.short.slots)
	}
	edit := func(f func(b []byte) []byte) []byte { return f(slices.Clone(good)) }
	otherKey := strings.Replace(key, "v0.10.0", "v0.11.0", 1)
	cases := []struct {
		name string
		file []byte
		// why is what decodeVocabulary's error names (checked when set).
		why string
	}{
		{"empty", nil, "0 bytes"},
		{"garbage", []byte("not a vocabulary at all"), "checksum"},
		{"truncated", good[:len(good)/2], "checksum"},
		{"truncated and resummed", resum(slices.Clone(good[:len(good)/2+4])), "sizes"},
		{"flipped byte in a slot", edit(func(b []byte) []byte { b[slotOffset(key, used)] ^= 1; return b }), "checksum"},
		{"flipped byte in the checksum", edit(func(b []byte) []byte { b[len(b)-1] ^= 0x80; return b }), "checksum"},
		{"wrong format", edit(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(cacheMagic):], cacheFormat+1)
			return resum(b)
		}), "format"},
		{"other library version", encodeVocabulary(&built, otherKey), "key"},
		{"other encoding", func() []byte {
			cl := builtVocabularies()[Cl100kBase]
			_, clKey, _ := cachePath(Cl100kBase)
			return encodeVocabulary(&cl, clKey)
		}(), "key"},
		{"other layout", edit(func(b []byte) []byte {
			b[len(cacheMagic)+8+len(key)] ^= 1
			return resum(b)
		}), "packs or hashes"},
		{"token moved to an empty slot", edit(func(b []byte) []byte {
			u, e := slotOffset(key, used), slotOffset(key, empty)
			copy(b[e:e+shortSlotBytes], b[u:u+shortSlotBytes])
			clear(b[u : u+shortSlotBytes])
			return resum(b)
		}), "unreachable"},
		{"bytes past a token's size", edit(func(b []byte) []byte {
			at := slotOffset(key, used)
			b[at+12] = 1 // size 1, while the key may have more bytes
			b[at+7] = 'x'
			return resum(b)
		}), "size"},
		{"rank twice", edit(func(b []byte) []byte {
			u, e := slotOffset(key, used), slotOffset(key, empty)
			// A copy of a token in a slot of its own: its rank recurs.
			copy(b[e:e+shortSlotBytes], b[u:u+shortSlotBytes])
			return resum(b)
		}), "rank"},
		{"empty slot not zero", edit(func(b []byte) []byte {
			b[slotOffset(key, empty)+8] = 1 // a rank, size 0
			return resum(b)
		}), "empty but not zero"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, _, _ := cachePath(O200kBase)
			if err := os.WriteFile(path, c.file, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := decodeVocabulary(c.file, key)
			if !errors.Is(err, errCache) {
				t.Fatalf("decoding: %v, want a refusal", err)
			}
			if !strings.Contains(err.Error(), c.why) {
				t.Errorf("refused for %q, want %q", err, c.why)
			}
			b := freshCounter(t, O200kBase)
			if !b.fromLibrary {
				t.Fatal("the bad file was used")
			}
			if n := b.Count(`read_file {"path": "/etc/hosts"}`); n != 10 {
				t.Errorf("Count = %d, want 10", n)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := decodeVocabulary(data, key); err != nil {
				t.Errorf("the bad file was not replaced by a good one: %v", err)
			}
		})
	}
}

// TestCacheNotWritten: with the cache off, with no library version to key
// it with, or with a directory that cannot be written, nothing is written
// (or the write fails quietly), and the counter counts.
func TestCacheNotWritten(t *testing.T) {
	cases := []struct {
		name string
		// dir is LOOPGATE_CACHE_DIR given the test's temporary directory.
		dir       func(tmp string) string
		versioned bool
	}{
		{"off", func(string) string { return "off" }, true},
		{"no library version", func(tmp string) string { return tmp }, false},
		{"under a file", func(tmp string) string {
			// Root may write anywhere, so a directory that cannot be
			// made stands for a read-only home.
			os.WriteFile(filepath.Join(tmp, "file"), []byte("x"), 0o644)
			return filepath.Join(tmp, "file", "cache")
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			// The default location, were it used by mistake.
			t.Setenv("XDG_CACHE_HOME", tmp)
			t.Setenv("HOME", tmp)
			t.Setenv(CacheDirEnv, c.dir(tmp))
			setLibraryVersion(t, testLibrary, c.versioned)
			b := freshCounter(t, O200kBase)
			if n := b.Count("hello world"); n != 2 {
				t.Errorf("Count = %d, want 2", n)
			}
			var written []string
			filepath.WalkDir(tmp, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && d.Name() != "file" {
					written = append(written, p)
				}
				return nil
			})
			if len(written) > 0 {
				t.Errorf("written: %v", written)
			}
		})
	}
}

// TestCacheDefaultLocation: unset, the cache is os.UserCacheDir()/loopgate.
func TestCacheDefaultLocation(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", tmp)
	t.Setenv("HOME", tmp)
	t.Setenv(CacheDirEnv, "")
	setLibraryVersion(t, testLibrary, true)
	base, err := os.UserCacheDir()
	if err != nil || !strings.HasPrefix(base, tmp) {
		t.Skipf("os.UserCacheDir() = %q, %v: not under the test's HOME on this system", base, err)
	}
	freshCounter(t, Cl100kBase)
	if _, err := os.Stat(filepath.Join(base, "loopgate", Cl100kBase+".bpe")); err != nil {
		t.Errorf("no cache in the default place: %v", err)
	}
}

// TestCacheStaleTemps: a temporary file left by a process that ended while
// writing goes at the next write; one younger than a minute (another
// process's write under way) stays.
func TestCacheStaleTemps(t *testing.T) {
	dir := useCache(t)
	stale := filepath.Join(dir, O200kBase+".bpe.tmp123")
	young := filepath.Join(dir, O200kBase+".bpe.tmp456")
	other := filepath.Join(dir, "unrelated.tmp")
	for _, p := range []string{stale, young, other} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	os.Chtimes(other, old, old)
	freshCounter(t, O200kBase)
	for p, want := range map[string]bool{stale: false, young: true, other: true, filepath.Join(dir, O200kBase+".bpe"): true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// FuzzDecodeVocabulary: no file, however damaged, makes the decoder panic;
// inputs are tried as they are and with their checksum made right, so that
// the checks past it are reached. A file it accepts finds each token it
// holds at its rank.
func FuzzDecodeVocabulary(f *testing.F) {
	const key = "format 1; encoding o200k_base; " + testLibrary
	byID := []string{"a", "b", "ab", "abcdefghijk", "abcdefghijklmnopqrstu", "é"}
	small := newVocabulary(ranks{byID: byID})
	f.Add(encodeVocabulary(&small, key))
	f.Add([]byte(cacheMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, file := range [][]byte{data, resumIfLong(slices.Clone(data))} {
			v, err := decodeVocabulary(file, key)
			if err != nil {
				if !errors.Is(err, errCache) {
					t.Fatalf("refused with %v, not errCache", err)
				}
				continue
			}
			for _, s := range v.short.slots {
				if s.size != 0 && v.rankPacked(s.lo, 0, int(s.size), keyHash(s.lo, 0, int(s.size))) != s.rank {
					t.Fatalf("token %x of %d bytes not found at rank %d", s.lo, s.size, s.rank)
				}
			}
		}
	})
}

func resumIfLong(data []byte) []byte {
	if len(data) < 4 {
		return data
	}
	return resum(data)
}
