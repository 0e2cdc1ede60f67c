package testbench

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBuildNeverWrittenThrough: a build product in the directory that the
// compiler would write through (a symlink or hard link to a user's file) or
// that the run would block on (a FIFO) is refused before any tool runs; the
// user's file is unchanged.
func TestBuildNeverWrittenThrough(t *testing.T) {
	needTools(t, Icarus)
	victim := filepath.Join(t.TempDir(), "victim")
	for _, c := range []struct {
		name string
		make func(path string) error
		want string
	}{
		{"symlink", func(p string) error { return os.Symlink(victim, p) }, "a symlink, not followed"},
		{"hard link", func(p string) error { return os.Link(victim, p) }, "hard links"},
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "a named pipe"},
	} {
		os.WriteFile(victim, []byte("precious\n"), 0o644)
		dir, _, _ := tbDir(t)
		if err := c.make(filepath.Join(dir, IcarusBuild)); err != nil {
			t.Fatal(err)
		}
		_, err := RunIcarus(ctxFor(t, 20*time.Second), dir)
		if err == nil || !strings.Contains(err.Error(), IcarusBuild) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s sim.vvp: %v, want a refusal naming it (%q)", c.name, err, c.want)
		}
		if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
			t.Errorf("%s sim.vvp: the user's file was written through: %.40q", c.name, got)
		}
	}
}

// TestVerilatorBuildDirSymlinkRefused: an obj_dir that is a symlink is
// refused before Verilator writes its build wherever it points.
func TestVerilatorBuildDirSymlinkRefused(t *testing.T) {
	needTools(t, Verilator)
	elsewhere := t.TempDir()
	dir, _, _ := tbDir(t)
	os.Symlink(elsewhere, filepath.Join(dir, VerilatorBuild))
	_, err := RunSimulator(ctxFor(t, 20*time.Second), dir, Verilator)
	if err == nil || !strings.Contains(err.Error(), VerilatorBuild+": a symlink") {
		t.Errorf("obj_dir symlink: %v, want a refusal naming it", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("the build went through the symlink: %d entries in its target", len(ents))
	}
}

// TestDataFilesChecked: a config.hex (editable, not compared with the
// model) that is a FIFO or a device is refused before the simulator blocks
// on it or reads it without end.
func TestDataFilesChecked(t *testing.T) {
	needTools(t, Icarus)
	for _, c := range []struct {
		name string
		make func(path string) error
		want string
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "a named pipe"},
		{"device", func(p string) error { return os.Symlink("/dev/zero", p) }, "a character device"},
	} {
		dir, _, _ := tbDir(t)
		p := filepath.Join(dir, ConfigFile)
		os.Remove(p)
		if err := c.make(p); err != nil {
			t.Fatal(err)
		}
		_, err := RunIcarus(ctxFor(t, 20*time.Second), dir)
		if err == nil || !strings.Contains(err.Error(), ConfigFile) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s config.hex: %v, want a refusal naming it (%q)", c.name, err, c.want)
		}
	}
}
