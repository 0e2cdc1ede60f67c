package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"strings"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// Patterns are the synthetic traffic patterns.
var Patterns = []string{"uniform", "transpose", "bitcomp", "hotspot"}

// TrafficConfig describes one synthetic-traffic run on a system's network.
type TrafficConfig struct {
	Pattern     string  // uniform, transpose, bitcomp, hotspot
	Rate        float64 // offered load, flits per node per cycle
	PacketFlits int     // flits per packet (head included)
	Cycles      int64   // cycles of injection
	Warmup      int64   // cycles excluded from the statistics (negative: Cycles/10)
	Hotspot     float64 // hotspot: fraction of packets sent to node 0 (default 0.1)
	Seed        uint64
	// Progress, when set, is called about every 1/64 of the run.
	Progress func(done, total int64)
}

// TrafficResult is the outcome; its JSON is the contract of `hxbar traffic`.
type TrafficResult struct {
	Cycles      int64   `json:"cycles"`
	Warmup      int64   `json:"warmup"` // cycles before the window (TrafficConfig.Warmup as run)
	Nodes       int     `json:"nodes"`
	Pattern     string  `json:"pattern"`
	PacketFlits int     `json:"packet_flits"`
	Offered     float64 `json:"offered"`  // flits/node/cycle created in the window
	Accepted    float64 `json:"accepted"` // flits/node/cycle ejected in the window
	// LatencyAvg and LatencyP99 are 0 when no packet was measured
	// (Packets 0), null in the JSON: there is no latency to report.
	LatencyAvg float64 `json:"latency_avg"`
	LatencyP99 float64 `json:"latency_p99"`
	Packets    uint64  `json:"packets"` // measured packets delivered
	FlitHops   uint64  `json:"flit_hops"`
	Drained    bool    `json:"drained"` // every measured packet was delivered
}

// MarshalJSON writes the result with null latencies when no packet was
// measured, not a latency of 0 cycles.
func (r TrafficResult) MarshalJSON() ([]byte, error) {
	avg, p99 := &r.LatencyAvg, &r.LatencyP99
	if r.Packets == 0 {
		avg, p99 = nil, nil
	}
	return json.Marshal(struct {
		Cycles      int64    `json:"cycles"`
		Warmup      int64    `json:"warmup"`
		Nodes       int      `json:"nodes"`
		Pattern     string   `json:"pattern"`
		PacketFlits int      `json:"packet_flits"`
		Offered     float64  `json:"offered"`
		Accepted    float64  `json:"accepted"`
		LatencyAvg  *float64 `json:"latency_avg"`
		LatencyP99  *float64 `json:"latency_p99"`
		Packets     uint64   `json:"packets"`
		FlitHops    uint64   `json:"flit_hops"`
		Drained     bool     `json:"drained"`
	}{r.Cycles, r.Warmup, r.Nodes, r.Pattern, r.PacketFlits, r.Offered, r.Accepted, avg, p99, r.Packets, r.FlitHops, r.Drained})
}

const latBins = 1 << 16

type trafficRun struct {
	cfg TrafficConfig
	net *noc.Network
	fab noc.Fabric
	eng *engine
	rng *rand.Rand
	// pcg is rng's source: the injection draw reads it directly (below
	// pInject in 53 bits: injectThreshold).
	pcg      *rand.PCG
	auto     *autoShare // nil: the workers are fixed
	pInject  uint64
	nodes    int
	switches int32 // endpoint e is element switches + node

	// Source queues: per node a ring of (dst, born) packets.
	qDst  [][]int32
	qBorn [][]int64
	qHead []int
	flit  []int // next flit of the front packet

	hist              []uint64
	measured, created uint64
	// ws are the endpoints' statistics per worker (several workers share a
	// cycle on a large network): the counters are added into the run's
	// after every cycle, the histograms at the end. Sums do not depend on
	// which worker counted what, so the result is the single worker's.
	ws                 [hw.MaxWorkers]trafficStats
	createdFlits, ejFl uint64
	latSum             uint64
	outstanding        uint64 // measured packets not yet delivered
	qBornRx            []int64
	winStart, winEnd   int64
}

// trafficStats are one worker's endpoint statistics.
type trafficStats struct {
	hist                   []uint64
	measured, ejFl, latSum uint64
	_                      [40]byte // a cache line of its own
}

// destination draws the destination of a new packet from src.
func (r *trafficRun) destination(src int) int {
	n := r.nodes
	switch r.cfg.Pattern {
	case "transpose":
		b := bits.Len(uint(n)) - 1
		h := b / 2
		lo := src & (1<<h - 1)
		return (lo << (b - h)) | src>>h
	case "bitcomp":
		return n - 1 - src
	case "hotspot":
		if r.rng.Float64() < r.cfg.Hotspot {
			return 0
		}
	}
	d := r.rng.IntN(n - 1)
	if d >= src {
		d++
	}
	return d
}

// RunTraffic runs synthetic traffic on the network of sys (dims, buffer
// depth, link latency, duplex are used).
func RunTraffic(sys hw.System, cfg TrafficConfig) (*TrafficResult, error) {
	if err := sys.Validate(); err != nil {
		return nil, err
	}
	if err := checkModelSize(&sys); err != nil {
		return nil, err
	}
	ok := false
	for _, p := range Patterns {
		ok = ok || p == cfg.Pattern
	}
	if !ok {
		return nil, fmt.Errorf("invalid pattern: %q (allowed: %s)", cfg.Pattern, strings.Join(Patterns, ", "))
	}
	if !(cfg.Rate > 0 && cfg.Rate <= 1) {
		return nil, fmt.Errorf("invalid rate: %v (allowed: a load in flits/node/cycle, 0 < rate <= 1)", cfg.Rate)
	}
	if cfg.PacketFlits < 1 || cfg.PacketFlits > 1024 {
		return nil, fmt.Errorf("invalid packet-flits: %d (allowed: 1..1024)", cfg.PacketFlits)
	}
	if cfg.Cycles < 1 || cfg.Cycles > 1<<32 {
		return nil, fmt.Errorf("invalid cycles: %d (allowed: 1..%d)", cfg.Cycles, int64(1)<<32)
	}
	if cfg.Hotspot == 0 {
		cfg.Hotspot = 0.1
	}
	if !(cfg.Hotspot > 0 && cfg.Hotspot <= 1) {
		return nil, fmt.Errorf("invalid hotspot: %v (allowed: a fraction of packets, 0 < hotspot <= 1)", cfg.Hotspot)
	}
	if cfg.Warmup < 0 {
		cfg.Warmup = cfg.Cycles / 10
	}
	if cfg.Warmup >= cfg.Cycles {
		return nil, fmt.Errorf("invalid warmup: %d (allowed: 0..%d, less than cycles)", cfg.Warmup, cfg.Cycles-1)
	}
	return runTraffic(sys, cfg, trafficPar{})
}

// trafficParallelElements is the network size (switches and endpoints)
// from which traffic runs on every core (up to hw.MaxWorkers): 512 takes
// the 16x16 hyper-crossbar (544 elements, a cycle of uniform traffic at
// 0.1 about 10 us on one core) and the 4^4 one, not the 8x8 (144), whose
// 2.5 us cycles gain too little over the hand-over and lose on a loaded
// machine (docs/performance.md, "Traffic on both cores").
const trafficParallelElements = 512

// trafficPar overrides how a traffic run shares its cycles (tests and
// benchmarks): workers > 0 forces that many workers; perWorker and minEls,
// when not 0, set the spinner's (blocks per worker in a phase, scheduled
// elements below which a phase runs on one worker).
type trafficPar struct {
	workers           int
	perWorker, minEls int32
	// trial > 0 keeps autoShare on with forced workers, with trials of
	// trial cycles and choices held for hold cycles.
	trial, hold int64
}

// runTraffic is RunTraffic with its sharing overridden by par.
func runTraffic(sys hw.System, cfg TrafficConfig, par trafficPar) (*TrafficResult, error) {
	r, err := newTrafficRun(sys, cfg)
	if err != nil {
		return nil, err
	}
	r.share(par)
	n, net := r.nodes, r.net
	drainLimit := cfg.Cycles + 100_000
	for t := int64(0); t < drainLimit; t++ {
		if t >= cfg.Cycles && r.outstanding == 0 {
			break
		}
		if cfg.Progress != nil && t < cfg.Cycles && t%(max(cfg.Cycles/64, 1)) == 0 {
			cfg.Progress(t, cfg.Cycles)
		}
		if r.auto != nil {
			r.auto.tick(r, t)
		}
		r.cycle(t)
	}
	r.eng.close()
	r.mergeHist()
	win := float64(cfg.Cycles - cfg.Warmup)
	res := &TrafficResult{Cycles: cfg.Cycles, Warmup: cfg.Warmup, Nodes: n, Pattern: cfg.Pattern, PacketFlits: cfg.PacketFlits,
		Offered:  float64(r.createdFlits) / win / float64(n),
		Accepted: float64(r.ejFl) / win / float64(n),
		Packets:  r.measured, FlitHops: net.FlitHops(), Drained: r.outstanding == 0}
	if r.measured > 0 {
		res.LatencyAvg = float64(r.latSum) / float64(r.measured)
		res.LatencyP99 = float64(r.percentile(0.99))
	}
	return res, nil
}

func newTrafficRun(sys hw.System, cfg TrafficConfig) (*trafficRun, error) {
	fab, err := noc.FabricOf(&sys)
	if err != nil {
		return nil, err
	}
	n := fab.NumNodes()
	if cfg.Pattern == "transpose" && n&(n-1) != 0 {
		return nil, fmt.Errorf("invalid pattern: \"transpose\" needs a power-of-two node count, this system has %d nodes (allowed: uniform, bitcomp, hotspot)", n)
	}
	net, err := noc.NewFabricNetwork(fab, noc.Config{BufferDepth: sys.BufferDepth, LinkLatency: sys.LinkLatency, HalfDuplex: sys.Duplex == hw.DuplexHalf, SwitchPipeline: sys.SwitchPipeline == 1})
	if err != nil {
		return nil, err
	}
	pcg := rand.NewPCG(cfg.Seed, 0x5bd1e995)
	r := &trafficRun{cfg: cfg, net: net, fab: fab, nodes: n, switches: int32(fab.NumSwitches()),
		rng: rand.New(pcg), pcg: pcg, pInject: injectThreshold(cfg.Rate / float64(cfg.PacketFlits)),
		qDst: make([][]int32, n), qBorn: make([][]int64, n), qHead: make([]int, n), flit: make([]int, n),
		qBornRx: make([]int64, n),
		hist:    make([]uint64, latBins), winStart: cfg.Warmup, winEnd: cfg.Cycles}
	r.eng = newFabricEngine(fab, sys.Duplex == hw.DuplexHalf, sys.LinkLatency, net.Elements(), r.eval)
	net.Wake = r.eng.wake
	r.share(trafficPar{})
	return r, nil
}

// share sets the run's workers: every core from trafficParallelElements
// elements (par overriding), each phase shared by the spinner, except
// where the engine runs on one worker by design (half-duplex wires of a
// torus or fat tree: engine.alternate).
func (r *trafficRun) share(par trafficPar) {
	e := r.eng
	w := 1
	if !e.alternate && int(e.n) >= trafficParallelElements {
		w = min(runtime.GOMAXPROCS(0), hw.MaxWorkers)
	}
	if par.workers > 0 && !e.alternate {
		w = par.workers
	}
	r.setWorkers(w)
	r.net.SetSerial(w == 1)
	r.auto = nil
	if w > 1 {
		e.sp = &spinner{perWorker: 2, minEls: 48}
		if par.perWorker > 0 {
			e.sp.perWorker = par.perWorker
		}
		if par.minEls > 0 {
			e.sp.minEls = par.minEls
		}
		if par.workers == 0 || par.trial > 0 {
			r.auto = &autoShare{workers: w, trial: autoTrial, hold: autoHold}
			if par.trial > 0 {
				r.auto.trial, r.auto.hold = par.trial, par.hold
			}
		}
	}
}

// useWorkers runs the next cycles on n workers (1, or the count share
// set): between cycles only.
func (r *trafficRun) useWorkers(n int) {
	r.eng.workers = n
	r.net.SetSerial(n == 1)
}

// cycle creates this cycle's packets (while injecting) and runs the cycle.
func (r *trafficRun) cycle(t int64) {
	r.net.Rebase(t)
	if t < r.cfg.Cycles {
		for src := 0; src < r.nodes; src++ {
			if r.pcg.Uint64()<<11>>11 < r.pInject { // rng.Float64() < pPacket

				r.enqueue(src, r.destination(src), t)
			}
		}
	}
	r.eng.step(t)
	for w := range r.eng.workers {
		ws := &r.ws[w]
		r.measured += ws.measured
		r.outstanding -= ws.measured
		r.ejFl += ws.ejFl
		r.latSum += ws.latSum
		ws.measured, ws.ejFl, ws.latSum = 0, 0, 0
	}
}

// injectThreshold is the integer form of the injection draw: for x, the
// 53 bits rand.Rand.Float64 divides by 2^53, x/2^53 < p exactly when
// x < ceil(p * 2^53) (x and the product are exact in a float64), so the
// draw needs no conversion and reads the source without rand.Rand's
// interface call; the random stream and the results are the same.
func injectThreshold(p float64) uint64 {
	return uint64(math.Ceil(p * (1 << 53)))
}

// setWorkers shares the cycles among n workers, each with its statistics
// (worker 0 counts into the run's histogram).
func (r *trafficRun) setWorkers(n int) {
	r.eng.workers = n
	r.ws[0].hist = r.hist
	for w := 1; w < n; w++ {
		if r.ws[w].hist == nil {
			r.ws[w].hist = make([]uint64, latBins)
		}
	}
}

// mergeHist adds the workers' latency histograms into the run's.
func (r *trafficRun) mergeHist() {
	for w := 1; w < len(r.ws); w++ {
		for i, c := range r.ws[w].hist {
			r.hist[i] += c
			r.ws[w].hist[i] = 0
		}
	}
}

func (r *trafficRun) enqueue(src, dst int, t int64) {
	if r.qHead[src] == len(r.qDst[src]) { // empty: reuse the storage
		r.qDst[src], r.qBorn[src], r.qHead[src] = r.qDst[src][:0], r.qBorn[src][:0], 0
	}
	r.qDst[src] = append(r.qDst[src], int32(dst))
	r.qBorn[src] = append(r.qBorn[src], t)
	if t >= r.winStart && t < r.winEnd {
		r.created++
		r.createdFlits += uint64(r.cfg.PacketFlits)
		r.outstanding++
	}
	r.eng.wake(0, r.switches+int32(src), t)
}

// eval runs a switch, or a traffic endpoint: inject one flit per cycle from
// the source queue, eject one flit per cycle.
func (r *trafficRun) eval(e int32, t int64, w int) int { return b2i(r.evalBool(e, t, w)) }

// evalBool is eval's body: whether element e has work in cycle t+1.
func (r *trafficRun) evalBool(e int32, t int64, w int) bool {
	if e < r.switches {
		return r.net.EvalSwitch(int(e), t, w)
	}
	node := int(e - r.switches)
	busy := false
	if h := r.qHead[node]; h < len(r.qDst[node]) {
		busy = true
		if r.net.CanInject(node, t) {
			k := r.flit[node]
			f := hw.Flit{Dst: r.qDst[node][h], Src: int32(node), Flags: hw.FlitFlags(k == 0, k == r.cfg.PacketFlits-1)}
			if k == 0 {
				f.Data = uint64(r.qBorn[node][h])
			}
			r.net.Inject(node, f, t, w)
			if f.Tail() {
				r.qHead[node]++
				r.flit[node] = 0
			} else {
				r.flit[node]++
			}
		}
	}
	if head, tail, data, ok := r.net.RxTake(node, t); ok {
		busy = true
		if t >= r.winStart && t < r.winEnd {
			r.ws[w].ejFl++
		}
		if head {
			r.rxBorn(node, int64(data))
		}
		if tail {
			r.delivered(node, t, &r.ws[w])
		}
	}
	return busy || r.net.RxPending(node, t+1)
}

// Born cycles of packets being received, per node (one packet at a time
// arrives on the ejection channel: wormhole keeps packets contiguous).
func (r *trafficRun) rxBorn(node int, born int64) {
	r.qBornRx[node] = born
}

func (r *trafficRun) delivered(node int, t int64, ws *trafficStats) {
	born := r.qBornRx[node]
	if born < r.winStart || born >= r.winEnd {
		return
	}
	lat := uint64(t - born)
	ws.latSum += lat
	ws.measured++
	ws.hist[min(lat, latBins-1)]++
}

func (r *trafficRun) percentile(p float64) uint64 {
	want := uint64(float64(r.measured)*p + 0.999999)
	var acc uint64
	for i, c := range r.hist {
		acc += c
		if acc >= want {
			return uint64(i)
		}
	}
	return latBins - 1
}
