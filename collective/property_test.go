package collective

import (
	"encoding/json"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// drawPlacement draws nil (the default) or D distinct nodes of M.
func drawPlacement(t *rapid.T, M, D int) []int {
	if rapid.Bool().Draw(t, "default placement") {
		return nil
	}
	perm := rapid.Permutation(rangeSlice(M)).Draw(t, "nodes")
	return perm[:D]
}

func rangeSlice(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// drawOrder draws a random arrangement of a O's and b M's.
func drawOrder(t *rapid.T, a, b int) string {
	o := []byte(strings.Repeat("O", a) + strings.Repeat("M", b))
	return string(rapid.Permutation(o).Draw(t, "order"))
}

// orderCost is the closed form of an order's cost: a step carries
// 2^(mutual steps before it) items.
func orderCost(order string) int {
	c, m := 0, 0
	for _, k := range order {
		c += 1 << m
		if k == 'M' {
			m++
		}
	}
	return c
}

// drawOrderCase draws M (a power of two up to 1024), D (a divisor with 1 < D
// < M), a placement and an order.
func drawOrderCase(t *rapid.T) (M, D int, place []int, order string) {
	n := rapid.IntRange(2, 10).Draw(t, "log2 nodes")
	M = 1 << n
	D = 1 << rapid.IntRange(1, n-1).Draw(t, "log2 items")
	place = drawPlacement(t, M, D)
	order = drawOrder(t, n-log2(D), log2(D))
	return
}

func verifyGood(t *rapid.T, s *Schedule, steps int) Report {
	r := Verify(s)
	if !r.OK {
		t.Fatalf("%s %d nodes %d items %v: %v", s.Algo, s.Nodes, s.Items, s.Placement, r)
	}
	if r.Redundant != 0 {
		t.Fatalf("%s: %d redundant copies", s.Algo, r.Redundant)
	}
	if len(s.Steps) != steps {
		t.Fatalf("%s: %d steps, want %d", s.Algo, len(s.Steps), steps)
	}
	return r
}

// Any order, any placement: the verifier accepts the schedule, it takes
// log2 M steps, costs the closed form, and the Hitachi order is never
// costlier, in the seed's units or under any speeds of one-sided and mutual
// transfer ([0080]); the Hitachi order costs exactly MinCost.
func TestPropertyOrders(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		M, D, place, order := drawOrderCase(t)
		s, err := Order(M, D, place, order)
		if err != nil {
			t.Fatal(err)
		}
		if s.Order != order {
			t.Fatalf("order %q, asked for %q", s.Order, order)
		}
		r := verifyGood(t, s, log2(M))
		if r.Cost != orderCost(order) {
			t.Fatalf("%s: cost %d, closed form %d", order, r.Cost, orderCost(order))
		}
		h, err := Hitachi(M, D, place)
		if err != nil {
			t.Fatal(err)
		}
		hr := verifyGood(t, h, log2(M))
		mc, _ := MinCost(M, D)
		if hr.Cost != mc || hr.Cost > r.Cost {
			t.Fatalf("Hitachi costs %d (MinCost %d), %s costs %d", hr.Cost, mc, order, r.Cost)
		}
		m := CostModel{
			Setup:    rapid.Float64Range(0, 10).Draw(t, "setup"),
			OneSided: rapid.Float64Range(0.01, 10).Draw(t, "one-sided"),
			Mutual:   rapid.Float64Range(0.01, 10).Draw(t, "mutual"),
		}
		if ht, ot := m.Time(h), m.Time(s); ht > ot*(1+1e-12) {
			t.Fatalf("%+v: Hitachi %v > %s %v", m, ht, order, ot)
		}
	})
}

// Every order, exhaustively, for the small cases.
func TestHitachiCheapestExhaustive(t *testing.T) {
	for n := 2; n <= 8; n++ {
		M := 1 << n
		for D := 2; D < M; D *= 2 {
			cs, err := CompareOrders(M, D, nil)
			if err != nil {
				t.Fatal(err)
			}
			if cs[0].Order != strings.Repeat("O", n-log2(D))+strings.Repeat("M", log2(D)) {
				t.Fatalf("first order %s", cs[0].Order)
			}
			mc, _ := MinCost(M, D)
			if cs[0].Cost != mc || cs[0].Cost != n-log2(D)+D-1 {
				t.Errorf("M=%d D=%d: Hitachi cost %d, MinCost %d", M, D, cs[0].Cost, mc)
			}
			for _, c := range cs[1:] {
				if c.Cost <= cs[0].Cost {
					t.Errorf("M=%d D=%d: %s costs %d <= Hitachi %d", M, D, c.Order, c.Cost, cs[0].Cost)
				}
			}
		}
	}
}

// General: any M up to 1024, any D, any placement.
func TestPropertyGeneral(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		M := rapid.IntRange(1, 1024).Draw(t, "nodes")
		D := rapid.IntRange(1, M).Draw(t, "items")
		place := drawPlacement(t, M, D)
		s, err := General(M, D, place)
		if err != nil {
			t.Fatal(err)
		}
		r := verifyGood(t, s, bits.Len(uint(M-1)))
		if !isPow2(M) && strings.Contains(s.Order, "M") {
			t.Fatalf("M=%d: a mutual step %s", M, s.Order)
		}
		// With items evenly spread on the ring, the Bruck schedule costs
		// MinCost too whenever MinCost is defined.
		if mc, err := MinCost(M, D); err == nil && r.Cost != mc {
			t.Fatalf("M=%d D=%d: General costs %d, MinCost %d", M, D, r.Cost, mc)
		}
	})
}

func TestPropertyRecursiveDoublingAndBroadcast(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 9).Draw(t, "log2 nodes")
		M := 1 << n
		s, err := RecursiveDoubling(M, rapid.Bool().Draw(t, "near last"))
		if err != nil {
			t.Fatal(err)
		}
		if r := verifyGood(t, s, n); r.Cost != M-1 || s.Order != strings.Repeat("M", n) {
			t.Fatalf("recursive doubling M=%d: cost %d order %s", M, r.Cost, s.Order)
		}
		B := rapid.IntRange(1, 1024).Draw(t, "broadcast nodes")
		root := rapid.IntRange(0, B-1).Draw(t, "root")
		b, err := Broadcast(B, root)
		if err != nil {
			t.Fatal(err)
		}
		steps := bits.Len(uint(B - 1))
		if r := verifyGood(t, b, steps); r.Cost != steps || strings.Contains(b.Order, "M") {
			t.Fatalf("broadcast M=%d: cost %d order %s", B, r.Cost, b.Order)
		}
	})
}

// drawSchedule draws any generated schedule with at least one step.
func drawSchedule(t *rapid.T) *Schedule {
	var s *Schedule
	var err error
	switch rapid.IntRange(0, 2).Draw(t, "generator") {
	case 0:
		M, D, place, order := drawOrderCase(t)
		s, err = Order(M, D, place, order)
	case 1:
		M := rapid.IntRange(2, 300).Draw(t, "nodes")
		D := rapid.IntRange(1, M).Draw(t, "items")
		s, err = General(M, D, drawPlacement(t, M, D))
	default:
		s, err = RecursiveDoubling(1<<rapid.IntRange(1, 7).Draw(t, "log2 nodes"), rapid.Bool().Draw(t, "near last"))
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Mutations of good schedules are rejected.
func TestPropertyMutations(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawSchedule(t)
		si := rapid.IntRange(0, len(s.Steps)-1).Draw(t, "step")
		st := &s.Steps[si]
		switch rapid.IntRange(0, 3).Draw(t, "mutation") {
		case 0: // drop a transfer
			j := rapid.IntRange(0, len(st.Transfers)-1).Draw(t, "transfer")
			c := cloneSchedule(s)
			c.Steps[si].Transfers = slices.Delete(c.Steps[si].Transfers, j, j+1)
			if r := Verify(c); r.OK {
				t.Fatalf("dropping steps[%d].transfers[%d] accepted: %v", si, j, r)
			}
		case 1: // send an item before it is held: exactly that violation
			held := holdingsAt(s, si)
			type cand struct{ j, item int }
			var cands []cand
			for j, tr := range st.Transfers {
				for it := range s.Items {
					if !held[tr.Src][it] {
						cands = append(cands, cand{j, it})
					}
				}
			}
			if len(cands) == 0 {
				t.Skip("every sender holds every item")
			}
			c0 := rapid.SampledFrom(cands).Draw(t, "unheld")
			c := cloneSchedule(s)
			tr := &c.Steps[si].Transfers[c0.j]
			tr.Items = append(tr.Items, c0.item)
			if slices.Contains(s.Steps[si].Transfers[c0.j].Items, c0.item) {
				t.Fatal("candidate already sent")
			}
			r := Verify(c)
			if r.OK || r.Rule != RuleNotHeld || r.Step != si+1 || r.Transfer != c0.j || r.Node != tr.Src || r.Item != c0.item {
				t.Fatalf("sending item %d from node %d in step %d: %+v", c0.item, tr.Src, si+1, r)
			}
		case 2: // flip the kind of a step
			c := cloneSchedule(s)
			k := KindMutual
			if st.Kind == KindMutual {
				k = KindOneSided
			}
			c.Steps[si].Kind = k
			c.Order = c.Order[:si] + k + c.Order[si+1:]
			want := RuleUnpaired
			if k == KindOneSided {
				want = RuleOneSidedSwap
			}
			if r := Verify(c); r.OK || r.Rule != want || r.Step != si+1 {
				t.Fatalf("flipping step %d to %s: %+v", si+1, k, r)
			}
		case 3: // redirect a transfer to a node that already receives
			if len(st.Transfers) < 2 {
				t.Skip("one transfer")
			}
			j := rapid.IntRange(0, len(st.Transfers)-1).Draw(t, "transfer")
			k := rapid.IntRange(0, len(st.Transfers)-1).Filter(func(k int) bool { return k != j }).Draw(t, "other")
			c := cloneSchedule(s)
			c.Steps[si].Transfers[j].Dst = st.Transfers[k].Dst
			if c.Steps[si].Transfers[j].Dst == c.Steps[si].Transfers[j].Src {
				t.Skip("would send to itself")
			}
			if r := Verify(c); r.OK || r.Step != si+1 {
				t.Fatalf("redirecting transfer %d to %d's receiver: %+v", j, k, r)
			}
		}
	})
}

// holdingsAt simulates s up to the start of step si.
func holdingsAt(s *Schedule, si int) [][]bool {
	held := make([][]bool, s.Nodes)
	for n := range held {
		held[n] = make([]bool, s.Items)
	}
	for i, p := range s.Placement {
		held[p][i] = true
	}
	for _, st := range s.Steps[:si] {
		for _, tr := range st.Transfers {
			for _, it := range tr.Items {
				held[tr.Dst][it] = true
			}
		}
	}
	return held
}

// A schedule survives JSON and ReadSchedule unchanged.
func TestPropertyJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawSchedule(t)
		var b strings.Builder
		if err := json.NewEncoder(&b).Encode(s); err != nil {
			t.Fatal(err)
		}
		back, err := ReadSchedule(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		if back.Nodes != s.Nodes || back.Order != s.Order || Cost(back) != Cost(s) || !Verify(back).OK {
			t.Fatalf("round trip changed the schedule")
		}
	})
}
