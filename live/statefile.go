package live

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// The hook's files (the state directory and what it holds, the decision
// log) are opened so that nothing planted there can redirect them: a
// symbolic link is never followed (O_NOFOLLOW), a named pipe never blocks
// the hook (O_NONBLOCK: an open for reading returns at once and one for
// writing fails with ENXIO when no one reads), and only a regular file
// owned by the user the hook runs as is used (fstat of what was opened,
// so that nothing can be swapped in between a check and the open). Anything
// else is an error, and the hook fails open saying so.

// refusedFile is a state file refused for what it is (a link, a pipe,
// another user's), not for an error of the system.
type refusedFile struct{ msg string }

func (e *refusedFile) Error() string { return e.msg }

func refuse(format string, a ...any) error { return &refusedFile{fmt.Sprintf(format, a...)} }

// openState opens a state file with flag (os.O_RDONLY, os.O_WRONLY|...,
// os.O_CREATE creating it 0600).
func openState(path string, flag int) (*os.File, error) {
	f, err := openNoFollow(path, flag)
	if err != nil {
		switch {
		case isLinkErr(err):
			return nil, refuse("%s is a symbolic link: state files are never opened through a link", path)
		case isPipeErr(err):
			return nil, refuse("%s is a named pipe or socket, not a regular file", path)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = regularOwn(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// regularOwn refuses what is not a regular file owned by the running user.
func regularOwn(path string, fi os.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return refuse("%s is %s, not a regular file", path, fileKind(fi.Mode()))
	}
	if uid, ok := ownerOf(fi); ok && uid != os.Geteuid() {
		return refuse("%s belongs to another user (uid %d): state files are the running user's own", path, uid)
	}
	return nil
}

// readState reads a whole state file; a missing one is os.ErrNotExist.
func readState(path string) ([]byte, error) {
	f, err := openState(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized from the file, as os.ReadFile does: io.ReadAll grows its
	// buffer from 512 bytes, copying a checkpoint of a long session
	// (100 KB at 2,000 calls) about eight times into new pages.
	var b bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Size() < 1<<30 {
		b.Grow(int(fi.Size()) + bytes.MinRead) // EOF is seen without growing
	}
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}

func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// ensureDir makes the state directory, private to the user, or checks the
// one there: a directory (not a link to one), owned by the running user,
// not writable by others (who could plant files in it). A directory the
// hook did not create is never chmod-ed.
func ensureDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return err
		}
		// Mkdir, not MkdirAll: a link planted at dir since the Lstat
		// makes it fail (EEXIST) rather than be followed.
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		if fi, err = os.Lstat(dir); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link: give the directory itself (--state-dir)", dir)
	case !fi.IsDir():
		return fmt.Errorf("%s is %s, not a directory", dir, fileKind(fi.Mode()))
	}
	if uid, ok := ownerOf(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to another user (uid %d): the state directory must be the running user's own", dir, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by other users (mode %04o): make it private (chmod 700)", dir, fi.Mode().Perm())
	}
	return nil
}
