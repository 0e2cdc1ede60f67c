package verilog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hx_tile is a top of its own, as an SoC team instantiates it: clean
// under Verilator -Wall with its defaults and with every kind of unit and
// link it builds (one unit or a node of channels, data engine, several
// dimensions, link-level retry at latency 1 and 2, check code, CAM).
func TestTileLintStandalone(t *testing.T) {
	t.Parallel()
	vl := needTool(t, "verilator")
	dir := t.TempDir()
	var files []string
	for _, name := range Library() {
		src, err := LibrarySource(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	for _, params := range []string{
		"",
		"-GNCH=2 -GNBANK=2",
		"-GLR=4 -GL=1",
		"-GNDIM=2 -GK0=3 -GK1=2 -GDATA=1 -GNIL=4 -GL=2 -GLR=3 -GCB=32",
		"-GNDIM=4 -GK0=2 -GK1=2 -GK2=2 -GK3=2 -GE=3 -GNCH=3",
		"-GNDIM=5 -GK0=2 -GK1=2 -GK2=2 -GK3=2 -GK4=3 -GAB=6 -GDATA=1 -GNIL=2",
		"-GNDIM=6 -GK0=2 -GK1=2 -GK2=2 -GK3=2 -GK4=3 -GK5=2 -GAB=7 -GE=2",
		"-GUP=1 -GNDIM=2 -GK0=3 -GK1=2 -GDATA=1 -GNIL=4 -GCB=32",
		"-GUP=1 -GNCH=2 -GNBANK=2",
	} {
		args := append([]string{"--lint-only", "-Wall", "--top-module", "hx_tile"}, strings.Fields(params)...)
		out, err := run(t, dir, 120*time.Second, vl, append(args, files...)...)
		if err != nil || out != "" {
			t.Errorf("verilator --lint-only -Wall --top-module hx_tile %s (%v):\n%s", params, err, out)
		}
	}
}
