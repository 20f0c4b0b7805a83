package report

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopgate/loopgate/ingest"
)

func inspectSample() *ingest.Session {
	s := &ingest.Session{
		File: "corpus/hermes/20260301.jsonl", Format: "hermes-gateway", ID: "20260301_101500_ab12cd",
		Agent: "sub-2", Parent: "20260301_101500_ab12cd/main",
		Turns: []ingest.Turn{
			{Index: 1, Line: 3, Requests: []ingest.Request{
				{Line: 4, Calls: []ingest.Call{
					{ID: "call_1", Tool: "read_file", Result: "package main\n", HasResult: true, Line: 4},
					{ID: "call_2", Tool: "terminal", Result: "permission denied", HasResult: true, IsError: true, Line: 4},
				}},
				{Line: 9},
			}},
			{Index: 2, Line: 12, Requests: []ingest.Request{
				{Line: 13, Calls: []ingest.Call{
					{ID: "call_3", Tool: "mystery_tool", Line: 13},
				}},
			}},
		},
	}
	c := &s.Turns[0].Requests[0].Calls
	(*c)[0].SetArgs(`{"path": "main.go"}`)
	(*c)[1].SetArgs("{\"command\": \"curl -H 'Authorization: Bearer " + secretBearer + "' " +
		strings.Repeat("https://example.com/a ", 10) + "\"}")
	s.Turns[1].Requests[0].Calls[0].SetArgs(`not json {`)
	return s
}

func classOf(tool string) string {
	switch tool {
	case "read_file":
		return "read"
	case "terminal":
		return "shell"
	}
	return "other"
}

var inspectProblems = []ingest.Problem{
	{File: "corpus/hermes/20260301.jsonl", Line: 20, Message: "result with no call: call_9 " + secretGitHub},
}

// The inspect JSON field names are a contract: exactly these, call_list only
// when calls are listed.
func TestInspectJSONShape(t *testing.T) {
	for _, withCalls := range []bool{false, true} {
		sess := NewInspectSession(inspectSample(), classOf, withCalls, Options{Redact: true})
		var buf bytes.Buffer
		if err := inspectJSON(&buf, []InspectSession{sess}, inspectProblems, Options{Redact: true}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Sessions []map[string]json.RawMessage `json:"sessions"`
			Problems []map[string]json.RawMessage `json:"problems"`
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		want := "agent,calls,file,format,id,parent,requests,turns"
		if withCalls {
			want = "agent,call_list,calls,file,format,id,parent,requests,turns"
		}
		if got := keysOf(doc.Sessions[0]); got != want {
			t.Errorf("withCalls=%v: session keys %s, want %s", withCalls, got, want)
		}
		if got := keysOf(doc.Problems[0]); got != "file,line,message" {
			t.Errorf("problem keys %s", got)
		}
		if !withCalls {
			continue
		}
		var calls []map[string]json.RawMessage
		_ = json.Unmarshal(doc.Sessions[0]["call_list"], &calls)
		if len(calls) != 3 {
			t.Fatalf("%d calls listed, want 3", len(calls))
		}
		if got := keysOf(calls[0]); got != "args,call,call_id,class,has_result,is_error,line,result_chars,tool,turn" {
			t.Errorf("call keys %s", got)
		}
	}
}

func keysOf(m map[string]json.RawMessage) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func TestNewInspectSession(t *testing.T) {
	got := NewInspectSession(inspectSample(), classOf, true, Options{Redact: true})
	if got.Turns != 2 || got.Requests != 3 || got.Calls != 3 {
		t.Errorf("turns/requests/calls = %d/%d/%d, want 2/3/3", got.Turns, got.Requests, got.Calls)
	}
	want := []InspectCall{
		{Turn: 1, Call: 1, CallID: "call_1", Tool: "read_file", Class: "read", Args: `{"path": "main.go"}`,
			ResultChars: 13, HasResult: true, Line: 4},
		{Turn: 1, Call: 2, CallID: "call_2", Tool: "terminal", Class: "shell", ResultChars: 17,
			HasResult: true, IsError: true, Line: 4},
		{Turn: 2, Call: 3, CallID: "call_3", Tool: "mystery_tool", Class: "other", Args: "not json {", Line: 13},
	}
	args := got.CallList[1].Args
	got.CallList[1].Args = ""
	if !reflect.DeepEqual(got.CallList, want) {
		t.Errorf("calls\n got %+v\nwant %+v", got.CallList, want)
	}
	if strings.Contains(args, secretBearer) || !strings.Contains(args, "[REDACTED:") {
		t.Errorf("args not redacted: %q", args)
	}
	if n := len([]rune(args)); n != inspectArgsWidth || !strings.HasSuffix(args, "…") {
		t.Errorf("args are %d characters (%q), want %d ending in …", n, args, inspectArgsWidth)
	}
	if plain := NewInspectSession(inspectSample(), nil, false, Options{}); plain.CallList != nil {
		t.Error("call list present without withCalls")
	}
}

func TestInspectGolden(t *testing.T) {
	sessions := []InspectSession{
		NewInspectSession(inspectSample(), classOf, true, Options{Redact: true}),
		NewInspectSession(&ingest.Session{File: "empty.json", Format: "openai-chat", ID: "empty", Agent: "main"},
			classOf, true, Options{Redact: true}),
	}
	opt := Options{Redact: true}
	var js, table bytes.Buffer
	if err := inspectJSON(&js, sessions, inspectProblems, opt); err != nil {
		t.Fatal(err)
	}
	if err := InspectTable(&table, sessions, inspectProblems, len(inspectProblems), opt); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "inspect.json", js.Bytes())
	checkGolden(t, "inspect.txt", table.Bytes())
	for _, out := range []string{js.String(), table.String()} {
		if strings.Contains(out, secretGitHub) || strings.Contains(out, secretBearer) {
			t.Error("a secret survives in inspect output")
		}
	}
	var empty bytes.Buffer
	if err := inspectJSON(&empty, nil, nil, opt); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(empty.String()), ""); got != `{"sessions":[],"problems":[]}` {
		t.Errorf("empty inspect JSON = %s", got)
	}
}

// TestInspectJSONStreamsAsEncoded: the document written session by session
// is, byte for byte, the document encoded whole (as inspect wrote it
// before it streamed): no sessions, one, several with and without calls,
// with and without problems, redacted or not.
func TestInspectJSONStreamsAsEncoded(t *testing.T) {
	withCalls := NewInspectSession(inspectSample(), classOf, true, Options{Redact: true})
	without := NewInspectSession(inspectSample(), classOf, false, Options{Redact: true})
	noCalls := NewInspectSession(&ingest.Session{File: "e<>&.json", Format: "openai-chat", ID: "\u2028", Agent: "main"}, classOf, true, Options{})
	for i, sessions := range [][]InspectSession{nil, {without}, {withCalls, without, noCalls}, {noCalls}} {
		for _, problems := range [][]ingest.Problem{nil, inspectProblems} {
			for _, redact := range []bool{true, false} {
				opt := Options{Redact: redact}
				want := &bytes.Buffer{}
				doc := inspectDoc{Sessions: append([]InspectSession{}, sessions...), Problems: preparedProblems(problems, opt)}
				if err := writeJSON(want, &doc, "  "); err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				iw := NewInspectJSONWriter(&got, opt)
				for j := range sessions {
					iw.Session(&sessions[j])
				}
				if err := iw.Finish(problems); err != nil {
					t.Fatal(err)
				}
				if got.String() != want.String() {
					t.Errorf("case %d (%d problems, redact %v): streamed differs:\n%s", i, len(problems), redact, cmp.Diff(want.String(), got.String()))
				}
			}
		}
	}
}

// inspectJSON writes {"sessions": [...], "problems": [...]}, lists [] when
// empty, through the streaming writer, for sessions held in a slice.
func inspectJSON(w io.Writer, sessions []InspectSession, problems []ingest.Problem, opt Options) error {
	iw := NewInspectJSONWriter(w, opt)
	for i := range sessions {
		iw.Session(&sessions[i])
	}
	return iw.Finish(problems)
}

// inspectDoc is the inspect --format json document, encoded whole, which
// the streaming writer must match.
type inspectDoc struct {
	Sessions []InspectSession `json:"sessions"`
	Problems []ingest.Problem `json:"problems"`
}

// TestInspectGatewayClass: a gateway call's class is asked under its call
// name, the gateway's and the tool's it names, as the guard classes it.
func TestInspectGatewayClass(t *testing.T) {
	mcp := ingest.Call{ID: "c1", Tool: "use_mcp_tool"}
	mcp.SetArgs(`{"server_name":"db","tool_name":"get_schema","arguments":"{}"}`)
	plain := ingest.Call{ID: "c2", Tool: "get_schema"}
	plain.SetArgs(`{"tool_name":"create_issue"}`)
	s := &ingest.Session{ID: "s", Format: "cline", Turns: []ingest.Turn{{Requests: []ingest.Request{{Calls: []ingest.Call{mcp, plain}}}}}}
	var asked []string
	classOf := func(name string) string { asked = append(asked, name); return "x" }
	NewInspectSession(s, classOf, true, Options{})
	if want := []string{"use_mcp_tool\x00get_schema", "get_schema"}; !slices.Equal(asked, want) {
		t.Errorf("classes asked of %q, want %q", asked, want)
	}
}
