package main

import (
	"cmp"
	"flag"
	"fmt"
	"slices"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/budget"
	"github.com/hxbar/hxbar/noc"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/sweep"
)

// bindBudget adds --max-memory to a command that builds something whose
// size the input decides (a cycle model, a channel table); the function
// returns the limit to check estimates against.
func bindBudget(fs *flag.FlagSet) func() (budget.Limit, error) {
	max := fs.String("max-memory", "", "refuse a run whose estimated memory is over `SIZE` (e.g. 4GiB); default half the machine's memory, or 90% of ulimit -v when lower")
	return func() (budget.Limit, error) {
		if *max == "" {
			b, from := budget.Default()
			return budget.Limit{Max: b, From: "the default, " + from + "; --max-memory sets it"}, nil
		}
		b, err := budget.Parse(*max)
		if err != nil {
			return budget.Limit{}, usagef("invalid --max-memory: %v", err)
		}
		return budget.Limit{Max: b, From: "set by --max-memory"}, nil
	}
}

// modelBytes estimates the cycle model's memory for s as address space
// (what ulimit -v counts, an upper bound of what it keeps resident): about
// 750 MiB of the Go runtime's own reservations, then state per node that
// grows with the dimensions (ports, buffers, tables). Measured 2026-12-05
// by bisecting ulimit -v: hyper-crossbar 3.3 KB a node at 4 dimensions and
// 4.4 KB at 6, torus 4.3 and 5.9 KB (resident memory is about half); the
// figures below round those up by a fifth or more. A run keeps every
// rank's release cycle of every episode (--repeat, episodes): measured 24
// bytes resident a rank an episode (sim --dims 32,32 --repeat 5000: 124 MB
// more than one episode), counted as 48 of address space. perNode adds what
// the command keeps per node besides (results, traces).
func modelBytes(s *hw.System, perNode int64) budget.Bytes {
	n, d := int64(s.Nodes()), int64(len(s.Dims))
	per := 1024 + 768*d
	if s.Topology == hw.TopoTorus || s.Topology == hw.TopoFatTree {
		per = 1024 + 1024*d
	}
	per += 48 * int64(s.NumEpisodes())
	return budget.Bytes(modelBase + n*(per+perNode) + loopBytes(s, perNode > 0))
}

// loopBytes is what loops and communicators add to the cycle model: each
// rank beyond one a node (a channel of a unit, a run of communicators)
// about 1 KiB, and each iteration of each communicator (world's, or every
// communicator after splits) a record in the run and its result, about
// 160 bytes, 640 once --format json encodes them (measured: 8 channels on
// 32x32x32, 0.36 GB; 4,096 communicators x 1,000 iterations, 0.53 GB,
// with --format json 2.4 GB).
func loopBytes(s *hw.System, json bool) int64 {
	perIter := int64(160)
	if json {
		perIter = 640
	}
	if !s.HasCommunicators() {
		return int64(s.IterationCount()) * perIter
	}
	cs, err := s.Comms()
	if err != nil {
		return 0 // an invalid system: Validate names the error
	}
	var ranks, iters int64
	for _, c := range cs {
		ranks += int64(len(c.Ranks))
		iters += int64(c.Sys.IterationCount())
	}
	return max(ranks-int64(s.NumRanks()), 0)*1024 + iters*perIter
}

// modelBase is the Go runtime's own reservations, counted once a process.
const modelBase = 800 << 20

// checkModelBudget refuses to build the cycle model of s over the budget.
func checkModelBudget(getLimit func() (budget.Limit, error), what string, s *hw.System, perNode int64) error {
	if s.Nodes() > sim.MaxModelNodes {
		return nil // past the model's own limit: sim.Build refuses it by that
	}
	lim, err := getLimit()
	if err != nil {
		return err
	}
	if err := lim.Check(what, modelBytes(s, perNode), ""); err != nil {
		return usageError{err}
	}
	return nil
}

// channelTableBytes estimates check --channels as a table: the renderer
// holds every row (about 1 KiB each, measured at 655,364 rows).
func channelTableBytes(f noc.Fabric) budget.Bytes {
	return budget.Bytes(32<<20 + int64(noc.NumChannels(f))*1024)
}

// checkSweepBudget refuses a local sweep (of shard i of n, n 0 for all)
// whose points, run workers at a time, would need more memory than the
// budget: the largest cycle models of its points side by side, each as sim
// --format json counts it (the run keeps its per-rank results).
func checkSweepBudget(getLimit func() (budget.Limit, error), spec *sweep.Spec, i, n, workers int) error {
	var sizes []int64
	var largest int
	for k := range spec.Points {
		p := &spec.Points[k]
		if p.Index%max(n, 1) != i || p.Sys.Nodes() > sim.MaxModelNodes {
			continue
		}
		sizes = append(sizes, int64(modelBytes(&p.Sys, 512))-modelBase)
		largest = max(largest, p.Sys.Nodes())
	}
	slices.SortFunc(sizes, func(a, b int64) int { return cmp.Compare(b, a) })
	w := min(workerCount(workers), len(sizes))
	est := int64(modelBase)
	for _, sz := range sizes[:w] {
		est += sz
	}
	lim, err := getLimit()
	if err != nil {
		return err
	}
	what := fmt.Sprintf("the sweep's cycle models, %d points at once (the largest of %d nodes)", w, largest)
	if w == 1 {
		what = fmt.Sprintf("the sweep's cycle model of %d nodes", largest)
	}
	if err := lim.Check(what, budget.Bytes(est), "--workers runs fewer points at once"); err != nil {
		return usageError{err}
	}
	return nil
}
