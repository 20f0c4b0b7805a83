//go:build !unix

package filecache

import "io/fs"

// fileID is 0, 0 where os.Stat gives no inode (Windows): the size, time
// and hashes identify the file.
func fileID(info fs.FileInfo) (dev, ino uint64) { return 0, 0 }
