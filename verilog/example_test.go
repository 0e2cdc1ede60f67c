package verilog_test

import (
	"fmt"
	"os"
	"slices"

	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/verilog"
)

// Generate writes the RTL of a system: the hand-written library and the
// generated top level (m.Sources), the parameters, one routing table per
// switch (two exchangers and one crossbar here), one gate table per node,
// the system file, and a manifest of them all.
func ExampleGenerate() {
	sys := hw.Default()
	sys.Dims, sys.Ranks = []int{2}, 0   // a 2-node hyper-crossbar
	d, err := design.New(sys, nil, nil) // the model (sim.Build) runs the same design
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
	m, err := verilog.Generate(dir, d)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("top module:", m.Top)
	fmt.Println("files:", len(m.Files))
	for _, f := range m.Files {
		if !slices.Contains(m.Sources, f) { // the tables, parameters and system

			fmt.Println(f)
		}
	}
	// Output:
	// top module: hx_top
	// files: 25
	// gt_n0.hex
	// gt_n1.hex
	// hx_params.vh
	// rt_s0.hex
	// rt_s1.hex
	// rt_s2.hex
	// system.yaml
}
