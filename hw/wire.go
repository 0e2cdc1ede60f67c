package hw

import "fmt"

// Wire is the bit layout of a flit on a channel of one system, the RTL's
// flit vector {head, tail, crc[CB-1:0], data[FW-1:0]}
// (docs/microarchitecture.md, "Packets and flits"): bits 0..FW-1 data,
// FW..FW+CB-1 the check code (CB = crc_bits), FW+CB the tail mark, FW+CB+1
// the head mark. A fault's flip:CHANNEL@CYCLE:BIT numbers the bits so.
//
// A head flit's data is dst_addr (AB bits, coordinate k in CoordBits()[k]
// bits), src_rank (RB bits), gate (GateBits), then the bits above the
// header, which the model keeps in the head's Data (bit j of Data is data
// bit HeaderBits+j); a payload flit's data is its Data (the model keeps
// data bits 0..63). A head whose address names no node (a coordinate at or
// past its dimension's size) has Dst = NoNode.
type Wire struct {
	dims, cb         []int
	ab, rb, hdr, fw  int
	crc              int
	headBit, tailBit int
}

// Wire returns the flit layout of s.
func (s *System) Wire() *Wire {
	w := &Wire{dims: s.Dims, cb: s.CoordBits(), ab: s.AddrBits(), rb: s.RankBits(),
		hdr: s.HeaderBits(), fw: s.FlitWidth, crc: s.CRCBits}
	w.tailBit = w.fw + w.crc
	w.headBit = w.tailBit + 1
	return w
}

// Bits is the number of bits of a flit on the wire: FW + CB + 2.
func (w *Wire) Bits() int { return w.headBit + 1 }

// Unmodelled reports whether the model cannot flip wire bit b: data bits
// 64..FW-1 of a flit wider than 64 bits, since the model carries 64 data
// bits of a payload flit (the RTL carries them all and its check code
// covers them; a flip there would differ from it).
func (w *Wire) Unmodelled(b int) bool { return b >= 64 && b < w.fw }

// Modelled is the number of wire bits the model can flip; ModelledBit maps
// 0..Modelled()-1 onto them in order.
func (w *Wire) Modelled() int { return w.Bits() - max(0, w.fw-64) }

// ModelledBit is the i-th wire bit the model can flip.
func (w *Wire) ModelledBit(i int) int {
	if i >= 64 && w.fw > 64 {
		return i + w.fw - 64
	}
	return i
}

// BitsAllowed describes the bits a flip may name, for messages.
func (w *Wire) BitsAllowed() string {
	return fmt.Sprintf("a bit 0..%d (0..%d data, %s%d tail, %d head)", w.headBit, w.fw-1,
		crcRange(w.fw, w.crc), w.tailBit, w.headBit)
}

func crcRange(fw, cb int) string {
	if cb == 0 {
		return ""
	}
	return fmt.Sprintf("%d..%d check code, ", fw, fw+cb-1)
}

// NoNode is the Dst of a head flit whose address names no node: its
// DstAddr then holds dst_addr as the wire carries it (AB bits, coordinate
// k in CoordBits()[k] bits), not the coordinates of a node.
const NoNode int32 = -1

// Flip inverts wire bit b (0..Bits()-1) of fl. Flipping the head mark
// makes a payload flit a head whose header is its data, or a head a
// payload flit whose data is its header; the model keeps 64 data bits of a
// payload flit and the 64 bits above the header of a head.
func (w *Wire) Flip(fl *Flit, b int) {
	lo, hi := w.data(fl)
	head := fl.Head()
	switch {
	case b < 64 && b < w.fw:
		lo ^= 1 << uint(b)
	case b < w.fw:
		hi ^= 1 << uint(b-64)
	case b < w.tailBit:
		fl.CRC ^= 1 << uint(b-w.fw)
	case b == w.tailBit:
		fl.SetTail(!fl.Tail())
	case b == w.headBit:
		head = !head
	}
	w.setData(fl, head, lo, hi)
}

// data is fl's FW data bits (lo: 0..63, hi: 64..127).
func (w *Wire) data(fl *Flit) (lo, hi uint64) {
	if !fl.Head() {
		return fl.Data, 0
	}
	var a uint64
	if fl.Dst < 0 {
		a = fl.DstAddr()
	} else {
		v, shift := int(fl.Dst), 0
		for k, d := range w.dims {
			a |= uint64(v%d) << shift
			v /= d
			shift += w.cb[k]
		}
	}
	lo = a
	lo, hi = or128(lo, hi, uint64(uint32(fl.Src)), w.ab)
	lo, hi = or128(lo, hi, uint64(fl.Gate), w.ab+w.rb)
	lo, hi = or128(lo, hi, fl.Data, w.hdr)
	return w.mask(lo, hi)
}

// or128 is (lo, hi) | v << s, s < 128.
func or128(lo, hi, v uint64, s int) (uint64, uint64) {
	if s >= 64 {
		return lo, hi | v<<uint(s-64)
	}
	if s == 0 {
		return lo | v, hi
	}
	return lo | v<<uint(s), hi | v>>uint(64-s)
}

// field is bits s..s+n-1 (n <= 64) of (lo, hi).
func field(lo, hi uint64, s, n int) uint64 {
	var v uint64
	switch {
	case s >= 64:
		v = hi >> uint(s-64)
	case s == 0:
		v = lo
	default:
		v = lo>>uint(s) | hi<<uint(64-s)
	}
	if n < 64 {
		v &= 1<<uint(n) - 1
	}
	return v
}

// mask keeps the FW data bits.
func (w *Wire) mask(lo, hi uint64) (uint64, uint64) {
	switch {
	case w.fw < 64:
		return lo & (1<<w.fw - 1), 0
	case w.fw < 128:
		return lo, hi & (1<<(w.fw-64) - 1)
	}
	return lo, hi
}

// setData makes fl a head (head) or a payload flit carrying data bits
// lo, hi.
func (w *Wire) setData(fl *Flit, head bool, lo, hi uint64) {
	fl.SetHead(head)
	if !head {
		fl.Data, fl.Dst, fl.Src, fl.Gate = lo, 0, 0, 0
		fl.SetDstAddr(0)
		return
	}
	a := field(lo, hi, 0, w.ab)
	node, stride, shift := 0, 1, 0
	var packed uint64
	in := true
	for k, d := range w.dims {
		c := int(a>>uint(shift)) & (1<<w.cb[k] - 1)
		in = in && c < d
		node += c * stride
		packed |= uint64(c) << (CoordField * k)
		stride *= d
		shift += w.cb[k]
	}
	if in {
		fl.Dst = int32(node)
		fl.SetDstAddr(packed)
	} else {
		fl.Dst = NoNode
		fl.SetDstAddr(a)
	}
	fl.Src = int32(field(lo, hi, w.ab, w.rb))
	fl.Gate = uint8(field(lo, hi, w.ab+w.rb, GateBits))
	fl.Data = field(lo, hi, w.hdr, 64)
}

// TailBit is the wire bit of the tail mark: FW + CB.
func (w *Wire) TailBit() int { return w.tailBit }

// HeadBit is the wire bit of the head mark: FW + CB + 1.
func (w *Wire) HeadBit() int { return w.headBit }

// CutTail makes head fl the cut tail a switch sends to end the packet
// open at its input (docs/microarchitecture.md, "Illegal flits"): the
// same wire bits with the head bit 0 and the tail bit 1, so its data is
// the head's header.
func (w *Wire) CutTail(fl *Flit) {
	lo, hi := w.data(fl)
	w.setData(fl, false, lo, hi)
	fl.SetTail(true)
}

// Field names the field wire bit b falls in on a head flit (head) or any
// other flit, for messages: dst_addr, src_rank, gate, above the header,
// data, check code, tail mark or head mark.
func (w *Wire) Field(b int, head bool) string {
	switch {
	case b == w.headBit:
		return "head mark"
	case b == w.tailBit:
		return "tail mark"
	case b >= w.fw:
		return "check code"
	case !head:
		return "data"
	case b < w.ab:
		return "dst_addr"
	case b < w.ab+w.rb:
		return "src_rank"
	case b < w.ab+w.rb+GateBits:
		return "gate"
	}
	return "above the header"
}
