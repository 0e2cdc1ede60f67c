package noc

import (
	"bytes"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// linkCase is one run of the link-level retry cross-check: a 2-node line
// (exchangers 0 and 1, one crossbar), node 0 streaming 4-flit packets to
// node 1, which pops its ejection FIFO every other cycle or so, and faults
// on the channel under test, exchanger 0's port toward the crossbar
// (latency L). Vectors are the model's view of that channel, cycle by
// cycle, which verilog/rtl/test/hx_link_tb.v replays against the RTL.
type linkCase struct {
	L, B, R int
	Seed    uint64
	Faults  []LinkFault // Channel filled in by linkVectors
}

const (
	linkW      = 18  // flit width of the testbench (FW = 16)
	linkCycles = 400 // cycles per run
)

func linkCases() []linkCase {
	var cs []linkCase
	for _, c := range []struct{ L, B, R int }{{1, 2, 2}, {1, 4, 5}, {2, 4, 4}, {2, 2, 3}, {4, 8, 8}, {4, 4, 6}} {
		r := rand.New(rand.NewPCG(uint64(c.L*100+c.B*10+c.R), 7))
		var fs []LinkFault
		// Flips and drops: single ones, and bursts that hit a resend or
		// the flits behind a voided one.
		for cy := int64(20); cy < linkCycles-60; cy += int64(10 + r.IntN(30)) {
			k := LinkFlip
			if r.IntN(2) == 0 {
				k = LinkDrop
			}
			// A bit of the wire: flit, sequence number or check code.
			lw := linkW + bits.Len(uint(c.R)) + hw.LinkCodeBits
			fs = append(fs, LinkFault{Kind: k, Cycle: cy, Bit: r.IntN(lw)})
			if r.IntN(4) == 0 { // a second fault on the resend or behind it
				fs = append(fs, LinkFault{Kind: LinkFlip, Cycle: cy + int64(r.IntN(2*c.L+2)) + 1, Bit: r.IntN(linkW)})
			}
		}
		cs = append(cs, linkCase{L: c.L, B: c.B, R: c.R, Seed: uint64(len(cs) + 1), Faults: fs})
	}
	// A dead channel: what reaches the FIFO before, nothing after, and the
	// output stops when its credits are gone.
	cs = append(cs, linkCase{L: 2, B: 4, R: 4, Seed: 99, Faults: []LinkFault{
		{Kind: LinkDrop, Cycle: 30}, {Kind: LinkFlip, Cycle: 31, Bit: 3}, {Kind: LinkDrop, Cycle: 45}, {Kind: LinkDrop, Cycle: 46},
		{Kind: LinkDead, Cycle: 200}}})
	return cs
}

func (c linkCase) name() string {
	n := fmt.Sprintf("link_l%d_b%d_r%d", c.L, c.B, c.R)
	for _, f := range c.Faults {
		if f.Kind == LinkDead {
			return n + "_dead"
		}
	}
	return n
}

// linkVectors runs case c in the model with link-level retry and returns
// the testbench's stimulus: 8 hex words per cycle (hx_link_tb.v), and the
// number of flits delivered.
func linkVectors(c linkCase) (_ []byte, delivered, retried int, _ error) {
	tp, err := NewTopology([]int{2})
	if err != nil {
		return nil, 0, 0, err
	}
	n, err := NewNetwork(tp, Config{BufferDepth: c.B, LinkLatency: c.L})
	if err != nil {
		return nil, 0, 0, err
	}
	o := n.portBase[0] + 1 // exchanger 0, port 1: toward the crossbar
	fs := append([]LinkFault(nil), c.Faults...)
	for i := range fs {
		fs[i].Channel = int(o)
	}
	n.SetRetry()
	if err := n.SetFaults(fs, nil); err != nil {
		return nil, 0, 0, err
	}
	down := n.out[o].down
	r := rand.New(rand.NewPCG(c.Seed, 1))
	type cyc struct {
		send, pop, push bool
		flit, pflit     uint32
		kind, bit       int
		ok              bool
	}
	cy := make([]cyc, linkCycles)
	for _, f := range fs {
		cy[f.Cycle].kind = []int{1, 2, 3}[f.Kind]
		cy[f.Cycle].bit = f.Bit
	}
	left := 0 // flits of node 0's current packet still to inject
	accepted := 0
	for t := int64(0); t < linkCycles; t++ {
		cy[t].ok = n.hasCredit(o, t)
		// Every flit switch 0 takes from its input 0 (node 0's injection)
		// goes out on o, including those a dead channel swallows.
		sent, popped, pushed := n.fifo[n.portBase[0]].popped, n.fifo[down].popped, n.pushes(down)
		idx := n.out[o].sendIdx
		for s := 0; s < n.switches; s++ {
			n.EvalSwitch(s, t, 0)
		}
		if left == 0 && r.IntN(3) != 0 {
			left = 4
		}
		if left > 0 && n.CanInject(0, t) {
			n.Inject(0, hw.Flit{Dst: 1, Flags: hw.FlitFlags(left == 4, left == 1)}, t, 0)
			left--
		}
		if n.RxPending(1, t) && r.IntN(2) == 0 {
			n.RxPop(1, t)
		}
		if n.fifo[n.portBase[0]].popped != sent {
			accepted++
			cy[t].send, cy[t].flit = true, uint32(accepted)
			if n.pushes(down) != pushed {
				ready := int64(n.slots[uint32(down)*n.B+uint32(idx)].when-heldOff) + n.epoch
				if ready-1 < linkCycles {
					cy[ready-1].push, cy[ready-1].pflit = true, uint32(accepted)
				}
			}
		}
		cy[t].pop = n.fifo[down].popped != popped
	}
	var b bytes.Buffer
	b2i := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	for t, x := range cy {
		if x.push {
			delivered++
		}
		fmt.Fprintf(&b, "%x %x %x %x %x %x %x %x // %d\n", b2i(x.send), x.flit, b2i(x.pop), x.kind, x.bit,
			b2i(x.push), x.pflit, b2i(x.ok), t)
	}
	return b.Bytes(), delivered, n.Retried(), nil
}

// The link layer's RTL (hx_link_tx, hx_chan, hx_link_rx) delivers every
// flit of a one-link run with flips, drops and a dead channel exactly when
// the model (Network with SetRetry) pushes it into the downstream FIFO,
// once, in order and unharmed, and its credit counter agrees with the
// model's every cycle. The vectors are committed in verilog/rtl/test/link
// (verilog/rtl/test/run.sh replays them, and its mutants must fail them);
// HXBAR_UPDATE=1 rewrites them.
func TestLinkRetryRTLVectors(t *testing.T) {
	dir := filepath.Join("..", "verilog", "rtl", "test", "link")
	update := os.Getenv("HXBAR_UPDATE") != ""
	var iv, vvp string
	if p, err := exec.LookPath("iverilog"); err == nil {
		iv = p
		vvp, _ = exec.LookPath("vvp")
	} else if os.Getenv("CI") != "" {
		t.Fatal("iverilog not found (CI is set)")
	}
	work := t.TempDir()
	for _, c := range linkCases() {
		vec, delivered, retried, err := linkVectors(c)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, c.name()+".hex")
		if update {
			if err := os.WriteFile(file, vec, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		old, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(old, vec) {
			t.Errorf("%s: the model's vectors differ from the committed ones (HXBAR_UPDATE=1 go test ./noc -run TestLinkRetryRTLVectors rewrites them)", file)
			continue
		}
		if delivered < 90 || retried < 1 {
			t.Errorf("%s: only %d flits delivered, %d resent", c.name(), delivered, retried)
		}
		if iv == "" || vvp == "" {
			continue
		}
		rtl := filepath.Join("..", "verilog", "rtl")
		bin := filepath.Join(work, c.name()+".vvp")
		args := []string{"-g2005", "-Wall", "-o", bin,
			fmt.Sprintf("-DTB_W=%d", linkW), fmt.Sprintf("-DTB_L=%d", c.L), fmt.Sprintf("-DTB_R=%d", c.R),
			fmt.Sprintf("-DTB_B=%d", c.B), fmt.Sprintf("-DTB_N=%d", linkCycles),
			filepath.Join(rtl, "test", "hx_link_tb.v")}
		for _, m := range []string{"hx_link_tx", "hx_link_rx", "hx_link_crc", "hx_chan", "hx_fifo", "hx_credit"} {
			args = append(args, filepath.Join(rtl, m+".v"))
		}
		out, err := exec.Command(iv, args...).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Fatalf("iverilog: %v\n%s", err, out)
		}
		out, err = exec.Command(vvp, "-n", bin, "+stim="+file).CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "hx_link_tb: PASS") {
			t.Errorf("%s: %v\n%s", c.name(), err, out)
			continue
		}
		t.Logf("%s: %d flits resent by the model; %s", c.name(), retried, strings.TrimSpace(string(out)))
	}
}

// The model's go-back-N timing on one channel, by hand: a 4-flit packet
// sent in cycles 0..3 on a channel of latency L; a drop at the crossing of
// flit 1 (cycle 1) voids it and the flits sent after it until the missing
// ACK (cycle 1+2L-1); flit 1 crosses again in 1+2L and is ready in 1+3L,
// the others follow one per cycle; flit 0 is untouched.
func TestRetryResendCycle(t *testing.T) {
	for _, L := range []int{1, 2, 4} {
		tp, _ := NewTopology([]int{2})
		n, err := NewNetwork(tp, Config{BufferDepth: 8, LinkLatency: L})
		if err != nil {
			t.Fatal(err)
		}
		o := n.portBase[0] + 1
		n.SetRetry()
		if err := n.SetFaults([]LinkFault{{Kind: LinkDrop, Channel: int(o), Cycle: 1}}, nil); err != nil {
			t.Fatal(err)
		}
		var ready []int64
		for i := range 4 {
			_, gone, delay := n.faultySend(o, hw.Flit{Flags: hw.FlitFlags(i == 0, i == 3)}, int64(i))
			if gone {
				t.Fatalf("L=%d: flit %d lost", L, i)
			}
			ready = append(ready, int64(i)+delay+int64(L))
		}
		l := int64(L)
		want := []int64{l, 1 + 3*l, 2 + 3*l, 3 + 3*l}
		if !slices.Equal(ready, want) || n.Retried() != 1 {
			t.Errorf("L=%d: ready %v, want %v; resent %d", L, ready, want, n.Retried())
		}
	}
}
