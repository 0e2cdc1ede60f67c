package collective

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/strictjson"
)

// Step kinds.
const (
	// KindOneSided ("O"): every transfer of the step goes one way; no two
	// nodes send to each other. (A node may still send on its out path and
	// receive on its in path from different partners.)
	KindOneSided = "O"
	// KindMutual ("M"): every transfer of the step is answered by one in
	// the opposite direction, so pairs of nodes swap data over both paths of
	// their full-duplex ports.
	KindMutual = "M"
)

// Algorithm names the generators write into Schedule.Algo.
const (
	AlgoHitachi                    = "hitachi"
	AlgoOrder                      = "order"
	AlgoRecursiveDoublingNearLast  = "recursive-doubling-near-last"
	AlgoRecursiveDoublingNearFirst = "recursive-doubling-near-first"
	AlgoBroadcast                  = "broadcast"
	AlgoGeneral                    = "general"
)

// Transfer copies items from node Src to node Dst within one step. The JSON
// keys are the contract of the schedule format (docs/collectives.md).
type Transfer struct {
	Src   int   `json:"src"`
	Dst   int   `json:"dst"`
	Items []int `json:"items"`
}

// Step is one round of transfers that run at the same time.
type Step struct {
	Kind      string     `json:"kind"` // KindOneSided or KindMutual
	Transfers []Transfer `json:"transfers"`
}

// Schedule is a complete data schedule: nodes 0..Nodes-1, items
// 0..Items-1, item i initially on node Placement[i], and the steps in order.
// Order is the steps' kinds written as one string ("OOMM").
type Schedule struct {
	Algo      string `json:"algo,omitempty"`
	Nodes     int    `json:"nodes"`
	Items     int    `json:"items"`
	Placement []int  `json:"placement"`
	Order     string `json:"order"`
	Steps     []Step `json:"steps"`
}

func itoa(i int) string { return strconv.Itoa(i) }

func nodeRange(m int) string { return "0.." + itoa(m-1) }

// Check validates the structure of a schedule, for instance one a user wrote:
// nodes 1..hw.MaxCollectiveRanks, items 1..nodes, placement one distinct
// node per item, every step's kind "O" or "M" and at least one transfer, every transfer's
// src and dst distinct nodes, its items a non-empty list of distinct item
// ids, and order the steps' kinds in order. The error is a *hw.FieldError
// naming the first offending field, e.g. "invalid
// steps[2].transfers[1].dst: 16 (allowed: 0..15)". Check says nothing about
// whether the schedule works: that is Verify.
func (s *Schedule) Check() error {
	if s == nil {
		return errors.New("invalid schedule: none given")
	}
	if s.Nodes < 1 || s.Nodes > hw.MaxCollectiveRanks {
		return &hw.FieldError{Field: "nodes", Value: s.Nodes, Allowed: "1.." + itoa(hw.MaxCollectiveRanks)}
	}
	M := s.Nodes
	if s.Items < 1 || s.Items > M {
		return &hw.FieldError{Field: "items", Value: s.Items, Allowed: "1.." + itoa(M) + " (at most one item starts on each node)"}
	}
	if err := checkPlacement(M, s.Items, s.Placement, nil); err != nil {
		return err
	}
	var kinds strings.Builder
	// seenIn[it] is 1 + the number of the transfer (counted over the whole
	// schedule) that last listed item it, seenAt[it] its index there.
	seenIn := make([]int, s.Items)
	seenAt := make([]int, s.Items)
	tn := 0
	for i := range s.Steps {
		st := &s.Steps[i]
		sf := "steps[" + itoa(i) + "]"
		if st.Kind != KindOneSided && st.Kind != KindMutual {
			return &hw.FieldError{Field: sf + ".kind", Value: strconv.Quote(st.Kind), Allowed: `"O" (one-sided) or "M" (mutual)`}
		}
		kinds.WriteString(st.Kind)
		if len(st.Transfers) == 0 {
			return &hw.FieldError{Field: sf + ".transfers", Value: "[]", Allowed: "at least one transfer (drop an empty step)"}
		}
		for j := range st.Transfers {
			t := &st.Transfers[j]
			tf := sf + ".transfers[" + itoa(j) + "]"
			if t.Src < 0 || t.Src >= M {
				return &hw.FieldError{Field: tf + ".src", Value: t.Src, Allowed: nodeRange(M)}
			}
			if t.Dst < 0 || t.Dst >= M {
				return &hw.FieldError{Field: tf + ".dst", Value: t.Dst, Allowed: nodeRange(M)}
			}
			if t.Dst == t.Src {
				return &hw.FieldError{Field: tf + ".dst", Value: t.Dst, Allowed: "a node in " + nodeRange(M) + " other than src " + itoa(t.Src)}
			}
			if len(t.Items) == 0 {
				return &hw.FieldError{Field: tf + ".items", Value: "[]", Allowed: "at least one item id in " + nodeRange(s.Items)}
			}
			tn++
			for k, it := range t.Items {
				if it < 0 || it >= s.Items {
					return &hw.FieldError{Field: tf + ".items[" + itoa(k) + "]", Value: it, Allowed: "an item id in " + nodeRange(s.Items)}
				}
				if seenIn[it] == tn {
					return &hw.FieldError{Field: tf + ".items[" + itoa(k) + "]", Value: it, Allowed: fmt.Sprintf("an item id not already in this transfer (items[%d] is %d)", seenAt[it], it)}
				}
				seenIn[it], seenAt[it] = tn, k
			}
		}
	}
	if s.Order != kinds.String() {
		return &hw.FieldError{Field: "order", Value: strconv.Quote(s.Order), Allowed: strconv.Quote(kinds.String()) + ", the kinds of the steps in order"}
	}
	return nil
}

// checkPlacement validates a placement of D items among M nodes; def is the
// default shown in the message (nil when the field is required).
func checkPlacement(M, D int, place, def []int) error {
	if len(place) != D {
		allowed := fmt.Sprintf("%d distinct nodes in %s, item i on node placement[i]", D, nodeRange(M))
		if def != nil {
			allowed += fmt.Sprintf(" (omit it for the default %v)", def)
		}
		return &hw.FieldError{Field: "placement", Value: fmt.Sprint(place), Allowed: allowed}
	}
	first := make(map[int]int, D)
	for i, p := range place {
		f := "placement[" + itoa(i) + "]"
		if p < 0 || p >= M {
			return &hw.FieldError{Field: f, Value: p, Allowed: "a node in " + nodeRange(M)}
		}
		if j, dup := first[p]; dup {
			return &hw.FieldError{Field: f, Value: p, Allowed: fmt.Sprintf("a node in %s not already used (placement[%d] is %d; items start on distinct nodes)", nodeRange(M), j, p)}
		}
		first[p] = i
	}
	return nil
}

// ReadSchedule decodes one schedule in the JSON of docs/collectives.md (the
// keys of Schedule, Step and Transfer; unknown keys are errors). An omitted
// "order" is filled in from the steps' kinds; a given one must match them.
// The schedule is returned only if it passes Check.
func ReadSchedule(r io.Reader) (*Schedule, error) {
	var s Schedule
	if err := strictjson.DecodeOne(r, &s, "data schedule"); err != nil {
		return nil, err
	}
	if s.Order == "" {
		var b strings.Builder
		for _, st := range s.Steps {
			b.WriteString(st.Kind)
		}
		s.Order = b.String()
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &s, nil
}
