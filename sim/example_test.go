package sim_test

import (
	"fmt"
	"os"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// Two ranks on a 2-node hyper-crossbar: every event of the barrier, one line
// each, in the format the RTL testbench prints.
func ExampleSystem_Run() {
	sys := hw.Default()
	sys.Dims, sys.Ranks, sys.Skew, sys.Seed = []int{2}, 2, 4, 7
	s, err := sim.Build(sys, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := s.Run(sim.Options{Trace: os.Stdout})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("cycles:", res.Cycles)
	// Output:
	// 2 n0 arrive rank=0 value=0000000000000000
	// 2 n1 arrive rank=1 value=0000000000000000
	// 3 n0 send to=1 gate=2
	// 3 n1 send to=0 gate=2
	// 7 n0 recv from=1 gate=2 value=0000000000000000
	// 7 n1 recv from=0 gate=2 value=0000000000000000
	// 8 n0 release rank=0 value=0000000000000000
	// 8 n1 release rank=1 value=0000000000000000
	// cycles: 9
}
