package testbench

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadDirSchedulesInputRules: the schedules of a directory are inputs
// like any other (internal/inputfile): absent is none, a FIFO or a device
// is refused at once instead of hanging or filling the memory, and the
// JSON is strict.
func TestReadDirSchedulesInputRules(t *testing.T) {
	d := t.TempDir()
	if s, cs, err := ReadDirSchedules(d); s != nil || cs != nil || err != nil {
		t.Fatalf("empty directory: %v %v %v", s, cs, err)
	}
	if err := syscall.Mkfifo(filepath.Join(d, ScheduleFile), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := ReadDirSchedules(d); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe") {
			t.Errorf("a FIFO %s: %v", ScheduleFile, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO schedule.json hangs")
	}
	os.Remove(filepath.Join(d, ScheduleFile))
	os.Symlink("/dev/zero", filepath.Join(d, DataScheduleFile))
	if _, _, err := ReadDirSchedules(d); err == nil || !strings.Contains(err.Error(), "not a regular file (a character device") {
		t.Errorf("%s -> /dev/zero: %v", DataScheduleFile, err)
	}
	os.Remove(filepath.Join(d, DataScheduleFile))
	os.WriteFile(filepath.Join(d, ScheduleFile), []byte(`{"ranks":2,"ranks":2,"gates":1}`), 0o644)
	if _, _, err := ReadDirSchedules(d); err == nil || !strings.Contains(err.Error(), `invalid gate schedule JSON: duplicate key "ranks"`) {
		t.Errorf("duplicate key: %v", err)
	}
}
