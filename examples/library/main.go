// Command library builds a system, runs it and prints its latency: the
// example of the README's "Use hxbar from Go", kept equal to it by a test.
package main

import (
	"fmt"
	"log"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

func main() {
	sys := hw.Default()    // 4x4 hyper-crossbar, near-last butterfly barrier
	sys.Dims = []int{8, 8} // Ranks is 0: one rank on every node, 64 ranks
	sys.Op = hw.OpSum
	s, err := sim.Build(sys, nil) // validates sys; nil: the schedule sys.Algo names
	if err != nil {
		log.Fatal(err)
	}
	res, err := s.Run(sim.Options{})
	if err != nil {
		log.Fatal(err) // a *sim.StuckError or *sim.UnitError: the run did not complete
	}
	lat, _ := res.Latency() // ok is false only for an incomplete run
	fmt.Printf("%s: %d ranks, %d cycles, latency %d cycles\n", sys.Title(), res.Ranks, res.Cycles, lat)
}
