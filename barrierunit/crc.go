package barrierunit

import "github.com/hxbar/hxbar/hw"

// The packet check code (docs/reliability.md, "Detection"): hw.PacketCode
// (CRC-32C; initial value 0, no reflection, no final XOR) over every flit
// of the packet in order, each flit's wire word {head, tail,
// data[FW-1:0]} (FW+2 bits, the check code's sideband left out) fed most
// significant bit first, so the control bits are covered with the data.
// The head flit's data is its header: dst_addr, src_rank, gate, then the
// bits above (0 when sent). The sender puts the code in the tail flit's
// sideband bits; the receiver recomputes it over what it received and
// compares at the tail. The RTL is hx_barrier_unit's crcf, with the same
// polynomial passed in by the generator (CRC_POLY).

// CheckCode computes packet check codes for one system: the field widths
// of the header and the flit width. It keeps the code of the packet each
// node is sending and receiving (the units' s_crc and r_crc registers),
// apart from rankState so that fault-free runs carry none of it.
type CheckCode struct {
	AddrOf   []uint64 // node -> packed address (dst_addr)
	AB, RB   int      // address and rank bits
	FW       int      // flit width
	code     hw.Code
	send, rx []uint32 // node -> code so far of the packet being sent, received
}

// NewCheckCode builds the check code of a system with the given packed
// node addresses (one per node), address bits, rank bits and flit width.
func NewCheckCode(addrOf []uint64, ab, rb, fw int) *CheckCode {
	return &CheckCode{AddrOf: addrOf, AB: ab, RB: rb, FW: fw, code: hw.PacketCode,
		send: make([]uint32, len(addrOf)), rx: make([]uint32, len(addrOf))}
}

// word feeds a flit's wire word, {head, tail, data} with data's bits 0..63
// in lo and 64..FW-1 in hi, into crc.
func (c *CheckCode) word(crc uint32, flags uint8, lo, hi uint64) uint32 {
	var ctl uint64
	if flags&hw.FlitHead != 0 {
		ctl = 2
	}
	if flags&hw.FlitTail != 0 {
		ctl |= 1
	}
	crc = c.code.Bits(crc, ctl, 2)
	return c.code.Word(crc, lo, hi, c.FW)
}

// Head feeds a head flit (destination node, source rank, gate, upper: the
// bits above the header; flags: its head and tail marks) into crc.
func (c *CheckCode) Head(crc uint32, flags uint8, dst int32, src int32, gate uint8, upper uint64) uint32 {
	return c.head(crc, flags, c.AddrOf[dst], src, gate, upper)
}

// head is Head for the head flit with address a (as the wire carries it).
func (c *CheckCode) head(crc uint32, flags uint8, a uint64, src int32, gate uint8, upper uint64) uint32 {
	h := c.AB + c.RB + hw.GateBits
	lo := a | uint64(uint32(src))<<c.AB | uint64(gate)<<(c.AB+c.RB)
	var hi uint64
	if h < 64 {
		lo |= upper << h
		hi = upper >> (64 - h)
	} else {
		hi = upper << (h - 64)
	}
	if c.FW < 128 && c.FW > 64 {
		hi &= 1<<(c.FW-64) - 1
	}
	if c.FW < 64 {
		lo &= 1<<c.FW - 1
		hi = 0
	}
	return c.word(crc, flags, lo, hi)
}

// Payload feeds a payload flit's data (the model's 64 bits; those above
// are 0) and marks into crc.
func (c *CheckCode) Payload(crc uint32, flags uint8, data uint64) uint32 {
	return c.word(crc, flags, data, 0)
}

// flit feeds f into crc, from 0 at a head.
func (c *CheckCode) flit(crc uint32, f *hw.Flit) uint32 {
	if f.Head() {
		return c.head(0, f.Flags, c.addr(f), f.Src, f.Gate, f.Data)
	}
	return c.Payload(crc, f.Flags, f.Data)
}

// Send feeds flit f, about to be sent by unit rs with its head and tail
// marks set, into its packet's code, and puts the code into a tail.
func (c *CheckCode) Send(rs *rankState, f *hw.Flit) {
	c.send[rs.node] = c.flit(c.send[rs.node], f)
	if f.Tail() {
		f.CRC = c.send[rs.node]
	}
}

// addr is head flit f's address on the wire: its node's, or, for a head
// whose address names no node (a flipped bit), the one it carries.
func (c *CheckCode) addr(f *hw.Flit) uint64 {
	if f.Dst == hw.NoNode {
		return f.DstAddr()
	}
	return c.AddrOf[f.Dst]
}

// Recv feeds flit f, popped by unit rs, into the code of the packet being
// received and, at the tail, reports whether the code it carries differs.
func (c *CheckCode) Recv(rs *rankState, f *hw.Flit) bool {
	c.rx[rs.node] = c.flit(c.rx[rs.node], f)
	return f.Tail() && c.rx[rs.node] != f.CRC
}
