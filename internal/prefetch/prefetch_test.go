package prefetch

import (
	"testing"
	"unsafe"
)

// TestLines asks for lines over every start offset and length within a
// buffer, up to its last byte: a prefetch never faults, and Lines forms
// no address outside the bytes it was given.
func TestLines(t *testing.T) {
	buf := make([]byte, 4*Line)
	for off := 0; off < 2*Line; off++ {
		for n := 1; off+n <= len(buf); n += 7 {
			Lines(unsafe.Pointer(&buf[off]), uintptr(n), 8)
		}
	}
	T0(unsafe.Pointer(&buf[len(buf)-1]))
}
