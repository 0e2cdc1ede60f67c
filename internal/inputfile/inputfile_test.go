package inputfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadRegularFile(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "system.yaml")
	if err := os.WriteFile(p, []byte("dims: [2, 2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{p, filepath.Join(d, "link")} {
		os.Symlink("system.yaml", filepath.Join(d, "link"))
		data, err := Read(path)
		if err != nil || string(data) != "dims: [2, 2]\n" {
			t.Fatalf("Read(%s) = %q, %v", path, data, err)
		}
	}
	empty := filepath.Join(d, "empty")
	os.WriteFile(empty, nil, 0o644)
	if data, err := Read(empty); err != nil || len(data) != 0 {
		t.Fatalf("empty file: %q, %v", data, err)
	}
}

func TestReadAtTheCap(t *testing.T) {
	d := t.TempDir()
	at, over := filepath.Join(d, "at"), filepath.Join(d, "over")
	for p, n := range map[string]int64{at: MaxSize, over: MaxSize + 1} {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(n); err != nil { // sparse: no disk used
			t.Fatal(err)
		}
		f.Close()
	}
	if data, err := Read(at); err != nil || len(data) != MaxSize {
		t.Fatalf("a file of exactly %d bytes: %d bytes, %v", MaxSize, len(data), err)
	}
	_, err := Read(over)
	want := over + ": 67108865 bytes (allowed: at most 64 MiB)"
	if err == nil || err.Error() != want {
		t.Fatalf("over the cap: %v, want %q", err, want)
	}
}

func TestReadRefusesSpecialFiles(t *testing.T) {
	d := t.TempDir()
	fifo := filepath.Join(d, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", filepath.Join(d, "zero"))
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero: not a regular file (a character device; allowed: a regular file)"},
		{"/dev/urandom", "/dev/urandom: not a regular file (a character device; allowed: a regular file)"},
		{filepath.Join(d, "zero"), filepath.Join(d, "zero") + ": not a regular file (a character device;"},
		{fifo, fifo + ": not a regular file (a named pipe; allowed: a regular file)"},
		{d, d + ": not a regular file (a directory; allowed: a regular file)"},
		{filepath.Join(d, "missing"), "no such file or directory"},
	} {
		done := make(chan error, 1)
		go func() { _, err := Read(c.path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Read(%s): %v, want %q", c.path, err, c.want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("Read(%s): a message of more than one line: %q", c.path, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Read(%s) hangs", c.path)
		}
	}
}

// TestCheckOpenFile: the second check, on the open file, refuses what the
// first would have (a path swapped between the Stat and the open).
func TestCheckOpenFile(t *testing.T) {
	d := t.TempDir()
	fifo := filepath.Join(d, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0) // does not wait for a writer
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := check(fifo, st, MaxSize); err == nil || !strings.Contains(err.Error(), "a named pipe") {
		t.Fatalf("check of an open FIFO: %v", err)
	}
}

// TestReadCatchesGrowth: a file longer than its Stat said (here a /proc
// file, which says 0 bytes; the same as a file growing while read) is
// caught by the limited read.
func TestReadCatchesGrowth(t *testing.T) {
	const path = "/proc/self/status"
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() != 0 {
		t.Skipf("%s: no regular file of size 0 (%v)", path, err)
	}
	_, err = read(path, 100)
	if want := path + ": more than 100 bytes, it grew while read (allowed: at most 100 bytes)"; err == nil || err.Error() != want {
		t.Fatalf("%v, want %q", err, want)
	}
	if data, err := read(path, MaxSize); err != nil || !strings.Contains(string(data), "Name:") {
		t.Fatalf("%v: %.100q", err, data)
	}
}

// TestReadMissingNamesTheFile: a file that is not there is one message
// naming it and the cause, without the system call ("stat x: ..."), and
// still an *fs.PathError of fs.ErrNotExist to errors.As and errors.Is.
func TestReadMissingNamesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.yaml")
	_, err := Read(p)
	var pe *fs.PathError
	if err == nil || err.Error() != p+": no such file or directory" || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
		t.Errorf("Read of a missing file: %v", err)
	}
}
