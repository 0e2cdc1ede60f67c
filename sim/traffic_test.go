package sim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/hxbar/hxbar/hw"
)

func trafficSys(dims ...int) hw.System {
	s := hw.Default()
	s.Dims, s.Ranks = dims, 0
	return s
}

func TestTrafficLowLoadIsAccepted(t *testing.T) {
	for _, p := range Patterns {
		res, err := RunTraffic(trafficSys(8, 8), TrafficConfig{Pattern: p, Rate: 0.05, PacketFlits: 2, Cycles: 4000, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Drained || res.Offered < 0.03 || res.Offered > 0.07 {
			t.Fatalf("%s: %+v", p, res)
		}
		if p != "hotspot" && (res.Accepted < 0.9*res.Offered || res.Accepted > 1.1*res.Offered) {
			t.Fatalf("%s: accepted %.4f of offered %.4f at low load", p, res.Accepted, res.Offered)
		}
		// Zero-load latency of a 2-flit packet on an 8x8 hyper-crossbar is at
		// least injection + 2 exchangers + 1 crossbar + ejection + 1 flit.
		if res.LatencyAvg < 5 || res.LatencyP99 < res.LatencyAvg {
			t.Fatalf("%s: latency avg %.2f p99 %.0f", p, res.LatencyAvg, res.LatencyP99)
		}
	}
}

func TestTrafficSaturates(t *testing.T) {
	low, err := RunTraffic(trafficSys(4, 4), TrafficConfig{Pattern: "uniform", Rate: 0.1, PacketFlits: 4, Cycles: 5000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	high, err := RunTraffic(trafficSys(4, 4), TrafficConfig{Pattern: "hotspot", Hotspot: 0.5, Rate: 0.9, PacketFlits: 4, Cycles: 5000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Half of all packets to node 0, whose ejection port takes one flit per
	// cycle: accepted load is capped near 2/16 flits/node/cycle.
	if high.Accepted > 0.3 || high.LatencyAvg < 10*low.LatencyAvg {
		t.Fatalf("no saturation: low %+v high %+v", low, high)
	}
}

func TestTrafficIsDeterministicAndHalfDuplexCosts(t *testing.T) {
	cfg := TrafficConfig{Pattern: "bitcomp", Rate: 0.4, PacketFlits: 4, Cycles: 3000, Seed: 9}
	a, _ := RunTraffic(trafficSys(4, 4), cfg)
	b, _ := RunTraffic(trafficSys(4, 4), cfg)
	if *a != *b {
		t.Fatalf("same seed, different results: %+v vs %+v", a, b)
	}
	half := trafficSys(4, 4)
	half.Duplex = "half"
	h, _ := RunTraffic(half, cfg)
	if h.LatencyAvg <= a.LatencyAvg {
		t.Fatalf("half duplex latency %.2f not above full duplex %.2f", h.LatencyAvg, a.LatencyAvg)
	}
}

// TestTrafficParallelMatchesSequential: traffic with its cycles shared by
// 2-4 workers (one bitmap word at a time) gives exactly the single
// worker's result, on random networks (one to six dimensions, every
// topology, torus wrap lists), patterns and loads. Run under -race too
// (make race).
func TestTrafficParallelMatchesSequential(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		sys := randomSystem(rt)
		if sys.Duplex == hw.DuplexHalf && sys.Topology != hw.TopoHyperXbar {
			sys.Duplex = hw.DuplexFull // a half-duplex torus or fat tree runs on one worker by design
		}
		patterns := []string{"uniform", "bitcomp", "hotspot"}
		if n := sys.Nodes(); n&(n-1) == 0 {
			patterns = append(patterns, "transpose")
		}
		cfg := TrafficConfig{Pattern: rapid.SampledFrom(patterns).Draw(rt, "pattern"), Rate: rapid.Float64Range(0.01, 0.9).Draw(rt, "rate"),
			PacketFlits: rapid.IntRange(1, 4).Draw(rt, "flits"), Cycles: 300, Seed: rapid.Uint64().Draw(rt, "traffic seed")}
		want, err := runTraffic(sys, cfg, trafficPar{workers: 1})
		if err != nil {
			rt.Fatal(err)
		}
		got, err := runTraffic(sys, cfg, trafficPar{workers: rapid.IntRange(2, 4).Draw(rt, "workers"),
			perWorker: rapid.Int32Range(1, 64).Draw(rt, "blocks per worker"), minEls: rapid.Int32Range(1, 32).Draw(rt, "min elements")})
		if err != nil {
			rt.Fatal(err)
		}
		if *got != *want {
			rt.Fatalf("parallel %+v, single worker %+v", got, want)
		}
	})
}

// TestTrafficWorkersAtSizes: on the networks traffic now shares among
// workers (8x8, 16x16 and 32x32 hyper-crossbars, and a 16x16 torus),
// two workers with the default spinner, two with small blocks,
// two switching to one and back every few cycles (autoShare) and the
// default give byte for byte the single worker's JSON, at a light and a
// saturating load and for every pattern.
func TestTrafficWorkersAtSizes(t *testing.T) {
	cases := []struct {
		dims []int
		topo hw.Topology
		cfg  TrafficConfig
	}{
		{[]int{8, 8}, hw.TopoHyperXbar, TrafficConfig{Pattern: "uniform", Rate: 0.1, PacketFlits: 1, Cycles: 3000, Seed: 1}},
		{[]int{8, 8}, hw.TopoHyperXbar, TrafficConfig{Pattern: "hotspot", Rate: 0.3, PacketFlits: 3, Cycles: 2000, Seed: 2}},
		{[]int{16, 16}, hw.TopoHyperXbar, TrafficConfig{Pattern: "uniform", Rate: 0.1, PacketFlits: 1, Cycles: 2000, Seed: 3}},
		{[]int{16, 16}, hw.TopoHyperXbar, TrafficConfig{Pattern: "uniform", Rate: 0.9, PacketFlits: 4, Cycles: 1000, Seed: 4}},
		{[]int{16, 16}, hw.TopoHyperXbar, TrafficConfig{Pattern: "transpose", Rate: 0.3, PacketFlits: 2, Cycles: 1000, Seed: 5}},
		{[]int{16, 16}, hw.TopoTorus, TrafficConfig{Pattern: "uniform", Rate: 0.2, PacketFlits: 2, Cycles: 1000, Seed: 6}},
		{[]int{32, 32}, hw.TopoHyperXbar, TrafficConfig{Pattern: "uniform", Rate: 0.1, PacketFlits: 1, Cycles: 600, Seed: 7}},
		{[]int{32, 32}, hw.TopoHyperXbar, TrafficConfig{Pattern: "bitcomp", Rate: 0.5, PacketFlits: 2, Cycles: 400, Seed: 8}},
	}
	for _, c := range cases {
		sys := trafficSys(c.dims...)
		sys.Topology = c.topo
		c.cfg.Warmup = -1
		var want []byte
		for _, par := range []trafficPar{{workers: 1}, {workers: 2}, {workers: 2, perWorker: 64, minEls: 1},
			{workers: 2, minEls: 1, trial: 3, hold: 5}, {}} {
			res, err := runTraffic(sys, c.cfg, par)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(res)
			if want == nil {
				want = got
				if res.Packets == 0 {
					t.Fatalf("%v %s: no packet measured", c.dims, c.cfg.Pattern)
				}
				continue
			}
			if string(got) != string(want) {
				t.Errorf("%v %s %d workers: %s, one worker %s", c.dims, c.cfg.Pattern, par.workers, got, want)
			}
		}
	}
}

// TestTrafficNoPacketsNoLatency: a run that measured no packet has no
// latency: null in the JSON, not a latency of 0 cycles.
func TestTrafficNoPacketsNoLatency(t *testing.T) {
	res, err := RunTraffic(hw.Default(), TrafficConfig{Pattern: "uniform", Rate: 0.0001, PacketFlits: 1, Cycles: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Packets != 0 {
		t.Skipf("%d packets measured: the case needs none", res.Packets)
	}
	b, err := json.Marshal(res)
	if err != nil || !strings.Contains(string(b), `"latency_avg":null,"latency_p99":null,`) {
		t.Errorf("no packet measured: %s (%v), want null latencies", b, err)
	}
	res, err = RunTraffic(hw.Default(), TrafficConfig{Pattern: "uniform", Rate: 0.1, PacketFlits: 1, Cycles: 1000})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(res)
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil || back["latency_avg"] != res.LatencyAvg || res.Packets == 0 {
		t.Errorf("%d packets: %s", res.Packets, b)
	}
}

// TestInjectThreshold: the integer injection draw decides as
// rand.Rand.Float64() < p does, for any 53-bit draw and probability,
// including the draws next to the threshold.
func TestInjectThreshold(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := rapid.Float64Range(0, 1).Draw(rt, "p")
		if rapid.Bool().Draw(rt, "tiny") {
			p = math.Ldexp(p, -rapid.IntRange(1, 1000).Draw(rt, "exp"))
		}
		th := injectThreshold(p)
		x := rapid.Uint64Range(0, 1<<53-1).Draw(rt, "x")
		for _, x := range []uint64{x, th, th - 1, th + 1} {
			x &= 1<<53 - 1
			if want, got := float64(x)/(1<<53) < p, x < th; got != want {
				rt.Fatalf("p %v x %d: threshold %d says %v, Float64 %v", p, x, th, got, want)
			}
		}
	})
}
