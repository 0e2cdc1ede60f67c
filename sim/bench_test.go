package sim

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// BenchmarkTraffic reports node-cycles per second on uniform traffic at 0.1
// flits/node/cycle with 1-flit packets, 10,000 cycles (issue 26's figure),
// on 8x8, 16x16 and 32x32 hyper-crossbars with 1 and 2 workers; cpu-ns is
// the process's CPU time per node-cycle (all workers), the comparable
// figure on a shared machine when the wall clock is not.
func BenchmarkTraffic(b *testing.B) {
	for _, dims := range [][]int{{8, 8}, {16, 16}, {32, 32}} {
		for _, workers := range []int{1, 2} {
			sys := hw.Default()
			sys.Dims = dims
			sys.Ranks = 0
			b.Run(fmt.Sprintf("nodes=%d/workers=%d", sys.Nodes(), workers), func(b *testing.B) {
				cfg := TrafficConfig{Pattern: "uniform", Rate: 0.1, PacketFlits: 1, Cycles: 10000, Warmup: 1000, Seed: 1}
				b.ReportAllocs()
				c0 := cpuTime()
				for b.Loop() {
					if _, err := runTraffic(sys, cfg, trafficPar{workers: workers}); err != nil {
						b.Fatal(err)
					}
				}
				nc := float64(sys.Nodes()) * float64(cfg.Cycles) * float64(b.N)
				b.ReportMetric(nc/b.Elapsed().Seconds(), "node-cycles/s")
				b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/nc, "cpu-ns/node-cycle")
			})
		}
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

// BenchmarkBarrierScale runs the same barrier (near-last butterfly, skew
// 100, every node a rank) on four-dimensional hyper-crossbars of 4 Ki, 16
// Ki, 64 Ki, 256 Ki and 1 Mi ranks and reports the run's wall time per
// rank-gate (ranks x gates), build excluded, so that a regression in
// scaling shows as a number; build-ms is the assembly (network, tables)
// per iteration; cpu-ns/rank-gate is the process's CPU time (user +
// system, all workers) per rank-gate in the runs. The shapes give exactly those rank counts:
// 8^4, 8x8x16x16, 16^4, 16x16x32x32, 32^4.
func BenchmarkBarrierScale(b *testing.B) {
	for _, dims := range [][]int{{8, 8, 8, 8}, {8, 8, 16, 16}, {16, 16, 16, 16}, {16, 16, 32, 32}, {32, 32, 32, 32}} {
		benchScale(b, hw.TopoHyperXbar, dims, nil)
	}
}

// BenchmarkTofuD runs examples/tofu-d-fugaku.yaml's barrier: 158,976 ranks
// on the 24x23x24x2x3x2 mesh/torus.
func BenchmarkTofuD(b *testing.B) {
	benchScale(b, hw.TopoTorus, []int{24, 23, 24, 2, 3, 2}, []bool{true, true, true, false, true, false})
}

// BenchmarkTorusScale is BenchmarkBarrierScale's barrier on 32^4 and 16^4
// tori (every dimension wraps): the packets cross many more hops.
func BenchmarkTorusScale(b *testing.B) {
	for _, dims := range [][]int{{16, 16, 16, 16}, {32, 32, 32, 32}} {
		benchScale(b, hw.TopoTorus, dims, nil)
	}
}

func benchScale(b *testing.B, topo hw.Topology, dims []int, wrap []bool) {
	sys := hw.Default()
	sys.Topology, sys.Dims, sys.Wrap, sys.Ranks, sys.Skew = topo, dims, wrap, 0, 100
	b.Run(fmt.Sprintf("ranks=%d", sys.Nodes()), func(b *testing.B) {
		b.ReportAllocs()
		var run, build, cpu time.Duration
		var gates int
		for b.Loop() {
			t0 := time.Now()
			s, err := Build(sys, nil)
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			c1 := cpuTime()
			if _, err := s.Run(Options{}); err != nil {
				b.Fatal(err)
			}
			cpu += cpuTime() - c1
			run += time.Since(t1)
			build += t1.Sub(t0)
			gates = s.Table.Gates
		}
		n := float64(b.N)
		b.ReportMetric(float64(run.Nanoseconds())/n/float64(sys.Nodes()*gates), "ns/rank-gate")
		// The process's CPU time (user + system) in the runs: on a shared
		// machine the comparable figure when the wall clock is not.
		b.ReportMetric(float64(cpu.Nanoseconds())/n/float64(sys.Nodes()*gates), "cpu-ns/rank-gate")
		b.ReportMetric(float64(build.Milliseconds())/n, "build-ms")
		b.ReportMetric(float64(gates), "gates")
	})
}

// TestWheelFor: the wheel of every link latency is a power of two above
// L + 1 (a flit's wake-up, t + L, never lands on the slot being walked).
func TestWheelFor(t *testing.T) {
	for L := 1; L <= hw.MaxLinkLatency; L++ {
		w := wheelFor(L)
		if w&(w-1) != 0 || w <= L+1 || w > maxWheel {
			t.Fatalf("L %d: wheel %d", L, w)
		}
	}
	// The largest latency runs.
	sys := hw.Default()
	sys.LinkLatency, sys.BufferDepth = hw.MaxLinkLatency, 2
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Run(Options{}); err != nil || !res.Complete {
		t.Fatalf("L %d: %v", sys.LinkLatency, err)
	}
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLoop runs osu_barrier-style loops (compute 0, skew 0) of 10
// and 100 iterations on 32x32x32 (32,768 ranks): the time per iteration
// must not grow with the iteration count (docs/performance.md, "Loops").
func BenchmarkLoop(b *testing.B) {
	for _, it := range []int{10, 100} {
		sys := hw.Default()
		sys.Dims, sys.Ranks, sys.Skew, sys.Iterations = []int{32, 32, 32}, 0, 0, it
		b.Run(fmt.Sprintf("iterations=%d", it), func(b *testing.B) {
			s, err := Build(sys, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				s, err = Build(sys, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := s.Run(Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*it), "ns/iteration")
		})
	}
}
