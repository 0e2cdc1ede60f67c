package noc

import (
	"encoding/json"
	"fmt"
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

// TestMeshLineEnds: a torus router's port off the end of a mesh line is
// wired to nothing: it keeps its id and a name of its own (not an
// ejection to node -1), Parse refuses it saying why, and every other
// channel's name is unique and parses to its id.
func TestMeshLineEnds(t *testing.T) {
	f, err := NewTorusWrap([]int{3, 2, 2}, []bool{true, false, false})
	if err != nil {
		t.Fatal(err)
	}
	x := NewChannelIndex(f)
	seen, none := map[string]bool{}, 0
	for _, ch := range Channels(f) {
		if seen[ch.Name] || strings.Contains(ch.Name, "-1") {
			t.Fatalf("channel %+v: duplicate or names node -1", ch)
		}
		seen[ch.Name] = true
		ns, np := f.Neighbor(ch.Switch, ch.Port)
		if unwired := ch.Switch >= 0 && ns < 0 && np < 0; unwired != (ch.Kind == ChanNone) {
			t.Fatalf("channel %+v: kind %s, neighbour %d port %d", ch, ch.Kind, ns, np)
		}
		id, err := x.Parse(ch.Name)
		if ch.Kind != ChanNone {
			if err != nil || id != ch.ID {
				t.Fatalf("Parse(%s) = %d, %v", ch.Name, id, err)
			}
			continue
		}
		none++
		if !strings.HasPrefix(ch.Name, fmt.Sprintf("n%d.d", ch.Switch)) || ch.To != "nothing (the end of a mesh line)" {
			t.Errorf("unwired channel %+v", ch)
		}
		if err == nil || !strings.Contains(ChannelHint(err), ch.Name+" leaves the end of a mesh line, wired to nothing") {
			t.Errorf("Parse(%s) = %d, %v: want a refusal saying it is wired to nothing", ch.Name, id, err)
		}
	}
	// Each of the 12 routers has 2 of its 4 ports unwired in each of the
	// two mesh lines of 2 (the - pair at coordinate 0, the + pair at 1).
	if none != 12*2*2 {
		t.Errorf("%d unwired channels, want %d", none, 12*2*2)
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
