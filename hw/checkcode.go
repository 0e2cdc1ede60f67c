package hw

import "math/bits"

// The check codes (docs/reliability.md, "Detection" and "Link-level
// retry"). Each is a CRC with initial value 0, no reflection and no final
// XOR, fed bit by bit most significant first: one step shifts the
// register left and XORs the polynomial in when the bit shifted out
// differs from the message bit. The Verilog generator passes Poly and
// Width to the RTL (hx_barrier_unit's CRC_POLY, hx_link_crc's POLY), whose
// defaults a test of package verilog holds equal to these.

// Code is a CRC: Width bits (2..32), polynomial Poly in normal notation
// (x^Width implicit).
type Code struct {
	Width int
	Poly  uint32
	table *[256]uint32
}

// PacketCode is the packet check code of crc_bits 32: CRC-32C
// (Castagnoli, iSCSI; Koopman 0x8f6e37a0), (x+1) times a primitive
// polynomial of degree 31. It detects every error of up to 3 bits in a
// codeword of up to 2^31-1 bits (PacketCodeMaxBits of message), every
// odd number of flipped bits, and every burst of up to 32 bits.
var PacketCode = NewCode(32, 0x1EDC6F41)

// PacketCodeMaxBits is the longest message (code bits not counted) over
// which PacketCode has Hamming distance 4: the codeword, message and 32
// code bits, is at most 2^31-1 bits, the period of its degree-31 factor.
const PacketCodeMaxBits = 1<<31 - 1 - 32

// LinkCode is the link layer's per-flit code (hx_link_crc): CRC-16F/5
// (Koopman 0xac9a), Hamming distance 5 up to LinkCodeMaxBits of message:
// every error of up to 4 bits and every burst of up to 16 bits.
var LinkCode = NewCode(16, 0x5935)

// LinkCodeMaxBits is the longest message (flit and sequence number) over
// which LinkCode has Hamming distance 5 (Koopman's table; TestLinkCodeHD
// checks it exhaustively at the longest link word the limits allow).
const LinkCodeMaxBits = 241

// CountCode is the code of the link layer's count words, the ACK word and
// the credit word that a retrying link's receiver returns every cycle
// ({chk, count}, count the SB low bits: hx_link_rx builds them, hx_link_tx
// checks them): CRC-5 (x+1)(x^4+x+1), polynomial 0x15. The period of
// x^4+x+1 is 15, so the code has Hamming distance 4 up to
// CountCodeMaxBits of message: every error of up to 3 bits in the word
// (and every odd number of bits, and every burst of up to 5) is detected.
// The count has SB = LinkSeqBits(R, B) <= 8 bits (TestCountCodeHD).
var CountCode = NewCode(5, 0x15)

// CountCodeMaxBits is the longest count over which CountCode has Hamming
// distance 4 (a codeword of 15 bits); at 11 bits x^15+1 is a codeword: a
// 2-bit error goes unnoticed.
const CountCodeMaxBits = 10

// Bits of the check codes on the wire.
const (
	PacketCodeBits = 32 // crc_bits when the packet code is on
	LinkCodeBits   = 16 // the link layer's chk field
	CountCodeBits  = 5  // the check of the link's ACK and credit words
)

// LinkSeqBits is SB, the bits of a retrying link's sequence numbers and
// of the counts of its ACK and credit words, for replay buffer r and
// buffer depth b: ceil(log2(max(r, b)+1)), as hx_link_tx computes it.
func LinkSeqBits(r, b int) int {
	return bits.Len(uint(max(r, b)))
}

// NewCode returns the CRC of the given width and polynomial.
func NewCode(width int, poly uint32) Code {
	c := Code{Width: width, Poly: poly}
	if width < 8 {
		return c // fed one bit at a time (Bits)
	}
	c.table = new([256]uint32)
	for i := range c.table {
		c.table[i] = c.slow(0, uint64(i), 8)
	}
	return c
}

// Step feeds one bit into crc: the function the RTL unrolls.
func (c Code) Step(crc uint32, bit uint) uint32 {
	top := crc>>(c.Width-1)&1 ^ uint32(bit&1)
	crc = crc << 1 & c.mask()
	if top != 0 {
		crc ^= c.Poly
	}
	return crc
}

func (c Code) mask() uint32 { return uint32(1<<c.Width - 1) }

// slow feeds the n low bits of v into crc, most significant first, one
// Step at a time.
func (c Code) slow(crc uint32, v uint64, n int) uint32 {
	for i := n - 1; i >= 0; i-- {
		crc = c.Step(crc, uint(v>>i))
	}
	return crc
}

// Bits feeds the n (0..64) low bits of v into crc, most significant
// first: n Steps, a byte at a time where it can.
func (c Code) Bits(crc uint32, v uint64, n int) uint32 {
	if c.table == nil {
		return c.slow(crc, v, n)
	}
	r := n % 8
	crc = c.slow(crc, v>>(n-r), r)
	for i := n - r - 8; i >= 0; i -= 8 {
		b := uint32(v>>i) & 0xff
		crc = crc<<8&c.mask() ^ c.table[(crc>>(c.Width-8)^b)&0xff]
	}
	return crc
}

// Word feeds a wire word of n (0..128) bits, bits 0..63 in lo and the rest
// in hi, into crc, most significant bit first.
func (c Code) Word(crc uint32, lo, hi uint64, n int) uint32 {
	if n > 64 {
		crc = c.Bits(crc, hi, n-64)
		n = 64
	}
	return c.Bits(crc, lo, n)
}

// CountWord is the ACK or credit word of count (its sb low bits) as
// hx_link_rx sends it: {CountCode of the count, count}, sb + 5 bits.
func CountWord(count uint64, sb int) uint64 {
	count &= 1<<sb - 1
	return uint64(CountCode.Bits(0, count, sb))<<sb | count
}

// CountWordOK is hx_link_tx's check of a count word of sb count bits: its
// code matches its count (a damaged word is ignored).
func CountWordOK(w uint64, sb int) bool {
	return w>>(sb+CountCodeBits) == 0 && CountWord(w, sb) == w
}
