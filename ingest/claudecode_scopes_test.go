package ingest

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestCanonicalUUID: only the 8-4-4-4-12 lower-case hex form is read,
// and its bytes are the digits'.
func TestCanonicalUUID(t *testing.T) {
	for _, c := range []struct {
		id, bytes string // bytes "" when the id is not canonical
	}{
		{"0a636631-aca2-4190-8e2e-bd69a6dc75d5", "0a636631aca241908e2ebd69a6dc75d5"},
		{"00000000-0000-0000-0000-000000000000", "00000000000000000000000000000000"},
		{"ffffffff-ffff-ffff-ffff-ffffffffffff", "ffffffffffffffffffffffffffffffff"},
		{"0A636631-aca2-4190-8e2e-bd69a6dc75d5", ""},
		{"0a636631-aca2-4190-8e2e-bd69a6dc75d", ""},
		{"0a636631-aca2-4190-8e2e-bd69a6dc75d55", ""},
		{"0a636631aaca2-4190-8e2e-bd69a6dc75d5", ""},
		{"0a636631-aca2-4190-8e2e-bd69a6dc75g5", ""},
		{"0a636631-aca2-4190-8e2e-bd69a6dc75-5", ""},
		{"{a636631-aca2-4190-8e2e-bd69a6dc75d5", ""},
		{"u1", ""},
		{"", ""},
	} {
		k, ok := canonicalUUID(c.id)
		if ok != (c.bytes != "") || ok && hex.EncodeToString(k[:]) != c.bytes {
			t.Errorf("canonicalUUID(%q) = %x, %v; want %q", c.id, k, ok, c.bytes)
		}
	}
}

// FuzzUUIDScopes holds uuidScopes to the map it replaces: ops picks, byte
// by byte, a set or a get of one of a few uuids (canonical, their
// upper-case and other texts, and two made of the fuzzer's bytes), and
// every get must answer as the map would.
func FuzzUUIDScopes(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0x80, 0x81, 4, 0x84, 5, 0x85}, "aaaaaaaa-2222-4333-8444-555555555555", "x")
	f.Add([]byte{5, 0x85, 6, 0x86}, "0a636631-aca2-4190-8e2e-bd69a6dc75-5", "0a636631-aca2-4190-8e2e-bd69a6dc7-d5")
	f.Add([]byte{0x82, 2, 0x82, 0x83, 3, 0x83, 7, 0x87}, "bbbbbbbb-2222-4333-8444-55555555555B", "bbbbbbbb-2222-4333-8444-55555555555b")
	f.Fuzz(func(t *testing.T, ops []byte, id1, id2 string) {
		if id, ok := canonicalUUID(id1); ok && hex.EncodeToString(id[:]) != hex.EncodeToString(mustHex(t, id1)) {
			t.Fatalf("canonicalUUID(%q) = %x", id1, id)
		}
		ids := []string{
			"0a636631-aca2-4190-8e2e-bd69a6dc75d5", "0A636631-ACA2-4190-8E2E-BD69A6DC75D5",
			"0a636631-aca2-4190-8e2e-bd69a6dc75d6", "u1", "", id1, id2,
			"0a636631aaca2-4190-8e2e-bd69a6dc75d5",
		}
		scopes := []string{"main", "agent-1", "sidechain-0a636631"}
		var got uuidScopes
		want := map[string]string{}
		for i, op := range ops {
			id := ids[int(op&0x7f)%len(ids)]
			if op&0x80 == 0 {
				scope := scopes[i%len(scopes)]
				got.set(id, scope)
				want[id] = scope
			} else if g := got.get(id); g != want[id] {
				t.Fatalf("op %d: get(%q) = %q, want %q", i, id, g, want[id])
			}
		}
	})
}

// mustHex is the bytes of a canonical uuid's hex digits.
func mustHex(t *testing.T, id string) []byte {
	b, err := hex.DecodeString(id[0:8] + id[9:13] + id[14:18] + id[19:23] + id[24:])
	if err != nil {
		t.Fatalf("%q: %v", id, err)
	}
	return b
}

// TestClaudeCodeKeptStringsOutliveLines: the strings decode leaves as
// views of a line (View fields) are cloned where they are kept; a file
// several times the line reader's buffer, whose bytes are overwritten as
// it is read, would otherwise corrupt the session id, the model, and the
// uuids of another form that sidechain lines look up at its end. So
// would the batches of lines decoded ahead (ahead.go), whose buffers are
// reused.
func TestClaudeCodeKeptStringsOutliveLines(t *testing.T) {
	filler := strings.Repeat("x", 2000)
	var lines []string
	// users appends user lines up to size bytes; those of the first
	// lines, which detection reads ahead, are copies of the file's bytes.
	users := func(size int, extra string) {
		for end := len(lines)*len(filler) + size; len(lines)*len(filler) < end; {
			lines = append(lines, `{"type":"user",`+extra+`"uuid":"u-`+strconv.Itoa(len(lines))+`","message":{"role":"user","content":[{"type":"text","text":"`+filler+`"}]}}`)
		}
	}
	users(2*lineReaderBuffer, "")
	lines = append(lines, `{"type":"user","sessionId":"SESSION-ONE","uuid":"u-first","message":{"role":"user","content":"go"}}`)
	lines = append(lines, `{"type":"assistant","sessionId":"SESSION-ONE","uuid":"u-asst","parentUuid":"u-first","requestId":"r0","message":{"id":"m0","role":"assistant","model":"model-kept","content":[{"type":"thinking","thinking":"`+filler+`"}]}}`)
	users(8*lineReaderBuffer, `"sessionId":"SESSION-TWO",`)
	// A sidechain line without agentId whose parent is the second line:
	// it joins main, found by the uuid u-asst kept since then.
	lines = append(lines, `{"type":"assistant","isSidechain":true,"uuid":"s-1","parentUuid":"u-asst","requestId":"rs","message":{"id":"ms","role":"assistant","model":"model-side","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}`)
	text := []byte(strings.Join(lines, "\n") + "\n")
	// Read in turn, and decoded ahead in batches whose buffers are reused.
	for _, opt := range []Options{{}, {Workers: 2, aheadAfter: 1}} {
		sessions, _ := readBytesWith(text, "s.jsonl", opt)
		if len(sessions) != 1 {
			t.Fatalf("workers %d: %d sessions, want main only", opt.Workers, len(sessions))
		}
		s := sessions[0]
		if s.ID != "SESSION-ONE" || s.Model != "model-kept" || s.Agent != "main" || callSummary(s) != "t1/Read=!" {
			t.Errorf("workers %d: session %q model %q agent %q calls %q", opt.Workers, s.ID, s.Model, s.Agent, callSummary(s))
		}
	}
}

// TestUUIDScopesAcrossChunks: a log of several chunks, its scopes
// alternating and one uuid assigned again, indexes every assignment.
func TestUUIDScopesAcrossChunks(t *testing.T) {
	var u uuidScopes
	id := func(i int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i) }
	scope := func(i int) string { return []string{"main", "agent-a", "agent-b"}[i%7%3] }
	n := 2*uuidLogChunk + 17
	for i := range n {
		u.set(id(i), scope(i))
	}
	u.set(id(5), "agent-c") // assigned again: the latest scope stands
	if len(u.log) != 3 {
		t.Errorf("%d assignments in %d chunks, want 3", n+1, len(u.log))
	}
	for i := range n {
		want := scope(i)
		if i == 5 {
			want = "agent-c"
		}
		if got := u.get(id(i)); got != want {
			t.Fatalf("get(%s) = %q, want %q", id(i), got, want)
		}
	}
	if got := u.get(id(n)); got != "" {
		t.Errorf("a uuid never set has scope %q", got)
	}
}

// set is setKey with the uuid's key worked out here.
func (u *uuidScopes) set(id, scope string) {
	k, ok := canonicalUUID(id)
	u.setKey(id, k, ok, scope)
}
