package sim

// Validation of the traffic model against channel-load analysis
// (docs/validation.md): the analytic figures are computed here by walking
// the fabric's routing function for every (source, destination) pair of a
// pattern, never copied from a run.

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"testing"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// channelLoad is the channel-load analysis of one pattern on one fabric.
type channelLoad struct {
	gammaMax float64   // largest channel load per unit injection rate
	zeroLoad float64   // mean zero-load latency, cycles (1-flit packets)
	flowCap  []float64 // per source: 1/(largest load on its path)
	self     []bool    // per source: the pattern sends it to itself
	// bottlenecks is a set of channels of load gammaMax whose flows come
	// from disjoint sources (permutations only): above saturation each
	// carries at most one flit per cycle.
	bottlenecks int
	load        map[[2]int]float64 // per channel (see key)
	key         func(noc.Output) [2]int
}

// patternMatrix returns, per source, the destinations and the fraction of
// the source's traffic each gets, exactly as trafficRun.destination draws.
func patternMatrix(pattern string, n int, hot float64) func(src int) ([]int, []float64) {
	return func(src int) ([]int, []float64) {
		switch pattern {
		case "transpose":
			b := bits.Len(uint(n)) - 1
			h := b / 2
			return []int{(src&(1<<h-1))<<(b-h) | src>>h}, []float64{1}
		case "bitcomp":
			return []int{n - 1 - src}, []float64{1}
		}
		var ds []int
		var ws []float64
		u := 1.0
		if pattern == "hotspot" {
			u = 1 - hot
		}
		for d := 0; d < n; d++ {
			w := 0.0
			if d != src {
				w = u / float64(n-1)
			}
			if pattern == "hotspot" && d == 0 {
				w += hot
			}
			if w > 0 {
				ds, ws = append(ds, d), append(ws, w)
			}
		}
		return ds, ws
	}
}

func analyse(t *testing.T, sys hw.System, pattern string, hot float64) channelLoad {
	t.Helper()
	f, err := noc.NewFabric(sys.Topology, sys.Dims)
	if err != nil {
		t.Fatal(err)
	}
	n := f.NumNodes()
	// A channel is a wire: the torus's two VCs of a link direction share one.
	key := func(o noc.Output) [2]int {
		if w := f.Wire(o.Switch, o.Port, sys.Duplex == "half"); w >= 0 {
			return [2]int{-1, w}
		}
		return [2]int{o.Switch, o.Port}
	}
	load := map[[2]int]float64{}
	srcs := map[[2]int][]int{}
	paths := make([][][][2]int, n)
	m := patternMatrix(pattern, n, hot)
	cl := channelLoad{flowCap: make([]float64, n), self: make([]bool, n), load: load, key: key}
	for s := 0; s < n; s++ {
		ds, ws := m(s)
		for i, d := range ds {
			p, err := noc.Walk(f, s, d)
			if err != nil {
				t.Fatal(err)
			}
			var ks [][2]int
			for _, o := range p {
				k := key(o)
				ks = append(ks, k)
				load[k] += ws[i]
				srcs[k] = append(srcs[k], s)
			}
			paths[s] = append(paths[s], ks)
			// Injection in the creation cycle, one cycle to the attach
			// switch, L per network channel, one cycle into the ejection
			// FIFO, popped in the cycle it is ready (docs/validation.md).
			hops := len(p) - 1
			cl.zeroLoad += ws[i] * float64(2+hops*sys.LinkLatency) / float64(n)
			cl.self[s] = cl.self[s] || d == s
		}
	}
	// The injection channel of every node carries its whole rate.
	cl.gammaMax = 1
	for _, l := range load {
		cl.gammaMax = max(cl.gammaMax, l)
	}
	for s := range paths {
		g := 1.0
		for _, ks := range paths[s] {
			for _, k := range ks {
				g = max(g, load[k])
			}
		}
		cl.flowCap[s] = 1 / g
	}
	if pattern == "transpose" || pattern == "bitcomp" {
		// Greedy, in channel order, so that the set is the same every run.
		var keys [][2]int
		for k, l := range load {
			if l >= cl.gammaMax-1e-9 {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
		used := map[int]bool{}
	next:
		for _, k := range keys {
			for _, s := range srcs[k] {
				if used[s] {
					continue next
				}
			}
			for _, s := range srcs[k] {
				used[s] = true
			}
			cl.bottlenecks++
		}
	}
	return cl
}

func valSys(topo hw.Topology, dims ...int) hw.System {
	s := trafficSys(dims...)
	s.Topology = topo
	return s
}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*want }

// Zero-load latency: at 0.01 flits/node/cycle the mean latency is the
// analytic zero-load latency plus a little contention. It can never be
// below it (every flit of every path takes at least the cycles counted).
func TestValidationZeroLoad(t *testing.T) {
	cases := []struct {
		topo    hw.Topology
		dims    []int
		pattern string
		L, P    int
	}{
		{"hyperxbar", []int{8, 8}, "uniform", 1, 1},
		{"hyperxbar", []int{8, 8}, "uniform", 2, 1},
		{"hyperxbar", []int{8, 8}, "uniform", 1, 4},
		{"hyperxbar", []int{4, 4}, "uniform", 1, 1},
		{"hyperxbar", []int{4, 4, 4}, "uniform", 1, 1},
		{"hyperxbar", []int{8, 8}, "transpose", 1, 1},
		{"hyperxbar", []int{4, 8}, "transpose", 1, 1},
		{"hyperxbar", []int{8, 8}, "bitcomp", 1, 1},
		{"hyperxbar", []int{8, 8}, "hotspot", 1, 1},
		{"torus", []int{8, 8}, "uniform", 1, 1},
		{"torus", []int{8, 8}, "bitcomp", 1, 1},
		{"fattree", []int{4, 4, 4}, "uniform", 1, 1},
		{"fattree", []int{4, 4, 4}, "transpose", 1, 1},
	}
	for _, c := range cases {
		sys := valSys(c.topo, c.dims...)
		sys.LinkLatency = c.L
		cl := analyse(t, sys, c.pattern, 0.1)
		want := cl.zeroLoad + float64(c.P-1) // the tail trails the head by P-1 cycles
		res, err := RunTraffic(sys, TrafficConfig{Pattern: c.pattern, Rate: 0.01, PacketFlits: c.P, Cycles: 20000, Warmup: 1000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %v %s L=%d P=%d: zero-load latency analytic %.4f measured %.4f", c.topo, c.dims, c.pattern, c.L, c.P, want, res.LatencyAvg)
		if !res.Drained || res.LatencyAvg < want-1e-9 || !within(res.LatencyAvg, want, 0.015) {
			t.Errorf("%s %v %s L=%d P=%d: latency %.4f, analytic zero-load %.4f (allowed: +1.5%%)", c.topo, c.dims, c.pattern, c.L, c.P, res.LatencyAvg, want)
		}
	}
}

// Permutations: below 1/gammaMax every flit is accepted; above it every
// bottleneck channel carries one flit per cycle. Where the flows sharing a
// bottleneck enter its switch on different inputs and have no other
// bottleneck, round robin gives each the same share, so the accepted rate
// at offered r is the mean over sources of min(r, 1/(largest load on the
// source's path)): for the 8x8 transpose (56/7 + 8r)/64 = (1+r)/8.
func TestValidationPermutationSaturation(t *testing.T) {
	cases := []struct {
		topo    hw.Topology
		dims    []int
		pattern string
		share   bool    // the equal-share figure above saturation is exact
		below   float64 // fraction of saturation at which all is accepted
	}{
		{"hyperxbar", []int{8, 8}, "transpose", true, 0.9},
		{"hyperxbar", []int{4, 4}, "transpose", true, 0.9},
		{"hyperxbar", []int{8, 8}, "bitcomp", true, 0.9},
		{"hyperxbar", []int{4, 8}, "transpose", false, 0.9},
		{"torus", []int{8, 8}, "bitcomp", true, 0.9},
		{"torus", []int{8, 8}, "transpose", false, 0.9},
		{"fattree", []int{4, 4}, "transpose", true, 0.9},
		{"fattree", []int{4, 4, 4}, "bitcomp", true, 0.9},
		// Saturates at about 0.88 of 1/gammaMax whatever the buffer depth:
		// upstream of the load-4 channels, input FIFOs carry flows for two
		// load-3 outputs each, and head-of-line blocking couples them
		// (docs/validation.md).
		{"fattree", []int{4, 4, 4}, "transpose", false, 0.8},
	}
	run := func(sys hw.System, pattern string, r float64) *TrafficResult {
		res, err := RunTraffic(sys, TrafficConfig{Pattern: pattern, Rate: r, PacketFlits: 1, Cycles: 8000, Warmup: 2000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, c := range cases {
		sys := valSys(c.topo, c.dims...)
		cl := analyse(t, sys, c.pattern, 0)
		sat := 1 / cl.gammaMax
		name := fmt.Sprintf("%s %v %s", c.topo, c.dims, c.pattern)
		// Below saturation: everything offered is accepted.
		if sat < 1 {
			lo := run(sys, c.pattern, c.below*sat)
			t.Logf("%s: saturation 1/%.3f = %.4f; at %.1fx offered %.4f accepted %.4f", name, cl.gammaMax, sat, c.below, lo.Offered, lo.Accepted)
			if !within(lo.Accepted, lo.Offered, 0.01) {
				t.Errorf("%s: at %.1fx saturation offered %.4f accepted %.4f (want equal within 1%%)", name, c.below, lo.Offered, lo.Accepted)
			}
			// Above: each of the disjoint bottlenecks loses gammaMax*r - 1
			// of the flits per cycle offered to it.
			hi := run(sys, c.pattern, 1.3*sat)
			ceil := hi.Offered - float64(cl.bottlenecks)*(cl.gammaMax*hi.Offered-1)/float64(len(cl.self))
			t.Logf("%s: at 1.3x offered %.4f accepted %.4f, at most %.4f (%d bottlenecks)", name, hi.Offered, hi.Accepted, ceil, cl.bottlenecks)
			if cl.bottlenecks == 0 || hi.Accepted > ceil*1.005 {
				t.Errorf("%s: at 1.3x saturation accepted %.4f, above the channel-load ceiling %.4f", name, hi.Accepted, ceil)
			}
		}
		if !c.share {
			continue
		}
		for _, r := range []float64{0.5, 1.0} {
			want := 0.0
			for _, fc := range cl.flowCap {
				want += min(r, fc)
			}
			want /= float64(len(cl.flowCap))
			res := run(sys, c.pattern, r)
			t.Logf("%s: at offered %.2f accepted %.4f, analytic %.4f", name, r, res.Accepted, want)
			if !within(res.Accepted, want, 0.03) {
				t.Errorf("%s: at offered %.2f accepted %.4f, analytic %.4f (allowed: 3%%)", name, r, res.Accepted, want)
			}
		}
	}
}

// Uniform traffic: the channel-load bound is the endpoint channels' (1.0)
// on the hyper-crossbar and the fat tree and 1/gammaMax of the network
// channels on the torus, but one FIFO per input (per VC on the torus)
// blocks a head flit behind one bound for a busy output: the model
// saturates where head-of-line blocking does (docs/validation.md). The
// floors are measured, not analytic: 0.55, a little under the 2 - sqrt 2
// = 0.586 HOL limit of a large input-queued switch, for the hyper-crossbar
// and the fat tree; half the channel-load bound for the torus, whose
// routers chain HOL blocking over every hop of a dimension. Deeper FIFOs
// must help (less blocking of the flits behind a blocked head).
func TestValidationUniformHOL(t *testing.T) {
	cases := []struct {
		topo  hw.Topology
		dims  []int
		floor float64 // fraction of the channel-load bound
		B     int
	}{
		{"hyperxbar", []int{4, 4}, 0.55, 4},
		{"hyperxbar", []int{8, 8}, 0.55, 4},
		{"hyperxbar", []int{8, 8}, 0.55, 16},
		{"torus", []int{4, 4}, 0.5, 4},
		{"torus", []int{8, 8}, 0.5, 4},
		{"fattree", []int{4, 4, 4}, 0.55, 4},
	}
	prev := map[string]float64{}
	for _, c := range cases {
		sys := valSys(c.topo, c.dims...)
		sys.BufferDepth = c.B
		cl := analyse(t, sys, "uniform", 0)
		bound := 1 / cl.gammaMax
		name := fmt.Sprintf("%s %v B=%d", c.topo, c.dims, c.B)
		res, err := RunTraffic(sys, TrafficConfig{Pattern: "uniform", Rate: 1, PacketFlits: 1, Cycles: 8000, Warmup: 2000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: channel-load bound %.4f, accepted at offered 1.0: %.4f (%.0f%%)", name, bound, res.Accepted, 100*res.Accepted/bound)
		if res.Accepted > bound*1.005 || res.Accepted < c.floor*bound {
			t.Errorf("%s: accepted %.4f, want between %.3f and the channel-load bound %.4f", name, res.Accepted, c.floor*bound, bound)
		}
		key := fmt.Sprintf("%s %v", c.topo, c.dims)
		if p, ok := prev[key]; ok && res.Accepted <= p {
			t.Errorf("%s: accepted %.4f, not above %.4f with shallower FIFOs", name, res.Accepted, p)
		}
		prev[key] = res.Accepted
	}
}

// Channel loads, one by one: the flits the model moved over every channel
// at a load below saturation are gammaC * rate * cycles. This pins the
// routes themselves (a different minimal route, e.g. dimensions in the
// other order, keeps the hop counts and gamma_max of these patterns but
// moves the load to other channels).
func TestValidationChannelLoads(t *testing.T) {
	cases := []struct {
		topo    hw.Topology
		dims    []int
		pattern string
	}{
		{"hyperxbar", []int{8, 8}, "transpose"},
		{"hyperxbar", []int{4, 8}, "transpose"},
		{"hyperxbar", []int{4, 4}, "uniform"},
		{"torus", []int{8, 8}, "transpose"},
		{"fattree", []int{4, 4, 4}, "transpose"},
	}
	for _, c := range cases {
		sys := valSys(c.topo, c.dims...)
		cl := analyse(t, sys, c.pattern, 0)
		rate := 0.5 / cl.gammaMax
		cfg := TrafficConfig{Pattern: c.pattern, Rate: rate, PacketFlits: 1, Cycles: 20000, Seed: 1}
		r, err := newTrafficRun(sys, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for tc := int64(0); tc < cfg.Cycles; tc++ {
			r.cycle(tc)
		}
		f := r.fab
		got := map[[2]int]float64{}
		for sw := 0; sw < f.NumSwitches(); sw++ {
			for p := 0; p < f.Ports(sw); p++ {
				got[cl.key(noc.Output{Switch: sw, Port: p})] += float64(r.net.OutputFlits(sw, p))
			}
		}
		bad := 0
		for k, g := range got {
			want := cl.load[k] * rate * float64(cfg.Cycles)
			if math.Abs(g-want) > 0.1*want+30 {
				if bad++; bad <= 3 {
					t.Errorf("%s %v %s: channel %v carried %.0f flits, channel load says %.0f", c.topo, c.dims, c.pattern, k, g, want)
				}
			}
		}
	}
}
