package sim

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

func faultTrace(t *testing.T, sys hw.System, rec bool) (*Result, string, []noc.Crossing, error) {
	t.Helper()
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cross []noc.Crossing
	if rec {
		s.Net.Record(func(c noc.Crossing) {
			if !c.Credit { // flit crossings only
				cross = append(cross, c)
			}
		})
	}
	var tr bytes.Buffer
	res, err := s.Run(Options{Trace: &tr})
	return res, tr.String(), cross, err
}

// Recording the crossings (every output on the fault path) and a fault
// that hits no flit leave the trace unchanged.
func TestFaultPathKeepsTrace(t *testing.T) {
	sys := hw.Default()
	sys.Op = hw.OpSum
	_, want, cross, err := faultTrace(t, sys, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(cross) == 0 {
		t.Fatal("no crossing recorded")
	}
	_, got, _, _ := faultTrace(t, sys, false)
	if got != want {
		t.Fatal("recording changed the trace")
	}
	sys.Faults = []string{"drop:n0.d0.up@999999", "flip:n3.eject@999998:5"}
	res, got, _, err := faultTrace(t, sys, false)
	if err != nil || got != want {
		t.Fatalf("a fault that hits nothing changed the run: %v", err)
	}
	if len(res.Faults) != 2 || res.Faults[0].Hits != 0 || res.Faults[0].First != -1 {
		t.Fatalf("faults = %+v", res.Faults)
	}
}

// Each kind acts as docs/reliability.md says, deterministically.
func TestFaultKinds(t *testing.T) {
	sys := hw.Default()
	sys.Op = hw.OpSum
	_, ref, cross, err := faultTrace(t, sys, true)
	if err != nil {
		t.Fatal(err)
	}
	idx := noc.NewChannelIndex(noc.Fabric(mustFabric(t, sys)))
	var payload, head noc.Crossing
	for _, c := range cross {
		if c.Head && head.Cycle == 0 && strings.Contains(idx.Name(int(c.Channel)), ".d") {
			head = c
		}
		if !c.Head && payload.Cycle == 0 && strings.Contains(idx.Name(int(c.Channel)), ".d") {
			payload = c
		}
	}
	spec := func(kind string, c noc.Crossing, bit string) string {
		s := kind + ":" + idx.Name(int(c.Channel)) + "@" + itoa(c.Cycle)
		if bit != "" {
			s += ":" + bit
		}
		return s
	}
	// A flipped payload bit: without a check code the run completes with a
	// different value and no error (silent); with it, the unit raises CRC.
	sys.Faults = []string{spec("flip", payload, "3")}
	sys.CRCBits = 0
	res, tr, _, err := faultTrace(t, sys, false)
	if err != nil || !res.Complete || tr == ref || res.Faults[0].Hits != 1 {
		t.Fatalf("flip: err %v, complete %v, hits %+v", err, res.Complete, res.Faults)
	}
	res2, tr2, _, _ := faultTrace(t, sys, false)
	if tr2 != tr || res2.Cycles != res.Cycles {
		t.Fatal("flip: not deterministic")
	}
	sys.CRCBits = hw.PacketCodeBits
	res, _, _, err = faultTrace(t, sys, false)
	if ue, ok := errors.AsType[*UnitError](err); !ok || ue.Errors[0].Code != barrierunit.ErrCRC || res.Complete ||
		!strings.Contains(err.Error(), "CRC at gate") || !strings.Contains(err.Error(), "fault "+sys.Faults[0]+" hit at cycle") {
		t.Fatalf("flip with a check code: %v", err)
	}
	// Every data bit of a head flit (a reduction's head is not its tail,
	// so its sideband carries nothing): the check code catches it.
	for bit := 0; bit < sys.FlitWidth; bit++ {
		sys.Faults = []string{spec("flip", head, itoa(int64(bit)))}
		res, _, _, err := faultTrace(t, sys, false)
		if _, ok := errors.AsType[*UnitError](err); !ok {
			t.Fatalf("%s: not detected: complete %v, err %v", sys.Faults[0], res.Complete, err)
		}
	}
	// A lost head or a dead channel: the barrier cannot complete; without
	// a watchdog it stops once nothing can change (no_progress, long
	// before max_cycles), with one the waiting units raise TIMEOUT and the
	// message follows the wait to the lost signal's channel or the rank
	// that never came.
	for _, f := range []string{spec("drop", head, ""), spec("dead", head, ""), "stuck:5"} {
		sys.Faults = []string{f}
		sys.MaxCycles = 5000
		sys.Watchdog = 0
		res, _, _, err := faultTrace(t, sys, false)
		se, ok := errors.AsType[*StuckError](err)
		if !ok || res.Complete || res.Stop != StopNoProgress || res.Cycles >= 1000 || se.At != res.Cycles ||
			!strings.HasPrefix(err.Error(), fmt.Sprintf("stuck: nothing can happen after cycle %d: ", res.Cycles-1)) {
			t.Fatalf("%s: stop %q, cycles %d, err %v", f, res.Stop, res.Cycles, err)
		}
		sys.Watchdog = 200
		res, _, _, err = faultTrace(t, sys, false)
		ue, ok := errors.AsType[*UnitError](err)
		if !ok || ue.Errors[0].Code != barrierunit.ErrTimeout || res.Complete {
			t.Fatalf("%s with a watchdog: %v", f, err)
		}
		if e := ue.Errors[0]; e.Cycle > res.Cycles || e.Cycle < 200 {
			t.Fatalf("%s: TIMEOUT at cycle %d, run of %d cycles", f, e.Cycle, res.Cycles)
		}
		want := "which has not arrived"
		if f != "stuck:5" {
			want = "lost on channel " + idx.Name(int(head.Channel))
		}
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v lacks %q", f, err, want)
		}
	}
	sys.Watchdog = 0
	// A name the network does not have: an error on the entry, with the
	// nearest names.
	sys.Faults = []string{"stuck:1", "drop:n5.d1.upp@3"}
	if _, err := Build(sys, nil); err == nil || !strings.Contains(err.Error(), "faults[1]") || !strings.Contains(err.Error(), "did you mean n5.d1.up") {
		t.Fatalf("unknown channel: %v", err)
	}
}

func mustFabric(t *testing.T, sys hw.System) noc.Fabric {
	f, err := noc.NewFabric(sys.Topology, sys.Dims)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// TestCampaignReferenceOneWorker: a campaign's fault-free run, whose
// crossings the faults are drawn from in recorded order, runs on one
// worker even on a system large enough to share its cycles (where the
// order would change from run to run).
func TestCampaignReferenceOneWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 131,072-node system")
	}
	sys := hw.Default()
	sys.Dims, sys.Ranks = []int{64, 64, 32}, 0
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.eng.workers < 2 {
		t.Skipf("%d workers here: nothing to prove", s.eng.workers)
	}
	ref, err := campaignReference(sys)
	if err != nil {
		t.Fatal(err)
	}
	if ref.eng.workers != 1 {
		t.Fatalf("the reference run has %d workers (a system of %d elements)", ref.eng.workers, ref.eng.n)
	}
}

// A campaign is deterministic and its counts add up.
func TestCampaign(t *testing.T) {
	sys := hw.Default()
	sys.Op = hw.OpSum
	opt := CampaignOptions{Runs: 12, Seed: 7, Kinds: []string{hw.FaultDrop, hw.FaultDead, hw.FaultStuck}}
	a, err := RunCampaign(sys, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RunCampaign(sys, opt)
	if a.CampaignCounts != b.CampaignCounts {
		t.Fatalf("not deterministic: %+v vs %+v", a.CampaignCounts, b.CampaignCounts)
	}
	if a.Runs != 12 || a.ByKind[hw.FaultDead].Runs != 4 || a.Injected != 12 {
		t.Fatalf("counts %+v", a.CampaignCounts)
	}
	for k, c := range a.ByKind {
		if c.Silent+c.Reported+c.Recovered < c.Runs {
			t.Errorf("%s: a run in no class: %+v", k, c)
		}
	}
}

// TestCampaignPerRun: with several faults per run, every run carries
// as many faults of its kind as its count says (kinds and counts crossed,
// not in lockstep), by_count adds up to the runs, a stuck run names
// distinct ranks, and the campaign is deterministic.
func TestCampaignPerRun(t *testing.T) {
	sys := hw.Default()
	sys.Op, sys.Watchdog = hw.OpSum, 500
	kinds := []string{hw.FaultFlip, hw.FaultDrop, hw.FaultStuck}
	opt := CampaignOptions{Runs: 36, Seed: 3, Kinds: kinds, PerRun: []int{1, 2, 4}, Keep: true}
	a, err := RunCampaign(sys, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RunCampaign(sys, opt)
	if a.CampaignCounts != b.CampaignCounts || !slices.EqualFunc(a.Detail, b.Detail, func(x, y CampaignRun) bool { return x.Spec == y.Spec }) {
		t.Fatal("not deterministic")
	}
	pairs := map[string]int{}
	for i, r := range a.Detail {
		specs := strings.Fields(r.Spec)
		kind, n := kinds[i%3], opt.PerRun[i/3%3]
		if len(specs) != n {
			t.Fatalf("run %d: %d faults (%s), want %d", i, len(specs), r.Spec, n)
		}
		seen := map[string]bool{}
		for _, spec := range specs {
			f, err := hw.ParseFault(spec)
			if err != nil || f.Kind != kind {
				t.Fatalf("run %d: fault %s, want kind %s", i, spec, kind)
			}
			if kind == hw.FaultStuck && seen[spec] {
				t.Fatalf("run %d: %s twice", i, spec)
			}
			seen[spec] = true
		}
		pairs[fmt.Sprint(kind, n)]++
	}
	if len(pairs) != 9 {
		t.Errorf("kind and count pairs %v: want all 9", pairs)
	}
	total := 0
	for k, c := range a.ByCount {
		total += c.Runs
		if c.Runs != 12 {
			t.Errorf("by_count[%s] has %d runs, want 12", k, c.Runs)
		}
	}
	if total != a.Runs || len(a.ByCount) != 3 {
		t.Errorf("by_count %v adds up to %d runs of %d", a.ByCount, total, a.Runs)
	}
	for _, bad := range [][]int{{0}, {5}} {
		if _, err := RunCampaign(sys, CampaignOptions{Runs: 1, PerRun: bad}); err == nil {
			t.Errorf("faults per run %v accepted", bad)
		}
	}
}

// A dead channel the routing avoids: the barrier completes, and a
// reduction gives the fault-free values, for every network channel of a
// 4x4 hyper-crossbar and a 4x4 torus, and for every ring channel of a torus
// with a mesh line (the torus routes packed addresses, Torus.NextAddr,
// unless channels are avoided).
func TestAvoidDeadChannel(t *testing.T) {
	hx := hw.Default()
	tor := hw.Default()
	tor.Topology = hw.TopoTorus
	mixed := tor
	mixed.Dims, mixed.Wrap = []int{4, 3}, []bool{true, false}
	mixed.Ranks = 0
	for _, sys := range []hw.System{hx, tor, mixed} {
		sys.Op = hw.OpSum
		ref, _, _, err := faultTrace(t, sys, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range noc.Channels(mustFabric(t, sys)) {
			if c.Kind != noc.ChanNetwork || len(sys.Wrap) > 0 && !strings.Contains(c.Name, ".d0") {
				continue
			}
			sys.Faults = []string{"dead:" + c.Name + "@0"}
			sys.Avoid = []string{c.Name}
			res, _, _, err := faultTrace(t, sys, false)
			if err != nil || !res.Complete {
				t.Fatalf("%v %s: avoid %s: %v", sys.Dims, sys.Topology, c.Name, err)
			}
			for r := range res.Nodes {
				if res.Nodes[r].Result != ref.Nodes[r].Result {
					t.Fatalf("%v %s: avoid %s: rank %d result %s, want %s", sys.Dims, sys.Topology, c.Name, r, res.Nodes[r].Result, ref.Nodes[r].Result)
				}
			}
			if res.Faults[0].Hits != 0 {
				t.Fatalf("%v %s: avoid %s: the dead channel was used", sys.Dims, sys.Topology, c.Name)
			}
		}
	}
}

// Issue 20's reproduction: two flips 127 bits apart in one 2-flit sum
// packet cancelled in CRC-8 (period 127) and the run ended complete with
// two results among the ranks. The 32-bit code catches the pair, and any
// two flips in one packet (random pairs over the injection channels' head
// and payload flits, every data, sideband and head/tail mark bit, each
// mark also paired with 15 others): a run either raises a unit error (the
// check code, or the watchdog when a mark flip loses the packet) or
// changes nothing.
func TestDoubleFlipDetected(t *testing.T) {
	sys := hw.Default()
	sys.Op = hw.OpSum
	sys.Faults = []string{"flip:n8.inject@4:7", "flip:n8.inject@5:56"}
	res, _, _, err := faultTrace(t, sys, false)
	if ue, ok := errors.AsType[*UnitError](err); !ok || ue.Errors[0].Code != barrierunit.ErrCRC || res.Complete {
		t.Fatalf("issue 20's double flip: complete %v, err %v", res.Complete, err)
	}
	for _, f := range res.Faults {
		if f.Hits != 1 {
			t.Fatalf("%s hit %d flits, want 1", f.Spec, f.Hits)
		}
	}

	// A flipped head or tail mark loses a packet (dropped at a switch as
	// illegal): the watchdog reports it, as the guarantee says.
	sys.Faults, sys.Watchdog = nil, 500
	_, ref, cross, err := faultTrace(t, sys, true)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := Build(sys, nil)
	idx := noc.NewChannelIndex(s.Fabric)
	var heads []noc.Crossing // a head on an injection channel, its payload the cycle after
	for _, c := range cross {
		if c.Head && strings.HasSuffix(idx.Name(int(c.Channel)), ".inject") {
			heads = append(heads, c)
		}
	}
	type flip struct{ flit, bit int } // flit 0 (head) or 1 (payload, the tail)
	// pos is a flipped bit's place in the codeword: each flit's {head,
	// tail, data} most significant first, then the code.
	fw, cb := sys.FlitWidth, sys.CRCBits
	pos := func(f flip) int {
		if f.bit >= fw {
			return 2*(fw+2) + cb - 1 - (f.bit - fw)
		}
		return f.flit*(fw+2) + 2 + fw - 1 - f.bit
	}
	var pairs [][2]flip
	// Every pair 127 bits apart (CRC-8's period: the class) ...
	for a := range 2 * (fw + cb) {
		for b := range 2 * (fw + cb) {
			fa, fb := flip{a / (fw + cb), a % (fw + cb)}, flip{b / (fw + cb), b % (fw + cb)}
			if fa.flit == 0 && fa.bit >= fw || fb.flit == 0 && fb.bit >= fw {
				continue // the head's sideband carries nothing
			}
			if pos(fb)-pos(fa) == 127 {
				pairs = append(pairs, [2]flip{fa, fb})
			}
		}
	}
	if len(pairs) == 0 {
		t.Fatal("no pair 127 bits apart: the packet layout changed")
	}
	// ... and random ones over the whole wire: data, check code and the
	// tail and head marks (bits fw+cb and fw+cb+1, hw.Wire).
	rng := rand.New(rand.NewPCG(7, 8))
	wire := sys.Wire().Bits()
	if wire != fw+cb+2 {
		t.Fatalf("the wire has %d bits, want data %d + code %d + tail + head", wire, fw, cb)
	}
	for range 100 {
		pairs = append(pairs, [2]flip{{rng.IntN(2), rng.IntN(wire)}, {rng.IntN(2), rng.IntN(wire)}})
	}
	// Every mark of both flits with 15 random partners each.
	for _, mark := range []flip{{0, fw + cb}, {0, fw + cb + 1}, {1, fw + cb}, {1, fw + cb + 1}} {
		for range 15 {
			pairs = append(pairs, [2]flip{mark, {rng.IntN(2), rng.IntN(wire)}})
		}
	}
	for i, p := range pairs {
		if p[0] == p[1] {
			continue
		}
		h := heads[i%len(heads)]
		name := idx.Name(int(h.Channel))
		sys.Faults = []string{
			"flip:" + name + "@" + itoa(h.Cycle+int64(p[0].flit)) + ":" + strconv.Itoa(p[0].bit),
			"flip:" + name + "@" + itoa(h.Cycle+int64(p[1].flit)) + ":" + strconv.Itoa(p[1].bit),
		}
		res, tr, _, err := faultTrace(t, sys, false)
		if _, ok := errors.AsType[*UnitError](err); !ok && tr != ref {
			t.Fatalf("%v: silent (complete %v, err %v)", sys.Faults, res.Complete, err)
		}
	}
}

// TestCampaignFlipsWholeWire: a campaign's flips are drawn over every bit
// of the wire a flip can name, so they reach the check-code sideband and
// the tail and head marks, and never a bit past the wire.
func TestCampaignFlipsWholeWire(t *testing.T) {
	sys := hw.Default()
	sys.Watchdog = 500
	w := sys.Wire()
	opt := CampaignOptions{Runs: 120, Seed: 5, Kinds: []string{hw.FaultFlip}, PerRun: []int{4}, Keep: true}
	a, err := RunCampaign(sys, opt)
	if err != nil {
		t.Fatal(err)
	}
	var sideband, tail, head int
	for _, r := range a.Detail {
		for _, spec := range strings.Fields(r.Spec) {
			b, err := strconv.Atoi(spec[strings.LastIndex(spec, ":")+1:])
			if err != nil || b < 0 || b >= w.Bits() {
				t.Fatalf("%s: bit outside 0..%d", spec, w.Bits()-1)
			}
			switch {
			case b == w.HeadBit():
				head++
			case b == w.TailBit():
				tail++
			case b >= sys.FlitWidth:
				sideband++
			}
		}
	}
	if sideband == 0 || tail == 0 || head == 0 {
		t.Errorf("of %d flips: %d on the check code, %d on the tail mark, %d on the head mark; want each > 0", 4*opt.Runs, sideband, tail, head)
	}
}
