package ingest

import (
	"encoding/hex"
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
