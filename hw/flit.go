package hw

// Flit is one flit as the model moves it. The RTL packs the same content into
// {head, tail, data[FW-1:0]} (see docs/microarchitecture.md); the model keeps
// the head fields unpacked and uses node ids, which map one-to-one onto the
// packed coordinate addresses.
type Flit struct {
	Data uint64 // payload chunk; for a traffic head flit, its creation cycle
	Dst  int32  // destination node id
	Src  int32  // source rank (barrier) or node (traffic)
	// DstLo and DstHi hold the destination's coordinates, set by the
	// network at injection (the RTL's packed address, here with a fixed
	// CoordField bits per dimension): coordinate k is bits
	// CoordField*k .. CoordField*k+CoordField-1 of DstHi<<32 | DstLo.
	// Split in two so that a flit stays 24 bytes.
	DstLo uint32
	DstHi uint8
	Gate  uint8 // gate the signal is delivered to
	Head  bool
	Tail  bool
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
