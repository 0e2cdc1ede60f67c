package noc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

func TestChannelNames(t *testing.T) {
	for _, c := range []struct {
		topo string
		dims []int
		want []string
	}{
		{"hyperxbar", []int{4, 4}, []string{"n0.eject", "n0.d0.up", "n5.d1.down", "n15.inject"}},
		{"torus", []int{4, 4}, []string{"n0.d0+.vc0", "n3.d1-.vc1", "n2.eject"}},
		{"fattree", []int{4, 4}, []string{"l0.w0.up3", "l1.w2.down1", "n7.eject"}},
	} {
		f, err := NewFabric(hw.Topology(c.topo), c.dims)
		if err != nil {
			t.Fatal(err)
		}
		chs := Channels(f)
		if len(chs) != NumChannels(f) {
			t.Fatalf("%s: %d channels, NumChannels %d", c.topo, len(chs), NumChannels(f))
		}
		x := NewChannelIndex(f)
		seen := map[string]bool{}
		for i, ch := range chs {
			if ch.ID != i || seen[ch.Name] || strings.ContainsAny(ch.Name, " *?$'\"\\|&;<>()") {
				t.Fatalf("%s: channel %d = %+v (duplicate or not shell-friendly)", c.topo, i, ch)
			}
			seen[ch.Name] = true
			if id, err := x.Parse(ch.Name); err != nil || id != i {
				t.Fatalf("%s: Parse(%s) = %d, %v", c.topo, ch.Name, id, err)
			}
			if ch.Switch >= 0 && ChannelID(f, ch.Switch, ch.Port) != i {
				t.Fatalf("%s: ChannelID(%d, %d) != %d", c.topo, ch.Switch, ch.Port, i)
			}
		}
		for _, w := range c.want {
			if !seen[w] {
				t.Errorf("%s: no channel %s", c.topo, w)
			}
		}
	}
	t4, _ := NewTopology([]int{4, 4})
	_, err := NewChannelIndex(t4).Parse("n5.d1.dwn")
	if err == nil || !strings.Contains(err.Error(), "did you mean n5.d1.down") {
		t.Errorf("Parse typo: %v", err)
	}
	if _, err := NewChannelIndex(t4).Parse("N5.D1.UP"); err == nil || !strings.Contains(err.Error(), "did you mean n5.d1.up") {
		t.Errorf("Parse case: %v", err)
	}
	// Two edits away is still near (up to 2, or a quarter of the name).
	if _, err := NewChannelIndex(t4).Parse("n5.d1.dn"); err == nil || !strings.Contains(err.Error(), "n5.d1.down") {
		t.Errorf("Parse two edits: %v", err)
	}
}

// TestChannelJSON: an injection channel is driven by a node, not a switch
// output: its JSON says the node, with switch and port null (not switch
// -1 and the node in port); the others name their switch and port.
func TestChannelJSON(t *testing.T) {
	for _, c := range []struct {
		ch   Channel
		want string
	}{
		{Channel{ID: 80, Name: "n3.inject", Kind: ChanInject, Switch: -1, Port: 3, To: "switch 3 port 0"},
			`{"id":80,"name":"n3.inject","kind":"injection","switch":null,"port":null,"node":3,"to":"switch 3 port 0"}`},
		{Channel{ID: 1, Name: "n0.d0.up", Kind: ChanNetwork, Switch: 0, Port: 1, To: "switch 16 port 0"},
			`{"id":1,"name":"n0.d0.up","kind":"network","switch":0,"port":1,"to":"switch 16 port 0"}`},
	} {
		b, err := json.Marshal(c.ch)
		if err != nil || string(b) != c.want {
			t.Errorf("%s: %s (%v), want %s", c.ch.Name, b, err, c.want)
		}
	}
}
