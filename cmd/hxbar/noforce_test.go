package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/sweep"
)

// noForce keeps gendir's refusals but drops the advice of a --force that
// hxbar sweep does not have.
func TestNoForce(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := sweep.Parse([]byte("base: {skew: 0}\n"), "spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = sweep.Run(s, dir, sweep.Options{})
	if err == nil || !strings.Contains(err.Error(), "not written by hxbar") {
		t.Fatalf("foreign directory: %v", err)
	}
	if msg := noForce(err).Error(); strings.Contains(msg, "--force") || !strings.Contains(msg, "not written by hxbar") {
		t.Errorf("noForce: %s", msg)
	}
	for _, r := range []string{"unreadable manifest (x); refusing to write into it: --force writes into it anyway (replacing files of the same names)",
		"refusing to write into the filesystem root (even with --force): name a directory"} {
		if msg := noForce(&gendir.RefusedError{Dir: "d", Reason: r}).Error(); strings.Contains(msg, "--force") {
			t.Errorf("noForce: %s", msg)
		}
	}
}
