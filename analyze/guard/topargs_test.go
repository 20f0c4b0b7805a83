package guard

import (
	"reflect"
	"testing"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// TestTopArgsMatchParse: a call whose arguments a replay left unparsed
// (pending, read at their top level) has the same effect, under every
// preset, as the same call with its arguments parsed whole, and topArgs
// reads each member as the parse does.
func TestTopArgsMatchParse(t *testing.T) {
	calls := []struct{ tool, args string }{
		{"Bash", `{"command":"ls -la src","description":"list"}`},
		{"Bash", `{"command":"cd web && npm test","run_in_background":true}`},
		{"Bash", `{"command":"rm -f a.txt","cwd":"/tmp/x"}`},
		{"Bash", `{"command":["bash","-lc","touch b"],"workdir":"/w"}`},
		{"Bash", `{"command":"echo \"a > b\" > c.txt"}`},
		{"Bash", `{"cmd":"cat x","command":"rm y"}`},
		{"Bash", `{"command":"ls","command":"rm z"}`},
		{"Bash", `{"comm\u0061nd":"rm q"}`},
		{"Bash", `[1,2]`},
		{"Bash", `"rm -rf /"`},
		{"run_commands", `{"commands":["ls","rm a"]}`},
		{"Read", `{"file_path":"/src/a.go","offset":10}`},
		{"Read", `{"file_path":""}`},
		{"Edit", `{"file_path":"/src/a.go","old_string":"x\n\ty","new_string":"z"}`},
		{"Write", `{"file_path":"/src/b.go","content":"package b\n"}`},
		{"Grep", `{"pattern":"TODO","path":"/src"}`},
		{"Glob", `{"pattern":"**/*.go"}`},
		{"read_many_files", `{"paths":["a.go","b.go",3,""]}`},
		{"write_to_file", `{"path":"c.txt","content":"c"}`},
		{"WebFetch", `{"url":"https://example.com"}`},
		{"TodoWrite", `{"todos":[{"content":"x","status":"pending"}]}`},
		{"Read", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"file_path":"far.go"}`},
	}
	names := []string{"command", "cmd", "commands", "cwd", "workdir", "file_path", "path", "paths", "run_in_background", "missing"}
	for _, preset := range []string{"loopgate", "hermes", "claude-code", "openhands"} {
		r, err := PresetRules(preset)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			pending := &CallEvent{Tool: c.tool, ArgsRaw: c.args, ArgsOK: true}
			pending.setArgs(nil, true, true)
			parsed := &CallEvent{Tool: c.tool, ArgsRaw: c.args, ArgsOK: true}
			got, want := callEffect(r, pending, nil), callEffect(r, parsed, nil)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s %s: effect %+v read at the top level, %+v parsed", preset, c.tool, c.args, got, want)
			}
			if a, b := callActs(r, pending), callActs(r, parsed); a != b {
				t.Errorf("%s: %s %s: acts %v read at the top level, %v parsed", preset, c.tool, c.args, a, b)
			}
			ev := &CallEvent{Tool: c.tool, ArgsRaw: c.args, ArgsOK: true}
			ev.setArgs(nil, true, true)
			var top topArgs
			top.use(ev)
			whole, _ := jsonx.ParseString(c.args)
			if top.isObject() != (whole.Kind == jsonx.Object) {
				t.Errorf("%s: isObject %v", c.args, top.isObject())
			}
			for _, n := range names {
				v, ok := top.get(n)
				wv, wok := whole.Get(n)
				if ok != wok || !reflect.DeepEqual(v, wv) {
					t.Errorf("%s: member %q = %#v, %v; the parse's %#v, %v", c.args, n, v, ok, wv, wok)
				}
			}
		}
	}
}
