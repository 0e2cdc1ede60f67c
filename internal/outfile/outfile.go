// Package outfile is the one writer for the single files hxbar writes
// (traces, VCD, pictures, plots, logs). A file is written to a temporary file
// in its directory, synced and renamed over the path, so a failure at any
// point leaves the old file whole and a reader never sees half of it. The
// final path is refused before anything is written when it is a symlink, a
// directory, a FIFO, a device, a socket, or a regular file with another hard
// link (writing would change the user's other name for it). Appends (run
// logs) follow the same rules on the open file. Errors are one line naming
// the path and what is allowed. It imports nothing of hxbar but
// internal/inputfile (an output never replaces an input of the run).
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/hxbar/hxbar/internal/inputfile"
)

// allowed is the tail of every refusal.
const allowed = "allowed: a new file or a regular file with no other hard link"

// Check refuses a path hxbar must not write: anything but a missing path or
// a regular file with one link. A symlink is refused, not followed.
func Check(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return checkInfo(path, st)
}

func checkInfo(path string, st fs.FileInfo) error {
	if st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s: a symlink, not followed (%s)", path, allowed)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %s (%s)", path, inputfile.Kind(st.Mode()), allowed)
	}
	if n := links(st); n > 1 {
		return fmt.Errorf("%s: a file with %d hard links, writing would change its other names (%s)", path, n, allowed)
	}
	if in, ok := inputfile.InputOf(st); ok {
		return fmt.Errorf("%s: an input of this run (read as %s), never overwritten by its output (%s that is not an input)", path, in, allowed)
	}
	return nil
}

// links is the hard-link count of st, 1 where the system does not say.
func links(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}

// WriteFile writes data to path atomically under the rules of Check.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// File is an output being written: its data goes to a temporary file that
// Commit renames over the path; Abort removes it and leaves the path as it
// was.
type File struct {
	path string
	perm fs.FileMode
	tmp  *os.File
	done bool
}

// Create checks path and opens a temporary file beside it.
func Create(path string, perm fs.FileMode) (*File, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("%s: cannot create a temporary file beside it: %v", path, unwrapPath(err))
	}
	return &File{path: path, perm: modeFor(path, perm), tmp: tmp}, nil
}

// umask is the process's file-creation mask, read once (reading it means
// setting it), so that a replaced output gets the mode a plain create
// would give it.
var umask = func() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}()

// modeFor is the mode the output at path gets: an existing file keeps its
// own (a private 0600 trace stays private), a new one perm less the umask,
// as os.WriteFile would make it.
func modeFor(path string, perm fs.FileMode) fs.FileMode {
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
		return st.Mode().Perm()
	}
	return perm &^ umask
}

// Name is the path the file will have once committed.
func (f *File) Name() string { return f.path }

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.tmp.Write(p)
	if err != nil {
		err = fmt.Errorf("%s: %v", f.path, unwrapPath(err))
	}
	return n, err
}

// Commit syncs the temporary file and renames it over the path, checked
// again so a symlink or hard link put there meanwhile is not replaced.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("%s: already committed or aborted", f.path)
	}
	err := f.tmp.Chmod(f.perm)
	if err == nil {
		err = f.tmp.Sync()
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = Check(f.path)
	}
	if err == nil {
		err = os.Rename(f.tmp.Name(), f.path)
	}
	f.done = true
	if err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("%s: %v", f.path, unwrapPath(err))
	}
	return nil
}

// Abort removes the temporary file; the path keeps its old content. Abort
// after Commit does nothing, so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}

// Append opens path (created if missing) for appending under the rules of
// Check, applied to the open file: O_NOFOLLOW refuses a symlink, O_NONBLOCK
// keeps a FIFO from blocking the open, and the open file's Stat refuses
// what is not a regular file with one link.
func Append(path string, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s: a symlink, not followed (%s)", path, allowed)
		}
		if st, lerr := os.Lstat(path); lerr == nil {
			if cerr := checkInfo(path, st); cerr != nil {
				return nil, cerr
			}
		}
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = checkInfo(path, st)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// unwrapPath drops the *fs.PathError wrapper, whose path is the temporary
// file's, so messages name the output path once.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// Output is a stream being written: Commit makes it final, Abort leaves the
// path as it was.
type Output interface {
	Write(p []byte) (int, error)
	Commit() error
	Abort()
}

// CreateOutput is Create for the outputs a user may send to a character
// device (/dev/null, a terminal): such a path is written directly, as no
// file is replaced; every other path, a symlink to a device included, goes
// through Create (a symlink is never followed).
func CreateOutput(path string, perm fs.FileMode) (Output, error) {
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeCharDevice != 0 {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return device{f}, nil
	}
	return Create(path, perm)
}

// device is an Output on a character device.
type device struct{ *os.File }

func (d device) Commit() error { return d.Close() }
func (d device) Abort()        { d.Close() }
