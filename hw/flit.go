package hw

// Flit is one flit as the model moves it. The RTL packs the same content into
// {head, tail, data[FW-1:0]} (see docs/microarchitecture.md); the model keeps
// the head fields unpacked and uses node ids, which map one-to-one onto the
// packed coordinate addresses.
type Flit struct {
	Data uint64   // payload chunk; for a traffic head flit, its creation cycle
	Dst  int32    // destination node id
	DstC [4]uint8 // destination coordinates, set by the network at injection (the RTL's packed address)
	Src  int32    // source rank (barrier) or node (traffic)
	Gate uint8    // gate the signal is delivered to
	Head bool
	Tail bool
	// CRC is the packet's check code (crc_bits 8), in sideband bits of the
	// tail flit (docs/reliability.md); 0 on other flits. It fills the
	// struct's padding: a Flit stays 24 bytes.
	CRC uint8
}
