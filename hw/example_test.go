package hw_test

import (
	"fmt"

	"github.com/hxbar/hxbar/hw"
)

// Load reads and validates a system file; every key the file leaves out
// keeps its default (hw.Default).
func ExampleLoad() {
	s, err := hw.Load("../examples/default-4x4.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Title())
	fmt.Println(s.Topology, s.Dims, s.Nodes(), "nodes,", s.NumRanks(), "ranks")
	fmt.Println(s.Algo, s.Op, "link latency", s.LinkLatency, "buffers", s.BufferDepth)
	// Output:
	// hyperxbar-4x4-butterfly-barrier
	// hyperxbar [4 4] 16 nodes, 16 ranks
	// butterfly barrier link latency 1 buffers 4
}
