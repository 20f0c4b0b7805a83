package filecache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

func open(t *testing.T, max int64) *Cache {
	t.Helper()
	c, err := Open(t.TempDir(), max)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTornEntry: an entry cut short, altered, or left as a temporary
// file by a writer that died is read as absent, and the next Put makes
// it whole again.
func TestTornEntry(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(path string) error
	}{
		{"truncated mid-payload", func(p string) error { return truncateTo(p, headerSize+10) }},
		{"truncated mid-header", func(p string) error { return truncateTo(p, 12) }},
		{"empty", func(p string) error { return truncateTo(p, 0) }},
		{"a byte flipped", func(p string) error {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b[len(b)-1] ^= 0x40
			return os.WriteFile(p, b, 0o600)
		}},
		{"grown", func(p string) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString("more")
			return err
		}},
		{"only the temporary file", func(p string) error {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(filepath.Dir(p), ".tmp-123"), b[:len(b)/2], 0o600); err != nil {
				return err
			}
			return os.Remove(p)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := open(t, 0)
			payload := bytes.Repeat([]byte("result "), 100)
			if err := c.Put("abc123", payload); err != nil {
				t.Fatal(err)
			}
			if got, ok := c.Get("abc123"); !ok || !bytes.Equal(got, payload) {
				t.Fatal("a whole entry was not read back")
			}
			if err := tc.spoil(c.path("abc123")); err != nil {
				t.Fatal(err)
			}
			if got, ok := c.Get("abc123"); ok {
				t.Fatalf("a spoiled entry was read: %d bytes", len(got))
			}
			if err := c.Put("abc123", payload); err != nil {
				t.Fatal(err)
			}
			if got, ok := c.Get("abc123"); !ok || !bytes.Equal(got, payload) {
				t.Fatal("the entry written again was not read back")
			}
		})
	}
}

func truncateTo(p string, n int64) error { return os.Truncate(p, n) }

// TestTrimLeastRecentlyUsed: over its bound, the cache loses the entries
// read or written longest ago, and keeps the one just read.
func TestTrimLeastRecentlyUsed(t *testing.T) {
	payload := bytes.Repeat([]byte{7}, 1000)
	entry := int64(len(frame(payload)))
	c := open(t, 3*entry)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return clock }
	keys := []string{"k1", "k2", "k3", "k4", "k5"}
	for _, k := range keys {
		clock = clock.Add(time.Minute)
		if err := c.Put(k, payload); err != nil {
			t.Fatal(err)
		}
		now := clock
		if err := os.Chtimes(c.path(k), now, now); err != nil {
			t.Fatal(err)
		}
	}
	clock = clock.Add(time.Minute)
	if _, ok := c.Get("k1"); !ok { // k1 is now the most recently used
		t.Fatal("k1 is missing before the trim")
	}
	// A stale temporary file goes too; a fresh one stays.
	stale := filepath.Join(c.Dir(), "k1"[:2], ".tmp-stale")
	fresh := filepath.Join(c.Dir(), "k1"[:2], ".tmp-fresh")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := clock.Add(-2 * staleTemp)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(fresh, clock, clock); err != nil {
		t.Fatal(err)
	}
	if err := c.Trim(); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, k := range keys {
		if _, err := os.Stat(c.path(k)); err == nil {
			kept = append(kept, k)
		}
	}
	if fmt.Sprint(kept) != "[k1 k4 k5]" {
		t.Errorf("kept %v, want [k1 k4 k5] (the three used last)", kept)
	}
	if c.Size() > 3*entry {
		t.Errorf("the cache holds %d bytes, over its bound of %d", c.Size(), 3*entry)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale temporary file was left")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a writer's fresh temporary file was removed")
	}
}

// TestConcurrentWriters: writers and readers of the same entries at once
// (two runs over one cache) read only whole entries, each one of those
// written.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := 0; w < 4; w++ {
		c, err := Open(dir, 1<<20) // every writer its own Cache, as two processes
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				key := fmt.Sprintf("key%d", i%5)
				want := bytes.Repeat([]byte{byte('a' + w)}, 5000+w)
				if err := c.Put(key, want); err != nil {
					errs <- err
					return
				}
				if got, ok := c.Get(key); ok {
					if len(got) < 5000 || !bytes.Equal(got, bytes.Repeat(got[:1], len(got))) || len(got) != 5000+int(got[0]-'a') {
						errs <- fmt.Errorf("read a mixed or cut entry of %d bytes", len(got))
						return
					}
				}
				if i%50 == 0 {
					_ = c.Trim()
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c, _ := Open(dir, 1<<20)
	for i := 0; i < 5; i++ {
		if _, ok := c.Get(fmt.Sprintf("key%d", i)); !ok {
			t.Errorf("key%d unreadable after the writers were done", i)
		}
	}
}

// TestIdentity: what changes a file changes its identity; reading it
// does not.
func TestIdentity(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	big := bytes.Repeat([]byte("{\"line\":1}\n"), 30000) // over two samples
	write := func(b []byte) {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(big)
	when := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
	id := func() string {
		b, ok := Identity(p)
		if !ok || len(b) != IdentitySize {
			t.Fatalf("no identity (%d bytes)", len(b))
		}
		return string(b)
	}
	first := id()
	if id() != first {
		t.Fatal("the identity changed without a change")
	}
	for _, tc := range []struct {
		name   string
		change func()
	}{
		{"touched", func() { later := when.Add(time.Second); _ = os.Chtimes(p, later, later) }},
		{"appended", func() { write(append(append([]byte{}, big...), "{}\n"...)) }},
		{"tail rewritten, same size and time", func() {
			b := append([]byte{}, big...)
			b[len(b)-3] = '2'
			write(b)
			_ = os.Chtimes(p, when, when)
		}},
		{"replaced by a copy (another inode; none on Windows)", func() {
			if runtime.GOOS == "windows" {
				_ = os.Chtimes(p, when.Add(time.Hour), when.Add(time.Hour))
				return
			}
			q := filepath.Join(dir, "b.jsonl")
			_ = os.WriteFile(q, big, 0o644)
			_ = os.Chtimes(q, when, when)
			_ = os.Rename(q, p)
		}},
	} {
		tc.change()
		if got := id(); got == first {
			t.Errorf("%s: the identity did not change", tc.name)
		}
		write(big)
		_ = os.Chtimes(p, when, when)
		first = id()
	}
	if _, ok := Identity(dir); ok {
		t.Error("a folder has an identity")
	}
}

// TestDefaultDir: the environment variable moves the folder, "off" turns
// the cache off, and unset it is loopgate's folder in the user's cache.
func TestDefaultDir(t *testing.T) {
	t.Setenv(EnvDir, "off")
	if _, err := DefaultDir(); err != ErrOff {
		t.Errorf("%s=off: %v, want ErrOff", EnvDir, err)
	}
	t.Setenv(EnvDir, "/some/where")
	if d, err := DefaultDir(); err != nil || d != "/some/where" {
		t.Errorf("%s set: %q, %v", EnvDir, d, err)
	}
	t.Setenv(EnvDir, "")
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no user cache folder here: %v", err)
	}
	if d, err := DefaultDir(); err != nil || d != filepath.Join(base, "loopgate") {
		t.Errorf("unset: %q, %v; want %s", d, err, filepath.Join(base, "loopgate"))
	}
}
