package ingest

import (
	"bytes"
	"os"
	"testing"
)

func BenchmarkZZDecode(b *testing.B) {
	data, err := os.ReadFile("/tmp/benchcorpus/claude-code/claude/projects/-home-dev-trace/c000df7d-45b6-4409-8bfb-4394552ea6d4.jsonl")
	if err != nil {
		b.Skip(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	b.SetBytes(int64(len(data)))
	var rec ccRecord
	for b.Loop() {
		for _, l := range lines {
			ccDecodeRecord(nil, l, 0, &rec)
		}
	}
}
