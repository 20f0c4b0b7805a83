//go:build unix

package filecache

import (
	"io/fs"
	"syscall"
)

// fileID is the file's device and inode: a file replaced by another of
// the same size and time (a rename over it) has another inode.
func fileID(info fs.FileInfo) (dev, ino uint64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
