package sim

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// A lost head leaves its payload flits orphans at the next switch, which
// drops and counts them; the result lists that switch under "dropped"
// (docs/microarchitecture.md, "Statistics"), with the watchdog's TIMEOUT
// reporting the lost signal. A fault-free run has no "dropped" key.
func TestResultDropped(t *testing.T) {
	sys := hw.Default()
	sys.Op = hw.OpSum
	sys.FlitWidth = 32 // 2 payload flits a packet
	sys.Watchdog = 200
	res, _, cross, err := faultTrace(t, sys, true)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(res); strings.Contains(string(b), `"dropped"`) {
		t.Fatal("a fault-free run reports dropped")
	}
	f := mustFabric(t, sys)
	idx := noc.NewChannelIndex(noc.Fabric(f))
	var head noc.Crossing
	for _, c := range cross {
		if c.Head && strings.HasSuffix(idx.Name(int(c.Channel)), ".up") {
			head = c
			break
		}
	}
	// The crossbar the up channel feeds.
	ch := noc.Channels(f)[head.Channel]
	var to, port int
	if _, err := fmt.Sscanf(ch.To, "switch %d port %d", &to, &port); err != nil {
		t.Fatalf("channel %s feeds %q", ch.Name, ch.To)
	}
	sys.Faults = []string{"drop:" + idx.Name(int(head.Channel)) + "@" + itoa(head.Cycle)}
	res, _, _, err = faultTrace(t, sys, false)
	if err == nil || res.Complete {
		t.Fatalf("%v: the lost head went unreported", sys.Faults)
	}
	want := []SwitchDrops{{Switch: to, DropCounts: noc.DropCounts{Orphan: 2, Flits: 2}}}
	if len(res.Dropped) != 1 || res.Dropped[0] != want[0] {
		t.Fatalf("%v: dropped %+v, want %+v", sys.Faults, res.Dropped, want)
	}
	b, _ := json.Marshal(res.Dropped)
	if got := string(b); got != `[{"switch":`+itoa(int64(to))+`,"out_of_grid":0,"orphan":2,"cut":0,"flits":2}]` {
		t.Fatalf("JSON %s", got)
	}
}
