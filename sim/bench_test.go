package sim

import (
	"fmt"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// BenchmarkTraffic reports node-cycles per second on uniform traffic at 0.1
// flits/node/cycle with 1-flit packets, 10,000 cycles (the figure).
func BenchmarkTraffic(b *testing.B) {
	for _, dims := range [][]int{{4, 4}, {8, 8}, {16, 16}} {
		sys := hw.Default()
		sys.Dims = dims
		sys.Ranks = 0
		name := fmt.Sprintf("nodes=%d", sys.Nodes())
		b.Run(name, func(b *testing.B) {
			cfg := TrafficConfig{Pattern: "uniform", Rate: 0.1, PacketFlits: 1, Cycles: 10000, Seed: 1}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := RunTraffic(sys, cfg); err != nil {
					b.Fatal(err)
				}
			}
			nc := float64(sys.Nodes()) * float64(cfg.Cycles) * float64(b.N)
			b.ReportMetric(nc/b.Elapsed().Seconds(), "node-cycles/s")
		})
	}
}

// BenchmarkBarrier times one butterfly barrier over growing systems.
func BenchmarkBarrier(b *testing.B) {
	for _, dims := range [][]int{{4, 4}, {8, 8, 8, 8}, {16, 16, 16, 16}} {
		sys := hw.Default()
		sys.Dims, sys.Ranks, sys.Skew = dims, 0, 100
		b.Run(fmt.Sprintf("ranks=%d", sys.Nodes()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, err := Build(sys, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Run(Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEngineStep measures the steady state of the engine: one cycle of
// a loaded 16x16 network. Allocations per op must be zero.
func BenchmarkEngineStep(b *testing.B) {
	sys := hw.Default()
	sys.Dims, sys.Ranks = []int{16, 16}, 0
	r, err := newTrafficRun(sys, TrafficConfig{Pattern: "uniform", Rate: 0.1, PacketFlits: 1, Cycles: 1 << 30, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	var t int64
	for ; t < 2000; t++ { // warm up: queues and buckets reach their size
		r.cycle(t)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.cycle(t)
		t++
	}
}
