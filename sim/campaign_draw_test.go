package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestCampaignDrawsDistinctFaults: the faults of a run fall on distinct
// places (a dead channel on distinct channels), so that a campaign of K
// faults per run runs to the end on any size, even where two draws of
// one crossing would be refused as the same fault; by_count adds up to
// the runs, counting a run under the faults it got. Found by the review
// of issue 20: `hxbar faults --dims 4,4 --per-run 3 --seed 1` aborted at
// run 116.
func TestCampaignDrawsDistinctFaults(t *testing.T) {
	for _, dims := range [][]int{{2}, {2, 2}} {
		for _, kind := range hw.FaultKinds {
			for k := 2; k <= MaxFaultsPerRun; k++ {
				sys := hw.Default()
				sys.Dims, sys.Ranks = dims, 0
				sys.Watchdog, sys.LinkRetry = 200, 4
				if err := sys.Validate(); err != nil {
					t.Fatal(err)
				}
				res, err := RunCampaign(sys, CampaignOptions{Runs: 24, Seed: 1, Kinds: []string{kind}, PerRun: []int{k}, Keep: true})
				if err != nil {
					t.Errorf("dims %v, %s, K = %d: %v", dims, kind, k, err)
					continue
				}
				counted := 0
				for _, c := range res.ByCount {
					counted += c.Runs
				}
				if counted != res.Runs || len(res.Detail) != res.Runs {
					t.Errorf("dims %v, %s, K = %d: by_count counts %d runs of %d", dims, kind, k, counted, res.Runs)
				}
				for _, run := range res.Detail {
					if err := distinctPlaces(run.Spec); err != nil {
						t.Errorf("dims %v, %s, K = %d: run %q: %v", dims, kind, k, run.Spec, err)
					}
				}
			}
		}
	}
}

// distinctPlaces checks that no two faults of spec share a rank, a
// crossing (channel and cycle) or, for dead channels, a channel.
func distinctPlaces(spec string) error {
	seen := map[string]bool{}
	for _, f := range strings.Fields(spec) {
		place := f
		if i := strings.LastIndex(place, ":"); strings.HasPrefix(f, hw.FaultFlip+":") && i > len(hw.FaultFlip) {
			place = place[:i] // a flip's bit does not make another crossing
		}
		if strings.HasPrefix(f, hw.FaultDead+":") {
			place = place[:strings.LastIndex(place, "@")]
		}
		place = place[strings.Index(place, ":")+1:]
		if seen[place] {
			return fmt.Errorf("two faults on %s", place)
		}
		seen[place] = true
	}
	return nil
}
