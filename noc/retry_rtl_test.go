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
	// Drain, when > 0, is the cycle from which node 0 starts no packet
	// (so that every flit is delivered by the end); rec, when set, records
	// the channel's crossings and credit returns.
	Drain int64
	rec   func(Crossing)
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
		used := map[int64]bool{} // one fault per cycle (the testbench's)
		add := func(f LinkFault) {
			if !used[f.Cycle] {
				used[f.Cycle] = true
				fs = append(fs, f)
			}
		}
		// Flips and drops: single ones, and bursts that hit a resend or
		// the flits behind a voided one; ACK flips and credit drops, alone
		// or deferring a drop's NAK.
		for cy := int64(20); cy < linkCycles-60; cy += int64(10 + r.IntN(30)) {
			// Forward (flip, drop) and reverse (ackflip, creditdrop).
			k := []uint8{LinkFlip, LinkDrop, LinkAckFlip, LinkCreditDrop}[r.IntN(4)]
			if k == LinkAckFlip || k == LinkCreditDrop {
				add(LinkFault{Kind: k, Cycle: cy})
				if r.IntN(3) == 0 { // a forward fault whose NAK it defers
					add(LinkFault{Kind: LinkDrop, Cycle: cy - int64(RetryLatency(c.L)) + 1 - int64(r.IntN(2))})
				}
				continue
			}
			// A bit of the wire: flit, sequence number or check code.
			lw := linkW + bits.Len(uint(c.R)) + hw.LinkCodeBits
			add(LinkFault{Kind: k, Cycle: cy, Bit: r.IntN(lw)})
			if r.IntN(4) == 0 { // a second fault on the resend or behind it
				add(LinkFault{Kind: LinkFlip, Cycle: cy + int64(r.IntN(2*c.L+2)) + 1, Bit: r.IntN(linkW)})
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
	r, err := linkRun(c)
	return r.vec, r.delivered, r.retried, err
}

// linkResult is a linkRun: the vectors, the flits delivered (pushed into
// the downstream FIFO) and resent, the flits node 0 sent, and the order in
// which they were delivered (each flit's number).
type linkResult struct {
	vec                            []byte
	delivered, retried, sent, hits int // hits: of the armed faults
	order                          []uint32
}

// linkRun runs case c in the model with link-level retry (linkVectors).
func linkRun(c linkCase) (linkResult, error) {
	var res linkResult
	var err error
	res.vec, res.delivered, res.retried, res.sent, res.order, res.hits, err = linkRun1(c)
	return res, err
}

func linkRun1(c linkCase) (_ []byte, delivered, retried, sent int, order []uint32, hits int, _ error) {
	tp, err := NewTopology([]int{2})
	if err != nil {
		return nil, 0, 0, 0, nil, 0, err
	}
	n, err := NewNetwork(tp, Config{BufferDepth: c.B, LinkLatency: c.L, Retry: true})
	if err != nil {
		return nil, 0, 0, 0, nil, 0, err
	}
	o := n.portBase[0] + 1 // exchanger 0, port 1: toward the crossbar
	fs := append([]LinkFault(nil), c.Faults...)
	for i := range fs {
		fs[i].Channel = int(o)
	}
	n.SetRetry()
	if c.rec != nil {
		n.Record(func(x Crossing) {
			if x.Channel == o {
				c.rec(x)
			}
		})
	}
	if err := n.SetFaults(fs, nil); err != nil {
		return nil, 0, 0, 0, nil, 0, err
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
		if cy[f.Cycle].kind != 0 {
			return nil, 0, 0, 0, nil, 0, fmt.Errorf("two faults in cycle %d (the testbench takes one)", f.Cycle)
		}
		cy[f.Cycle].kind = []int{1, 2, 3, 4, 5}[f.Kind]
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
		if left == 0 && r.IntN(3) != 0 && (c.Drain == 0 || t < c.Drain) {
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
			order = append(order, x.pflit)
		}
		fmt.Fprintf(&b, "%x %x %x %x %x %x %x %x // %d\n", b2i(x.send), x.flit, b2i(x.pop), x.kind, x.bit,
			b2i(x.push), x.pflit, b2i(x.ok), t)
	}
	for _, f := range n.LinkFaults() {
		hits += f.Hits
	}
	return b.Bytes(), delivered, n.Retried(), accepted, order, hits, nil
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
		for _, m := range []string{"hx_link_tx", "hx_link_rx", "hx_link_crc", "hx_chan", "hx_fifo", "hx_credit", "hx_mem_1r1w"} {
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
// sent in cycles 0..3 on a channel of link latency L (L' = max(L, 2) with
// retry); a drop at the crossing of flit 1 (cycle 1) voids it and the
// flits sent after it until the NAK (the ACK word read in 1+2L'-1); flit 1
// crosses again in 1+2L' and is ready in 1+3L', the others follow one per
// cycle; flit 0 is untouched. An ackflip on the word that carries the NAK
// (sent in 1+L'-1) defers all of it by one cycle; one on flit 0's word
// changes nothing.
func TestRetryResendCycle(t *testing.T) {
	for _, L := range []int{1, 2, 4} {
		l := int64(RetryLatency(L))
		for _, c := range []struct {
			acks  []int64 // ackflip cycles
			extra int64
		}{{nil, 0}, {[]int64{l}, 1}, {[]int64{l, l + 1}, 2}, {[]int64{l - 1}, 0}} {
			tp, _ := NewTopology([]int{2})
			n, err := NewNetwork(tp, Config{BufferDepth: 8, LinkLatency: L, Retry: true})
			if err != nil {
				t.Fatal(err)
			}
			o := n.portBase[0] + 1
			n.SetRetry()
			fs := []LinkFault{{Kind: LinkDrop, Channel: int(o), Cycle: 1}}
			for _, u := range c.acks {
				fs = append(fs, LinkFault{Kind: LinkAckFlip, Channel: int(o), Cycle: u})
			}
			if err := n.SetFaults(fs, nil); err != nil {
				t.Fatal(err)
			}
			var ready []int64
			for i := range 4 {
				_, gone, delay := n.faultySend(o, hw.Flit{Flags: hw.FlitFlags(i == 0, i == 3)}, int64(i))
				if gone {
					t.Fatalf("L=%d: flit %d lost", L, i)
				}
				ready = append(ready, int64(i)+delay+l)
			}
			e := c.extra
			want := []int64{l, 1 + 3*l + e, 2 + 3*l + e, 3 + 3*l + e}
			if !slices.Equal(ready, want) || n.Retried() != 1 {
				t.Errorf("L=%d ackflips %v: ready %v, want %v; resent %d", L, c.acks, ready, want, n.Retried())
			}
		}
	}
}

// Every single fault on the forward path (flip, drop) or the reverse path
// (ackflip, creditdrop) of a retrying link is recovered, at link latency
// 1..4 and many seeds: the fault hits (a crossing, the ACK word of one,
// or a credit return of the fault-free run), and when node 0 stops
// sending, every flit it sent has reached the downstream FIFO exactly
// once and in order (a flip or drop costs a resend). For the first seeds
// the RTL link layer replays the run's vectors cycle for cycle
// (hx_link_tb.v), so the model's recovery timing is the hardware's.
func TestLinkRetrySingleFaults(t *testing.T) {
	const seeds, rtlSeeds = 12, 2
	kinds := []uint8{LinkFlip, LinkDrop, LinkAckFlip, LinkCreditDrop}
	var rtlCases []linkCase
	for L := 1; L <= 4; L++ {
		for seed := uint64(1); seed <= seeds; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(L)))
			B := 1 + rng.IntN(4)
			base := linkCase{L: L, B: B, R: B + rng.IntN(3), Seed: seed, Drain: linkCycles - 100}
			// The fault-free run's crossings and credit returns.
			var flits, credits []Crossing
			dry := base
			dry.rec = func(x Crossing) {
				if x.Credit {
					credits = append(credits, x)
				} else if x.Cycle < base.Drain-50 {
					flits = append(flits, x)
				}
			}
			if _, err := linkRun(dry); err != nil {
				t.Fatal(err)
			}
			for _, k := range kinds {
				c := base
				x := flits[rng.IntN(len(flits))]
				f := LinkFault{Kind: k, Cycle: x.Cycle, Bit: rng.IntN(linkW + bits.Len(uint(c.R)) + 8)}
				switch k {
				case LinkAckFlip:
					f.Cycle = x.Cycle + int64(x.Lat) - 1
				case LinkCreditDrop:
					f.Cycle = credits[rng.IntN(len(credits)/2)].Cycle
				}
				c.Faults = []LinkFault{f}
				c.rec = nil
				res, err := linkRun(c)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("L=%d B=%d R=%d seed %d %+v", L, c.B, c.R, seed, f)
				if res.hits < 1 {
					t.Fatalf("%s: the fault hit nothing", what)
				}
				if (k == LinkFlip || k == LinkDrop) && res.retried < 1 {
					t.Errorf("%s: no flit resent", what)
				}
				if res.delivered != res.sent || res.sent < 30 {
					t.Errorf("%s: %d flits sent, %d delivered", what, res.sent, res.delivered)
				}
				for i, v := range res.order {
					if v != uint32(i+1) {
						t.Fatalf("%s: delivery %d is flit %d: lost, duplicated or out of order", what, i, v)
					}
				}
				if seed <= rtlSeeds {
					rtlCases = append(rtlCases, c)
				}
			}
		}
	}
	replayLinkRTL(t, rtlCases)
}

// replayLinkRTL runs each case's vectors against the RTL link layer
// (hx_link_tb.v under Icarus; skipped without it, outside CI), one build
// per L, B, R.
func replayLinkRTL(t *testing.T, cases []linkCase) {
	t.Helper()
	iv, err := exec.LookPath("iverilog")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("iverilog not found (CI is set)")
		}
		t.Skip("iverilog not found")
	}
	vvp, _ := exec.LookPath("vvp")
	rtl := filepath.Join("..", "verilog", "rtl")
	work := t.TempDir()
	built := map[string]string{}
	for i, c := range cases {
		res, err := linkRun(c)
		if err != nil {
			t.Fatal(err)
		}
		stim := filepath.Join(work, fmt.Sprintf("case%d.hex", i))
		if err := os.WriteFile(stim, res.vec, 0o644); err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("l%d_b%d_r%d", c.L, c.B, c.R)
		bin, ok := built[key]
		if !ok {
			bin = filepath.Join(work, key+".vvp")
			args := []string{"-g2005", "-Wall", "-o", bin,
				fmt.Sprintf("-DTB_W=%d", linkW), fmt.Sprintf("-DTB_L=%d", c.L), fmt.Sprintf("-DTB_R=%d", c.R),
				fmt.Sprintf("-DTB_B=%d", c.B), fmt.Sprintf("-DTB_N=%d", linkCycles),
				filepath.Join(rtl, "test", "hx_link_tb.v")}
			for _, m := range []string{"hx_link_tx", "hx_link_rx", "hx_link_crc", "hx_chan", "hx_fifo", "hx_credit", "hx_mem_1r1w"} {
				args = append(args, filepath.Join(rtl, m+".v"))
			}
			if out, err := exec.Command(iv, args...).CombinedOutput(); err != nil || len(out) > 0 {
				t.Fatalf("iverilog: %v\n%s", err, out)
			}
			built[key] = bin
		}
		out, err := exec.Command(vvp, "-n", bin, "+stim="+stim).CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "hx_link_tb: PASS") {
			t.Errorf("L=%d B=%d R=%d %+v: the RTL differs from the model: %v\n%s", c.L, c.B, c.R, c.Faults, err, out)
		}
	}
}

// The credit path's timing by hand (docs/reliability.md, "Link-level
// retry", "Timing", and "Lost credits"): the ejection FIFO of node 1
// popped in cycles 10, 11, 12 and 14 with a creditdrop in 10. With retry
// (channel latency L' = 2) the credit of 10 counts from 13 instead of 12,
// those popped right behind it one cycle late each (14, 15), the one of 14
// on time (16). Without retry (latency 1) the credit of 10 is lost for
// good: each later pop frees the slot before its own (the output runs
// with one credit fewer), and its own waits, dead.
func TestCreditDropCycle(t *testing.T) {
	for _, retry := range []bool{true, false} {
		tp, _ := NewTopology([]int{2})
		n, err := NewNetwork(tp, Config{BufferDepth: 4, LinkLatency: 1, Retry: retry})
		if err != nil {
			t.Fatal(err)
		}
		f := n.rxBase + 1
		o := n.upOut(f)
		if retry {
			n.SetRetry()
		}
		if err := n.SetFaults([]LinkFault{{Kind: LinkCreditDrop, Channel: int(o), Cycle: 10}}, nil); err != nil {
			t.Fatal(err)
		}
		for _, c := range []int64{10, 11, 12, 14} {
			n.pop(f, -1, c)
		}
		var got []int32
		for i := range uint32(n.B) {
			got = append(got, n.slots[uint32(f)*n.B+i].when)
		}
		want := []int32{13, 14, 15, 16}
		if !retry {
			want = []int32{12, 13, 15, deadRel}
		}
		if !slices.Equal(got, want) {
			t.Errorf("retry %v: slots free from %v, want %v", retry, got, want)
		}
		if fs := n.LinkFaults(); fs[0].Hits != 1 || fs[0].First != 10 {
			t.Errorf("retry %v: hits %d first %d, want 1, 10", retry, fs[0].Hits, fs[0].First)
		}
	}
}

// upOut is the output feeding FIFO f.
func (n *Network) upOut(f int32) int32 {
	for o := range n.out {
		if n.out[o].down == f {
			return int32(o)
		}
	}
	return -1
}
