package barrierunit

import "github.com/hxbar/hxbar/hw"

// The packet check code (docs/reliability.md, "Detection"): CRC-8 with
// polynomial x^8 + x^2 + x + 1 (0x07), initial value 0, no reflection, no
// final XOR (CRC-8/SMBUS), over every flit of the packet in order, each
// flit's FW data bits zero-extended to whole bytes and fed least
// significant byte first (each byte most significant bit first). The head
// flit's data is its header: dst_addr, src_rank, gate, then the bits above
// (0 when sent). The sender puts the code in the tail flit's sideband bits;
// the receiver recomputes it over what it received and compares at the
// tail.

var crc8Table = func() (t [256]uint8) {
	for i := range t {
		c := uint8(i)
		for range 8 {
			if c&0x80 != 0 {
				c = c<<1 ^ 0x07
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return
}()

// CRC8Word feeds a flit's data (lo: bits 0..63, hi: bits 64..127) of
// nbytes bytes into crc.
func CRC8Word(crc uint8, lo, hi uint64, nbytes int) uint8 {
	for i := 0; i < nbytes; i++ {
		var b uint8
		switch {
		case i < 8:
			b = uint8(lo >> (8 * i))
		case i < 16:
			b = uint8(hi >> (8 * (i - 8)))
		}
		crc = crc8Table[crc^b]
	}
	return crc
}

// CheckCode computes packet check codes for one system: the field widths
// of the header and the flit width.
type CheckCode struct {
	AddrOf []uint64 // node -> packed address (dst_addr)
	AB, RB int      // address and rank bits
	FW     int      // flit width
	nbytes int
}

// NewCheckCode builds the check code of a system with the given packed
// node addresses, address bits, rank bits and flit width.
func NewCheckCode(addrOf []uint64, ab, rb, fw int) *CheckCode {
	return &CheckCode{AddrOf: addrOf, AB: ab, RB: rb, FW: fw, nbytes: (fw + 7) / 8}
}

// Head feeds a head flit (destination node, source rank, gate, and upper,
// the bits above the header) into crc.
func (c *CheckCode) Head(crc uint8, dst int32, src int32, gate uint8, upper uint64) uint8 {
	return c.head(crc, c.AddrOf[dst], src, gate, upper)
}

// head is Head for the head flit with address a (as the wire carries it).
func (c *CheckCode) head(crc uint8, a uint64, src int32, gate uint8, upper uint64) uint8 {
	h := c.AB + c.RB + 6
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
	return CRC8Word(crc, lo, hi, c.nbytes)
}

// Payload feeds a payload flit's data into crc.
func (c *CheckCode) Payload(crc uint8, data uint64) uint8 {
	return CRC8Word(crc, data, 0, c.nbytes)
}

// Send feeds flit f, about to be sent by unit rs, into its packet's code.
func (c *CheckCode) Send(rs *rankState, f *hw.Flit) {
	if f.Head() {
		rs.sendCRC = c.head(0, c.addr(f), f.Src, f.Gate, f.Data)
	} else {
		rs.sendCRC = c.Payload(rs.sendCRC, f.Data)
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
	if f.Head() {
		rs.rxCRC = c.head(0, c.addr(f), f.Src, f.Gate, f.Data)
	} else {
		rs.rxCRC = c.Payload(rs.rxCRC, f.Data)
	}
	return f.Tail() && rs.rxCRC != f.CRC
}
