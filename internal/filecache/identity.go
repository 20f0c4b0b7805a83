package filecache

import (
	"crypto/sha256"
	"encoding/binary"
	"io"
	"os"
)

// sample is how much of a file's head and of its tail Identity hashes.
const sample = 8 << 10

// Identity says which content path holds now, as far as can be told
// without reading it all: its size, modification time, inode (and
// device), and a hash of its first and last 8 KiB. A file rewritten,
// grown, truncated, replaced by another or touched has another identity;
// one changed in its middle by a writer that restored its modification
// time and size does not (no cache keyed on metadata can tell). ok is
// false for what is not a regular file (standard input, a pipe, a
// device): only a regular file is cached.
func Identity(path string) (id []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil, false
	}
	size := info.Size()
	dev, ino := fileID(info)
	b := make([]byte, 0, 40+sha256.Size)
	b = binary.LittleEndian.AppendUint64(b, uint64(size))
	b = binary.LittleEndian.AppendUint64(b, uint64(info.ModTime().UnixNano()))
	b = binary.LittleEndian.AppendUint64(b, dev)
	b = binary.LittleEndian.AppendUint64(b, ino)
	h := sha256.New()
	head := make([]byte, min(size, sample))
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, false
	}
	h.Write(head)
	if size > sample {
		tail := make([]byte, min(size-sample, sample))
		if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
			return nil, false
		}
		h.Write(tail)
	}
	return h.Sum(b), true
}

// IdentitySize is the length of an Identity.
const IdentitySize = 32 + sha256.Size
