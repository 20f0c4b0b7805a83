package analyze

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// nativeInterventionNaive is NativeIntervention as it was before the
// one-pass scanner: one substring search per marker, in marker order. It is
// the reference the scanner must agree with.
func nativeInterventionNaive(result string) (name string, stopped bool) {
	if result == "" {
		return "", false
	}
	h := strings.TrimSpace(head(result))
	t, _ := tail(result)
	for _, m := range nativeMarkers {
		if m.prefix {
			if strings.HasPrefix(h, m.text) {
				return m.name, m.stops
			}
			continue
		}
		if strings.Contains(h, m.text) || (len(result) > noteWindow && strings.Contains(t, m.text)) {
			return m.name, m.stops
		}
	}
	return "", false
}

// checkNative fails the test when NativeIntervention and the naive
// reference disagree on a result.
func checkNative(t *testing.T, result string) {
	t.Helper()
	name, stops := NativeIntervention(result)
	wantName, wantStops := nativeInterventionNaive(result)
	if name != wantName || stops != wantStops {
		t.Fatalf("NativeIntervention(len %d, %.80q ... %.80q) = (%q, %v), naive (%q, %v)",
			len(result), head(result), lastBytes(result, 80), name, stops, wantName, wantStops)
	}
}

func lastBytes(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// nativeNoise is what random text around the markers is made of: bytes of
// the markers (so that partial matches are common), white space (ASCII and
// Unicode, which TrimSpace removes from the head), and other bytes,
// including invalid UTF-8.
var nativeNoise = func() []string {
	var out []string
	seen := map[byte]bool{}
	for _, m := range nativeMarkers {
		for i := 0; i < len(m.text); i++ {
			if !seen[m.text[i]] {
				seen[m.text[i]] = true
				out = append(out, m.text[i:i+1])
			}
		}
		// Pieces of markers: near misses and overlapping starts.
		for _, n := range []int{1, 2, 5, len(m.text) / 2, len(m.text) - 1} {
			if n > 0 && n < len(m.text) {
				out = append(out, m.text[:n], m.text[len(m.text)-n:])
			}
		}
	}
	return append(out, " ", "\n", "\t", "\r\n", "\v", "\u00a0", "\u0085", "\u2003", "x", "{", "}", "é", "\xff", "\xc2", "\x00")
}()

// nativeText returns n bytes (or a little more) of random noise.
func nativeText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(nativeNoise[rng.IntN(len(nativeNoise))])
	}
	return b.String()
}

// nativeSpace returns random white space, some of it Unicode.
func nativeSpace(rng *rand.Rand, n int) string {
	spaces := []string{" ", "\n", "\t", "\r", "\v", "\f", "\u00a0", "\u0085", "\u3000"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(spaces[rng.IntN(len(spaces))])
	}
	return b.String()
}

// nativeCases builds results that put every marker text (whole, cut short,
// or with a byte changed) at the head, the middle and the tail of random
// text, at and across the edges of the head and tail windows, alone and
// with another marker elsewhere (priority), for lengths around noteWindow.
func nativeCases(rng *rand.Rand, perMarker int) []string {
	var out []string
	lengths := []int{0, 1, 40, 300, noteWindow - 1, noteWindow, noteWindow + 1, 2*noteWindow - 1, 2 * noteWindow, 2*noteWindow + 1, 3 * noteWindow}
	variant := func(text string) string {
		switch rng.IntN(6) {
		case 0:
			return text[:len(text)-1]
		case 1:
			b := []byte(text)
			b[rng.IntN(len(b))] ^= 0x20
			return string(b)
		default:
			return text
		}
	}
	for _, m := range nativeMarkers {
		for range perMarker {
			text := variant(m.text)
			total := lengths[rng.IntN(len(lengths))] + rng.IntN(3)
			// Where the marker starts: the head, after white space, the
			// edges of the head window, the middle, the edges of the tail
			// window, the very end, and across the quarters and halves of
			// a window, where the scanner splits it.
			starts := []int{0, rng.IntN(8), noteWindow - len(text) - rng.IntN(3), noteWindow - len(text) + 1 + rng.IntN(len(text)),
				total / 2, total - noteWindow - rng.IntN(len(text)+1), total - noteWindow + rng.IntN(3), total - len(text) - rng.IntN(3),
				min(total, noteWindow)*(1+rng.IntN(3))/4 - rng.IntN(len(text)+1), total - noteWindow/2 - rng.IntN(len(text)+1)}
			at := max(0, min(total, starts[rng.IntN(len(starts))]))
			before := nativeText(rng, at)[:at]
			if rng.IntN(3) == 0 {
				before = nativeSpace(rng, at)[:at]
			}
			after := nativeText(rng, max(0, total-at-len(text)))
			r := before + text + after
			if rng.IntN(3) == 0 {
				// A second marker elsewhere: the lower index must win.
				o := nativeMarkers[rng.IntN(len(nativeMarkers))].text
				switch rng.IntN(3) {
				case 0:
					r = o + r
				case 1:
					r += o
				default:
					i := rng.IntN(len(r) + 1)
					r = r[:i] + o + r[i:]
				}
			}
			if rng.IntN(4) == 0 {
				r = nativeSpace(rng, rng.IntN(6)) + r + nativeSpace(rng, rng.IntN(6))
			}
			out = append(out, r)
		}
	}
	for _, n := range lengths {
		out = append(out, nativeText(rng, n), nativeSpace(rng, n))
	}
	return out
}

// TestNativeInterventionMatchesNaive: the one-pass scanner gives the same
// answer as one substring search per marker, on every marker at every
// place that matters.
func TestNativeInterventionMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 400
	if testing.Short() {
		n = 40
	}
	found := map[string]bool{}
	for _, r := range nativeCases(rng, n) {
		checkNative(t, r)
		name, _ := nativeInterventionNaive(r)
		found[name] = true
	}
	// The cases reach every marker name, and results with none.
	for _, m := range nativeMarkers {
		if !found[m.name] {
			t.Errorf("no case found %s", m.name)
		}
	}
	if !found[""] {
		t.Error("no case without a marker")
	}
}

// FuzzNativeIntervention checks NativeIntervention against the naive
// reference on the fuzzer's text, and on that text with a marker inserted
// and padding that moves it across the edges of the head and tail windows.
func FuzzNativeIntervention(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, r := range nativeCases(rng, 2) {
		f.Add(r, uint8(0), uint16(0), uint16(0))
	}
	for k := range nativeMarkers {
		f.Add("some text", uint8(k), uint16(5), uint16(noteWindow-9))
		f.Add(" \n", uint8(k), uint16(1), uint16(noteWindow))
		f.Add("", uint8(k|0x80), uint16(0), uint16(noteWindow+1))
	}
	f.Fuzz(func(t *testing.T, s string, k uint8, at, pad uint16) {
		checkNative(t, s)
		m := nativeMarkers[int(k&0x7f)%len(nativeMarkers)].text
		i := int(at) % (len(s) + 1)
		r := s[:i] + m + s[i:]
		checkNative(t, r)
		fill := strings.Repeat("ab ", int(pad)%(3*noteWindow)/3+1)
		if k&0x80 != 0 {
			fill = strings.Repeat(" ", int(pad)%(3*noteWindow)+1)
		}
		checkNative(t, fill+r)
		checkNative(t, r+fill)
		checkNative(t, fill+r+fill)
	})
}

// TestNoteFinderOverlaps runs the finder on made-up markers that overlap
// and contain one another (the guard-note markers barely do), over a small
// alphabet, against one substring search per marker.
func TestNoteFinderOverlaps(t *testing.T) {
	markers := []nativeMarker{
		{text: "abcab"}, {text: "bca"}, {text: "ab", prefix: true}, {text: "cabc"}, {text: "bb"},
		{text: "aaa"}, {text: "abab"}, {text: "cx"}, {text: "ba"}, {text: "aab"}, {text: "\xc3\xa9a"},
	}
	prefixes, f := newNoteFinder(markers)
	if len(prefixes) != 1 || prefixes[0] != 2 || f.lowest != 0 || f.minLen != 2 {
		t.Fatalf("prefixes %v, lowest %d, minLen %d", prefixes, f.lowest, f.minLen)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		// Markers from a random subset, so that each can be the lowest
		// and the shortest marker varies.
		n := 1 + rng.IntN(len(markers))
		sub := markers[len(markers)-n:]
		_, f := newNoteFinder(sub)
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteByte("abcx\xc3\xa9"[rng.IntN(6)])
		}
		s := b.String()
		want := len(sub)
		for i, m := range sub {
			if !m.prefix && strings.Contains(s, m.text) {
				want = i
				break
			}
		}
		if got := f.find(s, len(sub)); got != want {
			t.Fatalf("%d markers, find(%q) = %d, want %d", n, s, got, want)
		}
		if got := f.find(s, want); got != want {
			t.Fatalf("find below the answer: %d, want %d", got, want)
		}
	}
}
