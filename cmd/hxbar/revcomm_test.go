package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckChannelsBesideTheKey: hxbar check --channels lists the
// network's channels although channels is also a system key whose flag
// the other commands take (binding both panicked: "flag redefined").
func TestCheckChannelsBesideTheKey(t *testing.T) {
	var o, e bytes.Buffer
	if code := run([]string{"check", "--channels", "--dims", "2"}, &o, &e); code != 0 || !strings.Contains(o.String(), "n0.d0.up") {
		t.Fatalf("check --channels: exit %d, %q, %q", code, o.String(), e.String())
	}
	o.Reset()
	e.Reset()
	if code := run([]string{"sim", "--barrier-channels", "2", "--dims", "2", "--format", "json"}, &o, &e); code != 0 {
		t.Fatalf("sim --barrier-channels 2: exit %d, %q", code, e.String())
	}
}

// TestCommTableCapped: the communicators table stops at maxTableRows rows
// and says how many more there are, as the rank table does (a split of a
// big network is thousands of communicators).
func TestCommTableCapped(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "split.yaml")
	if err := os.WriteFile(cfg, []byte("dims: [2, 9, 9]\nskew: 0\ncommunicators: [{name: p, split: \"dim:0\"}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	if code := run([]string{"sim", "--config", cfg}, &o, &e); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	commTable, _, _ := strings.Cut(o.String(), "│ RANK ")
	if !strings.Contains(commTable, "│ p.63 ") || strings.Contains(commTable, "│ p.64 ") || !strings.Contains(commTable, "(17 more communicators; use --format json for all)") {
		t.Fatalf("want p.0..p.63 and a line for 17 more; the communicators table:\n%s", commTable)
	}
}
