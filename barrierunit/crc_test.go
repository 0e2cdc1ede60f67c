package barrierunit

import (
	"math/rand/v2"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// wireBits feeds a flit's wire word {head, tail, data[fw-1:0]} into crc
// one Step at a time, most significant bit first: the RTL's loop.
func wireBits(crc uint32, head, tail bool, lo, hi uint64, fw int) uint32 {
	b := func(v bool) uint {
		if v {
			return 1
		}
		return 0
	}
	crc = hw.PacketCode.Step(crc, b(head))
	crc = hw.PacketCode.Step(crc, b(tail))
	for i := fw - 1; i >= 0; i-- {
		w := lo
		if i >= 64 {
			w = hi >> (i - 64)
		} else {
			w >>= i
		}
		crc = hw.PacketCode.Step(crc, uint(w&1))
	}
	return crc
}

// The model's code of a packet is hw.PacketCode stepped over the flits'
// wire words {head, tail, data}, the header packed as the RTL packs it:
// random packets, flit widths 16..128.
func TestCheckCodeIsTheWireWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	addr := []uint64{0, 1, 2, 3, 4, 5, 6, 7}
	for _, fw := range []int{16, 20, 63, 64, 65, 100, 127, 128} {
		c := NewCheckCode(addr, 3, 3, fw)
		for range 50 {
			dst, src, gate := int32(rng.IntN(8)), int32(rng.IntN(8)), uint8(rng.IntN(64))
			npay := rng.IntN(4)
			fl := hw.FlitFlags(true, npay == 0)
			got := c.Head(0, fl, dst, src, gate, 0)
			lo := addr[dst] | uint64(src)<<3 | uint64(gate)<<6
			want := wireBits(0, true, npay == 0, lo, 0, fw)
			for k := 1; k <= npay; k++ {
				d := rng.Uint64()
				if fw < 64 {
					d &= 1<<fw - 1
				}
				got = c.Payload(got, hw.FlitFlags(false, k == npay), d)
				want = wireBits(want, false, k == npay, d, 0, fw)
			}
			if got != want {
				t.Fatalf("fw %d: model %#x, stepped %#x", fw, got, want)
			}
		}
	}
}

// Every single-bit change of a head (data bits, the bits above the
// header, the head and tail marks) or of a payload word changes the code.
func TestCheckCodeSingleBits(t *testing.T) {
	addr := []uint64{0, 1, 2, 3, 4, 5, 6, 7}
	hd, tl := hw.FlitFlags(true, false), hw.FlitFlags(false, true)
	for _, fw := range []int{16, 20, 64, 100, 128} {
		c := NewCheckCode(addr, 3, 3, fw)
		pay := uint64(0xdeadbeef & (1<<min(fw, 63) - 1))
		ref := c.Payload(c.Head(0, hd, 5, 6, 33, 0), tl, pay)
		hdr := 3 + 3 + 6
		for bit := 0; bit < fw+2; bit++ {
			dst, src, gate, upper, flags := int32(5), int32(6), uint8(33), uint64(0), hd
			switch {
			case bit == fw:
				flags ^= hw.FlitTail
			case bit == fw+1:
				flags ^= hw.FlitHead
			case bit < 3:
				dst ^= 1 << bit
			case bit < 6:
				src ^= 1 << (bit - 3)
			case bit < hdr:
				gate ^= 1 << (bit - 6)
			case bit-hdr < 64:
				upper = 1 << (bit - hdr)
			default:
				continue
			}
			if got := c.Payload(c.Head(0, flags, dst, src, gate, upper), tl, pay); got == ref {
				t.Errorf("fw %d: head bit %d not caught", fw, bit)
			}
		}
		for bit := 0; bit < min(fw, 64); bit++ {
			if got := c.Payload(c.Head(0, hd, 5, 6, 33, 0), tl, pay^1<<bit); got == ref {
				t.Errorf("fw %d: payload bit %d not caught", fw, bit)
			}
		}
		for _, f := range []uint8{0, hw.FlitHead | hw.FlitTail, hw.FlitHead} {
			if got := c.Payload(c.Head(0, hd, 5, 6, 33, 0), f, pay); got == ref {
				t.Errorf("fw %d: payload marks %#x not caught", fw, f)
			}
		}
	}
}
