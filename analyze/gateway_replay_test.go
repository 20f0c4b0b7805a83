package analyze

import (
	"fmt"
	"testing"

	"github.com/loopgate/loopgate/analyze/guard"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/tokens"
)

// TestGatewayReplay: under the loopgate preset a Cline gateway call
// (use_mcp_tool) is classed by the tool it names: a repeated call of a
// tool whose name reads (get_x) with nothing between is answered; a call
// of a tool that may act (create_x) between clears it, as does any other
// act; a tool whose result changes by itself (get_x_status) is never
// answered; and two gateway calls of different tools or arguments are
// different calls.
func TestGatewayReplay(t *testing.T) {
	counter, err := tokens.New("chars4")
	if err != nil {
		t.Fatal(err)
	}
	mcp := func(tool, args string) [2]string {
		// Cline's XML parameters: arguments is the JSON text the model wrote.
		return [2]string{"use_mcp_tool", fmt.Sprintf(`{"server_name":"srv","tool_name":%q,"arguments":%q}`, tool, args)}
	}
	getX := mcp("get_x", `{"id":1}`)
	tests := []struct {
		name  string
		calls [][2]string
		want  guard.Action // of the last call
	}{
		{"get_x, get_x", [][2]string{getX, getX}, guard.Dedup},
		{"get_x, create_x, get_x", [][2]string{getX, mcp("create_x", `{"id":1}`), getX}, guard.Allow},
		{"get_x, write, get_x", [][2]string{getX, {"write_to_file", `{"path":"a.go","content":"x"}`}, getX}, guard.Allow},
		{"get_x, read, get_x", [][2]string{getX, {"read_file", `{"path":"a.go"}`}, getX}, guard.Dedup},
		{"get_x_status twice", [][2]string{mcp("get_x_status", `{}`), mcp("get_x_status", `{}`)}, guard.Allow},
		{"get_x, get_y", [][2]string{getX, mcp("get_y", `{"id":1}`)}, guard.Allow},
		{"get_x, get_x of 2", [][2]string{getX, mcp("get_x", `{"id":2}`)}, guard.Allow},
		{"resource twice", [][2]string{
			{"access_mcp_resource", `{"server_name":"db","uri":"postgres://db/schema"}`},
			{"access_mcp_resource", `{"server_name":"db","uri":"postgres://db/schema"}`}}, guard.Dedup},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reqs []ingest.Request
			for i, x := range tt.calls {
				call := ingest.Call{ID: fmt.Sprint("c", i), Tool: x[0], Result: "result of " + x[1], HasResult: true}
				call.SetArgs(x[1])
				reqs = append(reqs, ingest.Request{Calls: []ingest.Call{call}})
			}
			s := &ingest.Session{ID: "s", Format: "cline", Turns: []ingest.Turn{{Requests: reqs}}}
			res, _ := Run(Prepare(s), preset(t, "loopgate"), NewTokenCache(counter))
			last := len(tt.calls)
			got := guard.Allow
			for _, d := range res.Decisions {
				if d.Call == last {
					got = d.Action
				}
				if d.Call != last && d.Action.Stops() {
					t.Errorf("call %d stopped (%s)", d.Call, d.Action)
				}
			}
			if got != tt.want {
				t.Errorf("the last call: %s, want %s", got, tt.want)
			}
		})
	}
}
