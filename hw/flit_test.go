package hw

import (
	"testing"
	"unsafe"
)

// The model moves millions of flits: the check code must not grow them.
func TestFlitSize(t *testing.T) {
	if n := unsafe.Sizeof(Flit{}); n != 24 {
		t.Fatalf("hw.Flit is %d bytes, want 24", n)
	}
}
