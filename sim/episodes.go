package sim

import (
	"fmt"
	"slices"

	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/design"
)

// Episode is what one episode of a run runs (design.Episode).
type Episode = design.Episode

// setEpisode makes ep the running episode.
func (s *System) setEpisode(ep *Episode) {
	s.Cur = ep
	s.Sched, s.Table, s.Op, s.Data, s.DataTable = ep.Sched, ep.Table, ep.Op, ep.Data, ep.DataTable
}

// EpisodeResult is one episode of a run in its result: its collective, its
// first arrival and last release cycle (-1 when it did not complete), and
// the cycles its configuration writes took before it (0 for episode 1,
// whose initial configuration precedes cycle 0).
type EpisodeResult struct {
	Episode      int    `json:"episode"`
	Collective   string `json:"collective"`
	FirstArrival int64  `json:"first_arrival"` // Never when no rank arrives (JSON: null)
	LastRelease  int64  `json:"last_release"`  // -1 while not complete (JSON: null)
	ConfigCycles int64  `json:"config_cycles"`
	// The episode's headline metrics (metrics.go), nil where they do not
	// apply: no arrival of some rank, or the episode not complete.
	LastArrival   *int64 `json:"last_arrival"`
	Latency       *int64 `json:"latency"`
	ReleaseSpread *int64 `json:"release_spread"`
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
	addr := s.RankAddrs()
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
	prev, next := s.Cur, s.Episode(k)
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
