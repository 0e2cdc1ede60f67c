package hw

// Flit is one flit as the model moves it. The RTL packs the same content into
// {head, tail, data[FW-1:0]} plus the check code's sideband bits (see
// docs/microarchitecture.md and docs/reliability.md); the model keeps the
// head fields unpacked and uses node ids, which map one-to-one onto the
// packed coordinate addresses.
//
// A Flit is 32 bytes (hw/flit_test.go): the 32-bit packet check code
// grew it from 24 (docs/reliability.md, "Detection"). The network model
// keeps millions of them in its FIFOs packed into 12 bytes (noc's
// flitBody: the payload apart, a head's node id implied by its packed
// address, the check code apart and only in runs that compute it):
//
//	bytes  0..7   Data
//	bytes  8..11  Dst
//	bytes 12..15  Src
//	bytes 16..19  DstLo  destination coordinates, bits 0..31
//	bytes 20..23  CRC    the tail's check code
//	byte  24      DstHi  destination coordinates, bits 32..39 (MaxDims*CoordField = 36 used)
//	byte  25      Gate   (GateBits = 6 used)
//	byte  26      Flags  FlitHead | FlitTail (2 bits used)
//
// Read the head and tail marks with Head and Tail, set them with SetHead
// and SetTail (or Flags: FlitFlags(head, tail) in a composite literal).
type Flit struct {
	Data uint64 // payload chunk; for a traffic head flit, its creation cycle
	Dst  int32  // destination node id
	Src  int32  // source rank (barrier) or node (traffic)
	// DstLo and DstHi hold the destination's coordinates, set by the
	// network at injection (the RTL's packed address, here with a fixed
	// CoordField bits per dimension): coordinate k is bits
	// CoordField*k .. CoordField*k+CoordField-1 of DstHi<<32 | DstLo.
	// Split in two so that the packed fields share the last word; read
	// and set them with DstAddr and SetDstAddr.
	DstLo uint32
	// CRC is the packet's check code (crc_bits 32), in sideband bits of
	// the tail flit (docs/reliability.md); 0 on other flits.
	CRC   uint32
	DstHi uint8
	Gate  uint8 // gate the signal is delivered to
	// Flags holds the head (FlitHead) and tail (FlitTail) marks; the other
	// bits are 0.
	Flags uint8
}

// The marks of Flit.Flags.
const (
	FlitHead uint8 = 1 << iota // the packet's first flit (it carries the header)
	FlitTail                   // the packet's last flit (it carries the check code)
)

// FlitFlags returns the Flags of a flit that is the head and/or the tail
// of its packet.
func FlitFlags(head, tail bool) uint8 {
	var f uint8
	if head {
		f |= FlitHead
	}
	if tail {
		f |= FlitTail
	}
	return f
}

// Head reports whether f is its packet's head flit.
func (f Flit) Head() bool { return f.Flags&FlitHead != 0 }

// Tail reports whether f is its packet's tail flit.
func (f Flit) Tail() bool { return f.Flags&FlitTail != 0 }

// SetHead sets or clears f's head mark.
func (f *Flit) SetHead(head bool) {
	if head {
		f.Flags |= FlitHead
	} else {
		f.Flags &^= FlitHead
	}
}

// SetTail sets or clears f's tail mark.
func (f *Flit) SetTail(tail bool) {
	if tail {
		f.Flags |= FlitTail
	} else {
		f.Flags &^= FlitTail
	}
}

// CoordField is the width of one coordinate in Flit's packed destination:
// a coordinate is below MaxDimSize.
const CoordField = 6

// Compile-time ties: MaxDims coordinates of CoordField bits fit the 40 bits
// of DstHi:DstLo, and a coordinate below MaxDimSize fits CoordField bits.
const (
	_ = uint(40 - CoordField*MaxDims)
	_ = uint(1<<CoordField - MaxDimSize)
)

// DstAddr is the packed destination (DstHi:DstLo).
func (f *Flit) DstAddr() uint64 { return uint64(f.DstHi)<<32 | uint64(f.DstLo) }

// SetDstAddr sets the packed destination.
func (f *Flit) SetDstAddr(a uint64) { f.DstLo, f.DstHi = uint32(a), uint8(a>>32) }
