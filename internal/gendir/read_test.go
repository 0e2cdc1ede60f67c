package gendir

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// sparse makes p an 8 GiB file that uses no disk, or skips the test.
func sparse(t *testing.T, p string) {
	t.Helper()
	put(t, p, "")
	if err := os.Truncate(p, 8<<30); err != nil {
		t.Skip("no sparse files here:", err)
	}
}

// Issue 24: a file the manifest lists is never read whole. An 8 GiB file in
// a generated directory is refused by its size, in one line naming it,
// before anything changes.
func TestListedFileOverCap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Write(dir, files("a", "1", "b", "2"), Options{}); err != nil {
		t.Fatal(err)
	}
	man := read(t, filepath.Join(dir, ManifestName))
	sparse(t, filepath.Join(dir, "b"))
	want := filepath.Join(dir, "b") + ": 8589934592 bytes (allowed: at most 1024 MiB)"
	_, err := Write(dir, files("a", "3"), Options{})
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Write over an 8 GiB listed file: %v; want %q", err, want)
	}
	if read(t, filepath.Join(dir, "a")) != "1" || read(t, filepath.Join(dir, ManifestName)) != man {
		t.Error("a refused write changed the directory")
	}
	if err := CheckOwned(dir, "b"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("CheckOwned = %v, want %q", err, want)
	}
	if Owns(dir, "b") {
		t.Error("Owns an 8 GiB file")
	}
}

func TestManifestOverCap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	put(t, filepath.Join(dir, "a"), "1")
	sparse(t, filepath.Join(dir, ManifestName))
	_, err := ReadManifest(dir)
	if err == nil || !strings.Contains(err.Error(), "8589934592 bytes (allowed: at most 16 MiB)") {
		t.Fatalf("ReadManifest of an 8 GiB manifest: %v", err)
	}
	_, err = Write(dir, files("a", "2"), Options{})
	refused(t, err, "unreadable manifest", "8589934592 bytes")
}

// A listed file swapped for a FIFO is not owned, and nothing blocks.
func TestListedFIFONotOwned(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	Write(dir, files("a", "1"), Options{})
	os.Remove(filepath.Join(dir, "a"))
	if err := syscall.Mkfifo(filepath.Join(dir, "a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if Owns(dir, "a") {
		t.Error("owns a FIFO")
	}
	_, err := Write(dir, files("a", "2"), Options{})
	refused(t, err, `"a" is not written by hxbar`)
}

// An adopted file is recorded by its streamed hash and never rewritten: the
// caller's open file (a run log it appends to) keeps its inode.
func TestAdopt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Write(dir, files("meta", "m"), Options{}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "log")
	put(t, log, "line 1\n")
	before, _ := os.Stat(log)
	adopt := []File{{Name: "meta", Data: []byte("m")}, {Name: "log", Adopt: true}}
	if _, err := Write(dir, adopt, Options{}); err == nil {
		t.Error("adopted a file that is not an input")
	}
	if _, err := Write(dir, adopt, Options{Inputs: []string{"log"}}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(log)
	if !os.SameFile(before, after) || !Owns(dir, "log") {
		t.Fatalf("adopted log rewritten (%v) or not owned (%v)", !os.SameFile(before, after), Owns(dir, "log"))
	}
	f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("line 2\n")
	f.Close()
	if Owns(dir, "log") {
		t.Fatal("owns an appended log before it is adopted again")
	}
	if _, err := Write(dir, adopt, Options{Inputs: []string{"log"}}); err != nil || !Owns(dir, "log") || read(t, log) != "line 1\nline 2\n" {
		t.Fatalf("adopt again: %v", err)
	}
	os.Remove(log)
	os.Symlink("meta", log)
	if _, err := Write(dir, adopt, Options{Inputs: []string{"log"}}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("adopted a symlink: %v", err)
	}
	if _, err := Write(filepath.Join(t.TempDir(), "new"), adopt, Options{Inputs: []string{"log"}}); err == nil {
		t.Error("adopted a file of a directory that does not exist")
	}
}
