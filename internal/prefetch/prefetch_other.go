//go:build !amd64 || race

package prefetch

import "unsafe"

// Enabled reports whether T0 does anything.
const Enabled = false

// T0 does nothing here (no prefetch instruction, or a race build).
func T0(p unsafe.Pointer) {}

// W does nothing here (no prefetch instruction, or a race build).
func W(p unsafe.Pointer) {}
