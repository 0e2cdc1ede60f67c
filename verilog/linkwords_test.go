package verilog

import (
	"fmt"
	"math/bits"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// linkWordMasks returns the errors the test puts into ACK and credit words
// of sb count bits and kw code bits ({chk, count}, n = sb + kw bits): with
// all, every 2-bit error and a few 3-bit ones; otherwise two bits of the
// count (the review's +crdmask=3), a count bit with a code bit, two code
// bits, the count's top bit with the code's, and three bits.
func linkWordMasks(sb, kw int, all bool) []uint64 {
	n := sb + kw
	three := []uint64{7, 1 | 1<<sb | 1<<(n-1), 7 << (n - 3)}
	if !all {
		return []uint64{3, 1 | 1<<sb, 3 << sb, 1<<(sb-1) | 1<<(n-1), three[1]}
	}
	var m []uint64
	for i := range n {
		for j := i + 1; j < n; j++ {
			m = append(m, 1<<i|1<<j)
		}
	}
	return append(m, three...)
}

// Errors of 2 and 3 bits in the ACK and credit words of a retrying link
// are detected (docs/reliability.md, "Link-level retry": hw.CountCode),
// so the link ignores the damaged word and runs on: the stress bench
// (verilog/rtl/test/hx_link_stress_tb.v, 3,000 cycles) damages, every 37
// cycles, the credit word with a mask, and drops a flit every 53 cycles
// with the ACK word that carries its NAK damaged by the same mask; every
// flit must be delivered once and in order, delivery must go on to the
// end, and no assertion of the link (hx_credit's credit beyond the depth,
// the replay buffer's overflow, the FIFO's push when full) may fire. With
// the former even parity (one bit) a 2-bit error passed as a valid word:
// the same runs end in those $fatals, or lose a flit for good. L = 1..3;
// -short runs five masks per link, the full run every 2-bit one.
func TestLinkWordErrorsDetected(t *testing.T) {
	t.Parallel()
	iv := needTool(t, "iverilog")
	vvp := needTool(t, "vvp")
	rtl, err := filepath.Abs("rtl")
	if err != nil {
		t.Fatal(err)
	}
	kw := hw.CountCodeBits
	for _, c := range []struct{ L, R, B int }{{1, 2, 2}, {2, 4, 4}, {3, 4, 4}} {
		dir := t.TempDir()
		args := []string{"-g2005", "-Wall", "-o", "s.vvp",
			fmt.Sprintf("-DTB_L=%d", c.L), fmt.Sprintf("-DTB_R=%d", c.R), fmt.Sprintf("-DTB_B=%d", c.B),
			"-DTB_N=3000", fmt.Sprintf("-DTB_KW=%d", kw), filepath.Join(rtl, "test", "hx_link_stress_tb.v")}
		for _, f := range []string{"hx_link_tx.v", "hx_link_rx.v", "hx_link_crc.v", "hx_chan.v", "hx_mem_1r1w.v", "hx_fifo.v", "hx_credit.v"} {
			args = append(args, filepath.Join(rtl, f))
		}
		if out, err := run(t, dir, time.Minute, iv, args...); err != nil || strings.TrimSpace(out) != "" {
			t.Fatalf("L=%d R=%d B=%d: iverilog: %v\n%s", c.L, c.R, c.B, err, out)
		}
		sb := hw.LinkSeqBits(c.R, c.B)
		le := max(c.L, 2) // the retrying channel's latency
		for _, m := range linkWordMasks(sb, kw, !testing.Short()) {
			plus := []string{"-n", "s.vvp", "+drop=1000", "+dropevery=53",
				fmt.Sprintf("+ackflip=%d", 1000+le-1), "+ackevery=53", fmt.Sprintf("+ackmask=%d", m),
				"+creditdrop=1010", "+crdevery=37", fmt.Sprintf("+crdmask=%d", m)}
			out, err := run(t, dir, time.Minute, vvp, plus...)
			if err != nil || !strings.Contains(out, "hx_link_stress_tb: PASS") || strings.Contains(out, "FAIL") || strings.Contains(out, "FATAL") {
				t.Errorf("L=%d R=%d B=%d, a %d-bit error %#b in ACK and credit words: %v\n%s", c.L, c.R, c.B, bits.OnesCount64(m), m, err, firstLines(out, 4))
			}
		}
	}
}

// firstLines is the first n lines of s.
func firstLines(s string, n int) string {
	l := strings.SplitN(s, "\n", n+1)
	return strings.Join(l[:min(n, len(l))], "\n")
}
