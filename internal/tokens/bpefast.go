package tokens

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// fastBPE counts the tokens of a tiktoken encoding without the library's
// regexp2 pre-tokenizer: the text is split by hand (split.go) and each piece
// merged byte pair by byte pair against the encoding's ranks, with no
// allocation per piece. The library remains the reference: the ranks are
// read from it (ranks.go), and tests hold the two to the same counts, on
// text that is valid UTF-8 and, once its invalid bytes are replaced as the
// library replaces them (utf8.go), on text that is not.
//
// The library's own counter spent most of its time in the regexp2 engine
// and Unicode table look-ups (docs/performance.md, "The tokenizer").
type fastBPE struct {
	ranks vocabulary
	// pieceEnd is the split (split.go): where the piece starting at i ends.
	// A function that returns the end, rather than one that calls back with
	// each piece, spares a closure allocated per count.
	pieceEnd func(s string, i int) int
	// scratch holds merge state for long pieces; short ones use the stack.
	scratch sync.Pool
	// pieces lends each count a pieceCache.
	pieces sync.Pool
}

// pieceCache remembers the token counts of the pieces one goroutine met
// recently. Text repeats its words and punctuation, and a small table that
// stays in the processor's cache answers faster than the vocabulary of
// 200,000 tokens, and spares the merge of pieces that are not tokens.
//
// Pieces of up to 16 bytes, nearly all of them, sit in a two-way
// set-associative table indexed by the hash their vocabulary look-up needs
// anyway: a look-up compares at most two slots as two words each, and a
// newcomer evicts the less recently used piece of its set. (A Go map here
// cost as much as the vocabulary map it shielded, in a CPU profile.)
// Longer pieces, up to maxCachedPiece bytes, go to a map whose keys are
// copies (a piece is a slice of the text, which must not be kept alive).
type pieceCache struct {
	short [1 << cacheBits][2]cachedPiece // [0] the more recently used
	long  map[string]int32
}

// cachedPiece is a piece of at most 16 bytes, packed as in the vocabulary,
// and its count; size 0 marks an empty slot.
type cachedPiece struct {
	lo, hi uint64
	size   uint8
	tokens uint8 // at most 16: a token per byte
}

// cacheBits sizes the short table: 4096 sets of two slots of 24 bytes
// (192 KiB) stay within a core's second-level cache. On the benchmark's
// generated corpus (7,479 distinct pieces in 496,246) a second pass missed
// 29,800 times with 4096 slots direct-mapped and 16,500 with 8192
// (pieces sharing a slot evicted each other), and 7,650 with these 4096
// sets of two.
const cacheBits = 12

// maxCachedPiece and maxCachedPieces bound the long pieces a pieceCache
// keeps.
const (
	maxCachedPiece  = 32
	maxCachedPieces = 1024
)

// newFastBPE builds the counter of enc from c, the library's codec of enc.
func newFastBPE(enc tokenizer.Encoding, c tokenizer.Codec) (*fastBPE, error) {
	pieceEnd, err := splitOf(enc)
	if err != nil {
		return nil, err
	}
	ranks, err := readRanks(c)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", enc, err)
	}
	return &fastBPE{ranks: newVocabulary(ranks), pieceEnd: pieceEnd}, nil
}

// splitOf is the hand-written split of enc (split.go).
func splitOf(enc tokenizer.Encoding) (func(string, int) int, error) {
	switch enc {
	case tokenizer.O200kBase:
		return o200kPieceEnd, nil
	case tokenizer.Cl100kBase:
		return cl100kPieceEnd, nil
	}
	return nil, fmt.Errorf("no hand-written split for %s", enc)
}

// count returns the tokens of text, and false for text that is not valid
// UTF-8 (the caller replaces its invalid bytes first).
func (f *fastBPE) count(text string) (int, bool) {
	if !utf8.ValidString(text) {
		return 0, false
	}
	pc, _ := f.pieces.Get().(*pieceCache)
	if pc == nil {
		pc = &pieceCache{long: make(map[string]int32, maxCachedPieces)}
	}
	n := 0
	for i := skipUnmatched(text, 0); i < len(text); i = skipUnmatched(text, i) {
		e := f.pieceEnd(text, i)
		n += f.cachedTokens(pc, text[i:e])
		i = e
	}
	f.pieces.Put(pc)
	return n, true
}

// cachedTokens is pieceTokens answered from pc when it can be.
func (f *fastBPE) cachedTokens(pc *pieceCache, piece string) int {
	if len(piece) <= maxPacked {
		lo, hi := packKey(piece)
		h := keyHash(lo, hi, len(piece))
		set := &pc.short[h>>(64-cacheBits)]
		if c := set[0]; int(c.size) == len(piece) && c.lo == lo && c.hi == hi {
			return int(c.tokens)
		}
		if c := set[1]; int(c.size) == len(piece) && c.lo == lo && c.hi == hi {
			set[0], set[1] = c, set[0]
			return int(c.tokens)
		}
		k := 1
		if f.ranks.rankPacked(lo, hi, len(piece), h) == noRank {
			k = f.mergeTokens(piece)
		}
		set[1] = set[0]
		set[0] = cachedPiece{lo: lo, hi: hi, size: uint8(len(piece)), tokens: uint8(k)}
		return k
	}
	if len(piece) > maxCachedPiece {
		return f.pieceTokens(piece)
	}
	if k, ok := pc.long[piece]; ok {
		return int(k)
	}
	k := f.pieceTokens(piece)
	if len(pc.long) >= maxCachedPieces {
		clear(pc.long)
	}
	pc.long[strings.Clone(piece)] = int32(k)
	return k
}

// noRank marks a pair that does not merge.
const noRank = ^uint32(0)

// shortPiece is the longest piece merged with arrays on the stack.
const shortPiece = 64

// pieceTokens is the number of tokens byte-pair encoding makes of piece:
// starting from single bytes, the adjacent pair whose merge has the lowest
// rank is merged (the leftmost of equal ranks) until no pair merges.
func (f *fastBPE) pieceTokens(piece string) int {
	if f.ranks.rank(piece) != noRank {
		return 1
	}
	return f.mergeTokens(piece)
}

// mergeTokens is pieceTokens for a piece that is not itself a token.
func (f *fastBPE) mergeTokens(piece string) int {
	if len(piece) <= shortPiece {
		var starts [shortPiece + 1]int32
		var ranks [shortPiece + 1]uint32
		return f.mergeScan(piece, starts[:len(piece)+1], ranks[:len(piece)+1])
	}
	m, _ := f.scratch.Get().(*mergeScratch)
	if m == nil {
		m = &mergeScratch{}
	}
	n := m.merge(f, piece)
	f.scratch.Put(m)
	return n
}

// pairRank is the rank of piece[a:b] as one token.
func (f *fastBPE) pairRank(piece string, a, b int32) uint32 {
	return f.ranks.rank(piece[a:b])
}

// vocabulary maps a token's bytes to its rank. Go's map hashed and compared
// string keys on every look-up, and those look-ups were half the counter's
// time (a CPU profile: mapaccess2_faststr and matchH2). Nearly every
// token is at most 16 bytes long, so those sit in open-addressing tables
// whose keys are the bytes themselves packed into words: a look-up packs
// the piece, multiplies once for the hash and compares a word or two.
// Tokens of at most 8 bytes (three quarters of them) have a table of
// 16-byte slots, those of 9 to 16 bytes one of 24-byte slots: for
// o200k_base 4 + 1.5 MiB, where one table of 24-byte slots at most half
// full took 12 MiB. The few longer tokens stay in a Go map.
type vocabulary struct {
	short table[shortSlot] // tokens of 1 to 8 bytes
	mid   table[midSlot]   // tokens of 9 to 16 bytes
	long  map[string]uint32
	// seen keeps the reads insertBatch makes ahead from being optimized
	// away.
	seen uint8
}

// table is an open-addressing hash table with linear probing, indexed by
// the top bits of keyHash.
type table[S shortSlot | midSlot] struct {
	slots []S
	shift uint // 64 minus log2(len(slots))
}

// shortSlot is a token of at most 8 bytes, midSlot one of 9 to 16 bytes;
// size 0 marks an empty slot (no token is empty).
type shortSlot struct {
	lo   uint64
	rank uint32
	size uint8
}

type midSlot struct {
	lo, hi uint64
	rank   uint32
	size   uint8
}

// maxPacked is the longest key packKey packs; maxShort the longest in the
// table of short tokens.
const (
	maxPacked = 16
	maxShort  = 8
)

// Tables are at most maxLoad full: counting text whose pieces nearly all
// miss the piece cache (a look-up that misses, as most do while a piece is
// merged, reads a few slots) was no slower than with emptier, larger
// tables, nor than with a single table (docs/performance.md, "The
// tokenizer").
const maxLoad = 3.0 / 4

// newTable makes a table for n keys.
func newTable[S shortSlot | midSlot](n int) table[S] {
	bits := uint(1)
	for float64(n) > maxLoad*float64(uint(1)<<bits) {
		bits++
	}
	return table[S]{slots: make([]S, 1<<bits), shift: 64 - bits}
}

// newVocabulary indexes the tokens of r. A vocabulary holds each byte
// string once; should one recur, its lowest rank is kept.
func newVocabulary(r ranks) vocabulary {
	short, mid := 0, 0
	r.each(func(tok string, _ uint32) {
		switch {
		case len(tok) <= maxShort:
			short++
		case len(tok) <= maxPacked:
			mid++
		}
	})
	v := vocabulary{short: newTable[shortSlot](short), mid: newTable[midSlot](mid), long: map[string]uint32{}}
	var batch [64]packedToken
	n := 0
	r.each(func(tok string, rank uint32) {
		if len(tok) > maxPacked {
			if old, ok := v.long[tok]; !ok || rank < old {
				v.long[tok] = rank
			}
			return
		}
		lo, hi := packKey(tok)
		batch[n] = packedToken{lo: lo, hi: hi, h: keyHash(lo, hi, len(tok)), rank: rank, size: uint8(len(tok))}
		if n++; n == len(batch) {
			v.insertBatch(batch[:n])
			n = 0
		}
	})
	v.insertBatch(batch[:n])
	return v
}

// packedToken is a token of at most maxPacked bytes, packed and hashed.
type packedToken struct {
	lo, hi, h uint64
	rank      uint32
	size      uint8
}

// insertBatch adds tokens to v. The tables are much larger than the
// processor's caches and the tokens come in no order, so nearly every
// insertion misses the cache: reading each token's first slot before
// inserting any lets the processor fetch their lines together rather than
// one after another (docs/performance.md, "The tokenizer").
func (v *vocabulary) insertBatch(tokens []packedToken) {
	var seen uint8
	for _, p := range tokens {
		if p.size <= maxShort {
			seen |= v.short.slots[p.h>>v.short.shift].size
		} else {
			seen |= v.mid.slots[p.h>>v.mid.shift].size
		}
	}
	v.seen |= seen
	for _, p := range tokens {
		v.insert(p)
	}
}

// insert adds a token to v, or lowers its rank.
func (v *vocabulary) insert(p packedToken) {
	if p.size <= maxShort {
		t := &v.short
		mask := uint64(len(t.slots) - 1)
		for i := p.h >> t.shift; ; i = (i + 1) & mask {
			s := &t.slots[i]
			if s.size == 0 || s.size == p.size && s.lo == p.lo {
				if s.size == 0 || p.rank < s.rank {
					*s = shortSlot{lo: p.lo, rank: p.rank, size: p.size}
				}
				return
			}
		}
	}
	t := &v.mid
	mask := uint64(len(t.slots) - 1)
	for i := p.h >> t.shift; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.size == 0 || s.size == p.size && s.lo == p.lo && s.hi == p.hi {
			if s.size == 0 || p.rank < s.rank {
				*s = midSlot{lo: p.lo, hi: p.hi, rank: p.rank, size: p.size}
			}
			return
		}
	}
}

// rank is the rank of tok, or noRank when tok is not a token.
func (v *vocabulary) rank(tok string) uint32 {
	if len(tok) > maxPacked {
		if r, ok := v.long[tok]; ok {
			return r
		}
		return noRank
	}
	lo, hi := packKey(tok)
	return v.rankPacked(lo, hi, len(tok), keyHash(lo, hi, len(tok)))
}

// rankPacked is rank for a key of at most maxPacked bytes, packed and
// hashed.
func (v *vocabulary) rankPacked(lo, hi uint64, size int, h uint64) uint32 {
	if size <= maxShort {
		t := &v.short
		mask := uint64(len(t.slots) - 1)
		for i := h >> t.shift; ; i = (i + 1) & mask {
			s := &t.slots[i]
			if s.size == 0 {
				return noRank
			}
			if s.lo == lo && int(s.size) == size {
				return s.rank
			}
		}
	}
	t := &v.mid
	mask := uint64(len(t.slots) - 1)
	for i := h >> t.shift; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.size == 0 {
			return noRank
		}
		if s.lo == lo && s.hi == hi && int(s.size) == size {
			return s.rank
		}
	}
}

// packKey packs the bytes of s (at most 16) into two little-endian words,
// zero beyond the end; the length tells "a" from "a\x00".
func packKey(s string) (lo, hi uint64) {
	n := len(s)
	switch {
	case n >= 16:
		lo = binary.LittleEndian.Uint64([]byte(s[:8]))
		hi = binary.LittleEndian.Uint64([]byte(s[8:16]))
	case n > 8:
		lo = binary.LittleEndian.Uint64([]byte(s[:8]))
		// The last 8 bytes, shifted so byte 8 of s lands in hi's lowest.
		hi = binary.LittleEndian.Uint64([]byte(s[n-8:n])) >> (8 * (16 - n))
	case n == 8:
		lo = binary.LittleEndian.Uint64([]byte(s[:8]))
	case n >= 4:
		// Two overlapping 4-byte reads; the shared bytes land in the same
		// place in both.
		lo = uint64(binary.LittleEndian.Uint32([]byte(s[:4]))) |
			uint64(binary.LittleEndian.Uint32([]byte(s[n-4:n])))<<(8*(n-4))
	default:
		for i := 0; i < n; i++ {
			lo |= uint64(s[i]) << (8 * i)
		}
	}
	return lo, hi
}

// keyHash mixes a packed key into a 64-bit hash whose top bits are spread
// well enough to index a power-of-two table (multiply-shift hashing).
func keyHash(lo, hi uint64, size int) uint64 {
	h := (lo ^ uint64(size)<<59) * 0x9e3779b97f4a7c15
	h ^= hi * 0xc2b2ae3d27d4eb4f
	h ^= h >> 29
	return h * 0xbf58476d1ce4e5b9
}

// mergeScan merges a short piece, finding the lowest pair by a linear scan
// (quadratic, but a scan of a few dozen entries beats any bookkeeping).
// starts[k] is where part k begins; ranks[k] the rank of parts k and k+1
// merged.
func (f *fastBPE) mergeScan(piece string, starts []int32, ranks []uint32) int {
	n := len(piece)
	for k := 0; k <= n; k++ {
		starts[k] = int32(k)
	}
	parts := n // parts are starts[0..parts-1]; starts[parts] == n
	for k := 0; k < parts-1; k++ {
		ranks[k] = f.pairRank(piece, starts[k], starts[k+2])
	}
	if parts >= 1 {
		ranks[parts-1] = noRank
	}
	for parts > 1 {
		best, at := noRank, -1
		for k := 0; k < parts-1; k++ {
			if ranks[k] < best {
				best, at = ranks[k], k
			}
		}
		if at < 0 {
			break
		}
		// Merge parts at and at+1: drop boundary at+1.
		copy(starts[at+1:parts], starts[at+2:parts+1])
		copy(ranks[at+1:parts-1], ranks[at+2:parts])
		parts--
		ranks[parts-1+0] = noRank
		if at+1 < parts {
			ranks[at] = f.pairRank(piece, starts[at], starts[at+2])
		} else {
			ranks[at] = noRank
		}
		if at > 0 {
			ranks[at-1] = f.pairRank(piece, starts[at-1], starts[at+1])
		}
	}
	return parts
}

// mergeScratch merges long pieces in O(n log n): the parts are a doubly
// linked list over the piece's bytes, and the candidate pairs wait in a
// min-heap ordered by rank, then position (the leftmost of equal ranks
// first, as the linear scan takes them). An entry whose pair has changed
// since it was pushed is skipped when it comes up.
type mergeScratch struct {
	prev, next []int32  // neighbouring part starts; -1 and len(piece) at the ends
	rank       []uint32 // rank of the part starting here merged with the next; noRank for a removed part
	heap       []mergeCandidate
}

type mergeCandidate struct {
	rank uint32
	at   int32
}

func (m *mergeScratch) merge(f *fastBPE, piece string) int {
	n := int32(len(piece))
	m.prev = resize(m.prev, int(n))
	m.next = resize(m.next, int(n))
	m.rank = resizeU(m.rank, int(n))
	m.heap = m.heap[:0]
	for i := int32(0); i < n; i++ {
		m.prev[i], m.next[i] = i-1, i+1
	}
	for i := int32(0); i < n; i++ {
		m.rank[i] = noRank
		if i+2 <= n {
			m.rank[i] = f.pairRank(piece, i, i+2)
		}
		if m.rank[i] != noRank {
			m.heap = append(m.heap, mergeCandidate{m.rank[i], i})
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	parts := int(n)
	for len(m.heap) > 0 {
		c := m.pop()
		if m.rank[c.at] != c.rank || c.rank == noRank {
			continue // stale: the pair changed since
		}
		// Merge the part at c.at with the next one.
		nx := m.next[c.at]
		after := m.next[nx]
		m.next[c.at] = after
		if after < n {
			m.prev[after] = c.at
		}
		m.rank[nx] = noRank
		parts--
		m.rerank(f, piece, c.at)
		if p := m.prev[c.at]; p >= 0 {
			m.rerank(f, piece, p)
		}
	}
	return parts
}

// rerank recomputes the rank of the part starting at a merged with the
// next one, and queues it.
func (m *mergeScratch) rerank(f *fastBPE, piece string, a int32) {
	n := int32(len(piece))
	r := noRank
	if nx := m.next[a]; nx < n {
		r = f.pairRank(piece, a, m.next[nx])
	}
	m.rank[a] = r
	if r != noRank {
		m.heap = append(m.heap, mergeCandidate{r, a})
		m.up(len(m.heap) - 1)
	}
}

func (m *mergeScratch) less(i, j int) bool {
	a, b := m.heap[i], m.heap[j]
	return a.rank < b.rank || (a.rank == b.rank && a.at < b.at)
}

func (m *mergeScratch) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !m.less(i, p) {
			return
		}
		m.heap[i], m.heap[p] = m.heap[p], m.heap[i]
		i = p
	}
}

func (m *mergeScratch) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(m.heap) {
			return
		}
		j := l
		if r := l + 1; r < len(m.heap) && m.less(r, l) {
			j = r
		}
		if !m.less(j, i) {
			return
		}
		m.heap[i], m.heap[j] = m.heap[j], m.heap[i]
		i = j
	}
}

func (m *mergeScratch) pop() mergeCandidate {
	top := m.heap[0]
	last := len(m.heap) - 1
	m.heap[0] = m.heap[last]
	m.heap = m.heap[:last]
	if last > 0 {
		m.down(0)
	}
	return top
}

func resize(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func resizeU(s []uint32, n int) []uint32 {
	if cap(s) < n {
		return make([]uint32, n)
	}
	return s[:n]
}
