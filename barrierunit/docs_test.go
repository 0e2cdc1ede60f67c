package barrierunit

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// routeTable renders a schedule as the Markdown table of docs/schedules.md:
// one row per gate, the routes between ranks ("from>to", grouped by
// distance) and the ranks with a route within the rank.
func routeTable(s *Schedule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| gate | routes to other ranks | distance | within the rank |\n| --- | --- | --- | --- |\n")
	for g := 1; g <= s.Gates; g++ {
		var remote, dist, self []string
		for _, r := range s.Routes {
			if r.FromGate != g {
				continue
			}
			if r.FromRank == r.ToRank {
				self = append(self, fmt.Sprint(r.FromRank))
				continue
			}
			remote = append(remote, fmt.Sprintf("%d→%d", r.FromRank, r.ToRank))
			if d := fmt.Sprint(r.Distance); !strings.Contains(" "+strings.Join(dist, " ")+" ", " "+d+" ") {
				dist = append(dist, d)
			}
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", g, strings.Join(remote, " "), strings.Join(dist, " "), strings.Join(self, " "))
	}
	return b.String()
}

// The route tables in docs/schedules.md are the generated ones.
func TestDocsSchedulesTables(t *testing.T) {
	doc, err := os.ReadFile("../docs/schedules.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, R := range []int{5, 8} {
		for _, algo := range hw.Algorithms {
			want := routeTable(mustGenerate(t, algo, R))
			if !strings.Contains(string(doc), want) {
				t.Errorf("docs/schedules.md lacks the table of %s, R=%d:\n%s", algo, R, want)
			}
		}
	}
}
