package experiments

import (
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strings"

	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
)

// SeedCost is the Hitachi seed's cost of each order for 16 nodes and 4
// items ([0074]-[0079]).
var SeedCost = map[string]int{"OOMM": 5, "OMOM": 6, "OMMO": 8, "MMOO": 11, "MOMO": 9, "MOOM": 7}

// OrderRatio is an order's cycles at item size f divided by the cheapest
// order's (OOMM).
func (r *Results) OrderRatio(order string, f int) float64 {
	return float64(r.Orders[order][f].Cycles) / float64(r.Orders["OOMM"][f].Cycles)
}

// OrderDeviation is the largest relative difference, over the six orders,
// between the measured ratio at item size f and the seed's cost ratio.
func (r *Results) OrderDeviation(f int) float64 {
	worst := 0.0
	for _, o := range collective.SeedOrders {
		want := float64(SeedCost[o]) / 5
		worst = max(worst, abs(r.OrderRatio(o, f)/want-1))
	}
	return worst
}

// OrdersByCycles lists the six orders from fastest to slowest at size f.
func (r *Results) OrdersByCycles(f int) []string {
	o := slices.Clone(collective.SeedOrders)
	slices.SortStableFunc(o, func(a, b string) int { return int(r.Orders[a][f].Cycles - r.Orders[b][f].Cycles) })
	return o
}

// HopRatio and CycleRatio compare near-first with near-last (near-first /
// near-last) on a network at item size f.
func (r *Results) HopRatio(network string, f int) float64 {
	p := r.Double[network][f]
	return float64(p[1].FlitHops) / float64(p[0].FlitHops)
}

func (r *Results) CycleRatio(network string, f int) float64 {
	p := r.Double[network][f]
	return float64(p[1].Cycles) / float64(p[0].Cycles)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func last(v []int) int { return v[len(v)-1] }

// Markdown writes docs/experiments.md; plots are the image paths Plots
// returned, relative to the document.
func (r *Results) Markdown(w io.Writer, plots []string) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	opt := r.Opt
	fo := last(opt.OrderFlits)
	fd := last(opt.DoubleFlits)
	p("%s", docMarker)
	p(`# Experiments: the seeds' claims on the cycle model

Every number on this page is measured by the cycle-level model (`+"`sim`"+`)
running a data collective ([transfers.md](transfers.md),
[collectives.md](collectives.md)) with real payloads: each transfer is a
packet of one head flit and `+"`item_flits`"+` flits per item, every payload
flit is checked by its receiver, and the run ends when the last rank holds
every item. `+"`make experiments`"+` runs the %d simulations again (a few
seconds) and rewrites this page and its plots; the model is deterministic, so
the page only changes when the model does.

Common settings: every rank arrives in cycle 0 (`+"`skew: 0`"+`), link latency
1, 4-flit buffers, 64-bit flits, full duplex unless said otherwise. "Cycles"
is the cycle after the last rank's release. "Flit-hops" counts flits crossing
switch-to-switch channels (docs/networks.md); injection and ejection links
are not counted.

## 1. The Hitachi seed's six orders (16 nodes, 4 items)

A 4x4 hyper-crossbar, 16 ranks, 4 items on ranks 8..11 (the seed's
placement), two one-sided (O) and two mutual (M) steps in each of the six
orders. The seed prices a step by its largest message in items (its
"seconds", [0074]-[0079]): OOMM 5, OMOM 6, OMMO 8, MMOO 11, MOMO 9, MOOM 7.
The model measures cycles; the ratio is to OOMM at the same item size.

`, r.Exps)
	p("| order | seed cost | seed ratio |")
	for _, f := range opt.OrderFlits {
		p(" cycles, %d flits/item |", f)
	}
	p(" ratio at %d | deviation |\n|---|---|---|", fo)
	for range opt.OrderFlits {
		p("---|")
	}
	p("---|---|\n")
	for _, o := range collective.SeedOrders {
		want := float64(SeedCost[o]) / 5
		p("| %s | %d | %.3f |", o, SeedCost[o], want)
		for _, f := range opt.OrderFlits {
			p(" %d |", r.Orders[o][f].Cycles)
		}
		p(" %.3f | %+.1f %% |\n", r.OrderRatio(o, fo), 100*(r.OrderRatio(o, fo)/want-1))
	}
	p(`
Fastest to slowest at %d flits per item: %s; the seed's order by cost:
OOMM, OMOM, MOOM, OMMO, MOMO, MMOO. The largest deviation from the seed's
ratios is %.1f %% at %d flits per item`, fo, strings.Join(r.OrdersByCycles(fo), ", "), 100*r.OrderDeviation(fo), fo)
	for _, f := range opt.OrderFlits[:len(opt.OrderFlits)-1] {
		p(", %.1f %% at %d", 100*r.OrderDeviation(f), f)
	}
	p(`: the per-step start-up (head flit,
a few switch and link cycles, the gate) is a fixed cost that the seed's
model leaves out, so small items make the orders look closer than the
seed says. With items large enough the measured cycles follow the seed's
cost: one-sided steps first keep the messages small while few nodes hold
data, and mutual steps at the end move the doubled data both ways at once.
Every step's partners are one crossbar hop apart on this network, so the
order alone decides the cost.

![six orders](%s)

`, plots[0])

	w0 := r.Wide[0]
	p(`### Every order on 64 nodes, 8 items

An 8x8 hyper-crossbar, 64 ranks, 8 items on the seed's default placement,
three one-sided and three mutual steps in each of the 20 orders (the seed's
cost model from `+"`collective.CompareOrders`"+`), %d flits per item; ratios
are to %s, the cheapest.

| order | seed cost | cost ratio | cycles | cycle ratio | deviation |
|---|---|---|---|---|---|
`, opt.WideFlits, w0.Order)
	for _, w := range r.Wide {
		cr := float64(w.Cost) / float64(w0.Cost)
		yr := float64(w.Run.Cycles) / float64(w0.Run.Cycles)
		p("| %s | %d | %.3f | %d | %.3f | %+.1f %% |\n", w.Order, w.Cost, cr, w.Run.Cycles, yr, 100*(yr/cr-1))
	}
	a, b := r.WideFit()
	p(`
The largest deviation is %.1f %%, and the cycles are a straight line in the
seed's cost: cycles = %.2f x cost + %.1f over all 20 orders (least squares,
largest residual %.1f cycles; %d flits per item is %d cycles per item, and
the constant is the orders' common start-up), so the seed's cost ranks the
orders as the model does.

![64-node orders](%s)

`, 100*r.WideDeviation(), a, b, r.WideResidual(), opt.WideFlits, opt.WideFlits, plots[4])

	p(`## 2. Near-last versus near-first recursive doubling

Recursive-doubling all-gather, 16 ranks, one item per rank, four mutual
steps with partners at rank distance 8, 4, 2, 1 (near-last: ` + "`algo: butterfly`" + `,
the Fujitsu seed's order) or 1, 2, 4, 8 (near-first: ` + "`butterfly-near-first`" + `).
The data each rank sends doubles every step: 1, 2, 4, 8 items. Near-last
sends the biggest messages to the nearest partners. "ratio" is near-first
divided by near-last.

| network | flits/item | near-last cycles | near-first cycles | cycle ratio | near-last flit-hops | near-first flit-hops | hop ratio |
|---|---|---|---|---|---|---|---|
`)
	for _, n := range Networks {
		for _, f := range opt.DoubleFlits {
			pr := r.Double[n.Label][f]
			p("| %s | %d | %d | %d | %.2f | %d | %d | %.2f |\n", n.Label, f, pr[0].Cycles, pr[1].Cycles,
				r.CycleRatio(n.Label, f), pr[0].FlitHops, pr[1].FlitHops, r.HopRatio(n.Label, f))
		}
	}
	ring := Ring16
	p(`
At %d flits per item:
`, fd)
	for _, n := range Networks {
		p("- %s: near-first moves %.2fx the flit-hops of near-last and takes %.2fx the cycles.\n", n.Label, r.HopRatio(n.Label, fd), r.CycleRatio(n.Label, fd))
	}
	torus, ft := Torus4x4, FatTree42
	p(`
On the ring a partner at rank distance d is d links away (8 at most, the
shorter way round), so near-first sends its 8-item messages 8 links and
near-last only 1: near-last moves %.2fx fewer flit-hops and finishes %.2fx
sooner, the Fujitsu seed's claim. On the 4x4 torus no partner is more than
2 links away per dimension, so the gap is smaller (%.2fx flit-hops, %.2fx
cycles). On the fat trees near-first also moves more flit-hops (%.2fx on
the 4-ary 2-tree: a partner at distance 8 is across the top level, one at
distance 1 below the same leaf switch), but the cycles are equal: with full
bisection bandwidth no two messages of a step share a channel, and a
wormhole message takes its length plus a few cycles per hop, so the extra
hops cost channel bandwidth (and energy), not time. On a hyper-crossbar
whose dimensions are powers of two every butterfly partner is one crossbar
hop away, so both orders move the same flit-hops in the same cycles: there
the order does not matter, which is the hyper-crossbar's point.

`, r.HopRatio(ring, fd), r.CycleRatio(ring, fd), r.HopRatio(torus, fd), r.CycleRatio(torus, fd), r.HopRatio(ft, fd))
	r.meshText(p, fd)
	r.cosimText(p)
	p(`![near-last vs near-first: flit-hops](%s)

![near-last vs near-first: cycles](%s)

`, plots[1], plots[2])

	p(`### The gap grows with the ring

Rings of M nodes, %d flits per item. Per rank, near-last sends 2^k items
over M/2^(k+1) links in step k, M/2 * log2 M item-links in all; near-first
sends 2^k items over 2^k links, (M^2-1)/3 in all. So the flit-hop ratio
tends to 2(M^2-1)/(3 M log2 M) as items grow (the head flits keep the
measured ratio a little below it).

| ring | near-last cycles | near-first cycles | cycle ratio | near-last flit-hops | near-first flit-hops | hop ratio | 2(M^2-1)/(3 M log2 M) |
|---|---|---|---|---|---|---|---|
`, opt.RingFlits)
	for _, m := range opt.RingSizes {
		pr := r.Rings[m]
		p("| %d | %d | %d | %.2f | %d | %d | %.2f | %.2f |\n", m, pr[0].Cycles, pr[1].Cycles, float64(pr[1].Cycles)/float64(pr[0].Cycles),
			pr[0].FlitHops, pr[1].FlitHops, float64(pr[1].FlitHops)/float64(pr[0].FlitHops), RingHopRatio(m))
	}
	p("\n")

	p(`## 3. Full versus half duplex

The same schedules with `+"`duplex: half`"+`: the two directions of a link
share one wire, one flit per cycle (model only). %d flits per item.

| case | full duplex cycles | half duplex cycles | half / full | seed-model prediction |
|---|---|---|---|---|
`, opt.DuplexFlits)
	for i, c := range r.Cases {
		full, half := r.Duplex[c][hw.DuplexFull], r.Duplex[c][hw.DuplexHalf]
		pred := "-"
		if full.Sys.Topology == hw.TopoHyperXbar {
			pred = fmt.Sprintf("%.2f", halfDuplexPrediction(full))
		}
		p("| %d. %s | %d | %d | %.2f | %s |\n", i+1, c, full.Cycles, half.Cycles, float64(half.Cycles)/float64(full.Cycles), pred)
	}
	p(`
On the hyper-crossbar the two messages of a mutual pair cross the same
links in opposite directions; with half duplex they take turns, so a
mutual step takes twice as long, while a one-sided step, which uses one
direction of each link, does not slow down. The prediction column applies
that to the seed's cost model: (cost of the O steps + 2 x cost of the M
steps) / cost. The hyper-crossbar measurements follow it: OOMM, whose cost
is mostly its two mutual steps, slows down more than MMOO, whose cost is
mostly its one-sided steps, but stays the faster order; recursive doubling
(all mutual) nearly doubles; the broadcast (all one-sided) does not change.
On the ring and the fat tree the partners' messages do not always share
wires (on the ring the distance-8 partners are a tie, which both route the
same way round; under a fat-tree leaf switch partners share no
switch-to-switch wire at all), so the slowdown is smaller and the seed's
model does not predict it. The Hitachi seed's premise, full-duplex ports,
is what makes its mutual steps as cheap as one-sided ones.

![full vs half duplex](%s)
`, plots[3])
}

// halfDuplexPrediction is the seed's cost model with mutual steps costing
// double: (O cost + 2 M cost) / cost, for the schedule run measured.
func halfDuplexPrediction(run Run) float64 {
	cs, err := design.DataSchedule(&run.Sys)
	if err != nil {
		return 0
	}
	var o, m int
	for _, st := range cs.Steps {
		if st.Kind == collective.KindMutual {
			m += collective.StepCost(st)
		} else {
			o += collective.StepCost(st)
		}
	}
	return float64(o+2*m) / float64(o+m)
}

// RingHopRatio is the near-first / near-last flit-hop ratio of recursive
// doubling on a ring of m nodes (a power of two) for large items:
// ((m^2-1)/3) / (m/2 * log2 m).
func RingHopRatio(m int) float64 {
	lg := bits.Len(uint(m)) - 1
	return float64(m*m-1) / 3 / (float64(m) / 2 * float64(lg))
}

// WideDeviation is the largest relative difference, over the 64-node
// orders, between the cycle ratio and the cost ratio to the cheapest order.
func (r *Results) WideDeviation() float64 {
	w0 := r.Wide[0]
	worst := 0.0
	for _, w := range r.Wide {
		cr := float64(w.Cost) / float64(w0.Cost)
		yr := float64(w.Run.Cycles) / float64(w0.Run.Cycles)
		worst = max(worst, abs(yr/cr-1))
	}
	return worst
}

// WideFit is the least-squares line cycles = a*cost + b over the 64-node
// orders.
func (r *Results) WideFit() (a, b float64) {
	var n, sx, sy, sxx, sxy float64
	for _, w := range r.Wide {
		x, y := float64(w.Cost), float64(w.Run.Cycles)
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	a = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return a, (sy - a*sx) / n
}

// WideResidual is the largest distance, in cycles, of a 64-node order from
// the WideFit line.
func (r *Results) WideResidual() float64 {
	a, b := r.WideFit()
	worst := 0.0
	for _, w := range r.Wide {
		worst = max(worst, abs(float64(w.Run.Cycles)-(a*float64(w.Cost)+b)))
	}
	return worst
}

// meshText is the paragraph on the mesh line, the mesh and the mixed wrap
// at fd flits per item.
func (r *Results) meshText(p func(string, ...any), fd int) {
	cyc := func(n string, i int) int64 { return r.Double[n][fd][i].Cycles }
	p(`Without the wrap links (meshes, `+"`wrap: false`"+`) the flit-hops do not
change: on the 16-node line a partner at rank distance d is exactly d
links away, as on the ring (%.2fx), and the 4x4 mesh and the mixed 4x4
(dimension 0 a ring of 4, dimension 1 a line of 4) move the torus's
flit-hops (%.2fx). The cycles do. On a ring the partners at the largest
distance (8 on the ring of 16, 2 on a ring of 4) are a tie that both route
the same way round, so every link of that direction carries two messages;
on a line the two partners send in opposite directions. So the line is
faster than the ring in both orders (near-last %d cycles against %d), and
near-first takes %.2fx the cycles of near-last (the ring's %.2fx); the
mesh 4x4 takes %.2fx (the torus's %.2fx). The mixed 4x4 nearly ties
(%.2fx): near-last's 4-item step goes to the partners at distance 2 on the
ring of 4, a tie, while near-first meets the tie with 2 items and sends its
8 items two links along the line, in opposite directions.

`, r.HopRatio(Line16, fd), r.HopRatio(Mesh4x4, fd), cyc(Line16, 0), cyc(Ring16, 0),
		r.CycleRatio(Line16, fd), r.CycleRatio(Ring16, fd), r.CycleRatio(Mesh4x4, fd), r.CycleRatio(Torus4x4, fd),
		r.CycleRatio(Mixed4x4, fd))
}

// cosimText says which rows the torus RTL co-simulated, and how to repeat
// it.
func (r *Results) cosimText(p func(string, ...any)) {
	p(`These rows were co-simulated, both orders, on the torus RTL (hx_rtile
tiles under Icarus, cycle for cycle as the model, so their cycles are the
RTL's too; ` + "`go test ./testbench -run TestTorusDoublingCosim`" + `, or one row
with ` + "`hxbar cosim --topology torus --dims 16 --wrap false --collective allgather --item-flits 1 --skew 0 --algo butterfly-near-first`" + `):
`)
	for _, c := range Cosimulated {
		p("- %s, %d %s per item\n", c.Network, c.Flits, plural(c.Flits, "flit", "flits"))
	}
	p("\n")
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
