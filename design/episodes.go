package design

import (
	"fmt"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/hw"
)

// flatOnlyRanks is the rank count above which generated schedules are built
// straight into gate tables, without a route list (Sched.Routes is nil).
const flatOnlyRanks = 1 << 16

// tableKey identifies what an episode's tables depend on (not its skew).
func tableKey(e *hw.System) string {
	return fmt.Sprintf("%s|%s|%s|%d|%d|%q|%v", e.Collective, e.Op, e.Algo, e.Items, e.ItemFlits, e.Order, e.ItemPlace)
}

// buildEpisodes compiles the tables of every entry of d.Sys's episodes list
// (of sys itself without a list); entries with equal tables share them.
// Errors in an entry name it (episodes[i].key).
func buildEpisodes(d *Design, sched *barrierunit.Schedule, cs *collective.Schedule) ([]*Episode, error) {
	sys := &d.Sys
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
		ep.Design = d
		byKey[tableKey(&e)] = ep
		eps[i] = ep
	}
	return eps, nil
}

// buildEpisode compiles the tables of one episode's system e (validated,
// Repeat 1, no episodes): the data schedule (cs, or generated) of a data
// collective, else the gate schedule (sched, verified, or generated).
// arrive are the episode's arrival offsets, for the data bound.
func buildEpisode(e *hw.System, sched *barrierunit.Schedule, cs *collective.Schedule, arrive []int64) (*Episode, error) {
	op, err := barrierunit.ParseOp(string(e.Op))
	if err != nil {
		return nil, err
	}
	R := e.NumRanks()
	ep := &Episode{Sys: *e, Op: op}
	if e.IsData() && sched != nil {
		return nil, fmt.Errorf("invalid schedule: a gate schedule was given for collective %s (give a data schedule)", e.Collective)
	}
	switch {
	case e.IsData():
		if cs == nil {
			if cs, err = DataSchedule(e); err != nil {
				return nil, err
			}
		}
		if ep.Table, ep.DataTable, err = dataTables(e, cs); err != nil {
			return nil, err
		}
		ep.Data = cs
		ep.Sched = &barrierunit.Schedule{Ranks: R, Algo: cs.Algo, Gates: ep.Table.Gates}
		// Refuse, before anything runs, a run that cannot finish
		// within max_cycles (its data alone can take millions of cycles).
		if b := LowerBound(e, cs, arrive); b.Cycles > e.MaxCycles {
			return nil, &BoundError{MaxCycles: e.MaxCycles, Bound: b}
		}
		return ep, nil
	case sched != nil && sched.Ranks != R:
		return nil, fmt.Errorf("invalid schedule: ranks %d (allowed: %d, the system's rank count)", sched.Ranks, R)
	case sched != nil:
		// A user schedule is proved before it runs: a wrong one would give
		// wrong results silently.
		if rep := barrierunit.Verify(sched, op); !rep.OK && rep.Kind != barrierunit.KindTooLarge {
			return nil, fmt.Errorf("invalid schedule for op %s: %s", op, rep)
		}
	case R > flatOnlyRanks:
		// Never materialise a million-rank route list: build the table directly.
		if ep.Table, err = barrierunit.GenerateFlat(e.Algo, R); err != nil {
			return nil, err
		}
		ep.Sched = &barrierunit.Schedule{Ranks: R, Algo: string(e.Algo), Gates: ep.Table.Gates}
		return ep, nil
	default:
		if sched, err = barrierunit.Cached(e.Algo, R); err != nil {
			return nil, err
		}
	}
	ep.Sched = sched
	if ep.Table, err = barrierunit.Flatten(sched); err != nil {
		return nil, err
	}
	return ep, nil
}
