package analyze

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/loopgate/loopgate/analyze/guard"

	"github.com/loopgate/loopgate/analyze/pipeline"
)

// A report keeps a summary of every session (SessionResult): about 850
// bytes each, so a corpus of millions of short sessions (a request log of
// many conversations) held gigabytes until the report was written. With
// Options.SpillSessions, Replay writes the kept sessions to a temporary
// file (pipeline.SpillFile), spillChunk (or spillBytes) at a time, and the
// report reads them back in order when it is rendered
// (Report.EachSession): memory then follows the chunk, not the corpus.
// The results of a file read ahead of its turn wait the same way
// (pipeline.Plan.Spill), so that two files of millions of sessions are
// not held either.
//
// The file holds chunks of sessions in a small binary encoding of their
// own (encodeSession).
var spillChunk = 8192 // a variable for the tests

// spillBytes also ends a chunk: the sessions kept in memory are written out
// once their estimated size reaches it, however few (a session with
// thousands of decisions is a summary of hundreds of KB).
var spillBytes = 16 << 20

// sessionCodec is how session summaries wait on disk.
func sessionCodec() *pipeline.Codec[SessionResult] {
	return &pipeline.Codec[SessionResult]{Encode: encodeSession, Decode: decodeSession, Chunk: spillChunk, Weight: spillBytes}
}

// summarySize estimates what a session summary holds in memory: its
// strings, its decisions and their strings, and the fixed parts.
func summarySize(s *SessionResult) int {
	const fixed, perDecision = 300, 160
	n := fixed + len(s.File) + len(s.ID) + len(s.Format) + len(s.Agent) + len(s.Selector) + len(s.Parent) + len(s.Model) + len(s.ToolNames) +
		len(s.TokensFrom) + len(s.UsageUnused) + len(s.Timeline)
	for i := range s.Decisions {
		d := &s.Decisions[i]
		n += perDecision + len(d.CallID) + len(d.Tool) + len(d.Class) + len(d.Args) + len(d.Detector) +
			len(d.Message) + len(d.Native)
	}
	return n
}

// keepSession adds a session to the report's list, spilling the list to
// disk once it holds spillChunk sessions or spillBytes when spill is set.
func (r *Report) keepSession(s SessionResult, spill bool) {
	r.Sessions = append(r.Sessions, s)
	if !spill {
		return
	}
	if r.spill == nil {
		r.spill = pipeline.NewSpillFile(sessionCodec())
	}
	if r.spill.Due(summarySize(&s), len(r.Sessions)) {
		r.Sessions = r.spill.Flush(r.Sessions)
		if r.spillErr == nil {
			r.spillErr = r.spill.Err()
		}
	}
}

// SessionCount is the number of sessions the report lists: those spilled
// to disk and those in Sessions.
func (r *Report) SessionCount() int {
	n := len(r.Sessions)
	if r.spill != nil {
		n += r.spill.Len()
	}
	return n
}

// EachSession calls f with every session of the report in order: first
// those spilled to disk (read back one chunk at a time), then those in
// Sessions. It stops at f's first error, or at a read error, and returns
// it. Renderers use it rather than Sessions, which holds only the sessions
// kept after the last spill.
func (r *Report) EachSession(f func(*SessionResult) error) error {
	if r.spill != nil {
		if err := r.spill.Each(f); err != nil {
			return err
		}
	}
	for i := range r.Sessions {
		if err := f(&r.Sessions[i]); err != nil {
			return err
		}
	}
	return nil
}

// SpillError says why session summaries could not be kept on disk (the
// temporary directory could not be written, say), nil when they could or
// did not need to be. Nothing is lost then: they stayed in memory, which
// then grows with their number; the CLI warns.
func (r *Report) SpillError() error { return r.spillErr }

// Close removes the file the report's sessions were spilled to, if any.
// The report lists only Sessions afterwards.
func (r *Report) Close() error {
	sp := r.spill
	if sp == nil {
		return nil
	}
	r.spill = nil
	return sp.Close()
}

// encodeSession appends s to b: every field in declaration order, strings
// as a length and bytes, numbers as varints, the float as its bits.
// TestSessionEncodingRoundTrip fills every field by reflection, so a field
// added to SessionResult or Decision and not encoded here fails it.
func encodeSession(b []byte, s *SessionResult) []byte {
	for _, str := range [...]string{s.File, s.ID, s.Format, s.Agent, s.Selector, s.Parent, s.Model, s.ToolNames, s.StartedAt, s.EndedAt} {
		b = appendString(b, str)
	}
	b = appendBool(b, s.Unattended)
	b = appendString(b, s.StartedAt)
	b = appendString(b, s.EndedAt)
	for _, n := range [...]int64{int64(s.Turns), int64(s.Requests), int64(s.Calls), int64(s.Steered),
		int64(s.Blocked), int64(s.Deduped), int64(s.Halted), int64(s.Redundant), int64(s.RedundantStopped),
		int64(s.Harmful), int64(s.StoppedActions), int64(s.Native), s.TokensSaved, s.ContextTokensSaved, s.SteerTokens} {
		b = binary.AppendVarint(b, n)
	}
	b = appendBool(b, s.HasUsage)
	b = appendString(b, s.TokensFrom)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s.BytesPerToken))
	b = appendString(b, s.UsageUnused)
	b = binary.AppendVarint(b, s.RecordedInput)
	b = binary.AppendVarint(b, s.RecordedOutput)
	b = appendString(b, s.Timeline)
	// 0 is a nil list, n+1 a list of n (empty and nil encode differently
	// in JSON).
	if s.Decisions == nil {
		b = append(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(s.Decisions))+1)
	}
	for i := range s.Decisions {
		d := &s.Decisions[i]
		b = binary.AppendVarint(b, int64(d.Turn))
		b = binary.AppendVarint(b, int64(d.Call))
		b = binary.AppendVarint(b, int64(d.Line))
		for _, str := range [...]string{d.CallID, d.Tool, d.Class, d.Args} {
			b = appendString(b, str)
		}
		b = append(b, byte(d.Action))
		b = appendString(b, d.Detector)
		b = binary.AppendVarint(b, int64(d.Count))
		b = appendString(b, d.Message)
		b = binary.AppendVarint(b, int64(d.RepeatsLine))
		b = appendBool(b, d.Redundant)
		b = appendBool(b, d.Harmful)
		b = appendBool(b, d.StoppedAction)
		b = binary.AppendVarint(b, d.TokensSaved)
		b = binary.AppendVarint(b, d.ContextTokensSaved)
		b = appendString(b, d.Native)
		b = binary.AppendVarint(b, int64(d.Repeats))
	}
	b = binary.AppendUvarint(b, uint64(len(s.Notes)))
	for _, n := range s.Notes {
		b = appendString(b, n)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

var errSpillCorrupt = errors.New("the file is not as it was written")

// sessionReader reads what encodeSession wrote; the first problem sticks.
type sessionReader struct {
	b   []byte
	err error
}

// readVarint reads one varint of the kind decode reads.
func readVarint[T int64 | uint64](d *sessionReader, decode func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := decode(d.b)
	if n <= 0 {
		d.err = errSpillCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *sessionReader) varint() int64   { return readVarint(d, binary.Varint) }
func (d *sessionReader) uvarint() uint64 { return readVarint(d, binary.Uvarint) }

func (d *sessionReader) int() int { return int(d.varint()) }

func (d *sessionReader) string() string {
	if d.err != nil {
		return ""
	}
	l, n := binary.Uvarint(d.b)
	if n <= 0 || l > uint64(len(d.b)-n) {
		d.err = errSpillCorrupt
		return ""
	}
	s := string(d.b[n : n+int(l)])
	d.b = d.b[n+int(l):]
	return s
}

func (d *sessionReader) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errSpillCorrupt
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *sessionReader) bool() bool { return d.byte() != 0 }

func (d *sessionReader) float() float64 {
	if d.err != nil || len(d.b) < 8 {
		d.err = errSpillCorrupt
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

// decodeSession reads one session that encodeSession wrote at the start of
// b into s and returns the rest of b.
func decodeSession(b []byte, s *SessionResult) ([]byte, error) {
	d := &sessionReader{b: b}
	s.File, s.ID, s.Format, s.Agent, s.Selector = d.string(), d.string(), d.string(), d.string(), d.string()
	s.Parent, s.Model = d.string(), d.string()
	s.ToolNames = d.string()
	s.StartedAt, s.EndedAt = d.string(), d.string()
	s.Unattended = d.bool()
	s.StartedAt, s.EndedAt = d.string(), d.string()
	s.Turns, s.Requests, s.Calls, s.Steered = d.int(), d.int(), d.int(), d.int()
	s.Blocked, s.Deduped, s.Halted, s.Redundant, s.RedundantStopped = d.int(), d.int(), d.int(), d.int(), d.int()
	s.Harmful, s.StoppedActions, s.Native = d.int(), d.int(), d.int()
	s.TokensSaved, s.ContextTokensSaved, s.SteerTokens = d.varint(), d.varint(), d.varint()
	s.HasUsage = d.bool()
	s.TokensFrom = d.string()
	s.BytesPerToken = d.float()
	s.UsageUnused = d.string()
	s.RecordedInput, s.RecordedOutput = d.varint(), d.varint()
	s.Timeline = d.string()
	n := d.uvarint()
	if n > uint64(len(d.b))+1 { // every decision takes bytes
		d.err = errSpillCorrupt
	}
	s.Decisions = nil
	if d.err == nil && n > 0 {
		s.Decisions = make([]Decision, n-1)
	}
	for i := range s.Decisions {
		x := &s.Decisions[i]
		x.Turn, x.Call, x.Line = d.int(), d.int(), d.int()
		x.CallID, x.Tool, x.Class, x.Args = d.string(), d.string(), d.string(), d.string()
		x.Action = guard.Action(d.byte())
		x.Detector = d.string()
		x.Count = d.int()
		x.Message = d.string()
		x.RepeatsLine = d.int()
		x.Redundant, x.Harmful, x.StoppedAction = d.bool(), d.bool(), d.bool()
		x.TokensSaved, x.ContextTokensSaved = d.varint(), d.varint()
		x.Native = d.string()
		x.Repeats = d.int()
	}
	s.Notes = nil
	if notes := d.uvarint(); notes > 0 && notes <= uint64(len(d.b)) {
		s.Notes = make([]string, notes)
		for i := range s.Notes {
			s.Notes[i] = d.string()
		}
	} else if notes > 0 {
		d.err = errSpillCorrupt
	}
	return d.b, d.err
}
