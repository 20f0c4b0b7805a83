package tokens

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/loopgate/loopgate/internal/atomicfile"
)

// The vocabulary cache: a BPE counter's tables (vocabulary) written to a
// file after they were built from the library, and read back by later
// processes, which then never call tokenizer.Get. Building them costs a
// cold process tens of milliseconds of CPU and megabytes kept alive for
// the library's own map (docs/performance.md, "The tokenizer"); reading the file costs one os.ReadFile and a decode of its
// slots.
//
// A cache can only be missed, never believed wrongly: the file holds a key
// (cacheKey: this format's version, the encoding, and the version and sum
// of the tiktoken-go module built into the binary) and a fingerprint of how
// keys are packed and hashed (layoutFingerprint), and ends with a CRC-32C
// of everything before it; the tables are checked slot by slot
// (checkTable). Anything wrong and the file is ignored, the tables built
// from the library as before, and the file rewritten.

// CacheDirEnv names the environment variable that moves the cache
// (a directory) or, set to "off", turns it off. Unset or empty, the cache
// is os.UserCacheDir()/loopgate.
const CacheDirEnv = "LOOPGATE_CACHE_DIR"

// cacheFormat is the file layout's version: bump it whenever the layout or
// the meaning of a slot changes (the fingerprint catches a changed packKey
// or keyHash, not a changed field order).
const cacheFormat = 1

// cacheMagic starts every cache file.
const cacheMagic = "loopgate-bpe\x00"

// tokenizerModule is the module whose vocabularies are cached.
const tokenizerModule = "github.com/tiktoken-go/tokenizer"

// libraryVersion is the version (and go.sum hash, when known) of the
// tokenizer module built into this binary, and false when the build does not
// say (then no cache is read or written: a file made by another build of
// the library could hold other ranks). Test binaries carry no module list,
// so tests of other packages never touch a cache; this package's tests set
// it.
var libraryVersion = func() (string, bool) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	for _, m := range info.Deps {
		if m.Path != tokenizerModule {
			continue
		}
		if m.Replace != nil {
			// A replaced module is named by its replacement; a local
			// directory has no version to trust.
			m = m.Replace
		}
		if m.Version == "" || m.Version == "(devel)" {
			return "", false
		}
		return m.Path + "@" + m.Version + " " + m.Sum, true
	}
	return "", false
}

// cacheDir is the directory of the cache files, and false when the cache
// is off or there is nowhere to put it.
func cacheDir() (string, bool) {
	dir := os.Getenv(CacheDirEnv)
	if dir == "off" {
		return "", false
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", false
		}
		dir = filepath.Join(base, "loopgate")
	}
	return dir, true
}

// cachePath is the cache file of an encoding and the key it must hold, and
// false when no cache is to be used.
func cachePath(encoding string) (path, key string, ok bool) {
	dir, ok := cacheDir()
	if !ok {
		return "", "", false
	}
	lib, ok := libraryVersion()
	if !ok {
		return "", "", false
	}
	key = fmt.Sprintf("format %d; encoding %s; %s", cacheFormat, encoding, lib)
	return filepath.Join(dir, encoding+".bpe"), key, true
}

// layoutFingerprint hashes the packed keys and hashes of sample strings of
// every length a table holds, with the tables' size limits: tables written
// by a build that packed or hashed differently would not find their tokens.
func layoutFingerprint() uint64 {
	const sample = "\x00\xffloopgate é漢🙂\n\t x"
	h := uint64(maxShort)<<8 | uint64(maxPacked)
	for n := 1; n <= maxPacked && n <= len(sample); n++ {
		lo, hi := packKey(sample[:n])
		h = h*0x100000001b3 ^ keyHash(lo, hi, n)
	}
	return h
}

// Slot sizes on disk: lo, [hi,] rank, size.
const (
	shortSlotBytes = 8 + 4 + 1
	midSlotBytes   = 8 + 8 + 4 + 1
)

// encodeVocabulary is the cache file of v under key.
func encodeVocabulary(v *vocabulary, key string) []byte {
	size := len(cacheMagic) + 4 + 4 + len(key) + 8 + 3*4 +
		len(v.short.slots)*shortSlotBytes + len(v.mid.slots)*midSlotBytes + 4
	for tok := range v.long {
		size += 4 + len(tok) + 4
	}
	b := make([]byte, 0, size)
	le := binary.LittleEndian
	b = append(b, cacheMagic...)
	b = le.AppendUint32(b, cacheFormat)
	b = le.AppendUint32(b, uint32(len(key)))
	b = append(b, key...)
	b = le.AppendUint64(b, layoutFingerprint())
	b = le.AppendUint32(b, uint32(len(v.short.slots)))
	b = le.AppendUint32(b, uint32(len(v.mid.slots)))
	b = le.AppendUint32(b, uint32(len(v.long)))
	for _, s := range v.short.slots {
		b = le.AppendUint64(b, s.lo)
		b = le.AppendUint32(b, s.rank)
		b = append(b, s.size)
	}
	for _, s := range v.mid.slots {
		b = le.AppendUint64(b, s.lo)
		b = le.AppendUint64(b, s.hi)
		b = le.AppendUint32(b, s.rank)
		b = append(b, s.size)
	}
	for tok, rank := range v.long {
		b = le.AppendUint32(b, uint32(len(tok)))
		b = append(b, tok...)
		b = le.AppendUint32(b, rank)
	}
	return le.AppendUint32(b, crc32.Checksum(b, castagnoli()))
}

// castagnoli is built at first use: its tables cost every process that
// starts, a live hook call's included, which never reads the cache.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// maxCachedRank bounds the ranks a cache may hold: the encodings have
// about 200,000 tokens, and checkRanks keeps a bit per possible rank.
const maxCachedRank = 1 << 22

// errCache is the reason every bad file is refused with; the details say
// which check failed (tests read them, runs ignore them).
var errCache = errors.New("bad vocabulary cache")

func cacheError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errCache, fmt.Sprintf(format, args...))
}

// cacheReader reads a cache file's fields in order; a read past the end
// sets short and returns nothing (numbers read as 0). Nothing is allocated
// for a length read from the file: a damaged one may name gigabytes.
type cacheReader struct {
	b     []byte
	short bool
}

func (r *cacheReader) take(n int) []byte {
	if n < 0 || n > len(r.b) {
		r.short = true
		r.b = nil
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *cacheReader) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *cacheReader) u64() uint64 {
	if p := r.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// decodeVocabulary reads a cache file written under key, and checks it.
func decodeVocabulary(data []byte, key string) (vocabulary, error) {
	if len(data) < len(cacheMagic)+4 {
		return vocabulary{}, cacheError("%d bytes", len(data))
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli()) != sum {
		return vocabulary{}, cacheError("checksum")
	}
	r := &cacheReader{b: body}
	if string(r.take(len(cacheMagic))) != cacheMagic {
		return vocabulary{}, cacheError("not a cache file")
	}
	if f := r.u32(); f != cacheFormat {
		return vocabulary{}, cacheError("format %d", f)
	}
	if k := string(r.take(int(r.u32()))); k != key {
		return vocabulary{}, cacheError("key %q", k)
	}
	if r.u64() != layoutFingerprint() {
		return vocabulary{}, cacheError("written by a build that packs or hashes keys otherwise")
	}
	nShort, nMid, nLong := int(r.u32()), int(r.u32()), int(r.u32())
	if r.short || !tableSize(nShort) || !tableSize(nMid) || nLong > len(r.b) ||
		nShort*shortSlotBytes+nMid*midSlotBytes > len(r.b) {
		return vocabulary{}, cacheError("sizes %d, %d, %d", nShort, nMid, nLong)
	}
	v := vocabulary{
		short: table[shortSlot]{slots: make([]shortSlot, nShort), shift: tableShift(nShort)},
		mid:   table[midSlot]{slots: make([]midSlot, nMid), shift: tableShift(nMid)},
		long:  make(map[string]uint32, nLong),
	}
	p := r.take(nShort * shortSlotBytes)
	for i := range v.short.slots {
		s := p[i*shortSlotBytes : (i+1)*shortSlotBytes]
		v.short.slots[i] = shortSlot{lo: binary.LittleEndian.Uint64(s), rank: binary.LittleEndian.Uint32(s[8:]), size: s[12]}
	}
	p = r.take(nMid * midSlotBytes)
	for i := range v.mid.slots {
		s := p[i*midSlotBytes : (i+1)*midSlotBytes]
		v.mid.slots[i] = midSlot{lo: binary.LittleEndian.Uint64(s), hi: binary.LittleEndian.Uint64(s[8:]), rank: binary.LittleEndian.Uint32(s[16:]), size: s[20]}
	}
	for range nLong {
		tok := string(r.take(int(r.u32())))
		rank := r.u32()
		if r.short || len(tok) <= maxPacked {
			return vocabulary{}, cacheError("long token of %d bytes", len(tok))
		}
		v.long[tok] = rank
	}
	if r.short || len(r.b) != 0 || len(v.long) != nLong {
		return vocabulary{}, cacheError("length")
	}
	if err := v.check(); err != nil {
		return vocabulary{}, err
	}
	return v, nil
}

// tableSize tells whether n slots can be a table's: a power of two, within
// reason.
func tableSize(n int) bool { return n >= 2 && n <= 1<<24 && n&(n-1) == 0 }

// tableShift is a table's shift for n slots (a power of two).
func tableShift(n int) uint {
	bits := uint(0)
	for 1<<bits < n {
		bits++
	}
	return 64 - bits
}

// check holds a decoded vocabulary to what newVocabulary builds: every
// token of the right size with its bytes packed as packKey packs them,
// reachable from its hash by the probe rank uses, tables at most maxLoad
// full, ranks distinct and bounded, and enough tokens.
func (v *vocabulary) check() error {
	seen := make([]uint64, maxCachedRank/64)
	tokens := 0
	addRank := func(r uint32) bool {
		if r >= maxCachedRank || seen[r/64]&(1<<(r%64)) != 0 {
			return false
		}
		seen[r/64] |= 1 << (r % 64)
		tokens++
		return true
	}
	short, mid := v.short.slots, v.mid.slots
	used := 0
	for i, s := range short {
		if s.size == 0 {
			if s.lo != 0 || s.rank != 0 {
				return cacheError("short slot %d: empty but not zero", i)
			}
			continue
		}
		used++
		if s.size > maxShort || s.size < 8 && s.lo>>(8*uint(s.size)) != 0 {
			return cacheError("short slot %d: size %d", i, s.size)
		}
		if !reachable(i, keyHash(s.lo, 0, int(s.size))>>v.short.shift, func(j int) bool { return short[j].size != 0 }, len(short)) {
			return cacheError("short slot %d: unreachable", i)
		}
		if !addRank(s.rank) {
			return cacheError("short slot %d: rank %d", i, s.rank)
		}
	}
	if float64(used) > maxLoad*float64(len(short)) {
		return cacheError("short table too full")
	}
	used = 0
	for i, s := range mid {
		if s.size == 0 {
			if s.lo != 0 || s.hi != 0 || s.rank != 0 {
				return cacheError("mid slot %d: empty but not zero", i)
			}
			continue
		}
		used++
		if s.size <= maxShort || s.size > maxPacked || s.size < maxPacked && s.hi>>(8*uint(s.size-8)) != 0 {
			return cacheError("mid slot %d: size %d", i, s.size)
		}
		if !reachable(i, keyHash(s.lo, s.hi, int(s.size))>>v.mid.shift, func(j int) bool { return mid[j].size != 0 }, len(mid)) {
			return cacheError("mid slot %d: unreachable", i)
		}
		if !addRank(s.rank) {
			return cacheError("mid slot %d: rank %d", i, s.rank)
		}
	}
	if float64(used) > maxLoad*float64(len(mid)) {
		return cacheError("mid table too full")
	}
	for tok, r := range v.long {
		if !addRank(r) {
			return cacheError("long token %q: rank %d", tok, r)
		}
	}
	if tokens < minTokens {
		return cacheError("%d tokens", tokens)
	}
	return nil
}

// reachable tells whether a linear probe from home reaches slot i through
// used slots only (a table less than full always has an empty slot, so the
// walk ends).
func reachable(i int, home uint64, used func(int) bool, n int) bool {
	for j := int(home); j != i; j = (j + 1) & (n - 1) {
		if !used(j) {
			return false
		}
	}
	return true
}

// loadCachedVocabulary reads the cache of encoding, and false when there is
// none to use (off, absent, or refused).
func loadCachedVocabulary(encoding string) (vocabulary, bool) {
	path, key, ok := cachePath(encoding)
	if !ok {
		return vocabulary{}, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return vocabulary{}, false
	}
	v, err := decodeVocabulary(data, key)
	return v, err == nil
}

// saveCachedVocabulary writes v as the cache of encoding, atomically: a
// temporary file in the same directory renamed over the old one, so a
// reader sees the old file or the new one whole, and two writers the last
// one's. Errors are returned for tests; runs ignore them (a read-only home
// must not fail a run).
func saveCachedVocabulary(encoding string, v *vocabulary) error {
	path, key, ok := cachePath(encoding)
	if !ok {
		return nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	removeStaleTemps(dir, filepath.Base(path))
	return atomicfile.Write(path, encodeVocabulary(v, key), filepath.Base(path)+".tmp*", 0o644)
}

// removeStaleTemps removes temporary files a process left when it ended
// while writing (the write runs in the background, and a run may end
// first). Only files older than a minute go, so another process's write
// under way is left alone.
func removeStaleTemps(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), base+".tmp") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Minute {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
