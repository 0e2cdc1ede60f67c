package verilog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
)

// A run of communicators (docs/microarchitecture.md, "Channels and
// communicators") is built of hx_barrier_node instances: node n's channel
// c is a whole unit with its own tables, those of the communicator that
// uses the channel there. The model keeps the communicators' ranks side by
// side (barrierunit.MergeTables); the RTL's RANK register and the head's
// src_rank hold the rank within the communicator, the route words the
// destination's channel too.

// Slot is what a node's channel hosts: rank Rank of communicator Comm
// (Comm -1: nothing), Base that communicator's first rank among the run's
// merged ranks (so the run's rank is Base + Rank).
type Slot struct {
	Comm, Rank, Base int
}

// Channels is the channel plan of a run of communicators.
type Channels struct {
	K     int       // channels per node (hx_barrier_node NCH)
	CHB   int       // the head's channel bits (0 with one channel)
	Comms []hw.Comm // the run's communicators, splits expanded
	Tabs  []*barrierunit.FlatTable
	Ops   []barrierunit.Op
	Bases []int             // communicator k's first merged rank
	Slots [][]Slot          // [node][channel]
	Addr  []regmap.RankAddr // communicator k: local rank -> its node's address
	wd    uint32            // the WATCHDOG value
}

// UsesChannels reports whether d's RTL is built of hx_barrier_node
// instances: a run of communicators.
func UsesChannels(d *design.Design) bool {
	return d != nil && d.Sys.HasCommunicators()
}

// ChannelPlan works out which communicator rank every node's channel
// hosts, and each communicator's tables, as the model's buildComms does.
func ChannelPlan(d *design.Design) (*Channels, error) {
	sys := &d.Sys
	cs, err := sys.Comms()
	if err != nil {
		return nil, err
	}
	p := &Channels{K: sys.ChannelCount(), Comms: cs, wd: d.WatchdogReg()}
	if p.K > 1 {
		p.CHB = hw.Bits(p.K)
	}
	p.Slots = make([][]Slot, d.Topo.Nodes)
	for n := range p.Slots {
		p.Slots[n] = make([]Slot, p.K)
		for c := range p.Slots[n] {
			p.Slots[n][c] = Slot{Comm: -1, Rank: -1}
		}
	}
	base := 0
	for k := range cs {
		c := &cs[k]
		op, err := barrierunit.ParseOp(string(c.Sys.Op))
		if err != nil {
			return nil, err
		}
		sched, err := barrierunit.Cached(c.Sys.Algo, len(c.Ranks))
		if err != nil {
			return nil, fmt.Errorf("communicator %s: %w", c.Name, err)
		}
		tab, err := barrierunit.Flatten(sched)
		if err != nil {
			return nil, fmt.Errorf("communicator %s: %w", c.Name, err)
		}
		addr := make(regmap.RankAddr, len(c.Ranks))
		for j, r := range c.Ranks {
			n := sys.RankNode(r)
			addr[j] = uint64(d.Topo.Addr(n))
			if ch := c.Channel[j]; ch >= 0 && ch < p.K {
				p.Slots[n][ch] = Slot{Comm: k, Rank: j, Base: base}
			}
		}
		p.Tabs, p.Ops, p.Addr, p.Bases = append(p.Tabs, tab), append(p.Ops, op), append(p.Addr, addr), append(p.Bases, base)
		base += len(c.Ranks)
	}
	return p, nil
}

// Image is the configuration of node n's channel c (regmap.NodeImage of
// its communicator's tables, the route words with the destination's
// channel in bits 63..56); an empty image for a channel without a rank.
func (p *Channels) Image(n, c int) (*regmap.Image, error) {
	sl := p.Slots[n][c]
	if sl.Comm < 0 {
		return &regmap.Image{}, nil
	}
	im, err := regmap.NodeImage(&regmap.Tables{Tab: p.Tabs[sl.Comm], Op: p.Ops[sl.Comm], Addr: p.Addr[sl.Comm], Watchdog: p.wd}, sl.Rank)
	if err != nil {
		return nil, fmt.Errorf("communicator %s: %w", p.Comms[sl.Comm].Name, err)
	}
	ch := p.Comms[sl.Comm].Channel
	for i, w := range im.Routes {
		dst := int(w >> regmap.RouteRankShift)
		im.Routes[i] = w | uint64(ch[dst])<<RouteChanShift
	}
	return im, nil
}

// RouteChanShift is where a route word holds the destination's channel
// (bits 63..56, docs/registers.md "Channels"); the rank is below it.
const RouteChanShift = 56

// ChanSelShift is where an APB address selects a node's channel
// (paddr[26:24], docs/registers.md "Channels").
const ChanSelShift = 24

// Program is node n's configuration program: each channel's regmap.Full
// program in channel order, its addresses with the channel selected.
func (p *Channels) Program(n int) (regmap.Program, error) {
	var out regmap.Program
	for c := range p.K {
		if p.Slots[n][c].Comm < 0 {
			continue
		}
		im, err := p.Image(n, c)
		if err != nil {
			return nil, fmt.Errorf("node %d channel %d: %w", n, c, err)
		}
		for _, w := range regmap.Full(im) {
			out = append(out, regmap.Write{Addr: w.Addr | uint32(c)<<ChanSelShift, Data: w.Data})
		}
	}
	return out, nil
}

// gateBody is node n's channel c's gate table file body (as gateBody of a
// single unit; the single word 0 without a rank).
func (p *Channels) gateBody(n, c int) ([]uint64, error) {
	im, err := p.Image(n, c)
	if err != nil || !im.EN {
		return []uint64{0}, err
	}
	body := make([]uint64, 0, 1+len(im.Gates)+len(im.Routes))
	body = append(body, 1<<gtValid|uint64(im.G)<<gtGatesPos|uint64(im.Rank))
	body = append(body, im.Gates[1:]...)
	return append(body, im.Routes...), nil
}

// Looping reports whether some communicator runs a loop (the channels get
// two receive banks).
func (p *Channels) Looping() bool {
	for k := range p.Comms {
		if p.Comms[k].Sys.Looping() {
			return true
		}
	}
	return false
}

// ChannelGateTableFile is the gate table file of node's channel c (channel
// 0's is GateTableFile).
func ChannelGateTableFile(node, c int) string {
	if c == 0 {
		return GateTableFile(node)
	}
	return "gt_n" + strconv.Itoa(node) + "_c" + strconv.Itoa(c) + ".hex"
}

// checkChannels checks what the RTL of a run of communicators needs: one
// episode, barrier collectives, and a flit that holds the head's channel.
func checkChannels(d *design.Design) error {
	sys := &d.Sys
	if d.NumEpisodes() > 1 { // hw refuses it too: each communicator loops on its own
		return fieldErr("repeat", d.NumEpisodes(), "one episode with communicators in the RTL")
	}
	cs, err := sys.Comms()
	if err != nil {
		return err
	}
	for k := range cs {
		if cs[k].Sys.IsData() {
			return fieldErr("communicators["+strconv.Itoa(cs[k].Entry)+"].collective", strconv.Quote(string(cs[k].Sys.Collective)),
				"barrier in the RTL (a channel has no data engine)")
		}
	}
	K := sys.ChannelCount()
	if K > 8 {
		return fieldErr("channels", K, "1..8")
	}
	chb := 0
	if K > 1 {
		chb = hw.Bits(K)
	}
	if sys.RankBits() > 24 {
		return fieldErr("ranks", sys.NumRanks(), "at most 2^24 ranks with communicators (the route word's rank field is bits 55..32)")
	}
	if need := sys.AddrBits() + sys.RankBits() + 7 + chb; sys.FlitWidth < need {
		return fieldErr("flit_width", sys.FlitWidth, fmt.Sprintf("at least %d with %d channels (the head: address %d, rank %d, gate 6, iteration 1, channel %d bits)",
			need, K, sys.AddrBits(), sys.RankBits(), chb))
	}
	return nil
}

// channelTables returns the channel plan of d and every node's channel
// gate table bodies ([node][channel]), and sizes caps for them.
func channelTables(d *design.Design, caps []unitCap) (*Channels, [][][]uint64, error) {
	plan, err := ChannelPlan(d)
	if err != nil {
		return nil, nil, err
	}
	out := make([][][]uint64, len(plan.Slots))
	for n := range plan.Slots {
		c := unitCap{rank: -1, maxG: 1, nrt: 1, nil_: 1}
		out[n] = make([][]uint64, plan.K)
		for ch := range plan.K {
			b, err := plan.gateBody(n, ch)
			if err != nil {
				return nil, nil, err
			}
			out[n][ch] = b
			if b[0]>>gtValid&1 != 0 {
				G := int(b[0] >> gtGatesPos & 63)
				c.maxG, c.nrt = max(c.maxG, G), max(c.nrt, len(b)-G-2)
				if c.rank < 0 {
					c.rank = plan.Slots[n][ch].Base + plan.Slots[n][ch].Rank
				}
			}
		}
		caps[n] = c
	}
	return plan, out, nil
}

// writeChannelTables writes node n's channel gate tables.
func writeChannelTables(s *design.Episode, plan *Channels, n int, bodies [][]uint64, hdr []string, write func(string, []byte)) error {
	for ch, body := range bodies {
		sl := plan.Slots[n][ch]
		title := fmt.Sprintf("gate table of node %d %s channel %d: no rank", n, coords(s.Topo, n), ch)
		notes := make([]string, len(body))
		notes[0] = "no rank"
		if sl.Comm >= 0 {
			G := int(body[0] >> gtGatesPos & 63)
			title = fmt.Sprintf("gate table of node %d %s channel %d: rank %d of communicator %s (%d ranks), G = %d",
				n, coords(s.Topo, n), ch, sl.Rank, plan.Comms[sl.Comm].Name, len(plan.Comms[sl.Comm].Ranks), G)
			notes[0] = fmt.Sprintf("valid, G=%d, rank=%d", G, sl.Rank)
			for g := 1; g <= G+1; g++ {
				w := body[g]
				notes[g] = fmt.Sprintf("gate %d: self=%d need=%d routes %d from %d", g, w>>gtSelf&1, w>>gtNeedPos&0xff, w>>gtCountPos&0xffff, w&0xffff)
			}
			for j := G + 2; j < len(body); j++ {
				w := body[j]
				notes[j] = fmt.Sprintf("route %d: to rank %d channel %d at address %#x", j-G-2, w>>gtRankShift&(1<<24-1), w>>RouteChanShift, w&0xffffffff)
			}
		}
		data, err := FormatTable(MagicGate, body, append(slices.Clone(hdr), title), notes)
		if err != nil {
			return err
		}
		write(ChannelGateTableFile(n, ch), data)
	}
	return nil
}

// describe says what node n's channels host, for hx_top's comments.
func (p *Channels) describe(n int) string {
	var parts []string
	for c, sl := range p.Slots[n] {
		what := "none"
		if sl.Comm >= 0 {
			what = fmt.Sprintf("rank %d of %s", sl.Rank, p.Comms[sl.Comm].Name)
		}
		parts = append(parts, fmt.Sprintf("channel %d %s", c, what))
	}
	return strings.Join(parts, ", ")
}
