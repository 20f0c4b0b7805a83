// Package filecache keeps replay's per-file results between runs
// (docs/cli.md, "The replay cache"): a folder of entries, one file each,
// named by a key the caller derives, written whole or not at all
// (internal/atomicfile) and checked when read back, so that a run killed
// while writing one, a disk that filled up, or a second run writing the
// same entry at once leaves at worst an entry that is read as absent. The
// folder is bounded in size: the entries read least recently are removed
// first (Trim). It imports the standard library and internal/atomicfile
// only; what an entry holds is the caller's.
package filecache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/atomicfile"
)

// EnvDir names the environment variable that moves loopgate's cache
// folder, the tokenizer's tables' (internal/tokens) and this cache's
// alike; "off" turns both off.
const EnvDir = "LOOPGATE_CACHE_DIR"

// ErrOff is DefaultDir's error when EnvDir is "off".
var ErrOff = errors.New(EnvDir + "=off")

// DefaultMaxBytes bounds the folder unless the caller says otherwise.
const DefaultMaxBytes = 1 << 30

// layout names the folder of this entry layout: a release that changes
// the entries' framing takes another and leaves the old one to be
// trimmed away.
const layout = "replay-v1"

// magic starts every entry; then the payload's length (8 bytes, little
// endian) and its SHA-256, then the payload.
var magic = []byte("LGCACHE1")

const headerSize = 8 + 8 + sha256.Size

// DefaultDir is $LOOPGATE_CACHE_DIR, or loopgate's folder in the user's
// cache folder (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows); ErrOff when the
// variable is "off".
func DefaultDir() (string, error) {
	switch d := os.Getenv(EnvDir); d {
	case "off":
		return "", ErrOff
	case "":
	default:
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "loopgate"), nil
}

// Cache is one cache folder.
type Cache struct {
	dir      string // the entries' folder (dir/layout)
	maxBytes int64
	now      func() time.Time
}

// Open makes the folder if needed. maxBytes <= 0 means DefaultMaxBytes.
func Open(dir string, maxBytes int64) (*Cache, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	d := filepath.Join(dir, layout)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return nil, err
	}
	return &Cache{dir: d, maxBytes: maxBytes, now: time.Now}, nil
}

// Dir is the folder the entries are in.
func (c *Cache) Dir() string { return c.dir }

// path is where the entry of key lives: keys are spread over 256
// subfolders by their first two characters, so that no folder holds
// hundreds of thousands of files.
func (c *Cache) path(key string) string {
	sub := "00"
	if len(key) >= 2 {
		sub = key[:2]
	}
	return filepath.Join(c.dir, sub, key)
}

// validKey refuses keys that are not plain file names.
func validKey(key string) bool {
	return key != "" && !strings.ContainsAny(key, `/\.:`) && len(key) <= 128
}

// Get returns the payload stored under key, or false when there is none
// or the entry is not whole (a torn or altered entry is removed). A hit
// marks the entry as used now, for Trim's order.
func (c *Cache) Get(key string) ([]byte, bool) {
	if !validKey(key) {
		return nil, false
	}
	p := c.path(key)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	payload, ok := unframe(data)
	if !ok {
		os.Remove(p)
		return nil, false
	}
	now := c.now()
	_ = os.Chtimes(p, now, now)
	return payload, true
}

// Put stores payload under key, replacing what was there. A failure is
// returned but leaves the cache as it was: a run goes on without it.
func (c *Cache) Put(key string, payload []byte) error {
	if !validKey(key) {
		return errors.New("filecache: invalid key")
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(p, frame(payload), ".tmp-*", 0o600)
}

// frame is payload with its header.
func frame(payload []byte) []byte {
	sum := sha256.Sum256(payload)
	b := make([]byte, 0, headerSize+len(payload))
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(payload)))
	b = append(b, sum[:]...)
	return append(b, payload...)
}

// unframe checks an entry's header against its payload.
func unframe(data []byte) ([]byte, bool) {
	if len(data) < headerSize || !bytes.Equal(data[:8], magic) {
		return nil, false
	}
	n := binary.LittleEndian.Uint64(data[8:16])
	payload := data[headerSize:]
	if uint64(len(payload)) != n {
		return nil, false
	}
	sum := sha256.Sum256(payload)
	if !bytes.Equal(sum[:], data[16:headerSize]) {
		return nil, false
	}
	return payload, true
}

// staleTemp is how old a temporary file left by a writer must be before
// Trim takes it for the leftover of a run that died: a live writer's is
// seconds old.
const staleTemp = time.Hour

// Trim removes the entries read or written least recently until the
// folder holds at most the bound, and temporary files left by runs that
// died. Two runs may trim at once: an entry removed twice, or read by the
// other run just before it goes, is only a miss for that run.
func (c *Cache) Trim() error {
	type entry struct {
		path string
		size int64
		used time.Time
	}
	var entries []entry
	var total int64
	now := c.now()
	err := filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".tmp-") {
			if now.Sub(info.ModTime()) > staleTemp {
				os.Remove(p)
			}
			return nil
		}
		entries = append(entries, entry{p, info.Size(), info.ModTime()})
		total += info.Size()
		return nil
	})
	if err != nil || total <= c.maxBytes {
		return err
	}
	sort.Slice(entries, func(i, j int) bool {
		if !entries[i].used.Equal(entries[j].used) {
			return entries[i].used.Before(entries[j].used)
		}
		return entries[i].path < entries[j].path
	})
	for _, e := range entries {
		if total <= c.maxBytes {
			break
		}
		if err := os.Remove(e.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= e.size
		}
	}
	return nil
}

// Size is the bytes the entries take (for tests and messages).
func (c *Cache) Size() int64 {
	var total int64
	_ = filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".tmp-") {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}
