package rules

// Benchmarks of key building (docs/performance.md): CallKey on
// argument shapes the corpus generator writes, under every preset (the
// presets differ in canonical style, ignored arguments and folding). Run
// with
//
//	go test ./rules -run '^$' -bench CallKey -benchmem

import (
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// benchCalls are tool calls shaped like the generated corpus's: reads,
// shell commands, edits, web lookups, and arguments that are not JSON.
var benchCalls = []struct{ tool, raw string }{
	{"read_file", `{"path":"/src/app/server.go","offset":120,"limit":200}`},
	{"terminal", `{"command":"go test ./... -run TestServer -count=1","timeout":120,"workdir":"/src/app"}`},
	{"search_files", `{"pattern":"func (s \\*Server)","path":"/src/app","file_glob":"*.go"}`},
	{"edit_file", `{"path":"/src/app/server.go","edits":[{"oldText":"return nil","newText":"return err"}]}`},
	{"web_search", `{"query":"  Golang YAML strict decoding  "}`},
	{"web_fetch", `{"url":"https://example.com/docs/Config.html"}`},
	{"exec", `{"command":"npm install","working_dir":"/src/web"}`},
	{"bash", `ls -la /src/app && git status`},
}

func BenchmarkCallKey(b *testing.B) {
	type call struct {
		tool, raw string
		args      jsonx.Value
		ok        bool
	}
	calls := make([]call, len(benchCalls))
	var bytes int64
	for i, c := range benchCalls {
		v, err := jsonx.ParseString(c.raw)
		calls[i] = call{c.tool, c.raw, v, err == nil}
		bytes += int64(len(c.raw))
	}
	for _, name := range PresetNames() {
		r, err := Preset(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			// One op keys every call of benchCalls once.
			b.SetBytes(bytes)
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range calls {
					_, _ = r.CallKey(c.tool, c.args, c.ok, c.raw)
				}
			}
		})
		// As the replay keys calls: in a reused buffer (AppendCallKey).
		b.Run(name+"/append", func(b *testing.B) {
			b.SetBytes(bytes)
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				for _, c := range calls {
					buf, _ = r.AppendCallKey(buf[:0], c.tool, c.args, c.ok, c.raw)
				}
			}
		})
	}
}

// BenchmarkClassOf measures the tool-class lookup done once per tool name
// and session.
func BenchmarkClassOf(b *testing.B) {
	r, err := Preset("loopgate")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range benchCalls {
			_ = r.ClassOf(c.tool)
		}
	}
}
