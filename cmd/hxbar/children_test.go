package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// hxbarBinary builds hxbar once for the tests that need a process of its
// own (signals, pipes, address-space limits).
func hxbarBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hxbar-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "hxbar")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = err
			t.Logf("%s", out)
		}
	})
	if binErr != nil {
		t.Fatalf("building hxbar: %v", binErr)
	}
	return binPath
}

// alive reports whether pid is a process that is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}

// TestSynthChildrenDieWithPipe: 'hxbar synth | reader that closes early'
// with a fake yosys that starts a grandchild and sleeps: once the reader
// has gone, hxbar exits with status 141 within seconds, kills yosys's whole
// process group (the grandchild too) and removes its temporary directory.
func TestSynthChildrenDieWithPipe(t *testing.T) {
	childrenDieWithPipe(t, "yosys", "synth", "--dims", "2,2")
}

// TestCosimChildrenDieWithPipe: the same for cosim and a fake iverilog.
func TestCosimChildrenDieWithPipe(t *testing.T) {
	childrenDieWithPipe(t, "iverilog", "cosim", "--dims", "2,2")
}

func childrenDieWithPipe(t *testing.T, tool string, args ...string) {
	bin := hxbarBinary(t)
	fake, tmp := t.TempDir(), t.TempDir()
	pids := filepath.Join(fake, "pids")
	script := "#!/bin/sh\nsleep 300 &\necho $$ $! > " + pids + "\nwait\n"
	if err := os.WriteFile(filepath.Join(fake, tool), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "PATH="+fake+":"+os.Getenv("PATH"), "TMPDIR="+tmp)
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var ids []int
	for deadline := time.Now().Add(20 * time.Second); len(ids) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the fake %s did not start", tool)
		}
		b, _ := os.ReadFile(pids)
		ids = ids[:0]
		for _, f := range strings.Fields(string(b)) {
			n, _ := strconv.Atoi(f)
			ids = append(ids, n)
		}
	}
	r.Close() // the reader goes away, as head -1 does
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("hxbar still running 10 s after its reader closed")
	}
	if cmd.ProcessState.ExitCode() != exitPipe {
		t.Errorf("hxbar ended with %v, want exit status %d (128 + SIGPIPE)", err, exitPipe)
	}
	time.Sleep(100 * time.Millisecond)
	for _, pid := range ids {
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d of %s's group still running", pid, tool)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "hxbar-*")); len(left) > 0 {
		t.Errorf("temporary directories left: %v", left)
	}
}
