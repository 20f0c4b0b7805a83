package ingest

import (
	"bytes"
	"io"
	"runtime"
	"testing"
)

// TestLongLineHeldInParts: a line longer than the read buffer is held in
// blocks until it ends, not in one buffer grown step by step (which held
// the old and the new buffer at once and left the old ones to the
// collector): a line over --max-record allocates at most 1.6 times the
// limit (170 MiB for a limit of 32 MiB before), one under it twice its
// size (its blocks and the joined line) and the growth of the first
// buffer, and the line read is the line written.
func TestLongLineHeldInParts(t *testing.T) {
	const limit = 32 << 20
	cases := []struct {
		name     string
		size     int
		maxAlloc uint64
		skipped  bool
	}{
		{"over the limit", 64 << 20, limit * 8 / 5, true},
		{"under the limit", 24 << 20, 24<<20*2 + 20<<20, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			line := bytes.Repeat([]byte("0123456789abcdef"), tc.size/16)
			input := append(append([]byte{}, line...), "\n{\"after\": 1}\n"...)
			lr := NewLineReader(bytes.NewReader(input))
			lr.max = limit
			var over int64
			lr.onOversize = func(_ int, size int64) { over = size }
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			first, _, ok := lr.Next()
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > tc.maxAlloc {
				t.Errorf("reading a line of %d MiB allocated %d MiB, want at most %d", tc.size>>20, alloc>>20, tc.maxAlloc>>20)
			}
			if tc.skipped {
				if over != int64(len(line)) || !ok || string(first) != `{"after": 1}` {
					t.Errorf("oversize %d, next line %.40q", over, first)
				}
				return
			}
			if !ok || !bytes.Equal(first, line) {
				t.Errorf("the line read differs from the line written (%d bytes, want %d)", len(first), len(line))
			}
			if second, _, _ := lr.Next(); string(second) != `{"after": 1}` {
				t.Errorf("next line %.40q", second)
			}
			if _, _, ok := lr.Next(); ok || lr.Err() != nil && lr.Err() != io.EOF {
				t.Errorf("more after the end: %v", lr.Err())
			}
		})
	}
}
