package synth

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// portsIL is Yosys 0.23's `dump */x:*` of hx_credit (B=4) and of a module
// with vector ports, trimmed: the wires come in reverse order.
const portsIL = `
attribute \dynports 1
module $paramod\hx_credit\B=s32'00000000000000000000000000000100

  parameter \B 4

  attribute \src "/tmp/d2/hx_credit.v:25.12-25.14"
  wire output 5 \ok

  wire input 4 \give
  wire input 3 \take
  wire input 2 \rst
  wire input 1 \clk

  connect \ok $ne$/tmp/d2/hx_credit.v:34$1502_Y
end

module \hx_alu
  wire width 64 output 3 \y
  wire width 3 offset 0 input 2 signed \op
  wire width 64 upto input 1 \a
end
`

func TestParsePorts(t *testing.T) {
	ports, err := ParsePorts(portsIL)
	if err != nil {
		t.Fatal(err)
	}
	credit := ports[`$paramod\hx_credit\B=s32'00000000000000000000000000000100`]
	var got []string
	for _, p := range credit {
		got = append(got, p.Dir+" "+p.Name)
	}
	if strings.Join(got, ",") != "input clk,input rst,input take,input give,output ok" {
		t.Errorf("hx_credit ports %v", got)
	}
	alu := ports["hx_alu"]
	if len(alu) != 3 || alu[0] != (Port{"a", 64, "input", 1}) || alu[1] != (Port{"op", 3, "input", 2}) || alu[2] != (Port{"y", 64, "output", 3}) {
		t.Errorf("hx_alu ports %+v", alu)
	}
	if _, err := ParsePorts("module \\m\n  wire width x input 1 \\a\nend\n"); err == nil {
		t.Error("no error for a width that is not a number")
	}
}

// TestWrapper: the clock goes to the wrapper's clock, every other input
// bit to one register of the shift chain, every output bit to a register
// and the signature register; the flip-flop count is NI + 2 NO.
func TestWrapper(t *testing.T) {
	v, flops, err := Wrapper([]Port{{"clk", 1, "input", 1}, {"rst", 1, "input", 2}, {"a", 3, "input", 3}, {"y", 5, "output", 4}, {"z", 1, "output", 5}})
	if err != nil {
		t.Fatal(err)
	}
	if flops != 4+2*6 {
		t.Errorf("%d flops, want 16", flops)
	}
	for _, want := range []string{
		"module hx_pnr_wrap (input clk, input si, output so);",
		"reg [3:0] in_q;", "in_q <= {in_q[2:0], si};",
		"reg [5:0] out_q, sig;", "out_q <= out_w;", "sig <= {sig[4:0], 1'b0} ^ out_q;", "assign so = sig[5];",
		"hx_pnr_dut dut (.clk(clk), .rst(in_q[0:0]), .a(in_q[3:1]), .y(out_w[4:0]), .z(out_w[5:5]));",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("wrapper lacks %q:\n%s", want, v)
		}
	}
	for _, bad := range [][]Port{
		{{"clk", 1, "input", 1}},                        // no output
		{{"a", 1, "inout", 1}, {"y", 1, "output", 2}},   // inout
		{{"a b", 1, "input", 1}, {"y", 1, "output", 2}}, // not a plain name
		{{"a", 0, "input", 1}, {"y", 1, "output", 2}},   // no width
		{{"a", 1, "input", 1}, {"y", 1, "sideways", 2}}, // unknown direction
	} {
		if _, _, err := Wrapper(bad); err == nil {
			t.Errorf("no error for %+v", bad)
		}
	}
}

// TestWrapperSimulates: the wrapper compiles under Icarus around a module
// that inverts its input, and the pin so carries the inputs shifted in at
// si through the module (a 1-bit module: so = !si three cycles later).
func TestWrapperSimulates(t *testing.T) {
	if _, err := exec.LookPath("iverilog"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("iverilog not installed")
		}
		t.Fatal("iverilog not installed and CI is set")
	}
	v, _, err := Wrapper([]Port{{"clk", 1, "input", 1}, {"a", 1, "input", 2}, {"y", 1, "output", 3}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tb := v + `module hx_pnr_dut(input clk, input a, output y); assign y = !a; endmodule
module tb; reg clk = 0, si = 0; wire so; integer i; reg [15:0] pat = 16'b1011001110001011;
  hx_pnr_wrap w(.clk(clk), .si(si), .so(so));
  initial begin
    for (i = 0; i < 16; i = i + 1) begin
      si = pat[i]; #1 clk = 1; #1 clk = 0;
      if (i >= 3 && so !== !pat[i-2]) begin $display("FAIL %0d so=%b", i, so); $finish; end
    end
    $display("PASS"); $finish;
  end
endmodule
`
	if err := os.WriteFile(filepath.Join(dir, "w.v"), []byte(tb), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("iverilog", "-o", filepath.Join(dir, "w.vvp"), filepath.Join(dir, "w.v")).CombinedOutput()
	if err != nil {
		t.Fatalf("iverilog: %v\n%s", err, out)
	}
	out, err = exec.Command("vvp", "-N", filepath.Join(dir, "w.vvp")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Errorf("vvp: %v\n%s", err, out)
	}
}

// A nextpnr-ice40 0.4 --report, trimmed: two clocks (the lower counts).
const pnrReportJSON = `{"critical_paths": [
 {"from": "<async>", "to": "posedge clk", "path": [{"delay": 9, "from": {"cell": "si$sb_io"}, "to": {"cell": "a"}, "type": "routing"}]},
 {"from": "posedge clk", "to": "posedge clk", "path": [
  {"delay": 0.54, "from": {"cell": "dut.q_DFFLC"}, "to": {"cell": "dut.q_DFFLC"}, "type": "clk-to-q"},
  {"delay": 0.588, "from": {"cell": "dut.q_DFFLC"}, "to": {"cell": "dut.x_LC"}, "type": "routing"},
  {"delay": 0.378, "from": {"cell": "dut.x_LC"}, "to": {"cell": "dut.x_LC"}, "type": "logic"},
  {"delay": 0.126, "from": {"cell": "dut.x_LC"}, "to": {"cell": "dut.x_LC"}, "type": "logic"},
  {"delay": 0.335, "from": {"cell": "dut.x_LC"}, "to": {"cell": "dut.acc_DFFLC"}, "type": "setup"}]}],
 "fmax": {"clk$SB_IO_IN_$glb_clk": {"achieved": 47.8149, "constraint": 12},
 "other": {"achieved": 60.1, "constraint": 12}},
 "utilization": {"ICESTORM_LC": {"available": 7680, "used": 1366}, "ICESTORM_RAM": {"available": 32, "used": 2},
 "SB_IO": {"available": 256, "used": 3}}}`

func TestParsePnRReport(t *testing.T) {
	pl, err := ParsePnRReport([]byte(pnrReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	cp := pl.Critical
	pl.Critical = nil
	if *pl != (Placement{FmaxMHz: 47.8, LogicCells: 1366, RAMs: 2, Fits: true}) {
		t.Errorf("%+v", *pl)
	}
	// The clock-to-clock path, not the longer one from the pin.
	if cp == nil || *cp != (CriticalPath{From: "dut.q_DFFLC", To: "dut.acc_DFFLC", Logic: 2, DelayNS: 1.97}) {
		t.Errorf("critical path %+v", cp)
	}
	for _, bad := range []string{"", `{"fmax": {}}`, `{"fmax": {"c": {"achieved": 5}}, "utilization": {}}`} {
		if _, err := ParsePnRReport([]byte(bad)); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

// TestOverflow: a design over the device's logic cells is a Placement
// that says so, with the cells it needs; one that fits is not.
func TestOverflow(t *testing.T) {
	log := "Info: Device utilisation:\nInfo: \t         ICESTORM_LC: 12472/ 7680   162%\nInfo: \t        ICESTORM_RAM:     0/   32     0%\n" +
		"Info: \t               SB_IO:     3/  256     1%\nERROR: Unable to place cell 'x'\n"
	pl := overflow(log)
	if pl == nil || pl.Fits || pl.LogicCells != 12472 || pl.FmaxMHz != 0 || !strings.Contains(pl.Note, "needs 12472 ICESTORM_LC of 7680") {
		t.Errorf("%+v", pl)
	}
	if pl := overflow(strings.Replace(log, "12472", "7000", 1)); pl != nil {
		t.Errorf("a design that fits: %+v", pl)
	}
}

// The placement's fields sit beside the module's in the JSON, and are
// absent without place and route.
func TestPlacementJSON(t *testing.T) {
	m := Module{Module: "hx_fifo", Placement: &Placement{FmaxMHz: 175.5, LogicCells: 424, Fits: true}}
	b, _ := json.Marshal(m)
	for _, want := range []string{`"module":"hx_fifo"`, `"fmax_mhz":175.5`, `"logic_cells":424`, `"rams":0`, `"fits":true`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	b, _ = json.Marshal(Module{Module: "hx_fifo"})
	if strings.Contains(string(b), "fmax_mhz") {
		t.Errorf("without placement: %s", b)
	}
}

func TestCheckPnR(t *testing.T) {
	for _, bad := range []string{"", "ecp5", "ICE40"} {
		err := CheckPnR(bad)
		if err == nil || !strings.Contains(err.Error(), "--pnr") || !strings.Contains(err.Error(), "allowed: ice40") {
			t.Errorf("CheckPnR(%q) = %v", bad, err)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if err := CheckPnR("ice40"); err != ErrNoNextpnr {
		t.Errorf("without nextpnr-ice40: %v", err)
	}
}

// TestReadLogTail: a tool's log is read from its end (where the ERROR
// line is), at most logTail bytes, and a directory in its place is refused.
func TestReadLogTail(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "yosys.log")
	body := strings.Repeat("x\n", logTail) + "ERROR: the last line\n"
	if err := os.WriteFile(log, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readLogTail(log)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != logTail || !strings.HasSuffix(string(got), "ERROR: the last line\n") {
		t.Errorf("read %d bytes ending %q, want the last %d", len(got), got[max(0, len(got)-30):], logTail)
	}
	sub := filepath.Join(dir, "nextpnr.log")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := readLogTail(sub); err == nil {
		t.Errorf("a directory was read as a log")
	}
}

// TestWithLogic: a module is placed when it or a submodule, at any depth,
// holds a cell or a memory bit. hx_link of a 1-cycle link without retry
// holds only hx_chan, whose wires synthesize to no cell: both are wiring
// (placing it made nextpnr report no clock, and --pnr ice40 on the
// default design stopped there).
func TestWithLogic(t *testing.T) {
	stat := map[string]StatModule{
		"hx_chan":     {CellsByType: map[string]int{}},
		"hx_link":     {Cells: 1, CellsByType: map[string]int{"hx_chan": 1}},
		"hx_fifo":     {Cells: 3, CellsByType: map[string]int{"$_DFF_P_": 3}},
		"hx_mem_1r1w": {MemoryBits: 64, CellsByType: map[string]int{}},
		"hx_wrap":     {Cells: 1, CellsByType: map[string]int{"hx_mem_1r1w": 1}},
		"hx_tile":     {Cells: 2, CellsByType: map[string]int{"hx_link": 1, "hx_fifo": 1}},
		"hx_links":    {Cells: 2, CellsByType: map[string]int{"hx_link": 2}},
	}
	want := map[string]bool{"hx_chan": false, "hx_link": false, "hx_fifo": true, "hx_mem_1r1w": true, "hx_wrap": true, "hx_tile": true, "hx_links": false}
	got := withLogic(stat)
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: logic = %v, want %v", name, got[name], w)
		}
	}
}

// TestPlacedVariant: a merged row is placed by its first variant with
// logic, so hx_link[L=1|2] is timed by its L = 2 variant, not skipped as
// wiring because its first (L = 1) variant is.
func TestPlacedVariant(t *testing.T) {
	logic := map[string]bool{"hx_link_l2": true}
	if y, ok := placedVariant([]string{"hx_link_l1", "hx_link_l2"}, logic); !ok || y != "hx_link_l2" {
		t.Errorf("placedVariant = %q, %v; want hx_link_l2, true", y, ok)
	}
	if y, ok := placedVariant([]string{"hx_chan_a", "hx_chan_b"}, logic); ok {
		t.Errorf("placedVariant of wiring variants = %q, true; want not placed", y)
	}
}
