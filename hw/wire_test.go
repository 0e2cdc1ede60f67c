package hw

import (
	"testing"

	"pgregory.net/rapid"
)

// wireSystem draws a valid system: 1..4 dimensions of 2..9, flit width
// from the header up to 128, crc_bits 0 or 32.
func wireSystem(rt *rapid.T) *System {
	s := Default()
	s.Dims = make([]int, rapid.IntRange(1, 4).Draw(rt, "nd"))
	for k := range s.Dims {
		s.Dims[k] = rapid.IntRange(2, 9).Draw(rt, "d")
	}
	s.Ranks, s.Placement = 0, nil
	s.CRCBits = rapid.SampledFrom([]int{0, PacketCodeBits}).Draw(rt, "cb")
	s.FlitWidth = rapid.IntRange(max(16, s.HeaderBits()), 128).Draw(rt, "fw")
	if err := s.Validate(); err != nil {
		rt.Fatal(err)
	}
	return &s
}

// wireFlit draws a flit of s the model represents whole: a head to a node
// (or, rarely, to an address past the grid) with its fields in their
// widths and its upper bits within the flit; a payload flit with data
// within the flit's width.
func wireFlit(rt *rapid.T, s *System) Flit {
	w := s.Wire()
	dataMask := func(bits int) uint64 {
		if bits >= 64 {
			return ^uint64(0)
		}
		return 1<<uint(bits) - 1
	}
	f := Flit{Flags: FlitFlags(rapid.Bool().Draw(rt, "head"), rapid.Bool().Draw(rt, "tail")),
		CRC: uint32(rapid.Uint64Range(0, 1<<s.CRCBits-1).Draw(rt, "crc"))}
	if !f.Head() {
		f.Data = rapid.Uint64().Draw(rt, "data") & dataMask(s.FlitWidth)
		return f
	}
	f.Dst = int32(rapid.IntRange(0, s.Nodes()-1).Draw(rt, "dst"))
	f.Src = int32(rapid.IntRange(0, s.NumRanks()-1).Draw(rt, "src"))
	f.Gate = uint8(rapid.IntRange(0, 1<<GateBits-1).Draw(rt, "gate"))
	// Upper bits only below wire bit 64: a flipped head mark makes the
	// head a payload flit, of which the model keeps data bits 0..63
	// (Wire.Unmodelled), so a bit at 64 or above would not come back.
	f.Data = rapid.Uint64().Draw(rt, "upper") & dataMask(min(64, s.FlitWidth)-w.hdr)
	lo, hi := w.data(&f)
	w.setData(&f, true, lo, hi) // the canonical form (DstAddr set)
	return f
}

// Flipping a bit twice gives the flit back, for every bit of the wire
// the model keeps, and a flip changes exactly one wire bit.
func TestWireFlipIsAnInvolution(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := wireSystem(rt)
		w := s.Wire()
		f := wireFlit(rt, s)
		b := rapid.IntRange(0, w.Bits()-1).Draw(rt, "bit")
		if b >= 64 && b < s.FlitWidth {
			b -= 64 // the model keeps data bits 0..63 of a payload flit
		}
		g := f
		w.Flip(&g, b)
		lo0, hi0 := w.data(&f)
		lo1, hi1 := w.data(&g)
		diff := popcount(lo0^lo1) + popcount(hi0^hi1) + popcount(uint64(f.CRC^g.CRC)) + popcount(uint64(f.Flags^g.Flags))
		if b != w.headBit && diff != 1 {
			rt.Fatalf("bit %d of %+v: %+v differs in %d wire bits", b, f, g, diff)
		}
		w.Flip(&g, b)
		if g != f {
			rt.Fatalf("bit %d flipped twice: %+v, want %+v", b, g, f)
		}
	})
}

func popcount(v uint64) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}

// The head bit turns a payload flit into a head whose header is its data
// (dst_addr, src_rank, gate, then the upper bits), and back; an address
// past the grid gives Dst = NoNode with the address kept.
func TestWireHeadBit(t *testing.T) {
	s := Default()
	s.Dims, s.Ranks, s.Placement = []int{3, 3}, 0, nil
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	w := s.Wire() // AB = 2+2, RB = 4, header 14 bits; FW 64, CB 32: tail 96, head 97
	if w.TailBit() != 96 || w.HeadBit() != 97 || w.Bits() != 98 {
		t.Fatalf("tail %d head %d bits %d, want 96, 97, 98", w.TailBit(), w.HeadBit(), w.Bits())
	}
	// data: addr (c0 1, c1 2) = 0b1001, src 5, gate 3, upper 0x7.
	p := Flit{Data: 0x9 | 5<<4 | 3<<8 | 0x7<<14}
	w.Flip(&p, 97)
	if !p.Head() || p.Dst != 1+3*2 || p.Src != 5 || p.Gate != 3 || p.Data != 0x7 || p.DstAddr() != 1|2<<CoordField {
		t.Fatalf("payload with its head bit flipped: %+v", p)
	}
	w.Flip(&p, 97)
	if p.Head() || p.Data != 0x9|5<<4|3<<8|0x7<<14 {
		t.Fatalf("and back: %+v", p)
	}
	// c0 = 3: no node.
	p = Flit{Data: 0x3}
	w.Flip(&p, 97)
	if !p.Head() || p.Dst != NoNode || p.DstAddr() != 3 {
		t.Fatalf("a head past the grid: %+v", p)
	}
	w.Flip(&p, 1) // c0 = 1: node 1
	if p.Dst != 1 || p.DstAddr() != 1 {
		t.Fatalf("back in the grid: %+v", p)
	}
	w.Flip(&p, 96)
	if !p.Tail() {
		t.Fatalf("tail bit: %+v", p)
	}
}

// Field names a bit's field as docs/reliability.md, "Bits of a flit",
// lays them out.
func TestWireField(t *testing.T) {
	s := Default()
	w := s.Wire()
	ab, rb := s.AddrBits(), s.RankBits()
	for _, c := range []struct {
		bit  int
		head bool
		want string
	}{
		{0, true, "dst_addr"}, {ab - 1, true, "dst_addr"}, {ab, true, "src_rank"}, {ab + rb - 1, true, "src_rank"},
		{ab + rb, true, "gate"}, {ab + rb + GateBits - 1, true, "gate"}, {ab + rb + GateBits, true, "above the header"},
		{s.FlitWidth - 1, true, "above the header"}, {0, false, "data"}, {s.FlitWidth - 1, false, "data"},
		{s.FlitWidth, false, "check code"}, {w.TailBit() - 1, true, "check code"}, {w.TailBit(), false, "tail mark"},
		{w.HeadBit(), true, "head mark"},
	} {
		if got := w.Field(c.bit, c.head); got != c.want {
			t.Errorf("Field(%d, head %v) = %q, want %q", c.bit, c.head, got, c.want)
		}
	}
}
