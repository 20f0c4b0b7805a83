package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/live"
)

// TestOpenCodePluginPrompt: the OpenCode plugin sends a message's own text
// (chat.message's text parts, as OpenCode 1.18.33 passes them in
// output.parts) as the prompt event's "prompt", without the parts OpenCode
// adds itself (synthetic: a file it read for an @-mention), and the hook
// reads it as the prompt's text.
func TestOpenCodePluginPrompt(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the plugin is not run")
	}
	events := filepath.Join(t.TempDir(), "events.jsonl")
	// The hook's command here only records the event it is given.
	project, plugin := installOpenCodePlugin(t, "cat >> "+shellQuote(events)+"; echo >> "+shellQuote(events))
	driver := filepath.Join(project, "drive.mjs")
	os.WriteFile(driver, []byte(`import { LoopgatePlugin } from `+strconvQuote(plugin)+`
const hooks = await LoopgatePlugin({ client: { session: { abort: async () => {} } } })
await hooks["chat.message"]({ sessionID: "oc-1" }, { message: {}, parts: [
  { type: "text", text: "look at @src/a.go" },
  { type: "text", synthetic: true, text: "Called the Read tool with the following input: {\"filePath\":\"/p/src/a.go\"}" },
  { type: "file", url: "file:///p/src/a.go" },
  { type: "text", text: "and fix it" },
] })
await hooks["chat.message"]({ sessionID: "oc-1" }, { message: {}, parts: [] })
console.log(JSON.stringify({ out: [], aborted: false }))
`), 0o644)
	runDriver(t, node, driver)
	b, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	want := []string{"look at @src/a.go\nand fix it", ""}
	if len(lines) != len(want) {
		t.Fatalf("events: %s", b)
	}
	for i, line := range lines {
		var raw map[string]any
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		ev, err := live.Lookup("opencode").ParseEvent([]byte(line))
		if err != nil || ev.Kind != live.KindPrompt || ev.Prompt != want[i] {
			t.Errorf("event %s: kind %v prompt %q (%v), want a prompt %q", line, ev.Kind, ev.Prompt, err, want[i])
		}
	}
}
