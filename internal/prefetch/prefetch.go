// Package prefetch asks the CPU to bring cache lines in ahead of use. The
// cycle model is memory-latency bound at scale (each component evaluation
// is a few cache misses into gigabytes of state); the engine walks the
// elements of a cycle in a known order, so it can ask for the lines of the
// elements a few places ahead while it evaluates the current one, and the
// misses overlap instead of following one another.
//
// A prefetch is only a hint: it never faults and changes no state, so the
// model's results do not depend on it. Under the race detector it does
// nothing (Enabled is false), since finding the addresses reads state that
// other workers may be writing.
package prefetch

import "unsafe"

// Line is the cache-line size the callers step by.
const Line = 64

// Lines prefetches the cache lines covering the n > 0 bytes from p (at
// most max lines). Every address it forms lies within those bytes.
func Lines(p unsafe.Pointer, n uintptr, max int) {
	if !Enabled {
		return
	}
	lines := int((uintptr(p)&(Line-1) + n + Line - 1) / Line)
	for i := 0; i < lines && i < max; i++ {
		off := uintptr(i) * Line
		if i > 0 {
			off -= uintptr(p) & (Line - 1) // the start of line i
		}
		T0(unsafe.Add(p, off))
	}
}
