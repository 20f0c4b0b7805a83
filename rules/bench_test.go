package rules_test

// A benchmark of the tool-class lookup (keys are built, and benchmarked,
// in analyze/guard: BenchmarkCallKey).

import (
	"testing"

	. "github.com/loopgate/loopgate/rules"
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
