package sim

import (
	"fmt"
	"slices"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/hw"
)

// Episode is what one episode of a run runs (docs/microarchitecture.md,
// "Episodes"): its system (the run's, with its episodes entry applied) and
// the tables compiled from it.
type Episode struct {
	Sys       hw.System
	Sched     *barrierunit.Schedule
	Table     *barrierunit.FlatTable
	Op        barrierunit.Op
	Data      *collective.Schedule // nil for a barrier
	DataTable *barrierunit.DataTable
}

// tableKey identifies what an episode's tables depend on (not its skew).
func tableKey(e *hw.System) string {
	return fmt.Sprintf("%s|%s|%s|%d|%d|%q|%v", e.Collective, e.Op, e.Algo, e.Items, e.ItemFlits, e.Order, e.ItemPlace)
}

// buildEpisodes compiles the tables of every entry of sys's episodes list
// (of sys itself without a list); entries with equal tables share them.
// Errors in an entry name it (episodes[i].key).
func buildEpisodes(sys *hw.System, sched *barrierunit.Schedule, cs *collective.Schedule) ([]*Episode, error) {
	n := max(len(sys.Episodes), 1)
	eps := make([]*Episode, n)
	byKey := map[string]*Episode{}
	for i := range eps {
		e := sys.EpisodeSystem(i + 1)
		if ep, ok := byKey[tableKey(&e)]; ok {
			eps[i] = ep
			continue
		}
		arrive := make([]int64, e.NumRanks())
		if e.IsData() {
			for r, a := range sys.EpisodeArrivals(i + 1) {
				arrive[r] = a.Cycle
			}
		}
		ep, err := buildEpisode(&e, sched, cs, arrive)
		if err != nil {
			if len(sys.Episodes) > 0 {
				return nil, sys.EpisodeFieldError(i+1, err)
			}
			return nil, err
		}
		byKey[tableKey(&e)] = ep
		eps[i] = ep
	}
	return eps, nil
}

// setEpisode makes ep the running episode.
func (s *System) setEpisode(ep *Episode) {
	s.Cur = ep
	s.Sched, s.Table, s.Op, s.Data, s.DataTable = ep.Sched, ep.Table, ep.Op, ep.Data, ep.DataTable
}

// NumEpisodes is the number of episodes the run has.
func (s *System) NumEpisodes() int { return s.Sys.NumEpisodes() }

// EpisodeAt is the episode k (1-based) runs.
func (s *System) EpisodeAt(k int) *Episode { return s.episodes[(k-1)%len(s.episodes)] }

// EpisodeResult is one episode of a run in its result: its collective, its
// first arrival and last release cycle (-1 when it did not complete), and
// the cycles its configuration writes took before it (0 for episode 1,
// whose initial configuration precedes cycle 0).
type EpisodeResult struct {
	Episode      int    `json:"episode"`
	Collective   string `json:"collective"`
	FirstArrival int64  `json:"first_arrival"`
	LastRelease  int64  `json:"last_release"`
	ConfigCycles int64  `json:"config_cycles"`
}

// rankAddr is the packed address of every rank's node.
func (s *System) rankAddr() regmap.RankAddr {
	a := make(regmap.RankAddr, len(s.Units.NodeOf))
	for r, n := range s.Units.NodeOf {
		if s.Topo != nil {
			a[r] = s.Topo.Addr(int(n))
		} else {
			a[r] = uint64(n) // another network has no packed address; the node id stands for it
		}
	}
	return a
}

// configState is what every unit's configuration registers and RAMs hold
// (regmap.Config), followed from the first episode whose tables differ
// from the previous one's; nil until then (the units hold episode 1's
// images, loaded before cycle 0).
type configState struct {
	cfg *regmap.Config
}

// configCycles is C of docs/microarchitecture.md, "Episodes": the cycles
// the configuration programs between the previous episode and next take,
// 2 x the longest program over the nodes (regmap.Config: the Diff of what
// each unit holds and next's image). Same tables: 0, without looking.
func (s *System) configCycles(st *configState, prev, next *Episode) (int64, error) {
	if prev == next {
		return 0, nil
	}
	addr := s.rankAddr()
	if st.cfg == nil {
		rankOf := make([]int, len(s.rankOfNode))
		for n, r := range s.rankOfNode {
			rankOf[n] = int(r)
		}
		st.cfg = &regmap.Config{RankOf: rankOf}
		// What the units hold: the tables the run has had so far, all prev's.
		if _, err := st.cfg.Cycles(&regmap.Tables{Tab: prev.Table, Data: prev.DataTable, Op: prev.Op, Addr: addr, Watchdog: s.WatchdogReg()}); err != nil {
			return 0, err
		}
	}
	return st.cfg.Cycles(&regmap.Tables{Tab: next.Table, Data: next.DataTable, Op: next.Op, Addr: addr, Watchdog: s.WatchdogReg()})
}

// startEpisode sets up episode k, whose configuration writes start in the
// cycle after the previous episode's last release lastRelease: the units
// load its tables and its ranks arrive at lastRelease + 1 + C + offset.
func (s *System) startEpisode(k int, lastRelease int64, st *configState) (EpisodeResult, error) {
	prev, next := s.Cur, s.EpisodeAt(k)
	c, err := s.configCycles(st, prev, next)
	if err != nil {
		return EpisodeResult{}, fmt.Errorf("episode %d: configuration: %w", k, err)
	}
	base := lastRelease + 1 + c
	arr := s.Sys.EpisodeArrivals(k)
	u := s.Units
	arrive := u.Arrive
	operand := u.Operand
	for r, a := range arr {
		arrive[r] = base + a.Cycle
		operand[r] = 0
		if next.Op.HasPayload() {
			operand[r] = a.Operand
		}
	}
	if err := u.NextEpisode(next.Table, next.Op, s.Sys.FlitWidth, next.DataTable, arrive, operand); err != nil {
		return EpisodeResult{}, fmt.Errorf("episode %d: %w", k, err)
	}
	s.setEpisode(next)
	return EpisodeResult{Episode: k, Collective: string(next.Sys.Collective), FirstArrival: slices.Min(arrive), LastRelease: -1, ConfigCycles: c}, nil
}

// ForEpisode returns a shallow copy of s whose current episode is k
// (1-based): its tables, op and data schedule are episode k's. The copy
// shares the network and the units with s and is meant for reading the
// tables (the Verilog generator writes every episode's configuration); its
// Sys is episode k's system (the run's with the episode's entry applied).
func (s *System) ForEpisode(k int) *System {
	c := *s
	ep := s.EpisodeAt(k)
	c.setEpisode(ep)
	c.Sys = ep.Sys
	return &c
}

// RankAddrs is the packed network address of every rank's node
// (regmap.RankAddr, what a unit's route words hold).
func (s *System) RankAddrs() regmap.RankAddr { return s.rankAddr() }

// RankOfNode is the rank every node hosts, -1 for none.
func (s *System) RankOfNode() []int {
	out := make([]int, len(s.rankOfNode))
	for n, r := range s.rankOfNode {
		out[n] = int(r)
	}
	return out
}
