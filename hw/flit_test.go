package hw

import (
	"testing"
	"unsafe"
)

// The model moves millions of flits: nothing but the 32-bit check code may
// grow them (the FIFOs keep them packed, noc's flitBody).
func TestFlitSize(t *testing.T) {
	if n := unsafe.Sizeof(Flit{}); n != 32 {
		t.Fatalf("hw.Flit is %d bytes, want 32", n)
	}
}

// The packed fields do not disturb each other: the 36 coordinate bits, the
// check code and the head/tail marks each keep their value.
func TestFlitPackedFields(t *testing.T) {
	const addr = 1<<(CoordField*MaxDims) - 1
	for _, ht := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		f := Flit{Gate: 1<<GateBits - 1, CRC: 0xa5c3_1e07, Flags: FlitFlags(ht[0], ht[1])}
		f.SetDstAddr(addr)
		if f.Head() != ht[0] || f.Tail() != ht[1] || f.DstAddr() != addr || f.CRC != 0xa5c3_1e07 || f.Gate != 1<<GateBits-1 {
			t.Fatalf("head %v tail %v: got %+v", ht[0], ht[1], f)
		}
		f.SetHead(!ht[0])
		f.SetTail(!ht[1])
		if f.Head() == ht[0] || f.Tail() == ht[1] || f.DstAddr() != addr || f.CRC != 0xa5c3_1e07 || f.Flags&^(FlitHead|FlitTail) != 0 {
			t.Fatalf("head %v tail %v flipped: got %+v", ht[0], ht[1], f)
		}
	}
}
