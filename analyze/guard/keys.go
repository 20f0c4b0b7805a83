package guard

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash/maphash"

	"github.com/loopgate/loopgate/rules"
)

// The guard key of a call, and the numbering of keys: the guard's
// counters are slices indexed by a key's number, and replay shares one
// numbering per session over every configuration it runs (keyIndex).

// keyIndex numbers distinct call keys 0, 1, 2, ... for one key-rule set
// (rules.KeyID), so that the guard's counters are slices indexed by a
// key's number instead of maps hashing the key's text at every access. A
// CallEvent remembers its number next to its key (CallEvent.ki, kidx):
// compare and sweep share one keyIndex per prepared session and key-rule
// set over all their configurations, so later configurations number no
// key again.
type keyIndex struct {
	keyID uint64
	m     map[string]int32
	// tools numbers tool names the same way (CallEvent.tidx).
	tools map[string]int32
	// toolKeys[t] is the key refinement of tool number t once looked up
	// (toolKeyFor), the same under every rules ki serves: KeyID
	// covers the key section and the classes it depends on. Tools a
	// saved state numbered are looked up when first keyed.
	toolKeys []toolKey
	// texts[k] is key k as written, for write_clears_reads ("" until a
	// guard needed it).
	texts []string
	// buf is reused to build keys: memo runs once per call, and a key was
	// otherwise built in a buffer of its own and then copied to a string.
	buf []byte
	// portable: long keys are compacted with a digest that is the same in
	// every process (SHA-256), so that a saved state's keys match the keys a
	// later process builds (NewSavableGuard).
	portable bool
}

// toolKey is a tool's key refinement, nil when the general key rules
// apply, and what keying its calls' unparsed arguments needs of it; known
// says it was looked up.
type toolKey struct {
	tk    *rules.ToolKey
	text  textKey
	known bool
}

// maxKeyBuf is the largest key buffer a keyIndex keeps between calls: a
// rare huge key (a write_file's content) is not held for the session's life.
const maxKeyBuf = 64 << 10

// newKeyIndex returns an empty numbering for the key section of the rules
// r, sized for about size keys.
func newKeyIndex(r *rules.Rules, size int) *keyIndex {
	return &keyIndex{keyID: r.KeyID(), m: make(map[string]int32, size), tools: map[string]int32{}}
}

// Serves reports whether ki numbers keys under the key section of the
// rules r (rules.KeyID). A nil keyIndex serves nothing.
func (ki *keyIndex) Serves(r *rules.Rules) bool {
	return ki != nil && ki.keyID == r.KeyID()
}

// Number keys the event under the rules r, which ki must serve, once per
// keyIndex, and returns the number of its tool (0, 1, 2, ... in the order
// ki first met them): a replay keeps its per-tool facts in slices indexed
// by it. The event must not change its Tool or Args afterwards.
func (ki *keyIndex) Number(ev *CallEvent, r *rules.Rules) int {
	ki.memo(ev, r)
	return int(ev.tidx)
}

// NumberTwin is Number for an event whose tool and arguments are those of
// prev, up to the order of object members (the same truth signature):
// when prev is keyed under ki and the rules' keys do not depend on member
// order (rules.Rules.KeySortsMembers), ev takes prev's key and numbers
// instead of building the same key again. A loop repeats its calls, and
// building a key (canonical JSON, then a digest of a long one) was most
// of numbering a call.
func (ki *keyIndex) NumberTwin(ev, prev *CallEvent, r *rules.Rules) int {
	if ev.ki != ki && prev.ki == ki && prev.keyID == ki.keyID && prev.keyPortable == ki.portable &&
		ev.Tool == prev.Tool && keySortsMembers(r) {
		ev.key, ev.hasKey, ev.keyID, ev.keyPortable = prev.key, prev.hasKey, prev.keyID, prev.keyPortable
		ev.ki, ev.kidx, ev.tidx = ki, prev.kidx, prev.tidx
		return int(ev.tidx)
	}
	return ki.Number(ev, r)
}

// LendBuffer gives ki a buffer to build keys in when it has none, and
// returns what it did not take: a replay moves one buffer from session to
// session (TakeBuffer), where each session's keyIndex grew one of its own.
func (ki *keyIndex) LendBuffer(buf []byte) []byte {
	if ki.buf == nil {
		ki.buf, buf = buf, nil
	}
	return buf
}

// TakeBuffer returns ki's key buffer and leaves ki without one (it builds
// a new one if it needs to again).
func (ki *keyIndex) TakeBuffer() []byte {
	buf := ki.buf
	ki.buf = nil
	return buf
}

// memo sets the event's key under the rules' key section (which must be
// ki's), and its key's and tool's numbers, once per keyIndex.
func (ki *keyIndex) memo(ev *CallEvent, r *rules.Rules) {
	if ev.ki == ki {
		return
	}
	// Tools are numbered by the name the rules class them by: a gateway
	// call's class, settings and roles are those of the tool it calls.
	name := ev.ClassName()
	t, ok := ki.tools[name]
	if !ok {
		t = int32(len(ki.tools))
		ki.tools[name] = t
	}
	ev.tidx = t
	if ev.keyID != ki.keyID || ev.keyPortable != ki.portable {
		ki.toolKeys = grow(ki.toolKeys, t)
		tk := &ki.toolKeys[t]
		if !tk.known {
			tk.tk, tk.known = toolKeyFor(r, ev.Tool), true
			tk.text = textKeyFor(r, tk.tk)
		}
		var full []byte
		ok, done := false, false
		if ev.ArgsOK && ev.argsCompact {
			full, ok, done = appendCallKeyText(ki.buf[:0], tk.text, ev.Tool, ev.ArgsRaw)
		}
		if !done {
			args := ev.arguments() // first: it sets ArgsOK false when ArgsRaw is not JSON
			full, ok = appendCallKeyWith(r, ki.buf[:0], tk.tk, ev.Tool, args, ev.ArgsOK, ev.ArgsRaw)
		}
		ev.key, ev.hasKey = "", ok
		if ok {
			ev.key = compactKeyBytes(full, ki.portable)
		}
		ev.keyID, ev.keyPortable = ki.keyID, ki.portable
		ki.buf = full
		if cap(full) > maxKeyBuf {
			ki.buf = nil
		}
	}
	ev.ki, ev.kidx = ki, -1
	if ev.hasKey {
		ev.kidx = ki.intern(ev.key)
	}
}

func (ki *keyIndex) intern(key string) int32 {
	i, ok := ki.m[key]
	if !ok {
		i = int32(len(ki.m))
		ki.m[key] = i
	}
	return i
}

// grow returns s long enough to be indexed by i.
func grow[T any](s []T, i int32) []T {
	if int(i) < len(s) {
		return s
	}
	return append(s, make([]T, int(i)+1-len(s))...)
}

// callKey returns the call's key under the guard's rules, built once per
// distinct key section (see CallEvent.keyID), in its compact form, and
// its index in the guard's keyIndex (numbered once per keyIndex).
func (g *Guard) callKey(ev *CallEvent) (string, int32, bool) {
	g.ki.memo(ev, g.r)
	return ev.key, ev.kidx, ev.hasKey
}

// maxPlainKey is the longest key kept as written inside the guard.
const maxPlainKey = 128

// keySeeds seed the digests of long keys (per process: keys never reach a
// report, so their digests need not be stable across runs).
var keySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// compactKeyBytes replaces a long key by a fixed-size one: the tool, the
// separator, a NUL byte and a 128-bit digest of the whole key. A key holds
// the canonical arguments (a write_file call's key holds the file), and
// keys are hashed when they are numbered (keyIndex) and compared in
// verdicts; hashing such keys whole at every map access would dominate a
// sweep. Two distinct keys share a digest with probability about
// 2^-128 per pair. A plain key has no raw NUL after its separator unless
// its arguments were not JSON (canonical JSON escapes NUL), and even then
// it would have to end in the same 16 bytes as a digest to be confused.
//
// A portable digest (a keyIndex of NewSavableGuard) is the first 128 bits
// of the key's SHA-256 instead: the same in every process, so that a
// guard's saved state (AppendState) holds keys a later process builds
// again.
//
// The result never aliases full, which the caller reuses.
func compactKeyBytes(full []byte, portable bool) string {
	if len(full) <= maxPlainKey {
		return string(full)
	}
	tool, _, _ := bytes.Cut(full, []byte(keySeparator))
	var d [maxPlainKey]byte // room for the compact key of a usual tool name
	b := append(d[:0], tool...)
	b = append(b, keySeparator...)
	b = append(b, 0)
	if portable {
		sum := sha256.Sum256(full)
		return string(append(b, sum[:16]...))
	}
	b = binary.LittleEndian.AppendUint64(b, maphash.Bytes(keySeeds[0], full))
	b = binary.LittleEndian.AppendUint64(b, maphash.Bytes(keySeeds[1], full))
	return string(b)
}
