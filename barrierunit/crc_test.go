package barrierunit

import (
	"fmt"
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

// Every 2-bit error of the longest reduction packets (flit widths 16, 64,
// 128: 5, 2 and 2 flits), control and code bits included, is caught by
// the model's encoder: the single-bit syndromes are nonzero and pairwise
// distinct, which by linearity is every pair.
func TestCheckCodeTwoBitPackets(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, fw := range []int{16, 64, 128} {
		c := NewCheckCode([]uint64{0}, 1, 1, fw)
		type word struct {
			flags  uint8
			lo, hi uint64
		}
		n := 1 + (64+fw-1)/fw
		pkt := make([]word, n)
		for i := range pkt {
			pkt[i] = word{hw.FlitFlags(i == 0, i == n-1), rng.Uint64(), rng.Uint64()}
			if fw < 64 {
				pkt[i].lo &= 1<<fw - 1
			}
			if fw <= 64 {
				pkt[i].hi = 0
			}
		}
		code := func(p []word) uint32 {
			var crc uint32
			for _, w := range p {
				crc = c.word(crc, w.flags, w.lo, w.hi)
			}
			return crc
		}
		ref := code(pkt)
		seen := map[uint32]string{}
		add := func(s uint32, what string) {
			if s == 0 {
				t.Fatalf("fw %d: %s alone goes unnoticed", fw, what)
			}
			if o, ok := seen[s]; ok {
				t.Fatalf("fw %d: %s and %s together go unnoticed", fw, o, what)
			}
			seen[s] = what
		}
		for j := range hw.PacketCodeBits {
			add(1<<j, fmt.Sprintf("code bit %d", j))
		}
		for i := range pkt {
			for b := range fw + 2 {
				q := append([]word(nil), pkt...)
				switch {
				case b == fw:
					q[i].flags ^= hw.FlitTail
				case b == fw+1:
					q[i].flags ^= hw.FlitHead
				case b < 64:
					q[i].lo ^= 1 << b
				default:
					q[i].hi ^= 1 << (b - 64)
				}
				add(code(q)^ref, fmt.Sprintf("flit %d bit %d", i, b))
			}
		}
	}
}
