package sim

import (
	"fmt"

	"github.com/hxbar/hxbar/collective"
)

// StepDone is one step of a data schedule in a run's result.
type StepDone struct {
	Step int    `json:"step"` // 1-based
	Kind string `json:"kind"` // "O" one-sided, "M" mutual
	Gate int    `json:"gate"` // the gate passed when the step is done (step+1)
	Done int64  `json:"done"` // cycle the last rank passed it; -1 when some rank has not (an incomplete run; JSON: null)
}

// DataResult describes the data collective of a run.
type DataResult struct {
	Collective    string `json:"collective"`
	Algo          string `json:"algo"`
	Order         string `json:"order"`
	Items         int    `json:"items"`
	ItemFlits     int    `json:"item_flits"`
	ItemsMoved    int    `json:"items_moved"`    // item copies the schedule transfers
	ItemsReceived uint64 `json:"items_received"` // item copies the units received and checked
	Cost          int    `json:"cost"`           // the seed's cost model: the sum of the largest message per step, in items
}

func (s *System) dataResult(res *Result) {
	cs := s.Data
	res.Steps = make([]StepDone, len(cs.Steps))
	moved := 0
	for k, st := range cs.Steps {
		res.Steps[k] = StepDone{Step: k + 1, Kind: st.Kind, Gate: k + 2, Done: s.Units.GateDone(k + 2)}
		if !res.Complete && !s.allPassed(k+2) {
			res.Steps[k].Done = -1 // GateDone is the latest rank to pass so far
		}
		for _, t := range st.Transfers {
			moved += len(t.Items)
		}
	}
	res.Data = &DataResult{Collective: string(s.Cur.Sys.Collective), Algo: cs.Algo, Order: cs.Order, Items: cs.Items,
		ItemFlits: s.Cur.Sys.ItemFlits, ItemsMoved: moved, ItemsReceived: s.Units.ItemsReceived, Cost: collective.Cost(cs)}
}

// allPassed reports whether every rank has passed gate g.
func (s *System) allPassed(g int) bool {
	for r := range s.Table.Ranks {
		if s.Units.Gate(r) < g {
			return false
		}
	}
	return true
}

// dataError reports flits of the running episode that arrived wrong, or
// items that did not arrive.
func (s *System) dataError() error {
	u := s.Units
	if u.DataErrors > 0 {
		return fmt.Errorf("data check failed: %d payload flits wrong; first: %s", u.DataErrors, u.FirstDataError)
	}
	if moved := itemsMoved(s.Data); u.Released == s.Table.Ranks && uint64(moved) != u.ItemsReceived {
		return fmt.Errorf("data check failed: %d item copies received, the schedule moves %d", u.ItemsReceived, moved)
	}
	return nil
}

// itemsMoved is the item copies a data schedule transfers.
func itemsMoved(cs *collective.Schedule) int {
	moved := 0
	for _, st := range cs.Steps {
		for _, t := range st.Transfers {
			moved += len(t.Items)
		}
	}
	return moved
}
