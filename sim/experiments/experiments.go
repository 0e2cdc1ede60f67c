// Package experiments measures the two seeds' claims on the cycle model and
// writes docs/experiments.md with its tables and SVG plots: the Hitachi
// seed's six one-sided/mutual step orders, near-last versus near-first
// recursive-doubling all-gather (the Fujitsu seed's order) on rings, mesh
// lines, tori, meshes, fat trees and hyper-crossbars, and full versus half
// duplex. Every figure comes from a sim run that
// `make experiments` (hxbar experiments) repeats; the runs are
// deterministic, so the document is too.
package experiments

import (
	"errors"
	"fmt"
	"github.com/hxbar/hxbar/internal/outfile"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// Run is one simulated data collective and what it measured.
type Run struct {
	Label    string
	Sys      hw.System
	Cycles   int64
	Flits    uint64
	FlitHops uint64
	Cost     int
}

// Measure simulates a data collective system.
func Measure(sys hw.System) (Run, error) {
	s, err := sim.Build(sys, nil)
	if err != nil {
		return Run{}, err
	}
	res, err := s.Run(sim.Options{})
	if err != nil {
		return Run{}, err
	}
	return Run{Sys: sys, Cycles: res.Cycles, Flits: res.Network.Flits, FlitHops: res.Network.FlitHops, Cost: res.Data.Cost}, nil
}

// system is the base of every experiment: all ranks arrive in cycle 0, so
// the cycles measure the collective alone.
func system(topology hw.Topology, dims []int, itemFlits int) hw.System {
	s := hw.Default()
	s.Name = "experiment"
	s.Topology, s.Dims, s.Ranks = topology, dims, 0
	s.Collective, s.ItemFlits, s.Skew = hw.CollAllGather, itemFlits, 0
	s.MaxCycles = 1 << 30
	return s
}

// Network is one network of the near-last/near-first comparison.
type Network struct {
	Label    string
	Topology hw.Topology
	Dims     []int
	Wrap     []bool // a torus's wrap flags (nil: every dimension a ring)
}

// The comparison's networks the text names.
const (
	Ring16    = "ring 16 (torus [16])"
	Line16    = "line 16 (mesh [16])"
	Torus4x4  = "torus 4x4"
	Mixed4x4  = "mixed 4x4 (ring x line)"
	Mesh4x4   = "mesh 4x4"
	FatTree42 = "fat tree 4-ary 2-tree"
	HyperX16  = "hyper-crossbar 16"
	HyperX4x4 = "hyper-crossbar 4x4"
)

// Networks are the comparison's networks, 16 nodes each: the torus family
// (rings, mesh lines and their mix), the fat trees, the hyper-crossbars.
var Networks = []Network{
	{Ring16, hw.TopoTorus, []int{16}, nil},
	{Line16, hw.TopoTorus, []int{16}, []bool{false}},
	{Torus4x4, hw.TopoTorus, []int{4, 4}, nil},
	{Mixed4x4, hw.TopoTorus, []int{4, 4}, []bool{true, false}},
	{Mesh4x4, hw.TopoTorus, []int{4, 4}, []bool{false, false}},
	{"fat tree 2-ary 4-tree", hw.TopoFatTree, []int{2, 2, 2, 2}, nil},
	{FatTree42, hw.TopoFatTree, []int{4, 4}, nil},
	{HyperX16, hw.TopoHyperXbar, []int{16}, nil},
	{HyperX4x4, hw.TopoHyperXbar, []int{4, 4}, nil},
}

// Row is one network and item size of the comparison's table.
type Row struct {
	Network string // a Networks label
	Flits   int    // flits per item
}

// Cosimulated are the comparison's rows the torus RTL runs, both orders,
// cycle for cycle as the model (testbench.TestTorusDoublingCosim): their
// cycles are the RTL's too. The document names them.
var Cosimulated = []Row{
	{Ring16, 1}, {Ring16, 4}, {Line16, 1}, {Torus4x4, 1}, {Mixed4x4, 1}, {Mesh4x4, 1},
}

// NetworkOf is the network of Networks labelled label.
func NetworkOf(label string) (Network, bool) {
	for _, n := range Networks {
		if n.Label == label {
			return n, true
		}
	}
	return Network{}, false
}

// Doubling is the system of the comparison's run on n with f flits per
// item and algo (butterfly: near-last; butterfly-near-first): what the
// tables report and what the torus co-simulation (testbench) runs.
func Doubling(n Network, f int, algo hw.Algorithm) hw.System {
	sys := system(n.Topology, n.Dims, f)
	sys.Wrap, sys.Algo = n.Wrap, algo
	return sys
}

// Options sizes the experiments.
type Options struct {
	OrderFlits  []int // item sizes of the six-orders experiment
	DoubleFlits []int // item sizes of the near-last/near-first comparison
	DuplexFlits int   // item size of the duplex comparison
	RingSizes   []int // ring sizes of the near-last/near-first sweep
	RingFlits   int   // item size of the ring sweep
	WideFlits   int   // item size of every order on 64 nodes, 8 items
	Progress    io.Writer
}

// Default is what `make experiments` runs.
func Default() Options {
	return Options{OrderFlits: []int{4, 16, 64, 256}, DoubleFlits: []int{1, 4, 16, 64}, DuplexFlits: 64,
		RingSizes: []int{4, 8, 16, 32, 64}, RingFlits: 16, WideFlits: 64}
}

// Results holds every run of the three experiments.
type Results struct {
	Opt    Options
	Orders map[string]map[int]Run       // order -> item flits -> run
	Double map[string]map[int][2]Run    // network label -> item flits -> {near-last, near-first}
	Rings  map[int][2]Run               // ring size -> {near-last, near-first} at RingFlits
	Wide   []WideRun                    // every order of 64 nodes, 8 items, at WideFlits
	Duplex map[string]map[hw.Duplex]Run // case -> "full"/"half"
	Cases  []string                     // duplex cases in table order
	Exps   int                          // runs made
}

func (r *Results) progress(format string, a ...any) {
	if r.Opt.Progress != nil {
		fmt.Fprintf(r.Opt.Progress, format+"\n", a...)
	}
}

// WideRun is one order of the 64-node, 8-item all-gather.
type WideRun struct {
	collective.OrderCost
	Run Run
}

// Collect runs every experiment.
func Collect(opt Options) (*Results, error) {
	r := &Results{Opt: opt, Orders: map[string]map[int]Run{}, Double: map[string]map[int][2]Run{}, Rings: map[int][2]Run{}, Duplex: map[string]map[hw.Duplex]Run{}}
	measure := func(sys hw.System) (Run, error) {
		r.Exps++
		run, err := Measure(sys)
		if err != nil {
			return run, fmt.Errorf("%s %v %s items %d x %d flits order %q algo %s duplex %s: %w",
				sys.Topology, sys.Dims, sys.Collective, sys.NumItems(), sys.ItemFlits, sys.Order, sys.Algo, sys.Duplex, err)
		}
		return run, nil
	}
	for _, o := range collective.SeedOrders {
		r.Orders[o] = map[int]Run{}
		for _, f := range opt.OrderFlits {
			sys := system(hw.TopoHyperXbar, []int{4, 4}, f)
			sys.Items, sys.Order = 4, o
			run, err := measure(sys)
			if err != nil {
				return nil, err
			}
			r.Orders[o][f] = run
		}
		r.progress("experiments: order %s done", o)
	}
	// doubling runs recursive doubling near-last, then near-first.
	doubling := func(n Network, f int) (pair [2]Run, err error) {
		for i, algo := range []hw.Algorithm{hw.AlgoButterfly, hw.AlgoButterflyNearFirst} {
			if pair[i], err = measure(Doubling(n, f, algo)); err != nil {
				return pair, err
			}
		}
		return pair, nil
	}
	costs, err := collective.CompareOrders(64, 8, nil)
	if err != nil {
		return nil, err
	}
	for _, c := range costs {
		sys := system(hw.TopoHyperXbar, []int{8, 8}, opt.WideFlits)
		sys.Items, sys.Order = 8, c.Order
		run, err := measure(sys)
		if err != nil {
			return nil, err
		}
		r.Wide = append(r.Wide, WideRun{OrderCost: c, Run: run})
	}
	r.progress("experiments: 64-node orders done")
	for _, n := range Networks {
		r.Double[n.Label] = map[int][2]Run{}
		for _, f := range opt.DoubleFlits {
			pair, err := doubling(n, f)
			if err != nil {
				return nil, err
			}
			r.Double[n.Label][f] = pair
		}
		r.progress("experiments: %s done", n.Label)
	}
	for _, m := range opt.RingSizes {
		pair, err := doubling(Network{Topology: hw.TopoTorus, Dims: []int{m}}, opt.RingFlits)
		if err != nil {
			return nil, err
		}
		r.Rings[m] = pair
	}
	r.progress("experiments: ring sweep done")
	type dcase struct {
		label string
		edit  func(s *hw.System)
	}
	var cases []dcase
	for _, o := range []string{"OOMM", "MMOO"} {
		cases = append(cases, dcase{"hyper-crossbar 4x4, 4 items, " + o, func(s *hw.System) { s.Items, s.Order = 4, o }})
	}
	cases = append(cases,
		dcase{"hyper-crossbar 4x4, recursive doubling near-last", func(s *hw.System) {}},
		dcase{"ring 16, recursive doubling near-last", func(s *hw.System) { s.Topology, s.Dims = hw.TopoTorus, []int{16} }},
		dcase{"fat tree 4-ary 2-tree, recursive doubling near-last", func(s *hw.System) { s.Topology = hw.TopoFatTree }},
		dcase{"hyper-crossbar 4x4, broadcast", func(s *hw.System) { s.Collective = hw.CollBroadcast }},
	)
	for _, c := range cases {
		r.Cases = append(r.Cases, c.label)
		r.Duplex[c.label] = map[hw.Duplex]Run{}
		for _, d := range hw.DuplexModes {
			sys := system(hw.TopoHyperXbar, []int{4, 4}, opt.DuplexFlits)
			c.edit(&sys)
			sys.Duplex = d
			run, err := measure(sys)
			if err != nil {
				return nil, err
			}
			r.Duplex[c.label][d] = run
		}
	}
	r.progress("experiments: duplex done (%d runs)", r.Exps)
	return r, nil
}

// Write runs the experiments and writes the report as docPath (Markdown)
// and its plots into imgDir, named relative to the report. Before running
// anything it refuses paths it may not write (checkOutputs): it overwrites
// only files carrying the Marker, creates no parent directory of docPath,
// and creates imgDir only in an existing directory.
func Write(opt Options, docPath, imgDir string) error {
	if err := checkOutputs(docPath, imgDir); err != nil {
		return err
	}
	// The plots' names relative to the report, before anything runs: one
	// path may be absolute and the other relative.
	absDoc, err := filepath.Abs(docPath)
	if err != nil {
		return err
	}
	absImg, err := filepath.Abs(imgDir)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(absDoc), absImg)
	if err != nil {
		return err
	}
	r, err := Collect(opt)
	if err != nil {
		return err
	}
	if err := os.Mkdir(imgDir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	plots, err := r.Plots(imgDir)
	if err != nil {
		return err
	}
	for i := range plots {
		plots[i] = filepath.ToSlash(filepath.Join(rel, plots[i]))
	}
	var b strings.Builder
	r.Markdown(&b, plots)
	return outfile.WriteFile(docPath, []byte(b.String()), 0o644)
}
