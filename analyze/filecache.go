package analyze

// The replay cache: each file's results kept between runs, so that a
// replay repeated over a history that changed little reads only what
// changed (docs/cli.md, "The replay cache"; the store is internal/filecache).
//
// The unit is the file, as for shards (shard.go): a file's sessions, and
// what the report says of them, depend on that file's bytes alone, and on
// the few files its reading reads beside it, whose identity is the
// entry's too (ingest.Companions: a Claude Code subagent's siblings); the
// formats that read a folder beside their file, and databases, are not
// cached (ingest.ReadsBeside, ingest.IsDatabase); and the report is put together
// from the files' results in the files' order, whichever were read and
// whichever came from the cache. An entry holds every session of its
// file, replayed, with what the session filters (--since, --until,
// --session, --tool) look at: the filters are applied to the entry as
// they are to a file read, so a filter that moves with the clock
// (--since 7d) does not make every entry stale. A file read while the
// cache is on is therefore replayed whole, the sessions a filter drops
// included, so that its entry serves every later filter.
//
// An entry is valid for one file's identity (internal/filecache.Identity:
// size, modification time, inode, a hash of its head and tail) under one
// scope: loopgate's version, the effective rules, the tokenizer, a forced
// --input-format and --max-record. A file that grew is read again whole:
// the replay of a session depends on its later requests as well as on its
// earlier ones (how many later requests re-send a result, the truth of a
// repeated call), so a session's result cannot be resumed from where the
// file ended before, and a file that gained a session at its end is, for
// most formats, one whose last session grew.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/rules"
)

// FileCache is where a replay keeps each file's results between runs
// (internal/filecache.Cache is one).
type FileCache interface {
	// Identity says which content path holds now; false when path is not
	// a file that can be cached (standard input, a pipe).
	Identity(path string) ([]byte, bool)
	// Get returns what Put stored under key, false when nothing whole is.
	Get(key string) ([]byte, bool)
	// Put stores payload under key; a failure loses only the entry.
	Put(key string, payload []byte) error
}

// maxEntryBytes bounds what one file's entry may hold while it is being
// built: a file of more sessions than that is read again next time,
// rather than held in memory twice over.
const maxEntryBytes = 64 << 20

// entryVersion changes whenever the encoding of an entry does.
const entryVersion = 1

// cacheScope is the digest of everything besides a file's bytes that its
// results depend on.
func cacheScope(opt Options, r *rules.Rules, tokenizer string) string {
	h := sha256.New()
	for _, s := range []string{"loopgate replay cache", strconv.Itoa(entryVersion), opt.CacheVersion,
		RulesHash(r), tokenizer, opt.Ingest.Format, strconv.FormatInt(opt.Ingest.MaxRecord, 10)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return string(h.Sum(nil))
}

// cacheKey names a file's entry under a scope: the same file named by
// another path (a relative one from another folder) has another entry,
// as its sessions carry the path they were named by.
func cacheKey(scope, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	h := sha256.New()
	h.Write([]byte(scope))
	h.Write([]byte(abs))
	h.Write([]byte{0})
	h.Write([]byte(path))
	return hex.EncodeToString(h.Sum(nil)[:20])
}

// fileIdentity is the identity of path's content for the cache, with
// that of the files its reading reads beside it (a Claude Code subagent's
// metadata and the session's other agents' transcripts:
// ingest.Companions), so that an entry is stale when any of them
// changed. A companion that is missing counts as such, as the reading
// finds it.
func fileIdentity(cache FileCache, path string) ([]byte, bool) {
	id, ok := cache.Identity(path)
	if !ok {
		return nil, false
	}
	for _, c := range ingest.Companions(path) {
		cid, ok := cache.Identity(c)
		if !ok {
			cid = nil
		}
		id = binary.AppendUvarint(id, uint64(len(cid)))
		id = append(id, cid...)
	}
	return id, true
}

// fileCaching is one file's use of the cache during a replay.
type fileCaching struct {
	cache FileCache
	path  string
	key   string
	id    []byte // the file's identity before it was read
	keep  func(*ingest.Session) bool
	// entry is the entry being built as the file is read: the sessions
	// encoded one by one (entry.go's order), and their count.
	entry    []byte
	sessions int
	// skip is set when the file's entry is not to be stored.
	skip bool
	// seen and keptN count the file's sessions and those the filters
	// kept, read or served (leftOut).
	seen, keptN int
}

// leftOut says whether the filters left out every session of a file that
// had some: its problems are then not listed but counted, as a read
// without the cache counts them (ingest.Options.ProblemsLeftOut).
func (fc *fileCaching) leftOut() bool {
	return fc.keep != nil && fc.seen > 0 && fc.keptN == 0
}

// newFileCaching is the file's use of the cache, nil without a cache or
// for a file that cannot be cached.
func newFileCaching(opt Options, scope, path string) *fileCaching {
	if opt.Cache == nil {
		return nil
	}
	id, ok := fileIdentity(opt.Cache, path)
	if !ok {
		return nil
	}
	return &fileCaching{cache: opt.Cache, path: path, key: cacheKey(scope, path), id: id, keep: opt.Ingest.Keep}
}

// cachedSession is one session of an entry: its result, and what the
// session filters look at.
type cachedSession struct {
	id, agent  string
	start, end time.Time
	tools      []string // the names of the tools it calls, once each
	estimated  int64    // texts whose tokens were estimated (TokenCache.estimated)
	stats      []ToolStat
	res        SessionResult
}

// filterView is a session holding what the session filters read (its
// id, agent, span and the tools it calls) for the filters to judge a
// cached session as they judge one read.
func (cs *cachedSession) filterView() *ingest.Session {
	calls := make([]ingest.Call, len(cs.tools))
	for i, t := range cs.tools {
		calls[i].Tool = t
	}
	return &ingest.Session{File: cs.res.File, Format: cs.res.Format, ID: cs.id, Agent: cs.agent, Parent: cs.res.Parent, Model: cs.res.Model,
		Turns: []ingest.Turn{{Index: 1, Time: cs.start, Requests: []ingest.Request{{Time: cs.end, Calls: calls}}}}}
}

// digest takes what the filters read of a session about to be replayed.
func digest(s *ingest.Session) cachedSession {
	cs := cachedSession{id: s.ID, agent: s.Agent}
	cs.start, cs.end = s.Span()
	seen := map[string]bool{}
	for _, t := range s.Turns {
		for _, q := range t.Requests {
			for _, c := range q.Calls {
				if !seen[c.Tool] {
					seen[c.Tool] = true
					cs.tools = append(cs.tools, c.Tool)
				}
			}
		}
	}
	return cs
}

// kept says whether the run's filters keep s.
func (fc *fileCaching) kept(s *ingest.Session) bool {
	return fc.keep == nil || fc.keep(s)
}

// add appends a replayed session to the entry being built.
func (fc *fileCaching) add(cs *cachedSession) {
	if fc.skip {
		return
	}
	if ingest.ReadsBeside(cs.res.Format) {
		fc.skip = true
		return
	}
	fc.entry = appendCachedSession(fc.entry, cs)
	fc.sessions++
	if len(fc.entry) > maxEntryBytes {
		fc.skip, fc.entry = true, nil
	}
}

// store writes the file's entry once it is read, if the file is still
// the one it was when the reading began.
func (fc *fileCaching) store(problems *FileProblems) {
	if fc.skip || isDatabaseFile(fc.path) {
		return
	}
	if id, ok := fileIdentity(fc.cache, fc.path); !ok || !bytes.Equal(id, fc.id) {
		return // it or a file read beside it changed while it was read
	}
	b := make([]byte, 0, len(fc.id)+len(fc.entry)+256)
	b = binary.AppendUvarint(b, uint64(len(fc.id)))
	b = append(b, fc.id...)
	b = appendProblems(b, problems)
	b = binary.AppendUvarint(b, uint64(fc.sessions))
	b = append(b, fc.entry...)
	_ = fc.cache.Put(fc.key, b)
}

// isDatabaseFile says whether path is read as a database.
func isDatabaseFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	return ingest.IsDatabase(head[:n])
}

// cachedEntry is an entry read back.
type cachedEntry struct {
	problems FileProblems
	sessions int
	rest     []byte // the sessions, encoded
}

// lookup returns the file's entry when the cache holds one for the file
// as it is now.
func (fc *fileCaching) lookup() *cachedEntry {
	if fc == nil {
		return nil
	}
	payload, ok := fc.cache.Get(fc.key)
	if !ok {
		return nil
	}
	d := &sessionReader{b: payload}
	n := d.uvarint()
	if d.err != nil || n != uint64(len(fc.id)) || uint64(len(d.b)) < n || !bytes.Equal(d.b[:n], fc.id) {
		return nil
	}
	d.b = d.b[n:]
	e := &cachedEntry{}
	readProblems(d, &e.problems)
	e.sessions = int(d.uvarint())
	if d.err != nil || e.sessions < 0 || e.sessions > len(d.b) {
		return nil
	}
	e.rest = d.b
	return e
}

// each decodes the entry's sessions in order; an entry that does not
// decode whole is an error before any session is given (it is checked
// first), so a run never uses half an entry.
func (e *cachedEntry) each(f func(*cachedSession)) error {
	all := make([]cachedSession, e.sessions)
	b := e.rest
	for i := range all {
		var err error
		if b, err = readCachedSession(b, &all[i]); err != nil {
			return err
		}
	}
	if len(b) != 0 {
		return errSpillCorrupt
	}
	for i := range all {
		f(&all[i])
	}
	return nil
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendVarint(b, t.Unix())
	return binary.AppendVarint(b, int64(t.Nanosecond()))
}

func (d *sessionReader) time() time.Time {
	if !d.bool() {
		return time.Time{}
	}
	sec := d.varint()
	nsec := d.varint()
	return time.Unix(sec, nsec).UTC()
}

func appendCachedSession(b []byte, cs *cachedSession) []byte {
	b = appendString(b, cs.id)
	b = appendString(b, cs.agent)
	b = appendTime(b, cs.start)
	b = appendTime(b, cs.end)
	b = binary.AppendUvarint(b, uint64(len(cs.tools)))
	for _, t := range cs.tools {
		b = appendString(b, t)
	}
	b = binary.AppendVarint(b, cs.estimated)
	b = binary.AppendUvarint(b, uint64(len(cs.stats)))
	for i := range cs.stats {
		t := &cs.stats[i]
		b = appendString(b, t.Tool)
		b = appendString(b, t.Class)
		for _, n := range [...]int64{int64(t.Calls), int64(t.Redundant), int64(t.Steered), int64(t.Blocked), int64(t.Deduped), int64(t.Harmful), t.TokensSaved} {
			b = binary.AppendVarint(b, n)
		}
	}
	return encodeSession(b, &cs.res)
}

var errEntryShort = errors.New("a cache entry that does not decode")

func readCachedSession(b []byte, cs *cachedSession) ([]byte, error) {
	d := &sessionReader{b: b}
	cs.id, cs.agent = d.string(), d.string()
	cs.start, cs.end = d.time(), d.time()
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return nil, errEntryShort
	}
	cs.tools = make([]string, n)
	for i := range cs.tools {
		cs.tools[i] = d.string()
	}
	cs.estimated = d.varint()
	n = d.uvarint()
	if n > uint64(len(d.b)) {
		return nil, errEntryShort
	}
	cs.stats = make([]ToolStat, n)
	for i := range cs.stats {
		t := &cs.stats[i]
		t.Tool, t.Class = d.string(), d.string()
		t.Calls, t.Redundant, t.Steered, t.Blocked, t.Deduped, t.Harmful = d.int(), d.int(), d.int(), d.int(), d.int(), d.int()
		t.TokensSaved = d.varint()
	}
	if d.err != nil {
		return nil, d.err
	}
	return decodeSession(d.b, &cs.res)
}

// appendProblems encodes a file's problems, closed (FileProblems.Close).
func appendProblems(b []byte, p *FileProblems) []byte {
	b = binary.AppendUvarint(b, uint64(len(p.List)))
	for _, x := range p.List {
		b = appendString(b, x.File)
		b = binary.AppendVarint(b, int64(x.Line))
		b = appendString(b, x.Message)
	}
	b = binary.AppendVarint(b, int64(p.unlisted))
	b = binary.AppendVarint(b, int64(p.unlistedFirst))
	return binary.AppendVarint(b, int64(p.unlistedLast))
}

func readProblems(d *sessionReader, p *FileProblems) {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err = errEntryShort
		return
	}
	p.List = make([]Problem, n)
	for i := range p.List {
		p.List[i] = Problem{File: d.string(), Line: d.int(), Message: d.string()}
	}
	p.unlisted, p.unlistedFirst, p.unlistedLast = d.int(), d.int(), d.int()
}

// serve replays a file from its entry: the sessions the filters keep are
// counted and passed on as a read would pass them. It returns false,
// having done nothing, for an entry that does not decode.
func (fc *fileCaching) serve(e *cachedEntry, r *fileResult, f pipelineFile, passOn bool, bytesRead *atomic.Int64) bool {
	err := e.each(func(cs *cachedSession) {
		fc.seen++
		if fc.keep != nil && !fc.keep(cs.filterView()) {
			return
		}
		fc.keptN++
		r.estimated += cs.estimated
		r.tally[0].AddSession(cs.res, cs.stats, false)
		if passOn {
			f.Push(cs.res, summarySize(&cs.res))
		}
	})
	if err != nil {
		return false
	}
	if bytesRead != nil {
		bytesRead.Add(r.bytes)
	}
	return true
}

// pipelineFile is what serve needs of a pipeline's file.
type pipelineFile interface {
	Push(item SessionResult, weight int)
}
