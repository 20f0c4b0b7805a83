package live

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/loopgate/loopgate/rules"
)

// Parsed rules kept in the state directory: each hook call is a new process
// that would otherwise parse the same rules text again (its YAML parse was
// a quarter of a call's instructions: docs/performance.md, "The live hook,
// every preset"). The file holds the rules' binary form (rules.AppendBinary)
// under a name made of the rules text's digest and of this program
// (build and executable file), so that other rules, another build or a
// rebuilt binary never read it; the form itself names the schema it was
// written by, and a checksum covers it. A file that is absent, unreadable,
// corrupt or of another schema is ignored and the text parsed, as without
// the cache (fail open); it is then written anew, to a temporary file
// renamed over it, so that two hooks writing at once each leave a whole
// file. Expiry removes it like the sessions' files when unused that long.

// rulesCacheMagic starts a cached rules file.
const rulesCacheMagic = "loopgate-rules-1\n"

// CachedRules returns the rules parsed from a text of this digest
// (RulesDigest of SourceText: the source name and the text parse reads),
// from the cache in the state directory dir when it holds them, else from
// parse, and then kept there for the next call. parse's error is returned
// as it is.
func CachedRules(dir string, digest []byte, parse func() (*rules.Rules, error)) (*rules.Rules, error) {
	path := rulesCachePath(dir, digest)
	if path == "" {
		return parse()
	}
	if r := readCachedRules(path); r != nil {
		return r, nil
	}
	r, err := parse()
	if err != nil {
		return nil, err
	}
	writeCachedRules(path, r)
	return r, nil
}

// rulesCachePath names the cached rules of a text of this digest
// (RulesDigest) for this program; "" when the program's file cannot be
// known (then nothing is cached).
func rulesCachePath(dir string, digest []byte) string {
	exe := executableID()
	if exe == "" {
		return ""
	}
	h := sha256.New()
	h.Write(digest)
	h.Write([]byte("\x00" + buildID() + "\x00" + exe))
	return filepath.Join(dir, statePrefix+"rules-"+hex.EncodeToString(h.Sum(nil)[:16])+".rules")
}

// executableID names the running program's file (path, size, time of last
// change): a build without version control information (go run, go
// build in a changed tree) has the build id of the one before it, and a
// preset that a rules file extends is compiled into the program.
var executableID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return exe + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
})

// readCachedRules reads a cached rules file; nil when there is none or it
// does not serve.
func readCachedRules(path string) *rules.Rules {
	data, err := readState(path)
	if err != nil || !bytes.HasPrefix(data, []byte(rulesCacheMagic)) || len(data) < len(rulesCacheMagic)+4 {
		return nil
	}
	body := data[len(rulesCacheMagic)+4:]
	if binary.LittleEndian.Uint32(data[len(rulesCacheMagic):]) != crc32.Checksum(body, crcTable) {
		return nil
	}
	r, err := rules.DecodeBinary(body)
	if err != nil {
		return nil
	}
	return r
}

// writeCachedRules writes r's binary form to path, whole or not at all;
// failing to is no error (the next call parses again).
func writeCachedRules(path string, r *rules.Rules) {
	b := make([]byte, len(rulesCacheMagic)+4, 4096)
	copy(b, rulesCacheMagic)
	b, err := rules.AppendBinary(b, r)
	if err != nil {
		return
	}
	binary.LittleEndian.PutUint32(b[len(rulesCacheMagic):], crc32.Checksum(b[len(rulesCacheMagic)+4:], crcTable))
	f, err := os.CreateTemp(filepath.Dir(path), statePrefix+"rules-*.tmp")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
	}
}
