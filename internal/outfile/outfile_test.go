package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hxbar/hxbar/internal/inputfile"
)

// refusals are the paths every form of the writer must refuse; each leaves
// the target (and what it points to) unchanged.
func refusals(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	user := filepath.Join(dir, "user.txt")
	if err := os.WriteFile(user, []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.svg")
	if err := os.Symlink(user, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.jsonl")
	if err := os.Link(user, hard); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	return map[string]string{link: "a symlink", hard: "2 hard links", fifo: "a named pipe", sub: "a directory", "/dev/null": "a character device"}
}

func TestRefusals(t *testing.T) {
	forms := map[string]func(string) error{
		"WriteFile": func(p string) error { return WriteFile(p, []byte("new"), 0o644) },
		"Create": func(p string) error {
			f, err := Create(p, 0o644)
			if err == nil {
				f.Abort()
			}
			return err
		},
		"Append": func(p string) error {
			f, err := Append(p, 0o644)
			if err == nil {
				f.Close()
			}
			return err
		},
	}
	for name, write := range forms {
		for path, want := range refusals(t) {
			err := write(path)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "allowed:") || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s(%s) = %v, want a one-line refusal naming it %q", name, path, err, want)
			}
			if user := filepath.Join(filepath.Dir(path), "user.txt"); path != "/dev/null" {
				if b, _ := os.ReadFile(user); string(b) != "user data" {
					t.Errorf("%s(%s) changed the user's file: %q", name, path, b)
				}
			}
		}
	}
}

func TestWriteFileReplaces(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.svg")
	for _, s := range []string{"first", "second"} {
		if err := WriteFile(p, []byte(s), 0o640); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != s {
			t.Fatalf("got %q, want %q", b, s)
		}
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	assertNoTemp(t, filepath.Dir(p))
}

// TestAbortKeepsOld: an output that fails halfway leaves the old file whole.
func TestAbortKeepsOld(t *testing.T) {
	p := filepath.Join(t.TempDir(), "trace.txt")
	if err := os.WriteFile(p, []byte("old trace"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("half of a new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old trace" {
		t.Fatalf("before Commit the path holds %q, want the old trace", b)
	}
	f.Abort()
	if b, _ := os.ReadFile(p); string(b) != "old trace" {
		t.Fatalf("after Abort the path holds %q, want the old trace", b)
	}
	if f.Commit() == nil {
		t.Error("Commit after Abort succeeded")
	}
	assertNoTemp(t, filepath.Dir(p))
}

// TestCommitRechecks: a symlink put at the path while the output was
// written is not replaced.
func TestCommitRechecks(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	if err := os.Symlink("/etc/passwd", p); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("Commit = %v, want a symlink refusal", err)
	}
	if target, _ := os.Readlink(p); target != "/etc/passwd" {
		t.Errorf("symlink replaced")
	}
	assertNoTemp(t, dir)
}

func TestAppend(t *testing.T) {
	p := filepath.Join(t.TempDir(), "points.jsonl")
	for _, s := range []string{"a\n", "b\n"} {
		f, err := Append(p, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	if b, _ := os.ReadFile(p); string(b) != "a\nb\n" {
		t.Errorf("got %q", b)
	}
}

func TestMissingDirectory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no", "out")
	err := WriteFile(p, nil, 0o644)
	if err == nil || !strings.Contains(err.Error(), p) || errors.Is(err, nil) {
		t.Errorf("WriteFile into a missing directory = %v, want an error naming %s", err, p)
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestCreateOutputDevice: /dev/null is allowed where a device is, every other
// refusal stands.
func TestCreateOutputDevice(t *testing.T) {
	o, err := CreateOutput("/dev/null", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "nl.vcd")
	if err := os.Symlink("/dev/null", link); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateOutput(link, 0o644); err == nil || !strings.Contains(err.Error(), "a symlink, not followed") {
		t.Errorf("CreateOutput(symlink to /dev/null) = %v, want refused as a symlink", err)
	}
	for path, want := range refusals(t) {
		if path == "/dev/null" {
			continue
		}
		if _, err := CreateOutput(path, 0o644); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CreateOutput(%s) = %v, want %q", path, err, want)
		}
	}
}

// TestInputNeverReplaced: a file the run read as an input is refused as an
// output (WriteFile, Create, Append), naming the input, and left whole;
// after Forget (a new run) it may be written again.
func TestInputNeverReplaced(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(in, []byte("dims: [4, 4]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer inputfile.Forget()
	if _, err := inputfile.ReadInput(filepath.Join(dir, ".", "s.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(in, []byte("trace"), 0o644); err == nil || !strings.Contains(err.Error(), "an input of this run") {
		t.Errorf("WriteFile onto the input: %v; want refused as an input", err)
	}
	if f, err := Append(in, 0o644); err == nil {
		f.Close()
		t.Errorf("Append onto the input accepted")
	}
	if b, _ := os.ReadFile(in); string(b) != "dims: [4, 4]\n" {
		t.Errorf("the input changed: %q", b)
	}
	other := filepath.Join(dir, "t.yaml")
	if err := WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Errorf("a file that is no input: %v", err)
	}
	inputfile.Forget()
	if err := WriteFile(in, []byte("trace"), 0o644); err != nil {
		t.Errorf("after Forget: %v", err)
	}
}

// TestModeKept: replacing a file keeps its mode (a private trace stays
// private); a new file gets perm less the umask, as os.WriteFile gives.
func TestModeKept(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "private.trace")
	if err := os.WriteFile(old, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(old, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(old, []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(old); st.Mode().Perm() != 0o600 {
		t.Errorf("replaced 0600 file is %v", st.Mode().Perm())
	}
	plain, ours := filepath.Join(dir, "plain"), filepath.Join(dir, "ours")
	if err := os.WriteFile(plain, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(ours, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	a, _ := os.Stat(plain)
	b, _ := os.Stat(ours)
	if a.Mode().Perm() != b.Mode().Perm() {
		t.Errorf("new file %v, os.WriteFile gives %v", b.Mode().Perm(), a.Mode().Perm())
	}
}
