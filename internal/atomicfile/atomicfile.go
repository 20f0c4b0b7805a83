// Package atomicfile replaces a file whole or not at all: the one way
// loopgate writes a file that another process may read while it is being
// written (an agent's settings, a gate's snapshots, the tokenizer's cache).
// It imports the standard library only.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces the file at path with data and mode perm. The data goes
// to a temporary file in the same directory, named by pattern as
// os.CreateTemp names it, which is renamed over path once it is written
// and closed: a reader sees the old file or the new one, never part of
// one, and of two writers the last rename stands. On any failure the
// temporary file is removed and path is left as it was. The errors are
// those of the os functions; one making the temporary file comes as a
// *TempError, for a caller whose message names path and not the
// temporary file.
func Write(path string, data []byte, pattern string, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return &TempError{err}
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// TempError is the error of making the temporary file: Err is
// os.CreateTemp's, whose text it keeps.
type TempError struct{ Err error }

func (e *TempError) Error() string { return e.Err.Error() }
func (e *TempError) Unwrap() error { return e.Err }
