package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// Results held as a head only (Options.CutResult). A replay needs little
// of most results once they are read: a hash, whether they failed, their
// length, a few hundred bytes of their head; yet the results' text is most
// of a read session's memory (28 of the 36 MB a 60 MB Claude Code session
// took, docs/performance.md). A reader that supports it hands each call to
// Options.CutResult as its result is joined to it; the caller works out
// what it needs of the whole text and may call Call.CutResult, which keeps
// the head alone. The few calls whose whole text is needed later (a result
// a guard answers with, the tokens of a stopped call) read it again from
// the file (ResultFile).
//
// Only the Claude Code reader supports it so far, for plain files (not
// compressed, not standard input, not a JSON document): there each result
// is one line's block, found again by its line. Another reader adopts it
// by calling the sink's cut hook where it joins a result (the session
// builder does it when its cut is set) and a case in ResultFile.Result.

// CutAbove is the length over which a reader that cuts results decodes a
// result into a scratch its next lines reuse (jsonx.Scratch), never into
// memory of its own: the caller's Options.CutResult is to cut every result
// longer than this to its head. One it leaves whole is copied, an
// allocation of its own where a short result would share a block with
// others (jsonx.StringOrValueAtPacked).
const CutAbove = 512

// ResultCut is what stays of a result cut to its head (Call.CutResult).
type ResultCut struct {
	// Bytes is the whole result's length, Hash a hash of its text (this
	// process' own: ResultFile checks the text it reads again against it).
	Bytes int
	Hash  uint64
	// Facts is what the caller worked out from the whole text, for itself
	// (the package does not read it).
	Facts any
}

// cutSeed is the seed of ResultCut.Hash: one per process.
var cutSeed = maphash.MakeSeed()

// CutResult keeps the first head bytes of c.Result, and in c.Cut the
// whole result's length and hash and facts (the caller's). It does nothing
// when the result is not longer than head. The head is a copy: the whole
// text is no longer referenced by the call.
func (c *Call) CutResult(head int, facts any) {
	if len(c.Result) <= head {
		return
	}
	c.Cut = &ResultCut{Bytes: len(c.Result), Hash: maphash.String(cutSeed, c.Result), Facts: facts}
	c.Result = strings.Clone(c.Result[:head])
	c.ResultMembers = nil // they were of the whole text
}

// ResultLen is the length of the call's whole result, cut or not.
func (c *Call) ResultLen() int {
	if c.Cut != nil {
		return c.Cut.Bytes
	}
	return len(c.Result)
}

// ResultFile reads the whole results of cut calls (Call.Cut) again from
// the file they were read from. It indexes the file's lines the first time
// it is asked, and keeps the index: one per file while its sessions are
// replayed. It is not safe for concurrent use.
type ResultFile struct {
	path   string
	format string
	starts []int64 // starts[n-1]: where line n starts
	rec    ccRecord
}

// NewResultFile returns a reader of the cut results of the sessions of
// format read from path.
func NewResultFile(path, format string) *ResultFile {
	return &ResultFile{path: path, format: format}
}

// errCutNotFound: the line holds no result of the cut one's length and
// hash (the file changed since it was read).
var errCutNotFound = errors.New("the result is no longer where it was read")

// Result returns the whole result of c, a call whose result was cut.
func (rf *ResultFile) Result(c *Call) (string, error) {
	if c.Cut == nil {
		return c.Result, nil
	}
	if rf.format != formatClaudeCode {
		return "", fmt.Errorf("results of %s cannot be read again", rf.format)
	}
	line, err := rf.line(c.ResultLine)
	if err != nil {
		return "", err
	}
	ccDecodeRecord(nil, line, c.ResultLine, &rf.rec)
	if rf.rec.err != nil {
		return "", errCutNotFound
	}
	for i := range rf.rec.read.blocks {
		b := &rf.rec.read.blocks[i]
		if b.Type != "tool_result" && !strings.HasSuffix(b.Type, "_tool_result") {
			continue
		}
		if t := b.resultText(); len(t) == c.Cut.Bytes && maphash.String(cutSeed, t) == c.Cut.Hash {
			return t, nil
		}
	}
	return "", errCutNotFound
}

// line returns line n (1-based) of the file as LineReader gives it: without
// its line end, invalid UTF-8 replaced.
func (rf *ResultFile) line(n int) ([]byte, error) {
	f, err := os.Open(rf.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if rf.starts == nil {
		if rf.starts, err = lineStarts(f); err != nil {
			rf.starts = nil
			return nil, err
		}
	}
	if n < 1 || n > len(rf.starts) {
		return nil, errCutNotFound
	}
	end := int64(-1)
	if n < len(rf.starts) {
		end = rf.starts[n]
	}
	var buf []byte
	if end >= 0 {
		buf = make([]byte, end-rf.starts[n-1])
		_, err = f.ReadAt(buf, rf.starts[n-1])
	} else {
		buf, err = io.ReadAll(io.NewSectionReader(f, rf.starts[n-1], 1<<62))
	}
	if err != nil {
		return nil, err
	}
	buf = trimLineEnd(buf)
	if !jsonx.ValidUTF8(buf) {
		buf = bytes.ToValidUTF8(buf, []byte("\uFFFD")) // as LineReader gave it
	}
	return buf, nil
}

// lineStarts returns where each line of r starts.
func lineStarts(r io.Reader) ([]int64, error) {
	starts := []int64{0}
	br := bufio.NewReaderSize(r, 1<<20)
	var at int64
	for {
		chunk, err := br.ReadSlice('\n')
		at += int64(len(chunk))
		if err == nil {
			starts = append(starts, at)
			continue
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			if starts[len(starts)-1] == at {
				starts = starts[:len(starts)-1] // no line after the last line end
			}
			return starts, nil
		}
		return nil, err
	}
}
