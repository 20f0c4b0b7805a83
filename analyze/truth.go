package analyze

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/jsonx"
)

// This file holds what a transcript tells us regardless of any rules: which
// results are the agent's own guard speaking, what a result is once those
// notes are removed, and whether a call failed.

// nativeMarker is a text that an agent's own loop guard puts into a tool
// result. Stops are calls the agent's guard did not run, or whose result it
// replaced with a short stub (blocked, deduped, stubbed); the others ran and
// got a note added. Every text an agent's guard writes into a tool result in
// guards.md and formats-*.md is here; texts injected as separate user or
// system messages (pi's steer, Cline, Gemini CLI, attractor) are not tool
// results and are not looked for. TestNativeIntervention has one case per
// marker.
type nativeMarker struct {
	name   string
	text   string
	prefix bool // must start the (trimmed) result
	stops  bool
}

var nativeMarkers = []nativeMarker{
	// nanobot (guards.md §1.1-1.4, formats-nanobot.md §6).
	{"nanobot-block", "Error: repeated external lookup blocked.", true, true},
	{"nanobot-block", "Error: repeated identical tool call blocked.", true, true},
	{"nanobot-block", "Error: refusing repeated workspace-bypass attempts.", true, true},
	{"nanobot-block", "Error: repeated identical call to '", true, true},        // 655f3d2cc, removed before merge
	{"nanobot-block", "Error: repetitive tool-call loop detected.", true, true}, // PR #3702, unmerged
	{"nanobot-dedup", "[File unchanged since last read:", true, true},
	// hermes-agent (guards.md §2.1-2.5, formats-hermes.md §2.3).
	{"hermes-block", `"guardrail": {"action": "block"`, false, true},
	{"hermes-block", `"guardrail":{"action":"block"`, false, true},
	{"hermes-block", "BLOCKED: You have", false, true},
	{"hermes-dedup", `"dedup": true`, false, true},
	// PR #18075: an exact duplicate is answered from the turn's registry.
	{"hermes-dedup", "Note: This tool call was already executed in this turn with identical arguments.", false, true},
	// Reference stub: the call ran, but the model got this stub instead of
	// the byte-identical payload (before the general "[hermes note:").
	{"hermes-stub", "[hermes note: this result is byte-identical", true, true},
	// Claude Code answers a tool call whose result is byte-identical to
	// an earlier one with a reference to it (seen in its transcripts'
	// tool_result content from version 2.1.92 on, and in exports of
	// them): the model got the stub, not the output.
	{"claude-code-dedup", "<identical to result [", true, true},
	// Its Read dedup's stubs for a file unchanged since the last Read
	// (seen running Claude Code 2.1.197, the claude-code preset's text;
	// and in exports of its sessions).
	{"claude-code-dedup", "Wasted call — file unchanged since your last Read.", true, true},
	{"claude-code-dedup", "File unchanged since last read. The content from the earlier Read tool_result", true, true},
	// pi-tools-loop-guard (§3.11), Roo Code (§5.4), Goose (§5.5), OpenClaw
	// (§5.6): blocks returned as the tool result.
	{"pi-block", "LoopGuard: ", true, true},
	{"roo-block", "Tool call repetition limit reached for ", false, true},
	{"goose-block", "' has exceeded maximum repetitions", false, true},
	{"openclaw-block", " with identical arguments and identical outcomes ", false, true},
	// Notes added to a result that still ran.
	{"hermes-halt", "[Tool loop hard stop:", false, false},
	{"hermes-warning", "[Tool loop warning:", false, false},
	{"hermes-warning", `"_warning": "You have `, false, false}, // §2.1, 3rd consecutive read/search
	{"hermes-warning", `"_warning":"You have `, false, false},
	{"hermes-note", "[hermes note:", false, false},
	{"nanobot-note", "result: this exact output has already been returned in this turn.", false, false},
	{"openclaw-warning", " times with identical arguments. If this is not making progress, stop retrying", false, false},
	{"openclaw-warning", "WARNING: You are alternating between repeated tool-call patterns", true, false},
}

// noteWindow bounds where guard texts are looked for: an agent's guard
// replaces a result with a short text (found at the head) or appends a note
// to it (found at the tail), so a multi-megabyte result is not scanned
// whole, once per marker.
const noteWindow = 4096

// head and tail return the parts of s where guard texts can be.
func head(s string) string {
	if len(s) > noteWindow {
		return s[:noteWindow]
	}
	return s
}

func tail(s string) (string, int) {
	if len(s) > noteWindow {
		return s[len(s)-noteWindow:], len(s) - noteWindow
	}
	return s, 0
}

// NativeIntervention names the agent's own guard intervention visible in a
// result ("" when none) and whether the agent's guard stopped the call.
//
// The first marker of nativeMarkers that matches wins: a prefix marker must
// start the trimmed head, any other must occur in the trimmed head or, in a
// result longer than noteWindow, in its tail. The markers that may occur
// anywhere are looked for together, skipping most of each window
// (noteFinder), not with one substring search per marker.
func NativeIntervention(result string) (name string, stopped bool) {
	if result == "" {
		return "", false
	}
	notePrefixes, notes := noteFinders()
	h := strings.TrimSpace(head(result))
	best := len(nativeMarkers)
	for _, i := range notePrefixes {
		if strings.HasPrefix(h, nativeMarkers[i].text) {
			best = i
			break
		}
	}
	if best > notes.lowest {
		best = notes.find(h, best)
	}
	if best > notes.lowest && len(result) > noteWindow {
		t, _ := tail(result)
		best = notes.find(t, best)
	}
	if best == len(nativeMarkers) {
		return "", false
	}
	m := &nativeMarkers[best]
	return m.name, m.stops
}

// noteFinders returns the indexes in nativeMarkers of the prefix markers,
// in order, and the finder of the others. They are built at first use, not
// at start: the live hook, a process per tool call, never needs them and
// paid for them at every start.
var noteFinders = sync.OnceValues(func() ([]int, *noteFinder) { return newNoteFinder(nativeMarkers) })

// noteFinder finds the markers that may occur anywhere in a window with a
// skip loop over pairs of bytes (Wu and Manber's multi-pattern search). It
// looks at the two bytes that end a stretch of minLen bytes of the text:
// when those two bytes end no pair within the first minLen bytes of any
// marker, no marker can start in the stretch's first minLen-1 places, and
// the stretch moves on by that many bytes, or by less when the pair sits
// further back in some marker. Few pairs of a tool result are in a marker,
// so the loop reads one pair per 9 or 10 bytes of text, where a byte-by-
// byte automaton made a dependent table load per byte. Every marker that
// occurs is found: a stretch is only passed over when no marker starts in
// it, and where one may end (shift 0) the candidates are compared whole.
type noteFinder struct {
	// minLen is the length of the shortest marker: only the first minLen
	// bytes of each marker set the shifts.
	minLen int
	// shift[pairHash(a, b)] is how far the stretch may move when it ends
	// in the pair a, b: 0 where some marker's first minLen bytes end in a
	// pair hashed alike.
	shift [pairBuckets]uint8
	// ends are the markers, ordered by the hash of the pair that ends
	// their first minLen bytes and then by marker: the candidates where
	// the shift is 0. first[h] is 1 + the index in ends of the first with
	// hash h (0: none).
	ends  []noteEnd
	first [pairBuckets]uint8
	// lowest is the lowest nativeMarkers index the finder finds: when a
	// prefix marker before it matches, there is nothing to look for.
	lowest int
}

// noteEnd is one marker the finder looks for.
type noteEnd struct {
	hash   int // pairHash of bytes minLen-2 and minLen-1 of text
	text   string
	marker int // its index in nativeMarkers
}

// pairBuckets is the size of the shift table, small enough to stay in the
// first-level cache. Pairs that share a bucket share the smaller shift, and
// the candidates are compared whole: a collision costs time, never a wrong
// answer. On the generated corpus's results, this hash moves 9.7 bytes per
// step (a table of every pair, 9.8; the most a step can move is minLen-1,
// 12).
const pairBuckets = 1 << 12

func pairHash(a, b byte) int { return (int(a)<<5 ^ int(b)) & (pairBuckets - 1) }

// newNoteFinder builds the finder for the markers that are not prefix
// markers, and returns the indexes of the prefix markers.
func newNoteFinder(markers []nativeMarker) ([]int, *noteFinder) {
	var prefixes []int
	f := &noteFinder{lowest: len(markers), minLen: 1 << 30}
	for i, m := range markers {
		if m.prefix {
			prefixes = append(prefixes, i)
			continue
		}
		f.lowest = min(f.lowest, i)
		f.minLen = min(f.minLen, len(m.text))
		f.ends = append(f.ends, noteEnd{text: m.text, marker: i})
	}
	if len(f.ends) == 0 {
		return prefixes, f
	}
	if f.minLen < 2 || f.minLen > 256 || len(f.ends) > 255 {
		panic("analyze: the guard-note markers do not fit the finder")
	}
	for h := range f.shift {
		f.shift[h] = uint8(f.minLen - 1)
	}
	for k := range f.ends {
		e := &f.ends[k]
		for q := 1; q < f.minLen; q++ {
			h := pairHash(e.text[q-1], e.text[q])
			f.shift[h] = min(f.shift[h], uint8(f.minLen-1-q))
		}
		e.hash = pairHash(e.text[f.minLen-2], e.text[f.minLen-1])
	}
	slices.SortStableFunc(f.ends, func(a, b noteEnd) int { return a.hash - b.hash })
	for k := len(f.ends) - 1; k >= 0; k-- {
		f.first[f.ends[k].hash] = uint8(k + 1)
	}
	return prefixes, f
}

// find returns the lowest nativeMarkers index below best of the markers
// that occur in s, or best.
func (f *noteFinder) find(s string, best int) int {
	if len(f.ends) == 0 {
		return best
	}
	m := f.minLen
	for i := m - 1; ; i++ {
		if i = f.skip(s, i); i >= len(s) {
			return best
		}
		h := pairHash(s[i-1], s[i])
		// A marker may start at i-m+1; the first in marker order wins.
		start := s[i-m+1:]
		for _, e := range f.ends[f.first[h]-1:] {
			if e.hash != h || e.marker >= best {
				break
			}
			if strings.HasPrefix(start, e.text) {
				best = e.marker
				break
			}
		}
		if best <= f.lowest {
			return best
		}
	}
}

// skip moves the end of the stretch on from i (at least 1) for as long as
// the shifts allow, and returns where the shift is 0, or len(s) or more.
// It is the loop of find that runs on nearly every byte pair read: apart,
// it keeps its few values in registers, where find's comparisons of
// candidates pushed them to the stack.
func (f *noteFinder) skip(s string, i int) int {
	shift := &f.shift
	for i < len(s) {
		sh := int(shift[pairHash(s[i-1], s[i])])
		if sh == 0 {
			break
		}
		i += sh
	}
	return i
}

// appendSignature appends an encoding of the call's signature to buf for
// sigDigest. The signature is the rules-independent identity of a call
// used for truth: tool name plus arguments with keys sorted at every level
// (or the raw text when the arguments are not JSON). The encoding is equal
// exactly when the signatures' texts are (TestSignatureDigest): the tool
// by its length and bytes, then 'J' and the arguments' sorted text
// (Value.Append with jsonx.Sorted), or 'R' and the raw text by its length
// and bytes. Arguments whose compact text the call holds (ArgsCompact) are
// sorted from that text (jsonx.AppendStyled), without the parsed value:
// pending arguments (ArgsPending) are never parsed for it.
func appendSignature(buf []byte, c *ingest.Call) []byte {
	buf = appendSigString(buf, c.Tool)
	if !c.ArgsOK {
		return appendSigString(append(buf, 'R'), c.ArgsRaw)
	}
	buf = append(buf, 'J')
	if c.ArgsCompact {
		if b, ok := jsonx.AppendStyled(buf, c.ArgsRaw, jsonx.Sorted, nil); ok {
			return b
		}
	}
	return c.ArgsValue().Append(buf, jsonx.Sorted)
}

// appendSigString writes s prefixed by its length, so that no two
// sequences of strings encode alike.
func appendSigString(buf []byte, s string) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

// SigDigest is a 128-bit digest of a call's signature. Truth only tests
// signatures for equality (Prepare's redundancy, judge's "same call" for a
// call without a guard key), so a prepared call keeps the digest, not the
// text: no string per call, and map keys of fixed size. Two distinct
// signatures share a digest with probability about 2^-128 per pair; like
// HashString, digests differ from run to run and never reach a report.
type SigDigest [2]uint64

// sigSeeds seed the signature digests (per process: digests never reach
// a report).
var sigSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// sigDigest digests a signature built by appendSignature.
func sigDigest(sig []byte) SigDigest {
	return SigDigest{maphash.Bytes(sigSeeds[0], sig), maphash.Bytes(sigSeeds[1], sig)}
}
