// Package design is the typed, immutable description of one barrier
// design: its system (hw.System), its network (noc.Fabric, and the
// hyper-crossbar's noc.Topology with its routing tables), the placement of
// its ranks on nodes, and every episode's tables (gate schedule, gate
// tables, op, data schedule and data tables). New builds and validates it
// once from a hw.System; the cycle model (sim.Build), the Verilog generator
// (verilog.Check, Generate, Render) and the testbench (testbench.Generate,
// Render) all read the same Design.
//
// Layering is one-way: design imports hw, noc, barrierunit (and regmap)
// and collective; sim, verilog and testbench import design, and design
// imports none of them.
//
// A Design is never changed after New: its unexported fields are written
// only there, and its exported fields (Sys, Fabric, Topo, and the tables an
// Episode points to) are shared by every reader and must be treated as
// read only. Accessors that return slices (Arrivals, Placement,
// RankOfNode, RankAddrs) return copies.
package design

import (
	"fmt"
	"math"
	"strings"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// Design is one validated design. See the package comment: read only.
type Design struct {
	// Sys is the system the design was built from: the whole run, with
	// its repeat and episodes list (an Episode's Sys is one episode's).
	Sys    hw.System
	Fabric noc.Fabric    // the network
	Topo   *noc.Topology // the hyper-crossbar, or nil for another network
	// Avoid is the routing around the avoided channels (Sys.Avoid), nil
	// for none.
	Avoid *noc.Avoid

	// episodes are the tables of each entry of the run's episodes list
	// (one entry without a list); entries that run the same tables share
	// one *Episode. Episode k runs episodes[(k-1) % len(episodes)].
	episodes   []*Episode
	arrivals   []hw.Arrival // episode 1's arrivals
	nodeOf     []int32      // the node of every rank
	rankOfNode []int32      // the rank of every node, -1 for none
}

// Episode is what one episode of a run runs (docs/microarchitecture.md,
// "Episodes"): its system (the run's, with its episodes entry applied) and
// the tables compiled from it. It embeds the Design it belongs to, so an
// Episode reads as the design running that episode (e.Topo, e.NodeOf(r));
// its Sys is the episode's system, which shadows the Design's. Read only.
type Episode struct {
	*Design
	Sys       hw.System
	Sched     *barrierunit.Schedule
	Table     *barrierunit.FlatTable
	Op        barrierunit.Op
	Data      *collective.Schedule // nil for a barrier
	DataTable *barrierunit.DataTable
}

// Options are the hooks of NewWith.
type Options struct {
	// Check, when set, is called with the validated system before anything
	// is built (the cycle model refuses systems too large for it here).
	Check func(sys *hw.System) error
	// Fabric, when set, is called with the network as soon as it is built,
	// before the episodes' schedules are compiled (the cycle model builds
	// its network state meanwhile).
	Fabric func(fab noc.Fabric)
}

// New builds and validates the design of sys. sched may be nil to generate
// the schedule named by sys.Algo; a user schedule must be for sys's rank
// count and is verified. A data collective (sys.Collective allgather or
// broadcast) runs the data schedule cs, or the one DataSchedule generates
// when cs is nil; sched must then be nil. With an episodes list, sched and
// cs must both be nil (each entry names its schedule). Errors are
// *hw.FieldError values naming the field where a field is to blame.
func New(sys hw.System, sched *barrierunit.Schedule, cs *collective.Schedule) (*Design, error) {
	return NewWith(sys, sched, cs, Options{})
}

// NewWith is New with hooks (see Options).
func NewWith(sys hw.System, sched *barrierunit.Schedule, cs *collective.Schedule, opt Options) (*Design, error) {
	if err := sys.Validate(); err != nil {
		return nil, err
	}
	if opt.Check != nil {
		if err := opt.Check(&sys); err != nil {
			return nil, err
		}
	}
	if len(sys.Episodes) > 0 && (sched != nil || cs != nil) {
		return nil, &hw.FieldError{Field: "episodes", Value: fmt.Sprintf("%d entries", len(sys.Episodes)),
			Allowed: "[] with a schedule file (a schedule runs with repeat; an episodes list runs the schedules its entries name)"}
	}
	fab, err := noc.FabricOf(&sys)
	if err != nil {
		return nil, err
	}
	if opt.Fabric != nil {
		opt.Fabric(fab)
	}
	topo, _ := fab.(*noc.Topology)
	d := &Design{Sys: sys, Fabric: fab, Topo: topo, arrivals: sys.EpisodeArrivals(1)}
	if d.episodes, err = buildEpisodes(d, sched, cs); err != nil {
		return nil, err
	}
	R := sys.NumRanks()
	d.nodeOf = make([]int32, R)
	d.rankOfNode = make([]int32, fab.NumNodes())
	for i := range d.rankOfNode {
		d.rankOfNode[i] = -1
	}
	for r := range R {
		d.nodeOf[r] = int32(sys.RankNode(r))
		d.rankOfNode[d.nodeOf[r]] = int32(r)
	}
	if d.Avoid, err = avoidRoutes(&d.Sys, fab); err != nil {
		return nil, err
	}
	return d, nil
}

// AvoidIDs resolves the system's avoid list to channel ids of fab; an
// unknown name is an error on its entry, with the nearest names.
func AvoidIDs(sys *hw.System, fab noc.Fabric) ([]int, error) {
	idx := noc.NewChannelIndex(fab)
	var ids []int
	for i, name := range sys.Avoid {
		id, err := idx.Parse(name)
		if err != nil {
			return nil, &hw.FieldError{Field: fmt.Sprintf("avoid[%d]", i), Value: fmt.Sprintf("%q", name), Allowed: noc.ChannelHint(err)}
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// avoidRoutes is the routing of fab around sys's avoided channels, nil when
// it avoids none.
func avoidRoutes(sys *hw.System, fab noc.Fabric) (*noc.Avoid, error) {
	if len(sys.Avoid) == 0 {
		return nil, nil
	}
	ids, err := AvoidIDs(sys, fab)
	if err != nil {
		return nil, err
	}
	a, _, err := noc.AvoidChannels(fab, ids)
	if err != nil {
		// noc's reason names the channel; "allowed" is what routing needs.
		why := strings.TrimPrefix(err.Error(), "avoid: ")
		return nil, &hw.FieldError{Field: "avoid", Value: fmt.Sprintf("%q", sys.Avoid), Allowed: "channels the network can do without; " + why}
	}
	return a, nil
}

// NumEpisodes is the number of episodes the run has (its repeat, or its
// episodes list's length times repeat).
func (d *Design) NumEpisodes() int { return d.Sys.NumEpisodes() }

// NumEntries is the number of distinct entries of the run's episodes list
// (1 without a list): episodes 1..NumEntries cover every table the run
// has.
func (d *Design) NumEntries() int { return min(d.NumEpisodes(), max(1, len(d.Sys.Episodes))) }

// Episode is what episode k (1-based) runs. Episode 1's tables are those of
// the generated table files; every episode's are in the configuration
// program.
func (d *Design) Episode(k int) *Episode { return d.episodes[(k-1)%len(d.episodes)] }

// Arrivals is a copy of the arrival offset and operand of every rank in
// episode k (hw.System.EpisodeArrivals): for episode 1, the cycles.
func (d *Design) Arrivals(k int) []hw.Arrival {
	if k == 1 {
		return append([]hw.Arrival(nil), d.arrivals...)
	}
	return d.Sys.EpisodeArrivals(k)
}

// Ranks is the number of ranks taking part.
func (d *Design) Ranks() int { return len(d.nodeOf) }

// NodeOf is the node rank r runs on.
func (d *Design) NodeOf(r int) int { return int(d.nodeOf[r]) }

// RankOf is the rank node n hosts, -1 for none.
func (d *Design) RankOf(n int) int { return int(d.rankOfNode[n]) }

// Placement is a copy of the node of every rank.
func (d *Design) Placement() []int32 { return append([]int32(nil), d.nodeOf...) }

// RankOfNode is the rank every node hosts, -1 for none.
func (d *Design) RankOfNode() []int {
	out := make([]int, len(d.rankOfNode))
	for n, r := range d.rankOfNode {
		out[n] = int(r)
	}
	return out
}

// TorusAddr is node n's address on torus tor as the RTL packs it (and a
// head flit carries it): coordinate k in hw.Bits(Kk) bits, dimension 0 in
// the low bits.
func TorusAddr(tor *noc.Torus, n int) uint64 {
	var v uint64
	shift := 0
	for k, dk := range tor.Dims {
		v |= uint64(tor.Coord(n, k)) << shift
		shift += hw.Bits(dk)
	}
	return v
}

// RankAddrs is the packed network address of every rank's node
// (regmap.RankAddr, what a unit's route words hold): on the hyper-crossbar
// and the torus the node's coordinates packed as noc.Topology.Addr packs
// them (coordinate k in hw.Bits(Dims[k]) bits, dimension 0 lowest: what
// hx_switch and hx_router read); on the fat tree, which has no packed
// address, the node id.
func (d *Design) RankAddrs() regmap.RankAddr {
	a := make(regmap.RankAddr, len(d.nodeOf))
	tor, _ := d.Fabric.(*noc.Torus)
	for r, n := range d.nodeOf {
		switch {
		case d.Topo != nil:
			a[r] = d.Topo.Addr(int(n))
		case tor != nil:
			a[r] = TorusAddr(tor, int(n))
		default:
			a[r] = uint64(n) // another network has no packed address; the node id stands for it
		}
	}
	return a
}

// WatchdogReg is the value of the units' WATCHDOG register
// (docs/registers.md): the watchdog's cycles, 0 when off. A value past 32
// bits does not fit the register; the RTL commands refuse it.
func (s *Design) WatchdogReg() uint32 {
	if w := s.Sys.Watchdog; w > 0 && w <= math.MaxUint32 {
		return uint32(w)
	}
	return 0
}
