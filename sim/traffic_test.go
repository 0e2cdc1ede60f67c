package sim

import (
	"encoding/json"
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
		want, err := runTraffic(sys, cfg, 1)
		if err != nil {
			rt.Fatal(err)
		}
		got, err := runTraffic(sys, cfg, rapid.IntRange(2, 4).Draw(rt, "workers"))
		if err != nil {
			rt.Fatal(err)
		}
		if *got != *want {
			rt.Fatalf("parallel %+v, single worker %+v", got, want)
		}
	})
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
