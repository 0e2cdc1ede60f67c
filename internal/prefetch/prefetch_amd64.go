//go:build !race

package prefetch

import "unsafe"

// Enabled reports whether T0 does anything.
const Enabled = true

// T0 prefetches the cache line holding p into every cache level
// (PREFETCHT0).
//
//go:noescape
func T0(p unsafe.Pointer)

// W prefetches the cache line holding p for writing (PREFETCHW: the line
// comes in exclusive, so the store that follows needs no second request
// for ownership).
//
//go:noescape
func W(p unsafe.Pointer)
