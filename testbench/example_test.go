package testbench_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/testbench"
	"github.com/hxbar/hxbar/verilog"
)

// Cosim checks a generated design against the model, cycle by cycle: here
// the barrier of two ranks on a 2-node hyper-crossbar, written as 'hxbar
// gen' writes it (the design, then the testbench with the model's trace as
// its expectation) and simulated with Icarus Verilog.
func ExampleCosim() {
	sys := hw.Default()
	sys.Name, sys.Dims, sys.Ranks = "example", []int{2}, 0
	s, trace, _, err := testbench.RunModel(sys)
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "hxbar-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if _, err := verilog.Generate(dir, s.Design); err != nil {
		fmt.Println(err)
		return
	}
	if err := testbench.Generate(dir, s.Design, trace); err != nil {
		fmt.Println(err)
		return
	}
	rep, err := testbench.Cosim(context.Background(), dir, testbench.Icarus)
	if err != nil {
		fmt.Println(err) // e.g. a *ToolError when iverilog is missing
		return
	}
	fmt.Println(rep.Summary())
	// Output:
	// RTL matches the model, cycle-exact: system "example", 8 events over 45 cycles (icarus)
}
