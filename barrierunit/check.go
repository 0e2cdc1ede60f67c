package barrierunit

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/hxbar/hxbar/hw"
)

// Check validates the structure of a schedule, for instance one a user wrote:
// ranks 1..MaxRanks, gates 0..MaxGates, every route's ranks in 0..ranks-1,
// from_gate in 1..gates, to_gate = from_gate+1, distance = |from_rank -
// to_rank|, no route twice, and at most hw.MaxNeed routes from other ranks into
// one gate. The error is a *hw.FieldError naming the first offending field,
// e.g. "invalid routes[3].to_gate: 5 (allowed: from_gate+1 = 4)". Check says
// nothing about whether the schedule is a correct barrier: that is Verify.
func (s *Schedule) Check() error { return s.check(true) }

// check with strict false accepts any route between gates 1..G+1 of ranks in
// range (what Verify can execute, possibly into a deadlock) and skips the
// distance, duplicate and receive-counter rules.
func (s *Schedule) check(strict bool) error {
	if s == nil {
		return errors.New("invalid schedule: none given")
	}
	if s.Ranks < 1 || s.Ranks > MaxRanks {
		return &hw.FieldError{Field: "ranks", Value: s.Ranks, Allowed: ranksAllowed}
	}
	if s.Gates < 0 || s.Gates > hw.MaxGates {
		return &hw.FieldError{Field: "gates", Value: s.Gates,
			Allowed: fmt.Sprintf("0..%d (the end gate, gates+1, must fit the 6-bit gate field of a head flit)", hw.MaxGates)}
	}
	R, G := s.Ranks, s.Gates
	rankAllowed := "0.." + itoa(R-1)
	for i := range s.Routes {
		rt := &s.Routes[i]
		field := func(name string) string { return "routes[" + itoa(i) + "]." + name }
		if rt.FromRank < 0 || rt.FromRank >= R {
			return &hw.FieldError{Field: field("from_rank"), Value: rt.FromRank, Allowed: rankAllowed}
		}
		if rt.ToRank < 0 || rt.ToRank >= R {
			return &hw.FieldError{Field: field("to_rank"), Value: rt.ToRank, Allowed: rankAllowed}
		}
		maxFrom := G
		if !strict {
			maxFrom = G + 1
		}
		if rt.FromGate < 1 || rt.FromGate > maxFrom {
			allowed := "1.." + itoa(maxFrom)
			if maxFrom == 0 {
				allowed = "none: a schedule with 0 gates has no routes"
			}
			return &hw.FieldError{Field: field("from_gate"), Value: rt.FromGate, Allowed: allowed}
		}
		if strict && rt.ToGate != rt.FromGate+1 {
			return &hw.FieldError{Field: field("to_gate"), Value: rt.ToGate, Allowed: "from_gate+1 = " + itoa(rt.FromGate+1)}
		}
		if !strict && (rt.ToGate < 2 || rt.ToGate > G+1) {
			// Gate 1 passes on arrival, so no route can arrive there.
			return &hw.FieldError{Field: field("to_gate"), Value: rt.ToGate, Allowed: "2.." + itoa(G+1)}
		}
		if strict && rt.Distance != abs(rt.FromRank-rt.ToRank) {
			return &hw.FieldError{Field: field("distance"), Value: rt.Distance, Allowed: "|from_rank - to_rank| = " + itoa(abs(rt.FromRank-rt.ToRank))}
		}
	}
	if !strict {
		return nil
	}
	if err := s.checkDuplicates(); err != nil {
		return err
	}
	return s.checkNeed()
}

// routeKey orders routes as Generate does (from_gate, from_rank, to_rank);
// to_gate is implied once Check has seen to_gate = from_gate+1.
func routeKey(r *Route) uint64 {
	return uint64(r.FromGate)<<50 | uint64(r.FromRank)<<25 | uint64(r.ToRank)
}

// checkDuplicates reports the duplicate with the lowest index j, as a
// duplicate of the first route i < j equal to it. Sorted route lists (every
// generated one) need only one linear pass.
func (s *Schedule) checkDuplicates() error {
	rs := s.Routes
	sorted := true
	for i := 1; i < len(rs); i++ {
		if routeKey(&rs[i-1]) >= routeKey(&rs[i]) {
			sorted = false
			break
		}
	}
	if sorted {
		return nil
	}
	idx := make([]int32, len(rs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		ka, kb := routeKey(&rs[a]), routeKey(&rs[b])
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return int(a - b)
	})
	bi, bj := -1, -1
	for k := 1; k < len(idx); {
		if routeKey(&rs[idx[k-1]]) != routeKey(&rs[idx[k]]) {
			k++
			continue
		}
		// idx[k-1] is the first of its group (the group started there), idx[k]
		// the earliest repeat.
		if bj < 0 || int(idx[k]) < bj {
			bi, bj = int(idx[k-1]), int(idx[k])
		}
		for k++; k < len(idx) && routeKey(&rs[idx[k]]) == routeKey(&rs[idx[k-1]]); k++ {
		}
	}
	if bj < 0 {
		return nil
	}
	r := rs[bj]
	return &hw.FieldError{Field: "routes[" + itoa(bj) + "]",
		Value:   fmt.Sprintf("duplicate of routes[%d] (rank %d gate %d -> rank %d gate %d)", bi, r.FromRank, r.FromGate, r.ToRank, r.ToGate),
		Allowed: "each route at most once"}
}

// checkNeed bounds the routes from other ranks into one gate by the width of
// the unit's receive counter.
func (s *Schedule) checkNeed() error {
	st := s.Gates + 2
	n := s.Ranks * st
	var dense []uint16
	var sparse map[int]uint16
	if n <= 4*len(s.Routes)+1<<16 {
		dense = make([]uint16, n)
	} else {
		sparse = make(map[int]uint16)
	}
	for i := range s.Routes {
		r := &s.Routes[i]
		if r.FromRank == r.ToRank {
			continue
		}
		k := r.ToRank*st + r.ToGate
		var c uint16
		if dense != nil {
			dense[k]++
			c = dense[k]
		} else {
			sparse[k]++
			c = sparse[k]
		}
		if c > hw.MaxNeed {
			return &hw.FieldError{Field: "routes[" + itoa(i) + "]",
				Value:   fmt.Sprintf("route number %d from another rank into rank %d gate %d", c, r.ToRank, r.ToGate),
				Allowed: fmt.Sprintf("at most %d such routes per gate (the receive counter is 8 bits)", hw.MaxNeed)}
		}
	}
	return nil
}

func itoa(i int) string { return strconv.Itoa(i) }

// quote formats a user string for an error message, cut short so that a
// huge value cannot make a huge message.
func quote(v string) string {
	const max = 40
	if utf8.RuneCountInString(v) > max {
		r := []rune(v)
		return strconv.Quote(string(r[:max])) + "..."
	}
	return strconv.Quote(v)
}
