//go:build !race

package noc

// Stores of the FIFO protocol that need no fence (see push and pop): on a
// normal build plain stores, so that a hop does not wait for its earlier
// stores (misses into the downstream's lines) to drain, as a locked
// instruction (Go's atomic store is XCHG on amd64) does. Their values are
// only consumed in a later cycle, after the engine's phase barrier, or are
// ordered by the occupancy word's atomic OR/AND that follows them, so the
// results do not depend on when another worker sees them. Under the race
// detector (publish_race.go) they are the sync/atomic operations, so that
// `go test -race` checks the protocol with every access declared.

// storeCycle writes a slot's free cycle.
func storeCycle(p *int64, v int64) { *p = v }

// bumpPushed counts a flit written into a FIFO (only its upstream writes
// the counter).
func bumpPushed(p *uint32) { *p++ }
