package gendir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOwnerRefused: a directory one tool made is refused by the other, even
// with Force, and keeps every file.
func TestOwnerRefused(t *testing.T) {
	for _, c := range []struct{ first, second, want string }{
		{"hxbar sweep", "hxbar gen", "a sweep directory (hxbar sweep)"},
		{"hxbar gen", "hxbar sweep", "a gen directory (hxbar gen)"},
		{"", "hxbar sweep", "a gen directory (hxbar)"}, // an old manifest without a tool is gen's
	} {
		dir := filepath.Join(t.TempDir(), "out")
		if _, err := Write(dir, []File{{Name: "points.jsonl", Data: []byte("log\n")}}, Options{Tool: c.first}); err != nil {
			t.Fatal(err)
		}
		_, err := Write(dir, []File{{Name: "top.v", Data: []byte("module")}}, Options{Tool: c.second, Force: true})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "allowed:") {
			t.Errorf("%q over %q: %v, want a refusal naming %q", c.second, c.first, err, c.want)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "points.jsonl")); string(b) != "log\n" {
			t.Errorf("%q over %q changed the first tool's file: %q", c.second, c.first, b)
		}
		if _, err := os.Lstat(filepath.Join(dir, "top.v")); err == nil {
			t.Errorf("%q over %q wrote its file", c.second, c.first)
		}
	}
	// The same owner (gen's generators add parts to its directory) is allowed.
	dir := filepath.Join(t.TempDir(), "out")
	Write(dir, []File{{Name: "top.v", Data: []byte("m"), Part: "design"}}, Options{Tool: "hxbar gen"})
	if _, err := Write(dir, []File{{Name: "tb.v", Data: []byte("t"), Part: "testbench"}}, Options{Tool: "hxbar (testbench.Generate)", Parts: []string{"testbench"}}); err != nil {
		t.Errorf("testbench into gen's directory: %v", err)
	}
}
