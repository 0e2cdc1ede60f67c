package collective

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func joinInts(xs []int, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, sep)
}

// sixOrderTable renders the seed's comparison as this package computes it.
func sixOrderTable(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| set | order | step costs | cost | the seed's cost |\n| --- | --- | --- | --- | --- |\n")
	for set, o := range SeedOrders {
		s, err := Order(16, 4, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %d | %d |\n", set+1, o, joinInts(StepCosts(s), " + "), Cost(s), seedCosts16x4[o])
	}
	return b.String()
}

// scheduleTable renders a schedule step by step.
func scheduleTable(s *Schedule) string {
	var b strings.Builder
	b.WriteString("| step | kind | transfers (src→dst: items) | cost |\n| --- | --- | --- | --- |\n")
	for i, st := range s.Steps {
		var ts []string
		for _, tr := range st.Transfers {
			ts = append(ts, fmt.Sprintf("%d→%d: %s", tr.Src, tr.Dst, joinInts(tr.Items, ",")))
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %d |\n", i+1, st.Kind, strings.Join(ts, "; "), StepCost(st))
	}
	return b.String()
}

// minCostTable lists Hitachi's cost against MinCost and the worst order.
func minCostTable(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| nodes | items | Hitachi order | Hitachi cost | MinCost | worst order | its cost | General order | General cost |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, c := range [][2]int{{16, 2}, {16, 4}, {16, 8}, {64, 8}, {256, 16}, {1024, 32}} {
		cs, err := CompareOrders(c[0], c[1], nil)
		if err != nil {
			t.Fatal(err)
		}
		worst := cs[0]
		for _, x := range cs {
			if x.Cost > worst.Cost {
				worst = x
			}
		}
		mc, _ := MinCost(c[0], c[1])
		g, err := General(c[0], c[1], nil)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "| %d | %d | %s | %d | %d | %s | %d | %s | %d |\n", c[0], c[1], cs[0].Order, cs[0].Cost, mc, worst.Order, worst.Cost, g.Order, Cost(g))
	}
	return b.String()
}

// The tables in docs/collectives.md are the computed ones.
func TestDocsCollectivesTables(t *testing.T) {
	doc, err := os.ReadFile("../docs/collectives.md")
	if err != nil {
		t.Fatal(err)
	}
	h4, _ := Hitachi(16, 4, nil)
	h8, _ := Hitachi(16, 8, nil)
	g, _ := General(12, 5, nil)
	for name, want := range map[string]string{
		"the six orders":      sixOrderTable(t),
		"Hitachi(16, 4)":      scheduleTable(h4),
		"Hitachi(16, 8)":      scheduleTable(h8),
		"MinCost":             minCostTable(t),
		"General(12, 5, nil)": scheduleTable(g),
	} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/collectives.md lacks the table of %s:\n%s", name, want)
		}
	}
}
