package collective

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// seedStep is one step of a seed figure in the seed's own 1-based notation:
// "9>1:1" is "data D(1) of memory M(9) to memory M(1)"; "1<>3:1,2|3,4" is the
// mutual transfer of D(1), D(2) from M(1) to M(3) and D(3), D(4) back;
// "*" is every item.
type seedStep struct {
	kind string
	xfer string
}

// parseSeed turns seed steps into sorted 0-based "src>dst:items" lines, one
// slice per step.
func parseSeed(t *testing.T, D int, steps []seedStep) ([]string, [][]string) {
	t.Helper()
	items := func(s string) string {
		if s == "*" {
			var all []string
			for i := range D {
				all = append(all, strconv.Itoa(i))
			}
			return strings.Join(all, ",")
		}
		var out []string
		for f := range strings.SplitSeq(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("bad item %q", f)
			}
			out = append(out, strconv.Itoa(n-1))
		}
		return strings.Join(out, ",")
	}
	node := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("bad node %q", s)
		}
		return n - 1
	}
	var kinds []string
	var out [][]string
	for _, st := range steps {
		var lines []string
		for f := range strings.FieldsSeq(st.xfer) {
			ends, its, _ := strings.Cut(f, ":")
			if a, b, ok := strings.Cut(ends, "<>"); ok {
				there, back, _ := strings.Cut(its, "|")
				lines = append(lines, fmt.Sprintf("%d>%d:%s", node(a), node(b), items(there)))
				lines = append(lines, fmt.Sprintf("%d>%d:%s", node(b), node(a), items(back)))
				continue
			}
			a, b, _ := strings.Cut(ends, ">")
			lines = append(lines, fmt.Sprintf("%d>%d:%s", node(a), node(b), items(its)))
		}
		slices.Sort(lines)
		kinds = append(kinds, st.kind)
		out = append(out, lines)
	}
	return kinds, out
}

// scheduleLines renders a schedule like parseSeed.
func scheduleLines(s *Schedule) ([]string, [][]string) {
	var kinds []string
	var out [][]string
	for _, st := range s.Steps {
		var lines []string
		for _, tr := range st.Transfers {
			var its []string
			for _, it := range tr.Items {
				its = append(its, strconv.Itoa(it))
			}
			lines = append(lines, fmt.Sprintf("%d>%d:%s", tr.Src, tr.Dst, strings.Join(its, ",")))
		}
		slices.Sort(lines)
		kinds = append(kinds, st.Kind)
		out = append(out, lines)
	}
	return kinds, out
}

func expectSeed(t *testing.T, name string, s *Schedule, D int, want []seedStep) {
	t.Helper()
	wk, wl := parseSeed(t, D, want)
	gk, gl := scheduleLines(s)
	if !slices.Equal(wk, gk) {
		t.Errorf("%s: kinds %v, the seed's %v", name, gk, wk)
	}
	for i := range max(len(wl), len(gl)) {
		var w, g []string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !slices.Equal(w, g) {
			t.Errorf("%s step %d:\n got  %v\n seed %v", name, i+1, g, w)
		}
	}
}

// The seed's 16-memory, 4-data figures, transfer by transfer ([0028]-[0072]).
var seedFigures16x4 = map[string][]seedStep{
	// Set 1, FIG. 20, 22, 24, 26.
	"OOMM": {
		{"O", "9>1:1 10>2:2 11>3:3 12>4:4"},
		{"O", "1>5:1 2>6:2 3>7:3 4>8:4 9>13:1 10>14:2 11>15:3 12>16:4"},
		{"M", "1<>2:1|2 3<>4:3|4 5<>6:1|2 7<>8:3|4 9<>10:1|2 11<>12:3|4 13<>14:1|2 15<>16:3|4"},
		{"M", "1<>3:1,2|3,4 2<>4:1,2|3,4 5<>7:1,2|3,4 6<>8:1,2|3,4 9<>11:1,2|3,4 10<>12:1,2|3,4 13<>15:1,2|3,4 14<>16:1,2|3,4"},
	},
	// Set 2, FIG. 29, 31, 33, 35.
	"OMOM": {
		{"O", "9>1:1 10>2:2 11>3:3 12>4:4"},
		{"M", "1<>2:1|2 3<>4:3|4 9<>10:1|2 11<>12:3|4"},
		{"O", "1>5:1,2 2>6:1,2 3>7:3,4 4>8:3,4 9>13:1,2 10>14:1,2 11>15:3,4 12>16:3,4"},
		{"M", "1<>3:1,2|3,4 2<>4:1,2|3,4 5<>7:1,2|3,4 6<>8:1,2|3,4 9<>11:1,2|3,4 10<>12:1,2|3,4 13<>15:1,2|3,4 14<>16:1,2|3,4"},
	},
	// Set 3, FIG. 38, 40, 42, 44.
	"OMMO": {
		{"O", "9>1:1 10>2:2 11>3:3 12>4:4"},
		{"M", "1<>2:1|2 3<>4:3|4 9<>10:1|2 11<>12:3|4"},
		{"M", "1<>3:1,2|3,4 2<>4:1,2|3,4 9<>11:1,2|3,4 10<>12:1,2|3,4"},
		{"O", "1>5:* 2>6:* 3>7:* 4>8:* 9>13:* 10>14:* 11>15:* 12>16:*"},
	},
	// Set 4, FIG. 47, 49, 51, 53.
	"MMOO": {
		{"M", "9<>10:1|2 11<>12:3|4"},
		{"M", "9<>11:1,2|3,4 10<>12:1,2|3,4"},
		{"O", "9>1:* 10>2:* 11>3:* 12>4:*"},
		{"O", "1>5:* 2>6:* 3>7:* 4>8:* 9>13:* 10>14:* 11>15:* 12>16:*"},
	},
	// Set 5, FIG. 56, 58, 60, 62.
	"MOMO": {
		{"M", "9<>10:1|2 11<>12:3|4"},
		{"O", "9>1:1,2 10>2:1,2 11>3:3,4 12>4:3,4"},
		{"M", "1<>3:1,2|3,4 2<>4:1,2|3,4 9<>11:1,2|3,4 10<>12:1,2|3,4"},
		{"O", "1>5:* 2>6:* 3>7:* 4>8:* 9>13:* 10>14:* 11>15:* 12>16:*"},
	},
	// Set 6, FIG. 65, 67, 69, 71.
	"MOOM": {
		{"M", "9<>10:1|2 11<>12:3|4"},
		{"O", "9>1:1,2 10>2:1,2 11>3:3,4 12>4:3,4"},
		{"O", "1>5:1,2 2>6:1,2 3>7:3,4 4>8:3,4 9>13:1,2 10>14:1,2 11>15:3,4 12>16:3,4"},
		{"M", "1<>3:1,2|3,4 2<>4:1,2|3,4 5<>7:1,2|3,4 6<>8:1,2|3,4 9<>11:1,2|3,4 10<>12:1,2|3,4 13<>15:1,2|3,4 14<>16:1,2|3,4"},
	},
}

// The seed's 16-memory, 8-data example, FIG. 74, 76, 78, 80 ([0088]-[0094]).
// In the third transfer the seed writes that M(7) and M(8) send "D(5) and
// D(6)" back to M(5) and M(6) (and M(15), M(16) to M(13), M(14)); they hold
// D(7) and D(8) there, and FIG. 79 has D(7), D(8) on M(5), so the golden
// list carries D(7), D(8).
var seedFigures16x8 = []seedStep{
	{"O", "1>9:1 2>10:2 3>11:3 4>12:4 5>13:5 6>14:6 7>15:7 8>16:8"},
	{"M", "1<>2:1|2 3<>4:3|4 5<>6:5|6 7<>8:7|8 9<>10:1|2 11<>12:3|4 13<>14:5|6 15<>16:7|8"},
	{"M", "1<>3:1,2|3,4 2<>4:1,2|3,4 5<>7:5,6|7,8 6<>8:5,6|7,8 9<>11:1,2|3,4 10<>12:1,2|3,4 13<>15:5,6|7,8 14<>16:5,6|7,8"},
	{"M", "1<>5:1,2,3,4|5,6,7,8 2<>6:1,2,3,4|5,6,7,8 3<>7:1,2,3,4|5,6,7,8 4<>8:1,2,3,4|5,6,7,8 9<>13:1,2,3,4|5,6,7,8 10<>14:1,2,3,4|5,6,7,8 11<>15:1,2,3,4|5,6,7,8 12<>16:1,2,3,4|5,6,7,8"},
}

// seedCosts16x4 are the seed's totals, [0074]-[0079].
var seedCosts16x4 = map[string]int{"OOMM": 5, "OMOM": 6, "OMMO": 8, "MMOO": 11, "MOMO": 9, "MOOM": 7}

func TestSeedPlacement(t *testing.T) {
	if got := SeedPlacement(16, 4); !slices.Equal(got, []int{8, 9, 10, 11}) {
		t.Errorf("SeedPlacement(16, 4) = %v, the seed's M(9)..M(12) are nodes 8..11", got)
	}
	if got := SeedPlacement(16, 8); !slices.Equal(got, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("SeedPlacement(16, 8) = %v, the seed's M(1)..M(8) are nodes 0..7", got)
	}
	if got := SeedPlacement(4, 4); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("SeedPlacement(4, 4) = %v", got)
	}
	if SeedPlacement(4, 0) != nil || SeedPlacement(4, 5) != nil {
		t.Error("SeedPlacement out of range is not nil")
	}
}

// Every order of the seed's 16-node, 4-item comparison reproduces its figures
// transfer for transfer, and its cost ([0074]-[0079]): the golden test.
func TestSeedSixOrders(t *testing.T) {
	if len(SeedOrders) != 6 {
		t.Fatal("six orders")
	}
	for set, o := range SeedOrders {
		s, err := Order(16, 4, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		expectSeed(t, fmt.Sprintf("set %d (%s)", set+1, o), s, 4, seedFigures16x4[o])
		if c := Cost(s); c != seedCosts16x4[o] {
			t.Errorf("set %d (%s): cost %d (steps %v), the seed says %d", set+1, o, c, StepCosts(s), seedCosts16x4[o])
		}
		if r := Verify(s); !r.OK || r.Redundant != 0 {
			t.Errorf("set %d (%s): %v", set+1, o, r)
		}
	}
	h, err := Hitachi(16, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.Algo != AlgoHitachi || h.Order != "OOMM" {
		t.Errorf("Hitachi(16, 4): algo %q order %q", h.Algo, h.Order)
	}
	expectSeed(t, "Hitachi(16, 4)", h, 4, seedFigures16x4["OOMM"])
	want := []int{1, 1, 1, 2} // [0074]: 1, 1, 1, 2 seconds
	if got := StepCosts(h); !slices.Equal(got, want) {
		t.Errorf("Hitachi(16, 4) step costs %v, want %v", got, want)
	}
}

// The second worked example: 16 nodes, 8 items, one O then three M (FIG.
// 74-80). The seed gives no total; its figures carry 1, 1, 2, 4 items.
func TestSeedSixteenEight(t *testing.T) {
	s, err := Hitachi(16, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Order != "OMMM" {
		t.Errorf("order %q, the seed's is one O then three M", s.Order)
	}
	expectSeed(t, "Hitachi(16, 8)", s, 8, seedFigures16x8)
	if got := StepCosts(s); !slices.Equal(got, []int{1, 1, 2, 4}) || Cost(s) != 8 {
		t.Errorf("step costs %v cost %d, want [1 1 2 4] 8", got, Cost(s))
	}
	if mc, _ := MinCost(16, 8); mc != 8 {
		t.Errorf("MinCost(16, 8) = %d", mc)
	}
	if r := Verify(s); !r.OK {
		t.Error(r)
	}
}

// The seed's recursive broadcast (FIG. 5, 7): M(1) to M(2), then M(1) to
// M(3) and M(2) to M(4).
func TestSeedBroadcast(t *testing.T) {
	s, err := Broadcast(4, 0)
	if err != nil {
		t.Fatal(err)
	}
	expectSeed(t, "Broadcast(4, 0)", s, 1, []seedStep{{"O", "1>2:1"}, {"O", "1>3:1 2>4:1"}})
	s, err = Broadcast(6, 4)
	if err != nil {
		t.Fatal(err)
	}
	// 1-based: root M(5); 5>6, then 5>1 6>2, then 5>3 6>4.
	expectSeed(t, "Broadcast(6, 4)", s, 1, []seedStep{{"O", "5>6:1"}, {"O", "5>1:1 6>2:1"}, {"O", "5>3:1 6>4:1"}})
}

func TestRecursiveDoubling(t *testing.T) {
	s, err := RecursiveDoubling(8, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.Algo != AlgoRecursiveDoublingNearLast || s.Order != "MMM" {
		t.Errorf("algo %q order %q", s.Algo, s.Order)
	}
	// Near-last: distances 4, 2, 1 (0-based nodes, written 1-based here).
	expectSeed(t, "RecursiveDoubling(8, near-last)", s, 8, []seedStep{
		{"M", "1<>5:1|5 2<>6:2|6 3<>7:3|7 4<>8:4|8"},
		{"M", "1<>3:1,5|3,7 2<>4:2,6|4,8 5<>7:1,5|3,7 6<>8:2,6|4,8"},
		{"M", "1<>2:1,3,5,7|2,4,6,8 3<>4:1,3,5,7|2,4,6,8 5<>6:1,3,5,7|2,4,6,8 7<>8:1,3,5,7|2,4,6,8"},
	})
	if got := StepCosts(s); !slices.Equal(got, []int{1, 2, 4}) {
		t.Errorf("near-last step costs %v", got)
	}
	f, err := RecursiveDoubling(8, false)
	if err != nil {
		t.Fatal(err)
	}
	if f.Algo != AlgoRecursiveDoublingNearFirst || f.Steps[0].Transfers[0].Dst != 1 || Cost(f) != 7 {
		t.Errorf("near-first: algo %q first transfer %+v cost %d", f.Algo, f.Steps[0].Transfers[0], Cost(f))
	}
	one, err := RecursiveDoubling(1, true)
	if err != nil || len(one.Steps) != 0 || !Verify(one).OK {
		t.Errorf("RecursiveDoubling(1): %v %+v", err, one)
	}
}

// An arbitrary placement relabels the canonical schedule: same kinds, same
// costs, and items already in the chosen aligned block keep their nodes.
func TestOrderPlacement(t *testing.T) {
	place := []int{3, 14, 0, 7}
	for _, o := range SeedOrders {
		s, err := Order(16, 4, place, o)
		if err != nil {
			t.Fatal(err)
		}
		if r := Verify(s); !r.OK || r.Redundant != 0 {
			t.Errorf("%s: %v", o, r)
		}
		if Cost(s) != seedCosts16x4[o] || s.Order != o {
			t.Errorf("%s: cost %d order %s", o, Cost(s), s.Order)
		}
		if !slices.Equal(s.Placement, place) {
			t.Errorf("placement %v", s.Placement)
		}
	}
	// Items 0 and 3 in block 0 (nodes 0..3) keep their nodes: the first
	// O step of OOMM sends from 3 and 0 over distance 8.
	s, _ := Hitachi(16, 4, place)
	first := s.Steps[0].Transfers
	if first[0].Src != 0 || first[0].Dst != 8 || first[1].Src != 3 || first[1].Dst != 11 {
		t.Errorf("first step %+v", first)
	}
	// An aligned block in any order needs no relabelling.
	s, _ = Hitachi(16, 4, []int{6, 4, 7, 5})
	for _, tr := range s.Steps[2].Transfers {
		if tr.Src^tr.Dst != 1 {
			t.Errorf("aligned block: step 3 transfer %+v is not distance 1", tr)
		}
	}
}

func TestGeneral(t *testing.T) {
	for _, c := range []struct {
		M, D  int
		order string
		cost  int
	}{
		{1, 1, "", 0},
		{2, 1, "O", 1},
		{2, 2, "M", 1},
		{5, 2, "OOO", 3},
		{12, 5, "OOOO", 6},
		{16, 3, "OOOM", 5},
		{16, 4, "OOOM", 5},
		{16, 16, "OOOM", 15},
		{1000, 7, "OOOOOOOOOO", 14},
	} {
		s, err := General(c.M, c.D, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := Verify(s)
		if !r.OK || r.Redundant != 0 || s.Order != c.order || r.Cost != c.cost {
			t.Errorf("General(%d, %d): order %q cost %d (want %q, %d): %v", c.M, c.D, s.Order, r.Cost, c.order, c.cost, r)
		}
	}
}

func TestMinCost(t *testing.T) {
	for _, c := range []struct{ M, D, want int }{
		{16, 4, 5}, {16, 8, 8}, {16, 1, 4}, {16, 16, 15}, {1024, 32, 36}, {1, 1, 0},
	} {
		if got, err := MinCost(c.M, c.D); err != nil || got != c.want {
			t.Errorf("MinCost(%d, %d) = %d, %v; want %d", c.M, c.D, got, err, c.want)
		}
	}
}

func TestOrders(t *testing.T) {
	got, err := Orders(16, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"OOMM", "OMOM", "OMMO", "MOOM", "MOMO", "MMOO"}
	if !slices.Equal(got, want) {
		t.Errorf("Orders(16, 4) = %v", got)
	}
	sorted := slices.Clone(SeedOrders)
	slices.Sort(sorted)
	slices.Sort(got)
	if !slices.Equal(got, sorted) {
		t.Error("SeedOrders is not a permutation of Orders(16, 4)")
	}
	cs, err := CompareOrders(16, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Cost != seedCosts16x4[c.Order] {
			t.Errorf("CompareOrders: %s costs %d", c.Order, c.Cost)
		}
	}
}

// Bad input: a *hw.FieldError naming the field and the allowed values.
func TestGenerateErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		err   func() error
		field string
		msg   string
	}{
		{"order length", func() error { _, err := Order(16, 4, nil, "OOM"); return err }, "order",
			`invalid order: "OOM" (allowed: 2 O and 2 M in any order for 16 nodes and 4 items)`},
		{"order letters", func() error { _, err := Order(16, 4, nil, "OOMX"); return err }, "order",
			`invalid order: "OOMX" (allowed: 2 O and 2 M in any order for 16 nodes and 4 items)`},
		{"order counts", func() error { _, err := Order(16, 8, nil, "OOMM"); return err }, "order",
			`invalid order: "OOMM" (allowed: 1 O and 3 M in any order for 16 nodes and 8 items)`},
		{"hitachi items", func() error { _, err := Hitachi(16, 3, nil); return err }, "items",
			`invalid items: 3 (allowed: a divisor of nodes=16 with 1 < items < 16: 2, 4, 8)`},
		{"hitachi items = nodes", func() error { _, err := Hitachi(16, 16, nil); return err }, "items",
			`invalid items: 16 (allowed: a divisor of nodes=16 with 1 < items < 16: 2, 4, 8)`},
		{"hitachi nodes", func() error { _, err := Hitachi(12, 4, nil); return err }, "nodes",
			`invalid nodes: 12 (allowed: a power of two in 4..4096 (the seed's M, with a divisor D and 1 < D < M))`},
		{"order items", func() error { _, err := Order(8, 3, nil, "OOO"); return err }, "items",
			`invalid items: 3 (allowed: a divisor of nodes=8: 1, 2, 4, 8)`},
		{"placement length", func() error { _, err := Hitachi(16, 4, []int{1, 2}); return err }, "placement",
			`invalid placement: [1 2] (allowed: 4 distinct nodes in 0..15, item i on node placement[i] (omit it for the default [8 9 10 11]))`},
		{"placement range", func() error { _, err := Hitachi(16, 4, []int{1, 2, 16, 3}); return err }, "placement[2]",
			`invalid placement[2]: 16 (allowed: a node in 0..15)`},
		{"placement duplicate", func() error { _, err := General(10, 3, []int{4, 9, 4}); return err }, "placement[2]",
			`invalid placement[2]: 4 (allowed: a node in 0..9 not already used (placement[0] is 4; items start on distinct nodes))`},
		{"rd nodes", func() error { _, err := RecursiveDoubling(6, true); return err }, "nodes",
			`invalid nodes: 6 (allowed: a power of two in 1..4096)`},
		{"broadcast root", func() error { _, err := Broadcast(8, 8); return err }, "root",
			`invalid root: 8 (allowed: 0..7)`},
		{"broadcast nodes", func() error { _, err := Broadcast(0, 0); return err }, "nodes",
			`invalid nodes: 0 (allowed: 1..4096)`},
		{"general items", func() error { _, err := General(10, 11, nil); return err }, "items",
			`invalid items: 11 (allowed: 1..10 (at most one item starts on each node))`},
		{"general nodes", func() error { _, err := General(5000, 1, nil); return err }, "nodes",
			`invalid nodes: 5000 (allowed: 1..4096)`},
		{"min cost", func() error { _, err := MinCost(16, 5); return err }, "items",
			`invalid items: 5 (allowed: a divisor of nodes=16: 1, 2, 4, 8, 16)`},
		{"compare orders", func() error { _, err := CompareOrders(16, 4, []int{0, 0, 1, 2}); return err }, "placement[1]",
			`invalid placement[1]: 0 (allowed: a node in 0..15 not already used (placement[0] is 0; items start on distinct nodes))`},
	} {
		err := c.err()
		fe, ok := errors.AsType[*hw.FieldError](err)
		if !ok {
			t.Errorf("%s: error %v is not a *hw.FieldError", c.name, err)
			continue
		}
		if fe.Field != c.field || err.Error() != c.msg {
			t.Errorf("%s: field %q\n got  %s\n want %s", c.name, fe.Field, err, c.msg)
		}
	}
}
