package verilog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// softMutants break one software control of hx_barrier_unit each
// (docs/registers.md, "Software control"): unit_soft_tb must fail every one.
var softMutants = []struct{ name, from, to string }{
	{"abort keeps the receive counts", "(w_abort ? {XDEP{1'b1}} : {XDEP{1'b0}})", "{XDEP{1'b0}}"},
	{"abort keeps cur", "wire [5:0] cur_nx = (w_ctrl || w_abort)", "wire [5:0] cur_nx = (w_ctrl)"},
	{"abort drops a half-sent packet", "drain <= fi_nx != FZERO;", "drain <= 1'b0;"},
	{"abort keeps a half-received packet", "wire pop      = ej_ready && !rx_skip;", "wire pop      = ej_ready;"},
	{"abort leaves a packet popped in its cycle open", "rx_open <= !rx_tail && !w_abort;", "rx_open <= !rx_tail;"},
	{"CTRL taken while finishing a packet in ERROR", "wire        w_ok    = w_any || (!busy && (", "wire        w_ok    = w_any || (!waiting && !drain && ("},
	{"WATCHDOG refused in WAIT", "wire        w_any   = r_wdog || ", "wire        w_any   = "},
	{"irq never rises", "irq_q <= |(ipend_nx & ien_nx);", "irq_q <= 1'b0;"},
	{"IRQ_STATUS does not clear", "(ipend & ~(w_ist ? pwdata[1:0] : 2'd0))", "ipend"},
	{"arrival in a CTRL write's cycle lost", "arr_q <= arr_in && arr_blk;", "arr_q <= 1'b0;"},
	{"held arrival takes the new operand", "wire [63:0] opd_in    = arr_q ? opd_q : operand;", "wire [63:0] opd_in    = operand;"},
	{"arrival during a drain", "wire        arr_blk   = w_ctrl || w_abort || drain ||", "wire        arr_blk   = w_ctrl || w_abort ||"},
	{"table words read 0", "rd_q <= rd_setup;", "rd_q <= 1'b0;"},
	{"high half commits on any low half", "wire        lo_ok   = wlo_v && wlo_a == paddr[30:3];", "wire        lo_ok   = wlo_v;"},
	{"staging reused", "wlo_v <= 1'b0;\n            if (w_ien)", "wlo_v <= 1'b1;\n            if (w_ien)"},
}

// runSoftTB compiles unit_soft_tb with unit as hx_barrier_unit.v and
// returns the simulation's output.
func runSoftTB(t *testing.T, iv, vvp, unit string) string {
	return runTB(t, iv, vvp, "unit_soft_tb.v", unit)
}

// runTB compiles the testbench verilog/rtl/test/<tb> with unit as
// hx_barrier_unit.v (and hx_barrier_node.v) and returns the simulation's
// output.
func runTB(t *testing.T, iv, vvp, tb, unit string) string {
	t.Helper()
	dir := t.TempDir()
	up := filepath.Join(dir, "hx_barrier_unit.v")
	if err := os.WriteFile(up, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	rtl, err := filepath.Abs("rtl")
	if err != nil {
		t.Fatal(err)
	}
	src := []string{filepath.Join(rtl, "test", tb), up}
	for _, f := range []string{"hx_alu.v", "hx_credit.v", "hx_fifo.v", "hx_mem_1r1w.v", "hx_barrier_node.v"} {
		src = append(src, filepath.Join(rtl, f))
	}
	out, err := run(t, dir, time.Minute, iv, append([]string{"-g2005", "-Wall", "-o", "tb.vvp"}, src...)...)
	if err != nil || out != "" {
		t.Fatalf("iverilog (%v):\n%s", err, out)
	}
	out, _ = run(t, dir, time.Minute, vvp, "-n", "tb.vvp")
	return strings.TrimSpace(out)
}

// TestUnitSoftControls runs unit_soft_tb on the library's unit (it must
// pass) and on each of softMutants (each must fail).
func TestUnitSoftControls(t *testing.T) {
	t.Parallel()
	iv, vvp := needTool(t, "iverilog"), needTool(t, "vvp")
	src, err := os.ReadFile(filepath.Join("rtl", "hx_barrier_unit.v"))
	if err != nil {
		t.Fatal(err)
	}
	unit := string(src)
	if out := runSoftTB(t, iv, vvp, unit); out != "unit_soft_tb: PASS" {
		t.Fatalf("unit_soft_tb on the library's unit:\n%s", out)
	}
	for _, m := range softMutants {
		t.Run(m.name, func(t *testing.T) {
			if strings.Count(unit, m.from) != 1 {
				t.Fatalf("mutant %q: %q occurs %d times in hx_barrier_unit.v", m.name, m.from, strings.Count(unit, m.from))
			}
			if out := runSoftTB(t, iv, vvp, strings.Replace(unit, m.from, m.to, 1)); strings.Contains(out, "PASS") {
				t.Errorf("mutant %q passes unit_soft_tb", m.name)
			}
		})
	}
}

// TestNodeAPB runs node_apb_tb (hx_barrier_node's port: channel select, a
// busy channel, NORANK, a WATCHDOG write in WAIT, the node's irq).
func TestNodeAPB(t *testing.T) {
	t.Parallel()
	iv, vvp := needTool(t, "iverilog"), needTool(t, "vvp")
	src, err := os.ReadFile(filepath.Join("rtl", "hx_barrier_unit.v"))
	if err != nil {
		t.Fatal(err)
	}
	if out := runTB(t, iv, vvp, "node_apb_tb.v", string(src)); out != "node_apb_tb: PASS" {
		t.Fatalf("node_apb_tb:\n%s", out)
	}
}

// TestUnitReadback runs unit_read_tb: a data unit's table words read back
// as written (data routes, expected messages, item-list words), and are
// refused while it waits.
func TestUnitReadback(t *testing.T) {
	t.Parallel()
	iv, vvp := needTool(t, "iverilog"), needTool(t, "vvp")
	src, err := os.ReadFile(filepath.Join("rtl", "hx_barrier_unit.v"))
	if err != nil {
		t.Fatal(err)
	}
	unit := string(src)
	if out := runTB(t, iv, vvp, "unit_read_tb.v", unit); out != "unit_read_tb: PASS" {
		t.Fatalf("unit_read_tb:\n%s", out)
	}
	// an item-list word read as the high half of a 64-bit word fails it
	m := strings.Replace(unit, "(hi && !in_il) ? tab_rd[63:32]", "hi ? tab_rd[63:32]", 1)
	if m == unit {
		t.Fatal("the item-list mutant matches nothing")
	}
	if out := runTB(t, iv, vvp, "unit_read_tb.v", m); strings.Contains(out, "PASS") {
		t.Error("unit_read_tb passes with item-list words read as high halves")
	}
}

// TestExpectedReadCollision runs unit_xread_tb: a read of an
// expected-message word set up in the cycle a data-mode head pops is
// refused (pslverr, prdata 0), one a cycle before or after is served with
// the word, and a data route read in that cycle is served. Serving the
// colliding read (it returns the head's gate's word) or refusing every
// table read in a pop's cycle fails it.
func TestExpectedReadCollision(t *testing.T) {
	t.Parallel()
	iv, vvp := needTool(t, "iverilog"), needTool(t, "vvp")
	src, err := os.ReadFile(filepath.Join("rtl", "hx_barrier_unit.v"))
	if err != nil {
		t.Fatal(err)
	}
	unit := string(src)
	if out := runTB(t, iv, vvp, "unit_xread_tb.v", unit); out != "unit_xread_tb: PASS" {
		t.Fatalf("unit_xread_tb:\n%s", out)
	}
	for _, m := range []struct{ name, from, to string }{
		{"colliding read served", " && !(in_e && e_hd)", ""},
		{"every table read refused at a head's pop", "!(in_e && e_hd)", "!e_hd"},
	} {
		if strings.Count(unit, m.from) != 1 {
			t.Fatalf("mutant %q: %q occurs %d times in hx_barrier_unit.v", m.name, m.from, strings.Count(unit, m.from))
		}
		if out := runTB(t, iv, vvp, "unit_xread_tb.v", strings.Replace(unit, m.from, m.to, 1)); strings.Contains(out, "PASS") {
			t.Errorf("mutant %q passes unit_xread_tb", m.name)
		}
	}
}
