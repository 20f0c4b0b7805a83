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
	f, err := Create(path, pattern, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// File is a file written in place of another: its data goes to a
// temporary file beside path until Commit renames it over path; Abort
// (or a failed Commit) removes it and leaves path as it was. For data
// written as it is made (a report streamed to --output FILE), where Write
// would need it whole in memory first.
type File struct {
	*os.File
	path string
	perm fs.FileMode
}

// Create starts a File in place of path, with mode perm once committed;
// pattern names the temporary file as os.CreateTemp does. Its error is a
// *TempError.
func Create(path, pattern string, perm fs.FileMode) (*File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return nil, &TempError{err}
	}
	return &File{File: tmp, path: path, perm: perm}, nil
}

// Commit closes the file and renames it over its path.
func (f *File) Commit() error {
	err := f.File.Close()
	if err == nil {
		err = os.Chmod(f.Name(), f.perm)
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Abort closes and removes the file; its path is left as it was.
func (f *File) Abort() {
	f.File.Close()
	os.Remove(f.Name())
}

// TempError is the error of making the temporary file: Err is
// os.CreateTemp's, whose text it keeps.
type TempError struct{ Err error }

func (e *TempError) Error() string { return e.Err.Error() }
func (e *TempError) Unwrap() error { return e.Err }
