package noc

import (
	"fmt"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
)

// tableCache keeps the full routing-table sets of recently used topologies,
// keyed by their dimensions: the Verilog writer, the checker and repeated
// co-simulations of one system ask for the same tables many times.
var tableCache = sync.OnceValue(func() *lru.Cache[string, [][]uint8] {
	c, err := lru.New[string, [][]uint8](16)
	if err != nil {
		panic(err) // only for a non-positive size, a constant here
	}
	return c
})

// MaxCachedNodes bounds the topologies whose table sets are cached (a set
// holds sum(Kk) + Kk bytes per switch).
const MaxCachedNodes = 1 << 16

// Tables returns the routing table of every switch (index = switch id),
// from a cache shared by all topologies of the same dimensions. The result
// is shared: callers must not modify it (Table returns a fresh copy).
func (t *Topology) Tables() [][]uint8 {
	key := fmt.Sprint(t.Dims)
	if t.Nodes <= MaxCachedNodes {
		if tabs, ok := tableCache().Get(key); ok {
			return tabs
		}
	}
	tabs := make([][]uint8, t.Switches)
	for s := range tabs {
		tabs[s] = t.Table(s)
	}
	if t.Nodes <= MaxCachedNodes {
		tableCache().Add(key, tabs)
	}
	return tabs
}
