package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/verilog/synth"
)

// needYosys skips without Yosys, unless CI is set (then it fails).
func needYosys(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("yosys"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("yosys not installed")
		}
		t.Fatal("yosys not installed and CI is set")
	}
}

// TestSynthJSONContract synthesizes a 2-node design (a few seconds) and
// checks the JSON contract of docs/area.md.
func TestSynthJSONContract(t *testing.T) {
	needYosys(t)
	code, out, errs := hx(t, "synth", "--dims", "2", "--flit-width", "32", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	type figures struct {
		Module     *string `json:"module"`
		Label      string  `json:"label"`
		Instances  *int    `json:"instances"`
		Cells      *int    `json:"cells"`
		Flops      *int    `json:"flops"`
		MemoryBits *int    `json:"memory_bits"`
		Depth      *int    `json:"depth"`
	}
	var rep struct {
		System  string    `json:"system"`
		Modules []figures `json:"modules"`
		Total   *figures  `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if want := "hyperxbar-2-butterfly-barrier"; rep.System != want {
		t.Errorf("system %q, want %q (the title of the system synthesized)", rep.System, want)
	}
	if rep.Total == nil || rep.Total.Instances == nil || rep.Total.Cells == nil || rep.Total.Flops == nil || rep.Total.MemoryBits == nil || rep.Total.Depth == nil {
		t.Fatalf("total lacks a key:\n%s", out)
	}
	var inst, cells, flops, bits, topDepth int
	seen := map[string]int{}
	for _, m := range rep.Modules {
		if m.Module == nil || m.Instances == nil || m.Cells == nil || m.Flops == nil || m.MemoryBits == nil || m.Depth == nil {
			t.Fatalf("a module lacks a key:\n%s", out)
		}
		seen[*m.Module] += *m.Instances
		inst += *m.Instances
		cells += *m.Instances * *m.Cells
		flops += *m.Instances * *m.Flops
		bits += *m.Instances * *m.MemoryBits
		if *m.Module == "hx_top" {
			topDepth = *m.Depth
		}
	}
	tot := rep.Total
	if *tot.Instances != inst || *tot.Cells != cells || *tot.Flops != flops || *tot.MemoryBits != bits || *tot.Depth != topDepth {
		t.Errorf("total %d instances, %d cells, %d flops, %d memory bits, depth %d; modules: %d, %d, %d, %d, hx_top depth %d",
			*tot.Instances, *tot.Cells, *tot.Flops, *tot.MemoryBits, *tot.Depth, inst, cells, flops, bits, topDepth)
	}
	// The exchangers and the crossbar are variants of hx_switch: labelled
	// by the parameter they differ in (MODE; both have 2 ports), not by Yosys's hash.
	labels := map[string]int{}
	for _, m := range rep.Modules {
		labels[m.Label] += *m.Instances
	}
	if labels["hx_switch[MODE=0]"] != 2 || labels["hx_switch[MODE=1]"] != 1 || labels["hx_top"] != 1 {
		t.Errorf("labels %v, want 2 hx_switch[MODE=0], 1 hx_switch[MODE=1], 1 hx_top", labels)
	}
	if seen["hx_switch"] != 3 || seen["hx_barrier_unit"] != 2 || seen["hx_top"] != 1 {
		t.Errorf("instances %v, want 3 hx_switch, 2 hx_barrier_unit, 1 hx_top", seen)
	}
	if *tot.Flops <= 0 || *tot.Cells <= *tot.Flops || *tot.Depth <= 0 {
		t.Errorf("total %d cells, %d flops, depth %d", *tot.Cells, *tot.Flops, *tot.Depth)
	}
}

// TestSynthDirTable synthesizes a directory written by gen, as a table.
func TestSynthDirTable(t *testing.T) {
	needYosys(t)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "2", "--flit-width", "16"); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	code, out, errs := hx(t, "synth", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if first, _, _ := strings.Cut(out, "\n"); first != `system "hyperxbar-2-butterfly-barrier"` {
		t.Errorf("first line %q, want the system of DIR/system.yaml", first)
	}
	for _, want := range []string{"module", "hx_barrier_unit", "hx_switch", "total", "memory_bits", "depth"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// No files of Yosys's are left in the directory.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".json") && e.Name() != "hxbar-manifest.json" || strings.HasSuffix(e.Name(), ".log") {
			t.Errorf("synth left %s in the directory", e.Name())
		}
	}
}

// TestSynthDefaultClean: the default 4x4 design (hxbar gen without flags)
// synthesizes with no table file present: Yosys's synth -top hx_top and
// check -assert pass (hxbar synth's script runs both) without a single
// warning, and the tables are memories ($mem_v2 cells): every memory bit
// of the design is in an hx_mem_1r1w (docs/rtl.md, "Memories"), four in
// each unit (gate, route, the receive RAM's two copies) and one in each
// FIFO. This is the synthesis check of 'make test' (issue 8); it takes
// about 15 s.
func TestSynthDefaultClean(t *testing.T) {
	needYosys(t)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := hx(t, "gen", "--out", dir); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	hex, _ := filepath.Glob(filepath.Join(dir, "*.hex"))
	for _, f := range hex {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := synth.Run(context.Background(), dir, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) > 0 {
		t.Errorf("%d Yosys warnings:\n%s", len(rep.Warnings), strings.Join(rep.Warnings, "\n"))
	}
	units, mems, fifos, bits := 0, 0, 0, 0
	for _, m := range rep.Modules {
		switch m.Module {
		case "hx_barrier_unit":
			units += m.Instances
		case "hx_mem_1r1w":
			mems += m.Instances
			bits += m.Instances * m.MemoryBits
			if m.MemoryBits == 0 {
				t.Errorf("%s without memory bits: %+v", m.Label, m)
			}
		case "hx_fifo":
			fifos += m.Instances
		}
		if m.Module != "hx_mem_1r1w" && m.MemoryBits != 0 {
			t.Errorf("%s has %d memory bits outside hx_mem_1r1w", m.Label, m.MemoryBits)
		}
	}
	if units != 16 || rep.Total.Cells == 0 || bits != rep.Total.MemoryBits || bits == 0 {
		t.Errorf("%d barrier units, %d memory bits in hx_mem_1r1w, total %+v", units, bits, rep.Total)
	}
	if mems != 4*units+fifos {
		t.Errorf("%d hx_mem_1r1w, want 4 per unit (%d) and 1 per FIFO (%d)", mems, units, fifos)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.hex")); len(left) > 0 {
		t.Errorf("table files appeared: %v", left)
	}
}

func TestSynthUsageErrors(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xml"}, "invalid --format"},
		{[]string{"--dir", empty, "--dims", "2"}, "cannot be combined with --dir"},
		{[]string{"--dir", empty, "--keep"}, "--keep applies only without --dir"},
		{[]string{"--dir", filepath.Join(empty, "nosuch")}, "not a directory"},
		{[]string{"--dims", "2", "--flit-width", "8"}, "flit"},
		{[]string{"extra"}, "unexpected argument"},
		{[]string{"--dir", empty}, "no hx_sources.f"},
		{[]string{"--pnr", "ecp5"}, `invalid --pnr "ecp5": allowed: ice40`},
		{[]string{"--pnr="}, `invalid --pnr "": allowed: ice40`},
	} {
		code, _, errs := hx(t, append([]string{"synth"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("synth %v: exit %d, stderr %q, want exit 2 and one line with %q", c.args, code, errs, c.want)
		}
	}
}

// TestSynthNoYosys: without yosys on PATH, one line naming the package to
// install, exit 2.
func TestSynthNoYosys(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "2"); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	code, _, errs := hx(t, "synth", "--dir", dir)
	if code != 2 || !strings.Contains(errs, "apt-get install -y yosys") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestSynthYosysFails: RTL Yosys rejects is a failure (exit 1) naming the
// error.
func TestSynthYosysFails(t *testing.T) {
	needYosys(t)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "2", "--flit-width", "16"); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	if err := os.WriteFile(filepath.Join(dir, "hx_top.v"), []byte("module hx_top(input a); assign b = ; endmodule\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := hx(t, "synth", "--dir", dir)
	if code != 1 || !strings.Contains(errs, "yosys failed") || !strings.Contains(errs, "ERROR") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestSynthProgress: a run reports its progress on the Progress writer.
func TestSynthProgress(t *testing.T) {
	needYosys(t)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "2", "--flit-width", "16"); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	var progress strings.Builder
	rep, err := synth.Run(context.Background(), dir, synth.Options{Progress: &progress, Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total.Cells == 0 || !strings.Contains(progress.String(), "synth: ") || !strings.Contains(progress.String(), "step ") {
		t.Errorf("total %+v, progress:\n%s", rep.Total, progress.String())
	}
}

// TestSynthCancel: a cancelled run stops Yosys and says so.
func TestSynthCancel(t *testing.T) {
	needYosys(t)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "2", "--flit-width", "16"); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := synth.Run(ctx, dir, synth.Options{})
	if err == nil || !strings.Contains(err.Error(), "yosys stopped") {
		t.Errorf("err = %v, want yosys stopped", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Run returned after %s, not when cancelled", d)
	}
}

// synth takes --avoid: the switches get the routing exception CAM (E = 2
// for n0.d0.up of a 2x2), whose registers show in their flops.
func TestSynthAvoid(t *testing.T) {
	needYosys(t)
	code, out, errs := hx(t, "synth", "--dims", "2,2", "--flit-width", "32", "--avoid", "n0.d0.up", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Modules []struct {
			Module    string `json:"module"`
			Instances int    `json:"instances"`
			Flops     int    `json:"flops"`
		} `json:"modules"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	n := 0
	for _, m := range rep.Modules {
		if m.Module != "hx_switch" {
			continue
		}
		n += m.Instances
		// E = 2 entries of {valid, 2 address bits, a port of >= 1 bit}
		if m.Flops < 2*(1+2+1) {
			t.Errorf("hx_switch with %d flops: no room for 2 exception entries", m.Flops)
		}
	}
	if n != 8 {
		t.Errorf("%d hx_switch instances, want 8", n)
	}
}

// TestDesignDirOfAnotherTool: synth and cosim refuse a sweep's directory as
// --dir by its owner, not with advice to 'hxbar gen --out' it (gen refuses
// a sweep directory).
func TestDesignDirOfAnotherTool(t *testing.T) {
	d := t.TempDir()
	spec := filepath.Join(d, "s.yaml")
	os.WriteFile(spec, []byte("base: {dims: [2]}\nvary: {seed: [1]}\nmeasure: [cycles]\n"), 0o644)
	out := filepath.Join(d, "sw")
	if code, _, errs := hx(t, "sweep", spec, "--out", out); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errs)
	}
	for _, cmd := range []string{"synth", "cosim"} {
		code, _, errs := hx(t, cmd, "--dir", out)
		if code != 2 || !strings.Contains(errs, "is a sweep directory (hxbar sweep)") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%s --dir SWEEPDIR: exit %d, stderr %q, want exit 2 and one line naming the sweep directory", cmd, code, errs)
		}
	}
}

// needNextpnr skips without nextpnr-ice40, unless CI is set (then it fails).
func needNextpnr(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath(synth.Nextpnr); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("nextpnr-ice40 not installed (make deps)")
		}
		t.Fatal("nextpnr-ice40 not installed and CI is set (make deps)")
	}
}

// TestSynthNoNextpnr: --pnr ice40 without nextpnr-ice40 on PATH is one
// line saying to run make deps, exit 2, before any Yosys run.
func TestSynthNoNextpnr(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	code, _, errs := hx(t, "synth", "--dims", "2", "--pnr", "ice40")
	if code != 2 || !strings.Contains(errs, "nextpnr-ice40 not found: run 'make deps'") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestSynthPnR places and routes the smallest modules of a 2-node design
// (hx_credit, hx_fifo; hx_chan is wiring) on the iCE40-HX8K: each gets
// an Fmax and logic cells, the wrapper's flip-flops are counted, the rows
// not selected get nothing, and the table and JSON carry the figures
// (about 15 s of Yosys and 10 s of place and route on an idle machine).
func TestSynthPnR(t *testing.T) {
	needYosys(t)
	needNextpnr(t)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := hx(t, "gen", "--out", dir, "--dims", "2", "--flit-width", "16"); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errs)
	}
	small := map[string]bool{"hx_credit": true, "hx_fifo": true, "hx_chan": true, "hx_link": true}
	var progress strings.Builder
	rep, err := synth.Run(context.Background(), dir, synth.Options{PnR: "ice40", Progress: &progress,
		PnRModule: func(m synth.Module) bool { return small[m.Module] }})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Modules {
		p := m.Placement
		switch {
		case !small[m.Module]:
			if p != nil {
				t.Errorf("%s placed though not selected: %+v", m.Label, *p)
			}
		case m.Module == "hx_chan" || m.Module == "hx_link":
			// hx_link of a 1-cycle link without retry is hx_chan's wires:
			// wiring too (placing it, nextpnr had no clock to report).
			if p == nil || p.FmaxMHz != 0 || !strings.Contains(p.Note, "wiring only") {
				t.Errorf("%s: %+v", m.Label, p)
			}
		case p == nil || !p.Fits || p.FmaxMHz <= 0 || p.LogicCells <= 0 || p.LogicCells > 7680:
			t.Errorf("%s: placement %+v", m.Label, p)
		case m.Module == "hx_credit" && p.WrapperFlops != 3+2*1:
			// clk, rst, take, give in; ok out
			t.Errorf("hx_credit: %d wrapper flops, want 5", p.WrapperFlops)
		}
	}
	if rep.Total.Placement != nil {
		t.Errorf("the whole design placed though hx_top was not selected: %+v", *rep.Total.Placement)
	}
	if n := strings.Count(progress.String(), "synth: place and route"); n != 4 {
		t.Errorf("%d progress lines, want a start and an end for each of 2 modules:\n%s", n, progress.String())
	}
	var table strings.Builder
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "fmax_mhz logic_cells rams") || !strings.Contains(table.String(), "hx_chan: wiring only") {
		t.Errorf("table:\n%s", table.String())
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"fmax_mhz":`, `"logic_cells":`, `"rams":`} {
		if strings.Count(string(b), key) != 4 {
			t.Errorf("JSON has %d %s, want 4 (hx_credit, hx_fifo, hx_chan, hx_link):\n%s", strings.Count(string(b), key), key, b)
		}
	}
}

// TestSynthPnRFails: a nextpnr-ice40 that fails (here a stand-in that
// prints an ERROR line) is a failure, exit 1, naming the tool, the module
// and nextpnr's ERROR line; a design too large is not (TestOverflow).
func TestSynthPnRFails(t *testing.T) {
	needYosys(t)
	bin := t.TempDir()
	fake := "#!/bin/sh\necho 'ERROR: no BEL for this test' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, synth.Nextpnr), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	code, out, errs := hx(t, "synth", "--dims", "2", "--flit-width", "16", "--pnr", "ice40")
	if code != 1 || out != "" || !strings.Contains(errs, "nextpnr-ice40 failed on hx_alu (") || !strings.Contains(errs, "ERROR: no BEL for this test") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
