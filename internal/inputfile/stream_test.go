package inputfile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestHash(t *testing.T) {
	d := t.TempDir()
	p := filepath.Join(d, "results.csv")
	data := []byte(strings.Repeat("point,cycles\n", 10000))
	os.WriteFile(p, data, 0o644)
	want := sha256.Sum256(data)
	if got, err := Hash(p, 1<<20); err != nil || got != hex.EncodeToString(want[:]) {
		t.Errorf("Hash = %q, %v; want %x", got, err, want)
	}
	if _, err := Hash(p, 1000); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%s: %d bytes (allowed: at most 1000 bytes)", p, len(data))) {
		t.Errorf("Hash over the cap: %v", err)
	}
	big := filepath.Join(d, "big")
	os.WriteFile(big, nil, 0o644)
	if err := os.Truncate(big, 8<<30); err == nil {
		if _, err := Hash(big, 1<<30); err == nil || !strings.Contains(err.Error(), "8589934592 bytes (allowed: at most 1024 MiB)") {
			t.Errorf("Hash of an 8 GiB sparse file: %v", err)
		}
	}
	fifo := filepath.Join(d, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Hash(fifo, 1<<20); err == nil || !strings.Contains(err.Error(), "a named pipe") {
		t.Errorf("Hash of a FIFO: %v", err)
	}
}

func TestLines(t *testing.T) {
	collect := func(text string, maxLine int) ([]string, error) {
		var got []string
		err := Lines(strings.NewReader(text), "log", maxLine, func(n int, l []byte) error {
			got = append(got, fmt.Sprintf("%d:%s", n, l))
			return nil
		})
		return got, err
	}
	long := strings.Repeat("x", 200<<10) // longer than the reader's buffer
	for _, c := range []struct {
		text    string
		max     int
		want    string
		wantErr string
	}{
		{"a\nbb\n\nc", 10, "1:a 2:bb 3: 4:c", ""},
		{"", 10, "", ""},
		{"abc\nabcd\n", 4, "1:abc 2:abcd", ""},
		{"abc\nabcde\nlater\n", 4, "1:abc", "log: line 2: longer than 4 bytes"},
		{"abc\nabcde", 4, "1:abc", "log: line 2: longer than 4 bytes"},
		{"a\n" + long + "\nb\n", 300 << 10, "1:a 2:" + long + " 3:b", ""},
		{"a\n" + long + "\nb\n", 100 << 10, "1:a", "log: line 2: longer than 102400 bytes"},
	} {
		got, err := collect(c.text, c.max)
		if strings.Join(got, " ") != c.want || (err == nil) != (c.wantErr == "") || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("Lines(%.20q, %d) = %.40q, %v; want %.40q, %q", c.text, c.max, strings.Join(got, " "), err, c.want, c.wantErr)
		}
	}
}
