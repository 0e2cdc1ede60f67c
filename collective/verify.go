package collective

import (
	"encoding/json"
	"fmt"
	"math/bits"
)

// Rules a schedule can break; Report.Rule names the first one broken.
const (
	RuleStructure    = "structure"       // Check failed
	RuleNotHeld      = "not-held"        // a node sends an item it does not hold at the start of the step
	RulePortOut      = "port-out"        // a node sends two messages in one step
	RulePortIn       = "port-in"         // a node receives two messages in one step
	RuleUnpaired     = "mutual-unpaired" // a transfer of a mutual step is not answered
	RuleOneSidedSwap = "one-sided-swap"  // two nodes send to each other in a one-sided step
	RuleIncomplete   = "incomplete"      // after the last step some node lacks some item
)

// Report is Verify's verdict. On failure Rule, Step, Node, Item and Peer
// locate the first violation (-1 or 0 where they do not apply) and Message
// says it in one line. Steps, StepCosts, Cost and Redundant describe the
// schedule whenever it passed Check.
type Report struct {
	OK       bool   `json:"ok"`
	Rule     string `json:"rule,omitempty"`
	Step     int    `json:"step"`     // 1-based step of the violation (steps[Step-1]); 0 if none (null in the JSON, as the other nones)
	Transfer int    `json:"transfer"` // index of the offending transfer in that step, -1 if none
	Node     int    `json:"node"`     // the node at fault, -1 if none
	Peer     int    `json:"peer"`     // the other node the message names, -1 if none
	Item     int    `json:"item"`     // the item the message names, -1 if none
	Message  string `json:"message"`

	Steps     int   `json:"steps"`
	StepCosts []int `json:"step_costs"`
	Cost      int   `json:"cost"`
	// Redundant counts item copies delivered to a node that already held
	// the item: allowed, but wasted time.
	Redundant int `json:"redundant"`
}

// reportJSON is Report's JSON: null where the report names no step,
// transfer, node, peer or item.
type reportJSON struct {
	OK        bool   `json:"ok"`
	Rule      string `json:"rule,omitempty"`
	Step      *int   `json:"step"`
	Transfer  *int   `json:"transfer"`
	Node      *int   `json:"node"`
	Peer      *int   `json:"peer"`
	Item      *int   `json:"item"`
	Message   string `json:"message"`
	Steps     int    `json:"steps"`
	StepCosts []int  `json:"step_costs"`
	Cost      int    `json:"cost"`
	Redundant int    `json:"redundant"`
}

// MarshalJSON writes step, transfer, node, peer and item as null where
// the report names none (0 for step, -1 for the others): no sentinel
// number in the JSON.
func (r Report) MarshalJSON() ([]byte, error) {
	named := func(v, none int) *int {
		if v == none {
			return nil
		}
		return &v
	}
	return json.Marshal(reportJSON{r.OK, r.Rule, named(r.Step, 0), named(r.Transfer, -1), named(r.Node, -1), named(r.Peer, -1),
		named(r.Item, -1), r.Message, r.Steps, r.StepCosts, r.Cost, r.Redundant})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Report) UnmarshalJSON(data []byte) error {
	var v reportJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	or := func(p *int, none int) int {
		if p == nil {
			return none
		}
		return *p
	}
	*r = Report{OK: v.OK, Rule: v.Rule, Step: or(v.Step, 0), Transfer: or(v.Transfer, -1), Node: or(v.Node, -1), Peer: or(v.Peer, -1),
		Item: or(v.Item, -1), Message: v.Message, Steps: v.Steps, StepCosts: v.StepCosts, Cost: v.Cost, Redundant: v.Redundant}
	return nil
}

func (r Report) String() string {
	if r.OK {
		return "ok: " + r.Message
	}
	return r.Rule + ": " + r.Message
}

// Verify proves or refutes schedule s by simulating, step by step, the set
// of items each node holds. The rules, checked in this order:
//
//  1. the schedule passes Check (RuleStructure);
//  2. then, step by step and within a step transfer by transfer: the sender
//     holds every item it sends at the start of the step, so an item
//     received in a step can be sent on only in a later one (RuleNotHeld);
//     the sender sends no other message in the step (RulePortOut) and the
//     receiver receives no other (RulePortIn): a port has one out path and
//     one in path;
//  3. then, transfer by transfer: in a mutual step the receiver sends back
//     to the sender (RuleUnpaired); in a one-sided step it does not
//     (RuleOneSidedSwap);
//  4. after the last step every node holds every item (RuleIncomplete; the
//     first missing pair by node, then item).
//
// The first violation is reported; the report of a good schedule has OK set.
func Verify(s *Schedule) Report {
	r := Report{Transfer: -1, Node: -1, Peer: -1, Item: -1}
	if err := s.Check(); err != nil {
		r.Rule, r.Message = RuleStructure, err.Error()
		return r
	}
	r.Steps = len(s.Steps)
	r.StepCosts = StepCosts(s)
	for _, c := range r.StepCosts {
		r.Cost += c
	}
	v := newVerifier(s, &r)
	for si := range s.Steps {
		if v.sends(si) || v.pairs(si) {
			return r
		}
		v.deliver(si)
	}
	if v.incomplete() {
		return r
	}
	r.OK = true
	r.Message = fmt.Sprintf("%d nodes, %d items: every item reaches every node in %d steps (%s), cost %d, %d redundant copies",
		s.Nodes, s.Items, len(s.Steps), orderText(s.Order), r.Cost, r.Redundant)
	return r
}

// verifier is Verify's state: the items each node holds, as W words of
// bits per node, and the ports used in the current step.
type verifier struct {
	s    *Schedule
	r    *Report
	W    int
	held []uint64
	// sent[n]/recv[n]: 1 + index of the transfer node n sends/receives in
	// the current step; stamp[n] says which step the entries belong to.
	sent, recv, stamp []int
}

func newVerifier(s *Schedule, r *Report) *verifier {
	M, W := s.Nodes, (s.Items+63)/64
	v := &verifier{s: s, r: r, W: W, held: make([]uint64, M*W), sent: make([]int, M), recv: make([]int, M), stamp: make([]int, M)}
	for i, p := range s.Placement {
		v.held[p*W+i/64] |= 1 << (i % 64)
	}
	return v
}

// fail records a violation in the report and returns true.
func (v *verifier) fail(rule string, step, tr, node, peer, item int, format string, args ...any) bool {
	r := v.r
	r.Rule, r.Step, r.Transfer, r.Node, r.Peer, r.Item = rule, step, tr, node, peer, item
	r.Message = fmt.Sprintf(format, args...)
	return true
}

// sends checks step si's transfers one by one: the sender holds what it
// sends at the start of the step, and no port sends or receives twice.
func (v *verifier) sends(si int) bool {
	st, step, W := &v.s.Steps[si], si+1, v.W
	for j := range st.Transfers {
		t := &st.Transfers[j]
		src := v.held[t.Src*W : t.Src*W+W]
		for _, it := range t.Items {
			if src[it>>6]&(1<<(it&63)) == 0 {
				return v.fail(RuleNotHeld, step, j, t.Src, t.Dst, it,
					"step %d (steps[%d].transfers[%d]): node %d sends item %d to node %d but does not hold it at the start of the step",
					step, si, j, t.Src, it, t.Dst)
			}
		}
		for _, n := range [2]int{t.Src, t.Dst} {
			if v.stamp[n] != step {
				v.stamp[n], v.sent[n], v.recv[n] = step, 0, 0
			}
		}
		if k := v.sent[t.Src]; k != 0 {
			first := st.Transfers[k-1].Dst
			return v.fail(RulePortOut, step, j, t.Src, t.Dst, -1,
				"step %d (steps[%d].transfers[%d]): node %d sends twice, to node %d (transfers[%d]) and to node %d; its port has one out path",
				step, si, j, t.Src, first, k-1, t.Dst)
		}
		if k := v.recv[t.Dst]; k != 0 {
			first := st.Transfers[k-1].Src
			return v.fail(RulePortIn, step, j, t.Dst, t.Src, -1,
				"step %d (steps[%d].transfers[%d]): node %d receives twice, from node %d (transfers[%d]) and from node %d; its port has one in path",
				step, si, j, t.Dst, first, k-1, t.Src)
		}
		v.sent[t.Src], v.recv[t.Dst] = j+1, j+1
	}
	return false
}

// pairs checks that in a mutual step every receiver sends back, and in a
// one-sided step none does.
func (v *verifier) pairs(si int) bool {
	st, step := &v.s.Steps[si], si+1
	for j := range st.Transfers {
		t := &st.Transfers[j]
		back := v.stamp[t.Dst] == step && v.sent[t.Dst] != 0 && st.Transfers[v.sent[t.Dst]-1].Dst == t.Src
		if st.Kind == KindMutual && !back {
			return v.fail(RuleUnpaired, step, j, t.Dst, t.Src, -1,
				"step %d (steps[%d].transfers[%d]) is mutual (M) but node %d does not send back to node %d; in a mutual step both partners send",
				step, si, j, t.Dst, t.Src)
		}
		if st.Kind == KindOneSided && back {
			return v.fail(RuleOneSidedSwap, step, j, t.Src, t.Dst, -1,
				"step %d (steps[%d].transfers[%d]) is one-sided (O) but nodes %d and %d send to each other, which is a mutual exchange",
				step, si, j, t.Src, t.Dst)
		}
	}
	return false
}

// deliver gives step si's items to their receivers, counting the copies
// a receiver already held.
func (v *verifier) deliver(si int) {
	st, W := &v.s.Steps[si], v.W
	for j := range st.Transfers {
		t := &st.Transfers[j]
		dst := v.held[t.Dst*W : t.Dst*W+W]
		for _, it := range t.Items {
			bit := uint64(1) << (it & 63)
			if dst[it>>6]&bit != 0 {
				v.r.Redundant++
			}
			dst[it>>6] |= bit
		}
	}
}

// incomplete reports the first node-item pair missing after the last
// step (by node, then item) and the count of all.
func (v *verifier) incomplete() bool {
	M, D, W := v.s.Nodes, v.s.Items, v.W
	missing, firstNode, firstItem := 0, -1, -1
	full := make([]uint64, W)
	for w := range W {
		full[w] = ^uint64(0)
	}
	if D%64 != 0 {
		full[W-1] = 1<<(D%64) - 1
	}
	for n := range M {
		for w := range W {
			lack := full[w] &^ v.held[n*W+w]
			if lack == 0 {
				continue
			}
			if firstNode < 0 {
				firstNode, firstItem = n, w*64+bits.TrailingZeros64(lack)
			}
			missing += bits.OnesCount64(lack)
		}
	}
	if missing == 0 {
		return false
	}
	steps := len(v.s.Steps)
	return v.fail(RuleIncomplete, steps, -1, firstNode, -1, firstItem,
		"after the last step (%d), node %d lacks item %d (%d node-item pairs missing in all)",
		steps, firstNode, firstItem, missing)
}

func orderText(o string) string {
	if o == "" {
		return "none"
	}
	return o
}
