package noc_test

import (
	"fmt"

	"github.com/hxbar/hxbar/noc"
)

// The routing tables of a 4x4 hyper-crossbar, proved: every path reaches its
// destination in at most one crossbar per dimension, minimally, and the
// channel dependency graph is acyclic.
func ExampleTopology_Check() {
	t, _ := noc.NewTopology([]int{4, 4})
	fmt.Println("exchanger 5 table:", t.ExchangerTable(5))
	rep, err := t.Check(t.Table)
	fmt.Println(rep.Pairs, rep.MaxCrossbars, rep.Minimal, rep.Acyclic, err)
	// Output:
	// exchanger 5 table: [1 255 1 1 2 255 2 2]
	// 256 2 true true <nil>
}
