package collective_test

import (
	"fmt"
	"strings"

	"github.com/hxbar/hxbar/collective"
)

// The seed's worked example: 16 nodes, items 0..3 on nodes 8..11 (the seed's
// memories M(9)..M(12)), two one-sided steps and then two mutual steps.
func ExampleHitachi() {
	s, err := collective.Hitachi(16, 4, nil)
	if err != nil {
		panic(err)
	}
	for i, st := range s.Steps {
		var ts []string
		for _, t := range st.Transfers[:min(4, len(st.Transfers))] {
			ts = append(ts, fmt.Sprintf("%d>%d%v", t.Src, t.Dst, t.Items))
		}
		fmt.Printf("step %d %s cost %d: %s ... (%d transfers)\n", i+1, st.Kind, collective.StepCost(st), strings.Join(ts, " "), len(st.Transfers))
	}
	fmt.Println(collective.Verify(s))
	// Output:
	// step 1 O cost 1: 8>0[0] 9>1[1] 10>2[2] 11>3[3] ... (4 transfers)
	// step 2 O cost 1: 0>4[0] 1>5[1] 2>6[2] 3>7[3] ... (8 transfers)
	// step 3 M cost 1: 0>1[0] 1>0[1] 2>3[2] 3>2[3] ... (16 transfers)
	// step 4 M cost 2: 0>2[0 1] 1>3[0 1] 2>0[2 3] 3>1[2 3] ... (16 transfers)
	// ok: 16 nodes, 4 items: every item reaches every node in 4 steps (OOMM), cost 5, 0 redundant copies
}

// The seed's six orders of the same four steps.
func ExampleCompareOrders() {
	cs, err := collective.CompareOrders(16, 4, nil)
	if err != nil {
		panic(err)
	}
	for _, c := range cs {
		fmt.Println(c.Order, c.StepCosts, c.Cost)
	}
	// Output:
	// OOMM [1 1 1 2] 5
	// OMOM [1 1 2 2] 6
	// OMMO [1 1 2 4] 8
	// MOOM [1 2 2 2] 7
	// MOMO [1 2 2 4] 9
	// MMOO [1 2 4 4] 11
}

// A user's schedule that forwards an item in the step it arrives in.
func ExampleVerify() {
	s, err := collective.ReadSchedule(strings.NewReader(`{
		"nodes": 4, "items": 1, "placement": [0],
		"steps": [
			{"kind": "O", "transfers": [{"src": 0, "dst": 1, "items": [0]}, {"src": 1, "dst": 2, "items": [0]}]},
			{"kind": "O", "transfers": [{"src": 2, "dst": 3, "items": [0]}]}
		]}`))
	if err != nil {
		panic(err)
	}
	r := collective.Verify(s)
	fmt.Println(r.Rule, r.Step, r.Node, r.Item)
	fmt.Println(r.Message)
	// Output:
	// not-held 1 1 0
	// step 1 (steps[0].transfers[1]): node 1 sends item 0 to node 2 but does not hold it at the start of the step
}

// An all-gather outside the seed's conditions: 12 nodes, 5 items.
func ExampleGeneral() {
	s, err := collective.General(12, 5, []int{0, 1, 2, 3, 4})
	if err != nil {
		panic(err)
	}
	r := collective.Verify(s)
	fmt.Println(r.OK, s.Order, r.StepCosts, r.Cost)
	// Output:
	// true OOOO [1 1 2 2] 6
}
