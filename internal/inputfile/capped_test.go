package inputfile

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadCappedSparse: an 8 GiB sparse file (no disk used) is refused by
// its size before anything is read.
func TestReadCappedSparse(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gt_n0.hex")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Truncate(p, 8<<30); err != nil {
		t.Skip("no sparse files here:", err)
	}
	for _, read := range []func() ([]byte, error){
		func() ([]byte, error) { return Read(p) },
		func() ([]byte, error) { return ReadCapped(p, 1<<20) },
		func() ([]byte, error) { return ReadHashed(p, 1<<20, strings.Repeat("0", 64)) },
	} {
		data, err := read()
		if err == nil || data != nil || !strings.Contains(err.Error(), "8589934592 bytes") || !strings.Contains(err.Error(), p) {
			t.Errorf("read of an 8 GiB file = %d bytes, %v; want a refusal naming its size", len(data), err)
		}
	}
}

func TestReadHashed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "points.jsonl")
	os.WriteFile(p, []byte("{}\n"), 0o644)
	sum := sha256.Sum256([]byte("{}\n"))
	if data, err := ReadHashed(p, 100, hex.EncodeToString(sum[:])); err != nil || string(data) != "{}\n" {
		t.Fatalf("ReadHashed with the right hash = %q, %v", data, err)
	}
	os.WriteFile(p, []byte("{\"edited\":1}\n"), 0o644)
	if _, err := ReadHashed(p, 100, hex.EncodeToString(sum[:])); err == nil || !strings.Contains(err.Error(), "content changed") {
		t.Fatalf("ReadHashed of an edited file = %v, want a refusal", err)
	}
}

// TestOpenAndHeadRefuseSpecial: a FIFO is refused at once (no hang), a
// device before it is read.
func TestOpenAndHeadRefuseSpecial(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "hx_sources.f")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 4)
	go func() {
		_, err := Open(fifo)
		done <- err
		_, err = ReadHead(fifo, 200)
		done <- err
		_, err = ReadHead("/dev/zero", 200)
		done <- err
		_, err = ReadCapped("/dev/zero", 200)
		done <- err
	}()
	for i := 0; i < 4; i++ {
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("read %d = %v, want a refusal", i, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("hang on a special file")
		}
	}
}

func TestReadHead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "plot.svg")
	os.WriteFile(p, []byte(strings.Repeat("x", 1000)), 0o644)
	if b, err := ReadHead(p, 200); err != nil || len(b) != 200 {
		t.Fatalf("ReadHead = %d bytes, %v; want 200", len(b), err)
	}
}

// TestCheckWithoutOpening: Check refuses what Read would (a FIFO, a device
// through a symlink, a sparse file over the cap) without opening it, and
// passes a regular file under the cap.
func TestCheckWithoutOpening(t *testing.T) {
	d := t.TempDir()
	fifo := filepath.Join(d, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	dev := filepath.Join(d, "dev")
	os.Symlink("/dev/zero", dev)
	big := filepath.Join(d, "big")
	os.WriteFile(big, nil, 0o644)
	os.Truncate(big, 8<<30)
	for p, want := range map[string]string{fifo: "a named pipe", dev: "a character device", big: "8589934592 bytes"} {
		if err := Check(p, MaxSize); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%s) = %v, want %q", p, err, want)
		}
	}
	ok := filepath.Join(d, "ok")
	os.WriteFile(ok, []byte("x"), 0o644)
	if err := Check(ok, MaxSize); err != nil {
		t.Errorf("Check(regular) = %v", err)
	}
}

// TestInputOfForgetsAFileThatLeftItsPath: an input is known by its inode
// only while it is still at the path it was read from; a removed input's
// inode number is given to new files (cosims run side by side in one
// process refused their own sim.vvp as another run's system.yaml).
func TestInputOfForgetsAFileThatLeftItsPath(t *testing.T) {
	Forget()
	t.Cleanup(Forget)
	d := t.TempDir()
	p, q := filepath.Join(d, "system.yaml"), filepath.Join(d, "moved.yaml")
	if err := os.WriteFile(p, []byte("dims: [4]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadInput(p); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if _, ok := InputOf(st); !ok {
		t.Fatal("the input just read is not an input")
	}
	if err := os.Rename(p, q); err != nil {
		t.Fatal(err)
	}
	st, _ = os.Stat(q)
	if in, ok := InputOf(st); ok {
		t.Fatalf("a file that left its path is still the input %s", in)
	}
}
