package formal

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hxbar/hxbar/hw"
)

// Step proofs (docs/testing.md, "Formal proof"): instead of unrolling a
// whole sequence of episodes, prove one episode at a time from the state
// the system is in between two episodes, and prove that the episode ends
// in such a state again. By induction the property then holds for every
// sequence, of any length.
//
// The state between episodes (a boundary: every rank of the last episode
// released, the next not started) is taken from simulation, not assumed:
// a class is a set of histories after which the units hold the same
// tables (the configuration the co-simulation's writes leave, so the next
// episode's writes are the same too); its representative history is
// simulated with every arrival at the window's end, and its end state is
// the class's boundary state. The registers that differ between two
// histories of one class, the watchdog's idle counters and the receive
// RAM's words are given free values instead (Free); every other register
// keeps its simulated value. The step proof of class c and episode x
// starts in c's boundary state with those registers free, runs x with
// free arrivals, and asserts the property and, in the cycle x completes,
// that every register not free has the value of the boundary state of
// the class c·x falls into (output moved). A register that moved would be
// a history the classes do not cover: the check fails rather than proves.

// Class is a set of histories with the same tables.
type Class struct {
	Rep   []hw.Algorithm       // the shortest history of the class
	Other []hw.Algorithm       // another, longer history of the class (nil if none was met)
	Next  map[hw.Algorithm]int // the class a history of this class followed by an episode falls into
	key   string
}

// Classes explores the histories of s's schedules breadth first up to
// maxLen episodes and returns their classes, the first the class of
// s.Algos[0] alone. It fails if a history of maxLen episodes still
// reaches a new class (the classes would not be closed).
func Classes(s Spec, maxLen int) ([]Class, error) {
	var cls []Class
	index := map[string]int{}
	type hist struct{ seq []hw.Algorithm }
	queue := []hist{}
	for _, a := range s.Algos {
		queue = append(queue, hist{[]hw.Algorithm{a}})
	}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		key, err := s.tablesKey(h.seq)
		if err != nil {
			return nil, err
		}
		if c, ok := index[key]; ok {
			if cls[c].Other == nil && len(h.seq) > len(cls[c].Rep) {
				cls[c].Other = slices.Clone(h.seq)
			}
		} else {
			if len(h.seq) >= maxLen {
				return nil, fmt.Errorf("proof %s: history %s reaches new tables after %d episodes (the classes are not closed)", s.Name, seqName(h.seq), maxLen)
			}
			index[key] = len(cls)
			cls = append(cls, Class{Rep: slices.Clone(h.seq), Next: map[hw.Algorithm]int{}, key: key})
			for _, a := range s.Algos {
				queue = append(queue, hist{append(slices.Clone(h.seq), a)})
			}
		}
	}
	// Transitions: the class of each representative followed by each schedule.
	for i := range cls {
		for _, a := range s.Algos {
			key, err := s.tablesKey(append(slices.Clone(cls[i].Rep), a))
			if err != nil {
				return nil, err
			}
			c, ok := index[key]
			if !ok {
				return nil, fmt.Errorf("proof %s: history %s%s reaches tables no class has", s.Name, seqName(cls[i].Rep), string(a)[:1])
			}
			cls[i].Next[a] = c
		}
	}
	return cls, nil
}

// tablesKey is what every port has written after the episodes seq: the
// last value of every address, ports and addresses in order.
func (s *Spec) tablesKey(seq []hw.Algorithm) (string, error) {
	t := *s
	t.Seq = seq
	nodes := 1
	for _, d := range s.Dims {
		nodes *= d
	}
	progs, err := t.programs(nodes)
	if err != nil {
		return "", err
	}
	held := map[[2]uint64]uint64{}
	for _, per := range progs {
		for port, ws := range per {
			for _, w := range ws {
				held[[2]uint64{uint64(port), uint64(w.Addr)}] = uint64(w.Data)
			}
		}
	}
	keys := make([][2]uint64, 0, len(held))
	for k := range held {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%d:%x=%x;", k[0], k[1], held[k])
	}
	return b.String(), nil
}

// StepSystems are the systems make formal proves step by step: the
// systems of Systems, each with both schedules, any sequence of episodes.
func StepSystems() []Spec {
	algos := []hw.Algorithm{hw.AlgoButterfly, hw.AlgoDissemination}
	var out []Spec
	for _, dims := range [][]int{{3}, {4}} {
		out = append(out, Spec{Name: fmt.Sprintf("line%d", dims[0]), Dims: dims, Algos: algos, Window: 6})
	}
	return out
}

// HistoryName names a history: b and d per episode.
func HistoryName(seq []hw.Algorithm) string { return seqName(seq) }

// seqName is a history as the proofs name it: b and d per episode.
func seqName(seq []hw.Algorithm) string {
	var b strings.Builder
	for _, a := range seq {
		b.WriteString(string(a)[:1])
	}
	return b.String()
}
