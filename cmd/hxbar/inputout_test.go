package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOutputNeverReplacesInput: an output path that is one of the run's
// inputs (the system file, a schedule) is refused by name before the run,
// and the input is left whole (issue 24: "never onto an input of the same
// run").
func TestOutputNeverReplacesInput(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "s.yaml")
	text := "dims: [2, 2]\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--trace", "--vcd", "--plot"} {
		var o, e bytes.Buffer
		code := run([]string{"sim", "--config", cfg, flag, filepath.Join(dir, ".", "s.yaml")}, &o, &e)
		if code != 2 || !strings.Contains(e.String(), "input of") || strings.Count(e.String(), "\n") != 1 {
			t.Errorf("sim --config s.yaml %s s.yaml: exit %d, %q; want exit 2 naming the input", flag, code, e.String())
		}
		if b, _ := os.ReadFile(cfg); string(b) != text {
			t.Fatalf("%s destroyed the system file: %q", flag, b)
		}
	}
	// The next run starts afresh: the same file is an output it may write.
	var o, e bytes.Buffer
	if code := run([]string{"sim", "--dims", "2,2", "--trace", cfg}, &o, &e); code != 0 {
		t.Errorf("a run that does not read s.yaml: exit %d, %s", code, e.String())
	}
}

// TestSignalLeavesNoTemporaryOutput: SIGTERM in the middle of a run with
// --trace and --vcd removes their temporary files, keeps the old trace
// whole, and exits 143 (128 + SIGTERM).
func TestSignalLeavesNoTemporaryOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a long simulation in a process of its own")
	}
	bin := hxbarBinary(t)
	dir := t.TempDir()
	old := []byte("the old trace\n")
	if err := os.WriteFile(filepath.Join(dir, "t"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "sim", "--dims", "32,32", "--repeat", "10000", "--max-cycles", "1000000000", "--trace", "t", "--vcd", "v")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	temps := func() []string { m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*")); return m }
	deadline := time.Now().Add(time.Minute)
	for len(temps()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(temps()) < 2 {
		cmd.Process.Kill()
		t.Fatal("the run made no temporary outputs within a minute")
	}
	time.Sleep(200 * time.Millisecond) // writing into them
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 143 {
		t.Errorf("after SIGTERM: %v; want exit 143", err)
	}
	if left := temps(); len(left) > 0 {
		t.Errorf("temporary outputs left: %v", left)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "t")); !bytes.Equal(b, old) {
		t.Errorf("the old trace changed: %d bytes", len(b))
	}
}
