//go:build race

package noc

import "sync/atomic"

// storeCycle writes a slot's free cycle (publish_norace.go).
func storeCycle(p *int64, v int64) { atomic.StoreInt64(p, v) }

// bumpPushed counts a flit written into a FIFO (publish_norace.go).
func bumpPushed(p *uint32) { atomic.AddUint32(p, 1) }
