package design_test

import (
	"fmt"

	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
)

// New builds and validates a design once; the model (sim.Build), the
// Verilog generator and the testbench read the same one.
func ExampleNew() {
	sys := hw.Default()
	sys.Dims, sys.Ranks = []int{4}, 3
	sys.Placement = []int{3, 1, 0}
	d, err := design.New(sys, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	ep := d.Episode(1)
	fmt.Println("nodes:", d.Topo.Nodes, "switches:", d.Topo.Switches)
	fmt.Println("rank of each node:", d.RankOfNode())
	fmt.Println("episode 1:", ep.Sys.Algo, ep.Op, "gates", ep.Table.Gates)
	// Output:
	// nodes: 4 switches: 5
	// rank of each node: [2 1 -1 0]
	// episode 1: butterfly barrier gates 3
}
