package noc

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hxbar/hxbar/hw"
)

// Channel is one channel of a network: the output that drives it and its
// shell-friendly name (docs/reliability.md, "Channel names").
//
// ID numbers the channels as the cycle model's outputs: the switch outputs
// in (switch, port) order, then one injection channel per node. So a
// network channel, an ejection channel (a switch output into a node's
// endpoint) and an injection channel (a node's endpoint into its attach
// switch) each have one id.
type Channel struct {
	ID     int    `json:"id"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`   // ChanNetwork, ChanInject or ChanEject
	Switch int    `json:"switch"` // the driving switch; -1 for an injection channel
	Port   int    `json:"port"`   // its output port; the node for an injection channel
	// To is what the channel feeds: "switch S port P" or "node N".
	To string `json:"to"`
}

// MarshalJSON writes an injection channel, driven by a node rather than a
// switch output, with switch and port null and its node; the others with
// their switch and port: no -1 for "no switch" in the JSON.
func (c Channel) MarshalJSON() ([]byte, error) {
	v := struct {
		ID     int    `json:"id"`
		Name   string `json:"name"`
		Kind   string `json:"kind"`
		Switch *int   `json:"switch"`
		Port   *int   `json:"port"`
		Node   *int   `json:"node,omitempty"`
		To     string `json:"to"`
	}{ID: c.ID, Name: c.Name, Kind: c.Kind, To: c.To}
	if c.Switch < 0 {
		v.Node = &c.Port
	} else {
		v.Switch, v.Port = &c.Switch, &c.Port
	}
	return json.Marshal(v)
}

// Channel kinds.
const (
	ChanNetwork = "network"   // switch to switch
	ChanInject  = "injection" // a node's endpoint into its attach switch
	ChanEject   = "ejection"  // a switch into a node's endpoint
	// ChanNone is an output wired to nothing: a torus router's port off
	// the end of a mesh line. It keeps its id (the model's outputs count
	// it) and carries nothing, so no fault or avoid can name it.
	ChanNone = "unconnected"
)

// NumChannels is the number of channels (switch outputs, then one injection
// channel per node).
func NumChannels(f Fabric) int {
	n := f.NumNodes()
	for s := 0; s < f.NumSwitches(); s++ {
		n += f.Ports(s)
	}
	return n
}

// Channels lists every channel of f in id order.
func Channels(f Fabric) []Channel {
	out := make([]Channel, 0, NumChannels(f))
	_ = EachChannel(f, func(c Channel) error { out = append(out, c); return nil })
	return out
}

// EachChannel calls fn on every channel of f in id order, stopping at its
// first error: a list of 2^21 nodes' channels (tens of millions) written
// without holding it in memory.
func EachChannel(f Fabric, fn func(Channel) error) error {
	id := 0
	for s := 0; s < f.NumSwitches(); s++ {
		for p := 0; p < f.Ports(s); p++ {
			c := Channel{ID: id, Name: ChannelName(f, s, p), Switch: s, Port: p, Kind: ChanNetwork}
			ns, np := f.Neighbor(s, p)
			switch {
			case ns < 0 && np < 0:
				c.Kind, c.To = ChanNone, "nothing (the end of a mesh line)"
			case ns < 0:
				c.Kind, c.To = ChanEject, "node "+strconv.Itoa(np)
			default:
				c.To = fmt.Sprintf("switch %d port %d", ns, np)
			}
			if err := fn(c); err != nil {
				return err
			}
			id++
		}
	}
	for v := 0; v < f.NumNodes(); v++ {
		s, p := f.Attach(v)
		if err := fn(Channel{ID: id, Name: fmt.Sprintf("n%d.inject", v), Kind: ChanInject,
			Switch: -1, Port: v, To: fmt.Sprintf("switch %d port %d", s, p)}); err != nil {
			return err
		}
		id++
	}
	return nil
}

// ChannelName names output p of switch sw (docs/reliability.md):
//
//   - every fabric: n<v>.eject, the switch output into node v's endpoint
//     (and n<v>.inject, the endpoint into its switch: InjectName);
//   - hyperxbar: n<v>.d<k>.up, exchanger v's dimension-k port toward its
//     crossbar; n<v>.d<k>.down, that crossbar's port back to exchanger v;
//   - torus: n<x>.d<k>+.vc<c> and n<x>.d<k>-.vc<c>, router x's output in
//     dimension k, + or - direction, virtual channel c;
//   - fattree: l<l>.w<w>.up<j> and l<l>.w<w>.down<i>, up port k+j and down
//     port i of the switch at level l, index w.
func ChannelName(f Fabric, sw, p int) string {
	ns, np := f.Neighbor(sw, p)
	if ns < 0 && np >= 0 {
		return fmt.Sprintf("n%d.eject", np)
	}
	switch t := f.(type) {
	case *Topology:
		if t.IsCrossbar(sw) {
			return fmt.Sprintf("n%d.d%d.down", ns, t.XbarDim(sw))
		}
		return fmt.Sprintf("n%d.d%d.up", sw, p-1)
	case *Torus:
		k, r := (p-1)/4, (p-1)%4
		sign := "+"
		if r >= 2 {
			sign = "-"
		}
		return fmt.Sprintf("n%d.d%d%s.vc%d", sw, k, sign, r%2)
	case *FatTree:
		l, w := t.Level(sw), t.Index(sw)
		if p >= t.K {
			return fmt.Sprintf("l%d.w%d.up%d", l, w, p-t.K)
		}
		return fmt.Sprintf("l%d.w%d.down%d", l, w, p)
	}
	return fmt.Sprintf("s%d.p%d", sw, p)
}

// ChannelID is the id of output p of switch sw (Channel.ID).
func ChannelID(f Fabric, sw, p int) int {
	id := p
	for s := 0; s < sw; s++ {
		id += f.Ports(s)
	}
	return id
}

// ChannelIndex resolves channel names to ids for one fabric.
type ChannelIndex struct {
	f     Fabric
	ids   map[string]int
	names []string        // by id
	none  map[string]bool // the names of outputs wired to nothing (ChanNone)
}

// NewChannelIndex builds the name index of f's channels.
func NewChannelIndex(f Fabric) *ChannelIndex {
	chs := Channels(f)
	x := &ChannelIndex{f: f, ids: make(map[string]int, len(chs)), names: make([]string, len(chs)), none: map[string]bool{}}
	for _, c := range chs {
		x.names[c.ID] = c.Name
		if c.Kind == ChanNone {
			x.none[c.Name] = true
		} else {
			x.ids[c.Name] = c.ID
		}
	}
	return x
}

// Name is the name of channel id.
func (x *ChannelIndex) Name(id int) string { return x.names[id] }

// Len is the number of channels.
func (x *ChannelIndex) Len() int { return len(x.names) }

// Parse resolves a channel name to its id. An unknown name is an error
// that says what the names look like on this fabric and suggests the
// nearest names ("did you mean ...").
func (x *ChannelIndex) Parse(name string) (int, error) {
	if id, ok := x.ids[name]; ok {
		return id, nil
	}
	if x.none[name] {
		return -1, &ChannelError{Name: name, Unwired: true, Allowed: fmt.Sprintf("a channel of this %s, e.g. %s (hxbar check --channels lists them)", x.f.Name(), x.example())}
	}
	type cand struct {
		name string
		d    int
	}
	var best []cand
	low := strings.ToLower(strings.TrimSpace(name))
	if id, ok := x.ids[low]; ok {
		best = append(best, cand{x.names[id], 0})
	} else {
		for _, n := range x.names {
			if x.none[n] {
				continue
			}
			if d := hw.EditDistance(low, n); d <= max(2, len(n)/4) {
				best = append(best, cand{n, d})
			}
		}
		sort.SliceStable(best, func(i, j int) bool { return best[i].d < best[j].d })
	}
	if len(best) > 3 {
		best = best[:3]
	}
	e := &ChannelError{Name: name, Allowed: fmt.Sprintf("a channel of this %s, e.g. %s (hxbar check --channels lists them)", x.f.Name(), x.example())}
	for _, c := range best {
		e.Suggest = append(e.Suggest, c.name)
	}
	return -1, e
}

// ChannelError is an unknown channel name: what the names look like and
// the nearest ones.
type ChannelError struct {
	Name    string
	Allowed string
	Suggest []string
	Unwired bool // Name is an output wired to nothing (ChanNone)
}

// Hint is the allowed names with the suggestions ("...; did you mean a, b?").
func (e *ChannelError) Hint() string {
	h := e.Allowed
	if e.Unwired {
		h = e.Name + " leaves the end of a mesh line, wired to nothing; " + h
	}
	if len(e.Suggest) == 0 {
		return h
	}
	return h + "; did you mean " + strings.Join(e.Suggest, ", ") + "?"
}

// ChannelHint is what an error naming a channel allows: a
// *ChannelError's Hint, else the error's text.
func ChannelHint(err error) string {
	if ce, ok := errors.AsType[*ChannelError](err); ok {
		return ce.Hint()
	}
	return err.Error()
}

func (e *ChannelError) Error() string {
	if e.Unwired {
		return fmt.Sprintf("channel %q is wired to nothing (allowed: %s)", e.Name, e.Hint())
	}
	return fmt.Sprintf("unknown channel %q (allowed: %s)", e.Name, e.Hint())
}

// example gives two names of this fabric's network channels.
func (x *ChannelIndex) example() string {
	var ex []string
	for _, c := range Channels(x.f) {
		if c.Kind == ChanNetwork {
			ex = append(ex, c.Name)
			if len(ex) == 2 {
				break
			}
		}
	}
	ex = append(ex, "n0.inject", "n0.eject")
	return strings.Join(ex, ", ")
}
