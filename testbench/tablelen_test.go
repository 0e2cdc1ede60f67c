package testbench

import "testing"

// The simulators' warnings are picked out of a run's output: a PASS with
// any of them is not a pass, and Problem quotes the first in one line.
func TestRunWarnings(t *testing.T) {
	for _, c := range []struct {
		out  string
		want string // "" for a clean pass
	}{
		{"0 n0 arrive rank=0 value=0000000000000000\nPASS 1 events 1 cycles\n", ""},
		{"VCD info: dumpfile hx.vcd opened for output.\nPASS 1 events 1 cycles\n", ""},
		{"WARNING: hx_switch.v:90: $readmemh(rt_s4.hex): Too many words in the file for the requested range [0:5].\nPASS 1 events 1 cycles\n",
			"PASS 1 events 1 cycles, but the simulator warned: WARNING: hx_switch.v:90: $readmemh(rt_s4.hex): Too many words in the file for the requested range [0:5]."},
		{"WARNING: tb.v:1: $readmemh(expected.hex): Not enough words in the file for the requested range [0:9].\n" +
			"ERROR: hx_barrier_unit.v:3: $readmemh: Unable to open gt_n9.hex for reading.\nPASS 1 events 1 cycles\n",
			"PASS 1 events 1 cycles, but the simulator warned: WARNING: tb.v:1: $readmemh(expected.hex): Not enough words in the file for the requested range [0:9]. (and 1 more warning)"},
		{"%Warning: gt_n0.hex:7: $readmem file ended early\nPASS 1 events 1 cycles\n- tb.v:300: Verilog $finish\n",
			"PASS 1 events 1 cycles, but the simulator warned: %Warning: gt_n0.hex:7: $readmem file ended early"},
	} {
		res := &RunResult{Output: c.out}
		parseOutput(res)
		if got := res.Problem(); got != c.want || res.Passed() != (c.want == "") {
			t.Errorf("output %q:\nproblem %q (passed %v)\nwant    %q", c.out, got, res.Passed(), c.want)
		}
	}
}
