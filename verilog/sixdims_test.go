package verilog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// TestYosysSynthSixDims: a node of a 6-D system synthesizes clean (no
// warning, check -assert), both fabrics: hx_tile (a 7-port exchanger with
// the 6-D table and the unit's 6-D address check; about a minute) and,
// with HXBAR_FULL_MATRIX (make bench: about 2 minutes alone, 7 on a loaded
// 2-core machine), hx_rtile (a 25-port router on a Tofu-shaped grid,
// rings of 3 and mesh lines of 2). A whole 6-D hx_top has at least 64
// nodes, too many to synthesize in a test.
func TestYosysSynthSixDims(t *testing.T) {
	t.Parallel()
	ys := needTool(t, "yosys")
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
	for _, c := range []struct {
		top, params string
		long        bool
	}{
		{"hx_tile", "NDIM=6 K0=2 K1=2 K2=2 K3=2 K4=3 K5=2 AB=7 FW=16", false},
		{"hx_rtile", "NDIM=6 K0=3 K1=2 K2=3 K3=2 K4=3 K5=2 AB=9 FW=16 WRAP=21 C0=2 C4=1 C5=1", true},
	} {
		t.Run(c.top, func(t *testing.T) {
			if c.long && os.Getenv("HXBAR_FULL_MATRIX") == "" {
				t.Skip("make bench runs it (HXBAR_FULL_MATRIX): minutes of synthesis")
			}
			var ch []string
			for _, kv := range strings.Fields(c.params) {
				k, v, _ := strings.Cut(kv, "=")
				ch = append(ch, fmt.Sprintf("-chparam %s %s", k, v))
			}
			log := c.top + ".log"
			script := fmt.Sprintf("read_verilog -defer %s; hierarchy -top %s %s; synth -top %s; check -assert",
				strings.Join(files, " "), c.top, strings.Join(ch, " "), c.top)
			out, err := run(t, dir, 10*time.Minute, ys, "-q", "-l", log, "-p", script)
			b, _ := os.ReadFile(filepath.Join(dir, log))
			if err != nil || strings.Contains(strings.ToLower(string(b)), "warning") {
				t.Errorf("yosys %s %s (%v):\n%s\n%s", c.top, c.params, err, out, grepLines(string(b), "arning", "rror"))
			}
		})
	}
}

// TestVerilatorLintSixDims: generated 6-D designs, both fabrics, are clean
// under Verilator -Wall (hx_top's K4, K5, C4, C5 and the 6-D link vectors;
// Icarus compiles them in testbench.TestCosimSixDims). Only with
// HXBAR_FULL_MATRIX (make bench): on a loaded 2-core machine Verilator
// had not ended within the 10-minute guard on the 96-node hyper-crossbar,
// and had taken 10 GB and half an hour without ending on the torus (96
// 25-port routers). make test lints 5-D and 6-D tiles on their own
// (TestTileLintStandalone, TestRtileLintStandalone).
func TestVerilatorLintSixDims(t *testing.T) {
	if os.Getenv("HXBAR_FULL_MATRIX") == "" {
		t.Skip("make bench runs it (HXBAR_FULL_MATRIX): whole 6-D designs take Verilator many minutes")
	}
	t.Parallel()
	vl := needTool(t, "verilator")
	for _, sys := range []hw.System{
		testSystem("hyper2x2x2x2x3x2-sum", []int{2, 2, 2, 2, 3, 2}, func(s *hw.System) { s.Op = "sum" }),
		testSystem("torus2x2x2x2x3x2", []int{2, 2, 2, 2, 3, 2}, func(s *hw.System) {
			s.Topology, s.Wrap = hw.TopoTorus, []bool{false, false, false, false, true, false}
		}),
	} {
		t.Run(sys.Name, func(t *testing.T) {
			t.Parallel()
			dir, m := generate(t, build(t, sys, nil))
			out, err := run(t, dir, 10*time.Minute, vl, append([]string{"--lint-only", "-Wall", "--top-module", TopModule}, m.Sources...)...)
			if err != nil || out != "" {
				t.Errorf("verilator --lint-only -Wall (%v):\n%s", err, out)
			}
		})
	}
}
