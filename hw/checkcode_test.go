package hw

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// divide is the CRC by definition, written apart from Code: the remainder
// of M(x)*x^w divided by G(x) over GF(2), M's bits most significant first.
func divide(w int, poly uint32, msg []uint8) uint32 {
	bits := append(slices.Clone(msg), make([]uint8, w)...)
	g := make([]uint8, w+1) // x^w + poly, most significant first
	g[0] = 1
	for i := range w {
		g[w-i] = uint8(poly >> i & 1)
	}
	for i := 0; i+w < len(bits); i++ {
		if bits[i] == 1 {
			for j := range g {
				bits[i+j] ^= g[j]
			}
		}
	}
	var r uint32
	for _, b := range bits[len(bits)-w:] {
		r = r<<1 | uint32(b)
	}
	return r
}

// Code (its byte table and its Step) is the CRC by definition, for both
// codes, over messages of every length up to 300 bits fed in random
// pieces.
func TestCodeIsTheDivision(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []Code{PacketCode, LinkCode, CountCode} {
		for n := 0; n <= 300; n++ {
			msg := make([]uint8, n)
			for i := range msg {
				msg[i] = uint8(rng.IntN(2))
			}
			var crc, slow uint32
			for i := 0; i < n; {
				k := min(n-i, rng.IntN(65))
				var v uint64
				for _, b := range msg[i : i+k] {
					v = v<<1 | uint64(b)
				}
				crc = c.Bits(crc, v, k)
				for _, b := range msg[i : i+k] {
					slow = c.Step(slow, uint(b))
				}
				i += k
			}
			if want := divide(c.Width, c.Poly, msg); crc != want || slow != want {
				t.Fatalf("CRC-%d %#x, %d bits: Bits %#x, Step %#x, division %#x", c.Width, c.Poly, n, crc, slow, want)
			}
		}
	}
}

// syndromes returns the difference each single flipped bit of a codeword
// of n message bits and c.Width code bits makes between the code the
// receiver computes and the one it receives. By linearity an error is
// missed exactly when the XOR of its bits' syndromes is 0, so a 2-bit error
// is missed when two syndromes are equal. Message bit k from the end: the
// register after a 1 and k 0s, stepped by the encoder's own Step; code bit
// j: 1<<j.
func syndromes(c Code, n int) []uint32 {
	s := make([]uint32, 0, n+c.Width)
	for j := range c.Width {
		s = append(s, 1<<j)
	}
	r := c.Step(0, 1)
	for range n {
		s = append(s, r)
		r = c.Step(r, 0)
	}
	return s
}

// pairwiseDistinct reports two equal syndromes (a missed 2-bit error), or
// a zero one (a missed single bit), -1s for none.
func pairwiseDistinct(s []uint32) (int, int) {
	v := make([]uint64, len(s))
	for i, x := range s {
		if x == 0 {
			return i, i
		}
		v[i] = uint64(x)<<32 | uint64(i)
	}
	slices.Sort(v)
	for i := 1; i < len(v); i++ {
		if v[i]>>32 == v[i-1]>>32 {
			return int(uint32(v[i-1])), int(uint32(v[i]))
		}
	}
	return -1, -1
}

// Every 2-bit error of a packet of up to 2^22 message bits (the longest a
// fast test affords: 4 Mi syndromes, every one of the n(n-1)/2 pairs) is
// detected; TestPacketCodePeriod covers the rest of the 2^31 bits.
func TestPacketCodeTwoBitExhaustive(t *testing.T) {
	n := 1 << 22
	if testing.Short() {
		n = 1 << 18
	}
	s := syndromes(PacketCode, n)
	if a, b := pairwiseDistinct(s); a >= 0 {
		t.Fatalf("codeword bits %d and %d (of %d) flipped together go unnoticed", a, b, len(s))
	}
}

// mulmod is a*b mod G over GF(2), deg a, deg b < w, G = x^w + poly.
func mulmod(a, b uint64, w int, poly uint64) uint64 {
	var r uint64
	for i := w - 1; i >= 0; i-- {
		r <<= 1
		if r>>w&1 != 0 {
			r ^= 1<<w | poly
		}
		if b>>i&1 != 0 {
			r ^= a
		}
	}
	return r
}

// xpow is x^e mod G.
func xpow(e uint64, w int, poly uint64) uint64 {
	r, b := uint64(1), uint64(2)
	if w == 1 {
		b = poly
	}
	for ; e > 0; e >>= 1 {
		if e&1 != 0 {
			r = mulmod(r, b, w, poly)
		}
		b = mulmod(b, b, w, poly)
	}
	return r
}

// The packet code's guarantee at its full length, proved rather than
// sampled: G = (x+1)P with P of degree 31 and x of order 2^31-1 mod P (a
// prime, so P is primitive). A 2-bit error x^i(x^d+1) is then missed only
// when 2^31-1 divides d: never in a codeword of up to 2^31-1 bits; an odd
// number of flips never ((x+1) | G); so every error of up to 3 bits is
// caught up to PacketCodeMaxBits, and the bound is tight.
func TestPacketCodePeriod(t *testing.T) {
	g := uint64(1)<<32 | uint64(PacketCode.Poly)
	// Divide G by x+1: synthetic division over GF(2), q_(i-1) = g_i + q_i.
	var p, acc uint64
	for i := 32; i >= 1; i-- {
		acc ^= g >> i & 1
		p |= acc << (i - 1)
	}
	if acc^g&1 != 0 {
		t.Fatalf("x+1 does not divide G = %#x", g)
	}
	if p>>31 != 1 {
		t.Fatalf("G/(x+1) = %#x is not of degree 31", p)
	}
	const period = 1<<31 - 1
	low := p &^ (1 << 31)
	if xpow(period, 31, low) != 1 || xpow(1, 31, low) == 1 {
		t.Fatalf("x does not have order 2^31-1 modulo P = %#x", p)
	}
	// Tight: flips period apart are missed (a codeword of 2^31 bits).
	if xpow(period, 32, uint64(PacketCode.Poly)) != 1 {
		t.Fatal("x^(2^31-1) is not 1 modulo G: the bound is not tight")
	}
	if PacketCodeMaxBits+PacketCode.Width != period {
		t.Fatalf("PacketCodeMaxBits %d + 32 is not 2^31-1", PacketCodeMaxBits)
	}
	// The stepped syndromes are these powers of x (message bit k from the
	// end: x^(32+k) mod G), so the proof is about the encoder in use.
	s := syndromes(PacketCode, 1000)
	for k := 0; k < 1000; k += 37 {
		if got := xpow(uint64(32+k), 32, uint64(PacketCode.Poly)); uint32(got) != s[32+k] {
			t.Fatalf("syndrome %d: stepped %#x, x^%d = %#x", k, s[32+k], 32+k, got)
		}
	}
}

// A large random sample of 3-bit errors anywhere in packets of up to
// PacketCodeMaxBits bits (syndromes as powers of x), and a denser one in
// the first 2^20 bits (the stepped syndromes): none is missed.
func TestPacketCodeThreeBitSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	poly := uint64(PacketCode.Poly)
	far, near := 5000, 1<<20
	if testing.Short() {
		far, near = 1000, 1<<16
	}
	for range far {
		var x uint64
		a, b, c := rng.Int64N(PacketCodeMaxBits+32), rng.Int64N(PacketCodeMaxBits+32), rng.Int64N(PacketCodeMaxBits+32)
		if a == b || b == c || a == c {
			continue
		}
		for _, e := range []int64{a, b, c} {
			x ^= xpow(uint64(e), 32, poly) // bit e of the codeword from its end
		}
		if x == 0 {
			t.Fatalf("codeword bits %d, %d, %d flipped together go unnoticed", a, b, c)
		}
	}
	s := syndromes(PacketCode, 1<<20)
	for range near {
		a, b, c := rng.IntN(len(s)), rng.IntN(len(s)), rng.IntN(len(s))
		if a != b && b != c && a != c && s[a]^s[b]^s[c] == 0 {
			t.Fatalf("codeword bits %d, %d, %d flipped together go unnoticed", a, b, c)
		}
	}
}

// Every burst of up to Width bits is caught: a burst x^k B(x) is missed
// only if G divides B(x) (x is invertible modulo G, since G has a constant
// term), which no B of degree below Width with bit 0 set is. The test walks
// every such pattern B (Gray-code order, XOR of its bits' syndromes) at
// windows that reach into the message bits, whose syndromes come from the
// encoder: a window of the check bits alone could not fail (their
// syndromes are the distinct powers x^j). The packet code's 2^31 patterns
// per window take 10-20 s: the default run checks those of up to 24 bits,
// HXBAR_CRC_FULL=1 all of them.
func TestCodeBursts(t *testing.T) {
	for _, c := range []Code{LinkCode, PacketCode, CountCode} {
		if c.Poly&1 == 0 {
			t.Fatalf("CRC-%d: polynomial %#x has no constant term: bursts are not all caught", c.Width, c.Poly)
		}
		b := c.Width
		if b > 24 && os.Getenv("HXBAR_CRC_FULL") == "" {
			b = 24
		}
		s := syndromes(c, 256)
		// Windows starting in the check bits and running into the
		// message, and windows of message bits only.
		for _, k := range []int{1, c.Width - b/2, c.Width, c.Width + 77} {
			x := s[k]
			for g := uint64(1); g < 1<<(b-1); g++ {
				x ^= s[k+1+bitsTrailingZeros(g)] // the bit the Gray code toggles
				if x == 0 {
					t.Fatalf("CRC-%d: a burst of %d bits from codeword bit %d goes unnoticed", c.Width, b, k)
				}
			}
		}
	}
}

func bitsTrailingZeros(g uint64) int {
	n := 0
	for g&1 == 0 {
		g >>= 1
		n++
	}
	return n
}

// The link code has Hamming distance 5 up to LinkCodeMaxBits of message:
// every error of up to 4 bits, checked exhaustively. Weights 1 and 2: the
// syndromes are nonzero and distinct; 3: no pair's XOR is a syndrome; 4:
// no two disjoint pairs have the same XOR. One message bit more and a
// 4-bit error slips through (the table's bound is exact). The longest link
// word the limits allow (flit_width 128 + 2 + crc_bits 32, 8 sequence bits)
// is within it.
func TestLinkCodeHD(t *testing.T) {
	if w := MaxFlitWidth + 2 + PacketCodeBits + 8; w > LinkCodeMaxBits {
		t.Fatalf("the longest link word is %d bits, past the code's %d", w, LinkCodeMaxBits)
	}
	if a, b := weightFour(LinkCode, LinkCodeMaxBits); a >= 0 {
		t.Fatalf("%d message bits: an error of up to 4 bits goes unnoticed (syndromes %d, %d)", LinkCodeMaxBits, a, b)
	}
	if a, _ := weightFour(LinkCode, LinkCodeMaxBits+1); a < 0 {
		t.Fatalf("%d message bits: no 4-bit error missed, the bound is not the table's", LinkCodeMaxBits+1)
	}
}

// weightFour finds an error of 1 to 4 bits that a codeword of n message
// bits misses; -1s for none.
func weightFour(c Code, n int) (int, int) {
	s := syndromes(c, n)
	if a, b := pairwiseDistinct(s); a >= 0 {
		return a, b
	}
	single := map[uint32]bool{}
	for _, v := range s {
		single[v] = true
	}
	pairs := map[uint32]int{}
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			v := s[i] ^ s[j]
			if single[v] {
				return i, j
			}
			if k, ok := pairs[v]; ok {
				return k, i*len(s) + j
			}
			pairs[v] = i*len(s) + j
		}
	}
	return -1, -1
}

// crc_bits takes 0 or 32, and a data message longer than the packet
// code's guarantee is refused with the largest item_flits allowed.
func TestCRCBitsValidation(t *testing.T) {
	s := Default()
	s.CRCBits = 8
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "crc_bits") || !strings.Contains(err.Error(), "0 (no check code) or 32") {
		t.Fatalf("crc_bits 8: %v", err)
	}
	s = Default()
	s.Dims, s.Collective, s.FlitWidth = []int{64, 64}, CollAllGather, 128
	s.Ranks, s.Items, s.ItemFlits = 4096, 4096, 4096
	err := s.Validate()
	most := (PacketCodeMaxBits/130 - 1) / 4096
	if err == nil || !strings.Contains(err.Error(), "item_flits") || !strings.Contains(err.Error(), fmt.Sprintf("1..%d ", most)) {
		t.Fatalf("a %d-bit message: %v", s.MaxPacketBits(), err)
	}
	s.ItemFlits = int(most)
	if err := s.Validate(); err != nil || s.MaxPacketBits() > PacketCodeMaxBits {
		t.Fatalf("item_flits %d (%d bits): %v", most, s.MaxPacketBits(), err)
	}
	s.ItemFlits++
	if s.Validate() == nil {
		t.Fatalf("item_flits %d (%d bits) accepted", s.ItemFlits, s.MaxPacketBits())
	}
	s.CRCBits = 0
	if err := s.Validate(); err != nil {
		t.Fatalf("crc_bits 0: %v", err)
	}
}

// countMiss finds an error of 1 to maxw bits in a count word of sb count
// bits (any count, code bits included) that CountWordOK accepts: the
// word and the error, ok false for none. Exhaustive: every count, every
// error pattern.
func countMiss(sb, maxw int) (word, err uint64, ok bool) {
	n := sb + CountCodeBits
	for v := uint64(0); v < 1<<sb; v++ {
		w := CountWord(v, sb)
		if !CountWordOK(w, sb) {
			return w, 0, true // the encoder and the check disagree
		}
		for e := uint64(1); e < 1<<n; e++ {
			if k := bits.OnesCount64(e); k <= maxw && CountWordOK(w^e, sb) {
				return w, e, true
			}
		}
	}
	return 0, 0, false
}

// The ACK and credit words' code detects every error of up to 3 bits at
// every count width the limits allow (SB = 1 for R = B = 1 up to
// LinkSeqBits(MaxLinkRetry, MaxBufferDepth)), checked exhaustively over
// every count and every error; the bound is exact (a 4-bit error, the
// polynomial's own weight, slips through at every width), and it holds up
// to CountCodeMaxBits count bits and no further: at one more a 2-bit error
// goes unnoticed.
func TestCountCodeHD(t *testing.T) {
	lo, hi := LinkSeqBits(1, 1), LinkSeqBits(MaxLinkRetry, MaxBufferDepth)
	if lo != 1 || hi != 8 {
		t.Fatalf("SB runs %d..%d, want 1..8 (R <= %d, B <= %d)", lo, hi, MaxLinkRetry, MaxBufferDepth)
	}
	if hi > CountCodeMaxBits {
		t.Fatalf("the widest count is %d bits, past the code's %d", hi, CountCodeMaxBits)
	}
	for sb := lo; sb <= CountCodeMaxBits; sb++ {
		if w, e, ok := countMiss(sb, 3); ok {
			t.Fatalf("SB %d: word %#x with error %#x (%d bits) passes the check", sb, w, e, bits.OnesCount64(e))
		}
		if _, _, ok := countMiss(sb, 4); !ok {
			t.Errorf("SB %d: no 4-bit error missed, the code is better than stated", sb)
		}
	}
	if _, e, ok := countMiss(CountCodeMaxBits+1, 2); !ok || bits.OnesCount64(e) != 2 {
		t.Fatalf("%d count bits: no 2-bit error missed (%#x), the bound is not the period's", CountCodeMaxBits+1, e)
	}
}

// The faults the co-simulation injects into count words are detected at
// every width and count: ackflip and creditdrop invert bit 0 of the word
// (hx_link_rx's fi_ackflip, hx_chan's fi_ckill), and for good measure the
// whole word inverted (an even number of bits at even widths, which
// parity missed).
func TestCountWordFaultsDetected(t *testing.T) {
	for sb := 1; sb <= LinkSeqBits(MaxLinkRetry, MaxBufferDepth); sb++ {
		n := sb + CountCodeBits
		for v := uint64(0); v < 1<<sb; v++ {
			w := CountWord(v, sb)
			for _, e := range []uint64{1, 1<<n - 1} {
				if CountWordOK(w^e, sb) {
					t.Fatalf("SB %d, count %d: word %#x inverted by %#x passes", sb, v, w, e)
				}
			}
		}
	}
}
