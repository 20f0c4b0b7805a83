package analyze

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
	"strings"
	"sync"

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
// anywhere are looked for in one pass over each window (noteScanner), not
// with one substring search per marker.
func NativeIntervention(result string) (name string, stopped bool) {
	if result == "" {
		return "", false
	}
	notePrefixes, noteScan := noteScanners()
	h := strings.TrimSpace(head(result))
	best := len(nativeMarkers)
	for _, i := range notePrefixes {
		if strings.HasPrefix(h, nativeMarkers[i].text) {
			best = i
			break
		}
	}
	if best > noteScan.lowest {
		switch {
		case len(result) > noteWindow:
			// Each window in two halves.
			t, _ := tail(result)
			hm, tm := len(h)/2, len(t)/2
			best = noteScan.scan4(&[4]noteSpan{{h, 0, hm}, {h, hm, len(h)}, {t, 0, tm}, {t, tm, len(t)}}, best)
		case len(h) >= noteSplit:
			// The one window in quarters.
			q := len(h) / 4
			best = noteScan.scan4(&[4]noteSpan{{h, 0, q}, {h, q, 2 * q}, {h, 2 * q, 3 * q}, {h, 3 * q, len(h)}}, best)
		default:
			best = noteScan.run(h, 0, 0, len(h), best)
		}
	}
	if best == len(nativeMarkers) {
		return "", false
	}
	m := &nativeMarkers[best]
	return m.name, m.stops
}

// noteSplit is the length from which a window is scanned in four parts side
// by side (noteScanner.scan4); shorter ones are scanned in one walk.
const noteSplit = 64

// noteScanners returns the indexes in nativeMarkers of the prefix markers,
// in order, and the scanner that finds the others. They are built at first
// use, not at start: the live hook, a process per tool call, never needs
// them and paid for them at every start.
var noteScanners = sync.OnceValues(func() ([]int, *noteScanner) { return newNoteScanner(nativeMarkers) })

// noteScanner is an Aho–Corasick automaton over the texts of the markers
// that may occur anywhere in a window, compiled to a deterministic table:
// one table load per byte of text, whatever the number of markers.
//
// Bytes that occur in no marker share one class (class 0), so that a row of
// the table has one entry per class, not per byte. States are stored
// premultiplied by the row width (a state is the offset of its row), and the
// states where a marker ends are numbered last, so that "a marker ends here"
// is one comparison.
type noteScanner struct {
	class  [256]uint8
	stride int      // entries per row: the number of byte classes
	next   []uint16 // next[state+class[b]]: the state after byte b
	final  int      // states >= final end at least one marker
	// first is, for a state >= final (indexed by (state-final)/stride),
	// the lowest nativeMarkers index of the markers ending there.
	first []int
	// depth is, for each state (indexed by state/stride), the length of
	// the marker prefix it stands for: how far back in the text the marker
	// being matched, if any, started.
	depth []int
	// lowest is the lowest nativeMarkers index the scanner finds: when a
	// prefix marker before it matches, there is nothing to scan for.
	lowest int
}

// newNoteScanner builds the scanner for the markers that are not prefix
// markers, and returns the indexes of the prefix markers.
func newNoteScanner(markers []nativeMarker) ([]int, *noteScanner) {
	var prefixes []int
	a := &noteScanner{lowest: len(markers)}
	// The byte classes.
	nclass := 1
	for i, m := range markers {
		if m.prefix {
			prefixes = append(prefixes, i)
			continue
		}
		a.lowest = min(a.lowest, i)
		for j := 0; j < len(m.text); j++ {
			if a.class[m.text[j]] == 0 {
				a.class[m.text[j]] = uint8(nclass)
				nclass++
			}
		}
	}
	a.stride = nclass
	// The trie, in states numbered as built (0 is the root):
	// trie[s*nclass+c] is the child or -1, out[s] the lowest marker index
	// ending at s, depth[s] the length of the prefix s stands for.
	var trie, out, depth []int
	newState := func(d int) int {
		for range nclass {
			trie = append(trie, -1)
		}
		out = append(out, len(markers))
		depth = append(depth, d)
		return len(out) - 1
	}
	newState(0)
	for i, m := range markers {
		if m.prefix {
			continue
		}
		s := 0
		for j := 0; j < len(m.text); j++ {
			c := int(a.class[m.text[j]])
			if trie[s*nclass+c] < 0 {
				n := newState(j + 1)
				trie[s*nclass+c] = n
			}
			s = trie[s*nclass+c]
		}
		out[s] = min(out[s], i)
	}
	// Breadth first: failure links, the outputs of the markers ending at a
	// state's failure state, and the full transition function (a missing
	// child is the failure state's transition).
	n := len(out)
	delta := make([]int, n*nclass)
	fail := make([]int, n)
	queue := []int{0}
	for c := range nclass {
		if t := trie[c]; t > 0 {
			delta[c] = t
			fail[t] = 0
			queue = append(queue, t)
		} // else delta[c] = 0: the root stays at the root
	}
	for k := 1; k < len(queue); k++ {
		s := queue[k]
		out[s] = min(out[s], out[fail[s]])
		for c := range nclass {
			t := trie[s*nclass+c]
			if t < 0 {
				delta[s*nclass+c] = delta[fail[s]*nclass+c]
				continue
			}
			delta[s*nclass+c] = t
			fail[t] = delta[fail[s]*nclass+c]
			queue = append(queue, t)
		}
	}
	// Renumber: states ending no marker first, then the others, each state
	// stored as the offset of its row.
	order := make([]int, 0, n)
	for s := range n {
		if out[s] == len(markers) {
			order = append(order, s)
		}
	}
	a.final = len(order) * nclass
	for s := range n {
		if out[s] < len(markers) {
			order = append(order, s)
			a.first = append(a.first, out[s])
		}
	}
	if order[0] != 0 || n*nclass > 1<<16 {
		panic("analyze: the guard-note markers do not fit the scanner")
	}
	row := make([]int, n)
	for r, s := range order {
		row[s] = r * nclass
		a.depth = append(a.depth, depth[s])
	}
	a.next = make([]uint16, n*nclass)
	for r, s := range order {
		for c := range nclass {
			a.next[r*nclass+c] = uint16(row[delta[s*nclass+c]])
		}
	}
	return prefixes, a
}

// run walks the automaton from state st over s[i:], through s[:end] and on
// for as long as a marker that started before end may be under way, and
// returns the lowest marker index below best found, or best. From the root
// at i, it finds every marker that starts in s[i:end].
func (a *noteScanner) run(s string, i, st, end, best int) int {
	next, class, final := a.next, &a.class, a.final
	for ; i < len(s); i++ {
		// Any marker found from here on starts at i-depth or later.
		if i >= end && i-a.depth[st/a.stride] >= end {
			break
		}
		st = int(next[st+int(class[s[i]])])
		if st >= final {
			best = min(best, a.first[(st-final)/a.stride])
		}
	}
	return best
}

// noteSpan is a part of a text for one walk of the automaton: the markers
// starting in s[start:end].
type noteSpan struct {
	s          string
	start, end int
}

// scan4 finds the markers starting in four spans, walking the automaton
// over the four side by side, and returns the lowest marker index below
// best found, or best. The four walks do not wait on one another: a walk is
// one dependent table load per byte, and four of them take little more
// time than one.
func (a *noteScanner) scan4(sp *[4]noteSpan, best int) int {
	next, class, final := a.next, &a.class, a.final
	n := min(sp[0].end-sp[0].start, sp[1].end-sp[1].start, sp[2].end-sp[2].start, sp[3].end-sp[3].start)
	b0 := sp[0].s[sp[0].start:][:n]
	b1 := sp[1].s[sp[1].start:][:len(b0)]
	b2 := sp[2].s[sp[2].start:][:len(b0)]
	b3 := sp[3].s[sp[3].start:][:len(b0)]
	x0, x1, x2, x3 := 0, 0, 0, 0
	for i := 0; i < len(b0); i++ {
		x0 = int(next[x0+int(class[b0[i]])])
		x1 = int(next[x1+int(class[b1[i]])])
		x2 = int(next[x2+int(class[b2[i]])])
		x3 = int(next[x3+int(class[b3[i]])])
		if x0 >= final || x1 >= final || x2 >= final || x3 >= final {
			for _, x := range [4]int{x0, x1, x2, x3} {
				if x >= final {
					best = min(best, a.first[(x-final)/a.stride])
				}
			}
		}
	}
	// Each walk on to the end of its span, and past it while a marker
	// started in the span may be under way.
	for k, x := range [4]int{x0, x1, x2, x3} {
		best = a.run(sp[k].s, sp[k].start+n, x, sp[k].end, best)
	}
	return best
}

// appendSignature appends an encoding of the call's signature to buf for
// sigDigest. The signature is the rules-independent identity of a call
// used for truth: tool name plus arguments with keys sorted at every level
// (or the raw text when the arguments are not JSON). The encoding is equal
// exactly when the signatures' texts are (TestSignatureDigest), without
// being that text. The arguments are
// written as their sorted tree (appendSigValue), each string by its length
// and bytes: no string is scanned to be quoted, as its JSON text would be.
func appendSignature(buf []byte, tool string, args jsonx.Value, argsOK bool, raw string) []byte {
	buf = appendSigString(buf, tool)
	if argsOK {
		return appendSigValue(append(buf, 'J'), args)
	}
	return appendSigString(append(buf, 'R'), raw)
}

// appendSigString writes s prefixed by its length, so that no two
// sequences of strings encode alike.
func appendSigString(buf []byte, s string) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

// appendSigValue writes v with the members of every object in key order,
// as Value.Append with jsonx.Sorted orders them (a stable sort: repeated
// keys keep their order). Two parsed values give the same bytes exactly
// when their sorted JSON texts are the same: the parser gives valid UTF-8,
// which AppendQuoted writes one way, and numbers as they stand.
func appendSigValue(buf []byte, v jsonx.Value) []byte {
	switch v.Kind {
	case jsonx.Null:
		return append(buf, 'n')
	case jsonx.Bool:
		if v.Bool {
			return append(buf, 't')
		}
		return append(buf, 'f')
	case jsonx.Number:
		return appendSigString(append(buf, '#'), v.Str)
	case jsonx.String:
		return appendSigString(append(buf, '"'), v.Str)
	case jsonx.Array:
		buf = binary.AppendUvarint(append(buf, '['), uint64(len(v.Arr)))
		for _, e := range v.Arr {
			buf = appendSigValue(buf, e)
		}
		return buf
	case jsonx.Object:
		buf = binary.AppendUvarint(append(buf, '{'), uint64(len(v.Obj)))
		var small [16]int32
		order := small[:0]
		for i := range v.Obj {
			order = append(order, int32(i))
		}
		if !jsonx.KeysSorted(v.Obj) {
			slices.SortStableFunc(order, func(a, b int32) int { return strings.Compare(v.Obj[a].Key, v.Obj[b].Key) })
		}
		for _, i := range order {
			buf = appendSigString(buf, v.Obj[i].Key)
			buf = appendSigValue(buf, v.Obj[i].Val)
		}
		return buf
	}
	return append(buf, '?')
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
