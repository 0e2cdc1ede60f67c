// Package inputfile reads the files users hand to hxbar (system files,
// schedules, the files of a generated directory) under one rule: an input is
// a regular file of at most MaxSize bytes. A device, a FIFO, a directory or
// a socket is refused before anything is read, so /dev/zero cannot fill the
// memory and a FIFO cannot block the run; a file larger than the cap, or one
// that grows past it while it is read, is refused with its size. Errors are
// one line naming the path and what is allowed. It imports nothing of hxbar.
package inputfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"sync"
	"syscall"
)

// MaxSize is the largest input hxbar reads, in bytes.
const MaxSize = 64 << 20

// Read returns the contents of the regular file at path (symlinks are
// followed) if it holds at most MaxSize bytes.
func Read(path string) ([]byte, error) { return read(path, MaxSize) }

// read is Read with the cap as a parameter, for tests.
func read(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, withoutOp(err)
	}
	if err := check(path, st, limit); err != nil {
		return nil, err
	}
	// O_NONBLOCK: if path was swapped for a FIFO since the Stat, opening it
	// does not wait for a writer; the Stat of the open file refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, withoutOp(err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := check(path, st, limit); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(int(st.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err // an *fs.PathError: it names the file
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than %d bytes, it grew while read (allowed: at most %s)", path, limit, sizeText(limit))
	}
	return data, nil
}

// Check refuses, without opening it, a file Read with limit would refuse:
// not a regular file (a symlink is followed) or over limit bytes. It is for
// files another program opens (Yosys's sources), which must not block on a
// FIFO or read a device or a sparse file without end.
func Check(path string, limit int64) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return check(path, st, limit)
}

// check refuses what is not a regular file of at most limit bytes.
func check(path string, st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s; allowed: a regular file)", path, Kind(st.Mode()))
	}
	if st.Size() > limit {
		return fmt.Errorf("%s: %d bytes (allowed: at most %s)", path, st.Size(), sizeText(limit))
	}
	return nil
}

// sizeText says a size in messages: 64 MiB.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Kind names what a file that is not regular is, for messages.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// ReadCapped is Read with a cap fit for the kind of file (a manifest, a
// table, a log), in bytes.
func ReadCapped(path string, limit int64) ([]byte, error) { return read(path, limit) }

// ReadHashed is ReadCapped that also refuses a file whose SHA-256 is not
// sum (lower-case hex, as manifests record it): a file edited since it was
// recorded is refused by name.
func ReadHashed(path string, limit int64, sum string) ([]byte, error) {
	data, err := read(path, limit)
	if err != nil {
		return nil, err
	}
	got := sha256.Sum256(data)
	if hex.EncodeToString(got[:]) != sum {
		return nil, fmt.Errorf("%s: content changed since it was recorded (SHA-256 %x, allowed: the recorded %s)", path, got[:6], short(sum))
	}
	return data, nil
}

func short(s string) string { return s[:min(len(s), 12)] }

// ReadHead returns at most the first n bytes of the regular file at path:
// enough to recognise a file without reading all of it.
func ReadHead(path string, n int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// Open opens the regular file at path for streaming (a log read line by
// line, of any size): a device, FIFO, directory or socket is refused before
// anything is read, and opening a FIFO swapped in meanwhile does not block.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, withoutOp(err)
	}
	if err := check(path, st, math.MaxInt64); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, withoutOp(err)
	}
	if st, err = f.Stat(); err == nil {
		err = check(path, st, math.MaxInt64)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Hash returns the SHA-256 (lower-case hex, as manifests record it) of the
// regular file at path, streamed: memory stays constant whatever its size.
// A file over limit bytes, or one that grows past it while hashed, is
// refused with its size, so an 8 GiB sparse file costs a Stat, not a read.
func Hash(path string, limit int64) (string, error) {
	f, err := Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if err := check(path, st, limit); err != nil {
		return "", err
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, limit+1))
	if err != nil {
		return "", err
	}
	if n > limit {
		return "", fmt.Errorf("%s: more than %d bytes, it grew while read (allowed: at most %s)", path, limit, sizeText(limit))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Lines calls fn for each line of r (without its line end), numbered from
// 1, reading one line at a time: a line longer than maxLine bytes is an
// error naming path and the line's number, so it cannot hide the lines
// after it, and a file of any size is read in constant memory. line is
// valid only during the call.
func Lines(r io.Reader, path string, maxLine int, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte // a line longer than br's buffer, gathered
	for n := 1; ; {
		chunk, err := br.ReadSlice('\n')
		if len(long)+len(chunk) > maxLine+1 || (err != nil && len(long)+len(chunk) > maxLine) {
			return fmt.Errorf("%s: line %d: longer than %d bytes (allowed: at most %s a line)", path, n, maxLine, sizeText(int64(maxLine)))
		}
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if len(long) > 0 {
			line = append(long, chunk...)
		}
		long = long[:0]
		if len(line) > 0 {
			if ferr := fn(n, bytes.TrimSuffix(line, []byte("\n"))); ferr != nil {
				return ferr
			}
			n++
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// inputs are the user's inputs of this run (ReadInput), so that an output
// never replaces one: `sim --config f.yaml --trace f.yaml` must not destroy
// the system file it ran (internal/outfile asks InputOf).
var inputs struct {
	sync.Mutex
	list []input
}

type input struct {
	path string
	st   fs.FileInfo
}

// ReadInput is Read for a file the user hands to the run (a system file, a
// schedule, a sweep spec): the file is remembered as an input until Forget.
func ReadInput(path string) ([]byte, error) {
	data, err := Read(path)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(path); err == nil {
		inputs.Lock()
		inputs.list = append(inputs.list, input{path, st})
		inputs.Unlock()
	}
	return data, nil
}

// InputOf reports whether st is a file ReadInput read in this run, and the
// path it was read as. An input no longer at its path (removed, replaced)
// is not one: its inode number may have been given to a new file since (a
// library running cosims side by side removes their directories).
func InputOf(st fs.FileInfo) (path string, ok bool) {
	inputs.Lock()
	defer inputs.Unlock()
	for _, in := range inputs.list {
		if !os.SameFile(in.st, st) {
			continue
		}
		if now, err := os.Stat(in.path); err == nil && os.SameFile(now, in.st) {
			return in.path, true
		}
	}
	return "", false
}

// Forget starts a new run: no file is an input any more.
func Forget() {
	inputs.Lock()
	inputs.list = nil
	inputs.Unlock()
}

// pathError names the file and what is wrong with it, not the system call
// that found it ("x.yaml: no such file or directory", not "stat x.yaml:
// ..."); it unwraps to the *fs.PathError, so errors.Is and errors.As
// still see the cause.
type pathError struct{ pe *fs.PathError }

func (e pathError) Error() string { return e.pe.Path + ": " + e.pe.Err.Error() }
func (e pathError) Unwrap() error { return e.pe }

// withoutOp drops the operation from an *fs.PathError's message.
func withoutOp(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pathError{pe}
	}
	return err
}
