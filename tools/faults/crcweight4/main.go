// Command crcweight4 counts the 4-bit errors the packet check code misses
// in a codeword of n bits (message and code bits): the weight-4 multiples
// of its generator, from the coincidences of the 2-bit syndromes x^i +
// x^j mod G (each codeword is three such coincidences). It prints the
// count and the probability that a 4-bit error at random positions is
// missed (docs/reliability.md, "Campaigns"). Memory: 2 n^2 bytes.
//
// Usage: crcweight4 N...
package main

import (
	"fmt"
	"math/big"
	"os"
	"slices"
	"strconv"

	"github.com/hxbar/hxbar/hw"
)

func main() {
	for _, a := range os.Args[1:] {
		n, err := strconv.Atoi(a)
		if err != nil || n < 4 || n > 20000 {
			fmt.Fprintf(os.Stderr, "crcweight4: invalid length %q (allowed: 4..20000 bits)\n", a)
			os.Exit(2)
		}
		a4 := weight4(hw.PacketCode, n)
		c := new(big.Int).Binomial(int64(n), 4)
		p, _ := new(big.Rat).SetFrac(big.NewInt(a4), c).Float64()
		fmt.Printf("n=%d missed 4-bit errors=%d of %s, P=%.3g\n", n, a4, c, p)
	}
}

// weight4 is the number of weight-4 codewords of code within n bits.
func weight4(code hw.Code, n int) int64 {
	s := make([]uint32, n) // s[i] = x^i mod G, the syndrome of bit i
	v := uint32(1)
	for i := range s {
		s[i] = v
		v = code.Step(v, 0)
	}
	x := make([]uint32, 0, n*(n-1)/2)
	for i := range n {
		for j := i + 1; j < n; j++ {
			x = append(x, s[i]^s[j])
		}
	}
	slices.Sort(x)
	var pairs int64
	for i := 0; i < len(x); {
		j := i
		for j < len(x) && x[j] == x[i] {
			j++
		}
		pairs += int64(j-i) * int64(j-i-1) / 2
		i = j
	}
	return pairs / 3
}
