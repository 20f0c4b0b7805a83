//go:build unix

package live

// The system calls the state files need, on Unix: flock for the session's
// lock, O_NOFOLLOW and O_NONBLOCK so that a planted link or pipe is
// refused at once, the owner and the file's identity from its stat.

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive lock on f without waiting: busy when
// another process holds it.
func tryLock(f *os.File) (busy bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR) {
		return true, nil
	}
	return false, err
}

func unlockFile(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// openNoFollow opens path never through a link (ELOOP) and never waiting
// on a pipe (ENXIO for a pipe with no reader, opened at once otherwise).
func openNoFollow(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
}

func isLinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }

func isPipeErr(err error) bool { return errors.Is(err, syscall.ENXIO) }

func ownerOf(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// fileID returns the device and inode of an open file.
func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino
	}
	return 0, 0
}
