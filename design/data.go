package design

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/collective"
	"github.com/hxbar/hxbar/hw"
)

// DataSchedule returns the data schedule a system's collective runs
// (docs/transfers.md, docs/config.md): for allgather with items = ranks,
// recursive doubling near-last (algo butterfly) or near-first
// (butterfly-near-first); with fewer items, the Hitachi schedule in
// sys.Order (default: all one-sided steps first); when ranks is not a power
// of two or items does not divide it, the general all-gather; for
// broadcast, the binomial broadcast from item_placement[0] (default rank 0).
// Errors name the system's field (ranks, items, order, item_placement).
func DataSchedule(sys *hw.System) (*collective.Schedule, error) {
	R, D := sys.NumRanks(), sys.NumItems()
	place := sys.ItemPlace
	pow2 := R&(R-1) == 0
	var s *collective.Schedule
	var err error
	switch {
	case sys.Collective == hw.CollBroadcast && sys.Algo != hw.AlgoButterfly:
		return nil, &hw.FieldError{Field: "algo", Value: fmt.Sprintf("%q", sys.Algo), Allowed: "butterfly with collective broadcast (its schedule is the binomial broadcast; near-first is recursive doubling)"}
	case sys.Collective == hw.CollBroadcast && sys.Order != "":
		return nil, &hw.FieldError{Field: "order", Value: fmt.Sprintf("%q", sys.Order), Allowed: `"" with collective broadcast (its steps are all one-sided)`}
	case sys.Collective == hw.CollBroadcast:
		root := 0
		if len(place) > 0 {
			root = place[0]
		}
		s, err = collective.Broadcast(R, root)
	case sys.Algo == hw.AlgoDissemination:
		return nil, &hw.FieldError{Field: "algo", Value: `"dissemination"`, Allowed: "butterfly (near-last) or butterfly-near-first with collective " + string(sys.Collective)}
	case sys.Algo == hw.AlgoButterflyNearFirst && !(D == R && pow2):
		return nil, &hw.FieldError{Field: "algo", Value: `"butterfly-near-first"`,
			Allowed: fmt.Sprintf("butterfly for %d items on %d ranks (near-first is recursive doubling: allgather with items = ranks, a power of two)", D, R)}
	case D == R && pow2:
		if sys.Order != "" {
			return nil, &hw.FieldError{Field: "order", Value: fmt.Sprintf("%q", sys.Order), Allowed: `"" when items = ranks (recursive doubling: algo butterfly or butterfly-near-first picks the order)`}
		}
		if len(place) > 0 {
			return nil, &hw.FieldError{Field: "item_placement", Value: fmt.Sprint(place), Allowed: "[] when items = ranks (item i starts on rank i)"}
		}
		s, err = collective.RecursiveDoubling(R, sys.Algo != hw.AlgoButterflyNearFirst)
	case pow2 && R%D == 0 && sys.Order == "" && D > 1 && D < R:
		s, err = collective.Hitachi(R, D, place)
	case pow2 && R%D == 0:
		order := sys.Order
		if order == "" {
			order = strings.Repeat(collective.KindOneSided, log2(R/D)) + strings.Repeat(collective.KindMutual, log2(D))
		}
		s, err = collective.Order(R, D, place, order)
	default:
		if sys.Order != "" {
			return nil, &hw.FieldError{Field: "order", Value: fmt.Sprintf("%q", sys.Order),
				Allowed: fmt.Sprintf(`"" for %d ranks and %d items (the general all-gather; an order needs a power-of-two rank count and items dividing it)`, R, D)}
		}
		s, err = collective.General(R, D, place)
	}
	if err != nil {
		return nil, renameFields(err)
	}
	return s, nil
}

// renameFields maps the collective package's field names onto the system's.
func renameFields(err error) error {
	fe, ok := errors.AsType[*hw.FieldError](err)
	if !ok {
		return err
	}
	g := *fe
	switch {
	case g.Field == "nodes":
		g.Field = "ranks"
	case g.Field == "root":
		g.Field = "item_placement[0]"
	case strings.HasPrefix(g.Field, "placement"):
		g.Field = "item_" + g.Field
	}
	return &g
}

// log2 is floor(log2 n) for n >= 1.
func log2(n int) int { return bits.Len(uint(n)) - 1 }

// dataTables verifies a data schedule and compiles it for the units.
func dataTables(sys *hw.System, cs *collective.Schedule) (*barrierunit.FlatTable, *barrierunit.DataTable, error) {
	if cs.Nodes != sys.NumRanks() {
		return nil, nil, fmt.Errorf("invalid schedule: nodes %d (allowed: %d, the system's rank count)", cs.Nodes, sys.NumRanks())
	}
	if rep := collective.Verify(cs); !rep.OK {
		return nil, nil, fmt.Errorf("invalid data schedule: %s", rep)
	}
	var msgs []barrierunit.Message
	for k, st := range cs.Steps {
		for _, t := range st.Transfers {
			items := make([]int32, len(t.Items))
			for i, it := range t.Items {
				items[i] = int32(it)
			}
			msgs = append(msgs, barrierunit.Message{From: t.Src, To: t.Dst, Gate: k + 1, Items: items})
		}
	}
	origin := make([]int32, cs.Items)
	for i, p := range cs.Placement {
		origin[i] = int32(p)
	}
	return barrierunit.BuildData(cs.Nodes, len(cs.Steps), sys.ItemFlits, origin, msgs)
}
