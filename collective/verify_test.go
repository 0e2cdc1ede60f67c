package collective

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// small is Hitachi(4, 2): items 0, 1 on nodes 0, 1; step 1 (O) 0>2, 1>3;
// step 2 (M) 0<>1, 2<>3.
func small(t *testing.T) *Schedule {
	t.Helper()
	s, err := Hitachi(4, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func cloneSchedule(s *Schedule) *Schedule {
	c := *s
	c.Placement = slices.Clone(s.Placement)
	c.Steps = make([]Step, len(s.Steps))
	for i, st := range s.Steps {
		c.Steps[i] = Step{Kind: st.Kind, Transfers: make([]Transfer, len(st.Transfers))}
		for j, t := range st.Transfers {
			c.Steps[i].Transfers[j] = Transfer{Src: t.Src, Dst: t.Dst, Items: slices.Clone(t.Items)}
		}
	}
	return &c
}

func expectViolation(t *testing.T, name string, r Report, rule string, step, transfer, node, peer, item int, msg string) {
	t.Helper()
	if r.OK || r.Rule != rule || r.Step != step || r.Transfer != transfer || r.Node != node || r.Peer != peer || r.Item != item {
		t.Errorf("%s: got %+v\nwant rule %s step %d transfer %d node %d peer %d item %d", name, r, rule, step, transfer, node, peer, item)
	}
	if msg != "" && r.Message != msg {
		t.Errorf("%s: message\n got  %s\n want %s", name, r.Message, msg)
	}
}

func TestVerifySmall(t *testing.T) {
	s := small(t)
	r := Verify(s)
	if !r.OK || r.Steps != 2 || r.Cost != 2 || !slices.Equal(r.StepCosts, []int{1, 1}) || r.Redundant != 0 {
		t.Fatalf("%+v", r)
	}
	if r.String() != "ok: 4 nodes, 2 items: every item reaches every node in 2 steps (OM), cost 2, 0 redundant copies" {
		t.Errorf("%s", r)
	}

	c := cloneSchedule(s)
	c.Steps[0].Transfers[0].Items = []int{0, 1}
	expectViolation(t, "send before held", Verify(c), RuleNotHeld, 1, 0, 0, 2, 1,
		"step 1 (steps[0].transfers[0]): node 0 sends item 1 to node 2 but does not hold it at the start of the step")

	c = cloneSchedule(s)
	c.Steps[0].Transfers[1] = Transfer{Src: 2, Dst: 3, Items: []int{0}}
	expectViolation(t, "forward in the same step", Verify(c), RuleNotHeld, 1, 1, 2, 3, 0, "")

	c = cloneSchedule(s)
	c.Steps[0].Transfers[1] = Transfer{Src: 0, Dst: 3, Items: []int{0}}
	expectViolation(t, "two sends", Verify(c), RulePortOut, 1, 1, 0, 3, -1,
		"step 1 (steps[0].transfers[1]): node 0 sends twice, to node 2 (transfers[0]) and to node 3; its port has one out path")

	c = cloneSchedule(s)
	c.Steps[0].Transfers[1].Dst = 2
	expectViolation(t, "two receives", Verify(c), RulePortIn, 1, 1, 2, 1, -1,
		"step 1 (steps[0].transfers[1]): node 2 receives twice, from node 0 (transfers[0]) and from node 1; its port has one in path")

	c = cloneSchedule(s)
	c.Steps[1].Transfers = slices.Delete(c.Steps[1].Transfers, 1, 2) // 1>0
	expectViolation(t, "unanswered mutual", Verify(c), RuleUnpaired, 2, 0, 1, 0, -1,
		"step 2 (steps[1].transfers[0]) is mutual (M) but node 1 does not send back to node 0; in a mutual step both partners send")

	c = cloneSchedule(s)
	c.Steps[1].Kind, c.Order = KindOneSided, "OO"
	expectViolation(t, "swap in a one-sided step", Verify(c), RuleOneSidedSwap, 2, 0, 0, 1, -1,
		"step 2 (steps[1].transfers[0]) is one-sided (O) but nodes 0 and 1 send to each other, which is a mutual exchange")

	c = cloneSchedule(s)
	c.Steps[0].Kind, c.Order = KindMutual, "MM"
	expectViolation(t, "one-way transfer in a mutual step", Verify(c), RuleUnpaired, 1, 0, 2, 0, -1, "")

	c = cloneSchedule(s)
	c.Steps, c.Order = c.Steps[:1], "O"
	expectViolation(t, "incomplete", Verify(c), RuleIncomplete, 1, -1, 0, -1, 1,
		"after the last step (1), node 0 lacks item 1 (4 node-item pairs missing in all)")

	c = cloneSchedule(s)
	c.Steps = append(c.Steps, Step{Kind: KindOneSided, Transfers: []Transfer{{Src: 0, Dst: 3, Items: []int{0, 1}}}})
	c.Order += "O"
	if r := Verify(c); !r.OK || r.Redundant != 2 || r.Cost != 4 {
		t.Errorf("redundant: %+v", r)
	}

	c = cloneSchedule(s)
	c.Steps[0].Kind = "X"
	r = Verify(c)
	if r.OK || r.Rule != RuleStructure || r.Message != `invalid steps[0].kind: "X" (allowed: "O" (one-sided) or "M" (mutual))` {
		t.Errorf("structure: %+v", r)
	}
	if Verify(nil).Rule != RuleStructure {
		t.Error("nil schedule")
	}
}

// Many items: the item bitsets span several words.
func TestVerifyWide(t *testing.T) {
	s, err := Hitachi(256, 128, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := Verify(s); !r.OK || r.Cost != 128 {
		t.Fatalf("%+v", r)
	}
	c := cloneSchedule(s)
	last := &c.Steps[len(c.Steps)-1]
	tr := &last.Transfers[len(last.Transfers)-1]
	tr.Items = tr.Items[:len(tr.Items)-1]
	r := Verify(c)
	if r.Rule != RuleIncomplete || r.Node != last.Transfers[len(last.Transfers)-1].Dst || r.Item != 127 {
		t.Errorf("%+v", r)
	}
}

func TestCheck(t *testing.T) {
	base := small(t)
	for _, c := range []struct {
		name  string
		edit  func(s *Schedule)
		field string
		msg   string
	}{
		{"nodes", func(s *Schedule) { s.Nodes = 0 }, "nodes", "invalid nodes: 0 (allowed: 1..4096)"},
		{"items", func(s *Schedule) { s.Items = 5 }, "items", "invalid items: 5 (allowed: 1..4 (at most one item starts on each node))"},
		{"placement", func(s *Schedule) { s.Placement = []int{0} }, "placement", "invalid placement: [0] (allowed: 2 distinct nodes in 0..3, item i on node placement[i])"},
		{"placement dup", func(s *Schedule) { s.Placement = []int{1, 1} }, "placement[1]", "invalid placement[1]: 1 (allowed: a node in 0..3 not already used (placement[0] is 1; items start on distinct nodes))"},
		{"empty step", func(s *Schedule) { s.Steps[1].Transfers = nil }, "steps[1].transfers", "invalid steps[1].transfers: [] (allowed: at least one transfer (drop an empty step))"},
		{"src", func(s *Schedule) { s.Steps[1].Transfers[2].Src = -1 }, "steps[1].transfers[2].src", "invalid steps[1].transfers[2].src: -1 (allowed: 0..3)"},
		{"dst", func(s *Schedule) { s.Steps[0].Transfers[1].Dst = 4 }, "steps[0].transfers[1].dst", "invalid steps[0].transfers[1].dst: 4 (allowed: 0..3)"},
		{"self", func(s *Schedule) { s.Steps[0].Transfers[1].Dst = 1 }, "steps[0].transfers[1].dst", "invalid steps[0].transfers[1].dst: 1 (allowed: a node in 0..3 other than src 1)"},
		{"no items", func(s *Schedule) { s.Steps[0].Transfers[0].Items = nil }, "steps[0].transfers[0].items", "invalid steps[0].transfers[0].items: [] (allowed: at least one item id in 0..1)"},
		{"item", func(s *Schedule) { s.Steps[0].Transfers[0].Items = []int{2} }, "steps[0].transfers[0].items[0]", "invalid steps[0].transfers[0].items[0]: 2 (allowed: an item id in 0..1)"},
		{"item dup", func(s *Schedule) { s.Steps[0].Transfers[0].Items = []int{0, 0} }, "steps[0].transfers[0].items[1]", "invalid steps[0].transfers[0].items[1]: 0 (allowed: an item id not already in this transfer (items[0] is 0))"},
		{"order", func(s *Schedule) { s.Order = "MO" }, "order", `invalid order: "MO" (allowed: "OM", the kinds of the steps in order)`},
	} {
		s := cloneSchedule(base)
		c.edit(s)
		err := s.Check()
		fe, ok := errors.AsType[*hw.FieldError](err)
		if !ok || fe.Field != c.field || err.Error() != c.msg {
			t.Errorf("%s:\n got  %v\n want %s", c.name, err, c.msg)
		}
	}
}

func TestReadSchedule(t *testing.T) {
	s, err := Hitachi(16, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(`{"algo":"hitachi","nodes":16,"items":4,"placement":[8,9,10,11],"order":"OOMM","steps":[{"kind":"O","transfers":[{"src":8,"dst":0,"items":[0]},`)) {
		t.Errorf("JSON: %.200s", b)
	}
	back, err := ReadSchedule(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if back.Order != "OOMM" || len(back.Steps) != 4 || !Verify(back).OK {
		t.Errorf("round trip: %+v", back)
	}
	// The order may be omitted.
	in := `{"nodes":2,"items":1,"placement":[1],"steps":[{"kind":"O","transfers":[{"src":1,"dst":0,"items":[0]}]}]}`
	if s, err := ReadSchedule(strings.NewReader(in)); err != nil || s.Order != "O" || !Verify(s).OK {
		t.Errorf("omitted order: %v %+v", err, s)
	}
	for _, c := range []struct{ in, msg string }{
		{``, "invalid data schedule JSON: empty input"},
		{`{"nodes":2,"items":1,"placement":[1],"steps":[],"cost":3}`, `invalid data schedule JSON: json: unknown field "cost"`},
		{`{"nodes":2,"items":1,"placement":[1],"steps":[]} {}`, "invalid data schedule JSON: more data after the data schedule object"},
		{`{"nodes":2,"items":1,"placement":[1],"order":"O","steps":[]}`, `invalid order: "O" (allowed: "", the kinds of the steps in order)`},
		{`{"nodes":2,"items":1,"placement":[2],"steps":[]}`, "invalid placement[0]: 2 (allowed: a node in 0..1)"},
		// encoding/json would keep the last of two keys and read null as 0.
		{`{"nodes":2,"items":1,"nodes":4,"placement":[1],"steps":[]}`, `invalid data schedule JSON: duplicate key "nodes"`},
		{`{"nodes":2,"items":null,"placement":[1],"steps":[]}`, "invalid data schedule JSON: items: null is not allowed"},
		{`{"nodes":2,"items":1,"placement":[1],"steps":[{"kind":"O","transfers":[{"src":1,"dst":0,"dst":1,"items":[0]}]}]}`, `invalid data schedule JSON: steps[0].transfers[0]: duplicate key "dst"`},
		{`{"nodes":2,"items":1,"placement":[1],"steps":[{"kind":"O","transfers":[{"src":1,"dst":0,"items":[null]}]}]}`, "invalid data schedule JSON: steps[0].transfers[0].items[0]: null is not allowed"},
	} {
		if _, err := ReadSchedule(strings.NewReader(c.in)); err == nil || err.Error() != c.msg {
			t.Errorf("%q:\n got  %v\n want %s", c.in, err, c.msg)
		}
	}
}

func TestCostModel(t *testing.T) {
	s, _ := Hitachi(16, 4, nil)
	if UnitCost.Time(s) != 5 {
		t.Errorf("UnitCost %v", UnitCost.Time(s))
	}
	m := CostModel{Setup: 10, OneSided: 1, Mutual: 3}
	// 4 setups + O 1 + O 1 + M 1*3 + M 2*3.
	if got := m.Time(s); got != 40+1+1+3+6 {
		t.Errorf("Time %v", got)
	}
}

// TestReportJSONNoSentinels: a report names no step, transfer, node, peer
// or item with null, not 0 or -1 (issue 25: no sentinel numbers), and
// reads back.
func TestReportJSONNoSentinels(t *testing.T) {
	good := Verify(small(t))
	bad := cloneSchedule(small(t))
	bad.Steps = bad.Steps[:1]
	for _, r := range []Report{good, Verify(bad)} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if r.OK && !strings.Contains(string(b), `"step":null,"transfer":null,"node":null,"peer":null,"item":null,`) {
			t.Errorf("good schedule: %s, want nulls", b)
		}
		if strings.Contains(string(b), ":-1") {
			t.Errorf("%s: a sentinel -1", b)
		}
		var back Report
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, r) {
			t.Errorf("%+v read back as %+v (%v)", r, back, err)
		}
	}
}
