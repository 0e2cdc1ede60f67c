package barrierunit

import (
	"encoding/binary"
	"testing"
)

// CRC-8/SMBUS's check value: "123456789" gives 0xF4.
func TestCRC8CheckValue(t *testing.T) {
	b := []byte("123456789")
	crc := CRC8Word(0, binary.LittleEndian.Uint64(b[:8]), 0, 8)
	crc = CRC8Word(crc, uint64(b[8]), 0, 1)
	if crc != 0xF4 {
		t.Fatalf("CRC-8 of 123456789 = %#x, want 0xf4", crc)
	}
}

// Every single-bit change of a head (data bits and the bits above the
// header) or of a payload word changes the code.
func TestCheckCodeSingleBits(t *testing.T) {
	addr := []uint64{0, 1, 2, 3, 4, 5, 6, 7}
	for _, fw := range []int{16, 20, 64, 100, 128} {
		c := NewCheckCode(addr, 3, 3, fw)
		ref := c.Payload(c.Head(0, 5, 6, 33, 0), 0xdeadbeef&(1<<min(fw, 63)-1))
		hdr := 3 + 3 + 6
		for bit := 0; bit < fw; bit++ {
			dst, src, gate, upper := int32(5), int32(6), uint8(33), uint64(0)
			switch {
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
			if got := c.Payload(c.Head(0, dst, src, gate, upper), 0xdeadbeef&(1<<min(fw, 63)-1)); got == ref {
				t.Errorf("fw %d: head bit %d not caught", fw, bit)
			}
		}
		for bit := 0; bit < min(fw, 64); bit++ {
			if got := c.Payload(c.Head(0, 5, 6, 33, 0), (0xdeadbeef&(1<<min(fw, 63)-1))^1<<bit); got == ref {
				t.Errorf("fw %d: payload bit %d not caught", fw, bit)
			}
		}
	}
}
