package testbench

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/verilog"
)

// A run of communicators (docs/microarchitecture.md, "Channels and
// communicators"; docs/cosim.md, "Channels") is co-simulated with a rank
// slot per node and channel: slot s = n*K + c drives channel c of node n
// (arrive, operand, released, result), scenario.hex has a word per slot,
// and the monitor reports each slot's events with the run's ranks (the
// communicator's base plus the rank the channel's registers hold), node
// by node, kind by kind, channel by channel; a node's own NORANK (a head
// for a channel without a rank) after its channels' errors. expected.hex
// holds the model's events in that order.

// chanOf is the channel of node n that event e belongs to (K: the node's
// own error register), from the run's ranks in e.
func chanOf(p *verilog.Channels, comm []int, e barrierunit.Event) int {
	n := int(e.Node)
	if n < 0 || n >= len(p.Slots) {
		return 0
	}
	if e.Kind == barrierunit.EvError && e.Value == uint64(barrierunit.ErrNoRank) {
		return p.K
	}
	v := int(e.Rank)
	if v < 0 || v >= len(comm) {
		return 0
	}
	for c, sl := range p.Slots[n] {
		if sl.Comm == comm[v] {
			return c
		}
	}
	return 0
}

// commOfRank maps every merged rank of the run to its communicator.
func commOfRank(p *verilog.Channels) []int {
	var out []int
	for k := range p.Comms {
		for range p.Comms[k].Ranks {
			out = append(out, k)
		}
	}
	return out
}

func cmpInt[T int64 | int32 | uint8](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// channelWrites is the configuration program of a run of communicators:
// each node's channels (verilog.Channels.Program), its exchanger's
// routing table and exceptions on its port, the crossbars' on the fabric
// port; one episode.
func channelWrites(s *design.Design, p *verilog.Channels) ([]cfgWrite, error) {
	var out []cfgWrite
	tabs := s.Topo.Tables()
	exc := verilog.Exceptions(s)
	for n := range s.Topo.Nodes {
		prog, err := p.Program(n)
		if err != nil {
			return nil, err
		}
		prog = append(prog, regmap.ExchangerProgram(tabs[n])...)
		if exc != nil {
			prog = append(prog, regmap.ExceptionProgram(regmap.NodeExchanger, exc[n])...)
		}
		for _, w := range prog {
			out = append(out, cfgWrite{Episode: 1, Port: n, Addr: w.Addr, Data: w.Data})
		}
	}
	return append(out, fabricWrites(s, tabs, exc)...), nil
}

// channelScenario builds scenario.hex for a run of communicators: group g
// (iteration g+1) slot n*K+c: the arrival of the rank channel c of node n
// hosts (iteration 1: its cycle; later: compute + jitter after its
// release is seen; no word past its communicator's iterations, or for a
// stuck rank).
func channelScenario(s *design.Design, p *verilog.Channels) ([]byte, int) {
	N, K := s.Topo.Nodes, p.K
	NS := N * K
	ni := 1
	for k := range p.Comms {
		ni = max(ni, p.Comms[k].Sys.IterationCount())
	}
	stuck := map[int]bool{}
	for _, f := range s.Sys.ParsedFaults() {
		if f.Kind == hw.FaultStuck {
			stuck[f.Rank] = true
		}
	}
	arr := make([][]hw.Arrival, len(p.Comms))
	for k := range p.Comms {
		arr[k] = p.Comms[k].Sys.Arrivals()
	}
	body := make([]word, ni*NS+1)
	notes := make([]string, ni*NS)
	for g := range ni {
		for n := range N {
			for c := range K {
				a := n*K + c
				sl := p.Slots[n][c]
				notes[g*NS+a] = fmt.Sprintf("iteration %d, node %d channel %d: no rank, never arrives", g+1, n, c)
				if sl.Comm < 0 {
					continue
				}
				cm := &p.Comms[sl.Comm]
				pay := p.Ops[sl.Comm].HasPayload()
				switch {
				case g == 0 && stuck[cm.Ranks[sl.Rank]]:
					notes[a] = fmt.Sprintf("iteration 1, node %d channel %d: rank %d of %s never arrives (fault stuck:%d)", n, c, sl.Rank, cm.Name, cm.Ranks[sl.Rank])
				case g == 0:
					x := arr[sl.Comm][sl.Rank]
					var opd uint64
					if pay {
						opd = x.Operand
					}
					body[a] = word{1<<63 | uint64(x.Cycle), opd}
					notes[a] = fmt.Sprintf("iteration 1, node %d channel %d: rank %d of %s arrives in cycle %d, operand %016x", n, c, sl.Rank, cm.Name, x.Cycle, opd)
				case g < cm.Sys.IterationCount():
					jit, opd := cm.Sys.IterationDraw(sl.Rank, g+1)
					if !pay {
						opd = 0
					}
					at := int64(cm.Sys.Compute) + jit
					body[g*NS+a] = word{1<<63 | uint64(at), opd}
					notes[g*NS+a] = fmt.Sprintf("iteration %d, node %d channel %d: rank %d of %s arrives %d cycles after its release is seen, operand %016x", g+1, n, c, sl.Rank, cm.Name, at, opd)
				default:
					notes[g*NS+a] = fmt.Sprintf("iteration %d, node %d channel %d: past the %d iterations of %s", g+1, n, c, cm.Sys.IterationCount(), cm.Name)
				}
			}
		}
	}
	body[ni*NS] = word{magic32(MagicEnd) << 32, uint64(ni)<<32 | uint64(NS)}
	var sum word
	for _, w := range body {
		sum = rotlXor(sum, w, 2)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s: the CPU side of the scenario for the testbench tb.v (docs/cosim.md)\n", ScenarioFile)
	fmt.Fprintf(&b, "// system: %s (communicators: a slot per node and channel, slot n*%d + c)\n", s.Sys.Title(), K)
	b.WriteString("// slot word: arrives[127] arrival_offset[126:64] operand[63:0]\n")
	hex := func(w word, comment string) {
		fmt.Fprintf(&b, "%016x%016x // %s\n", w[0], w[1], comment)
	}
	hex(word{magic32(MagicScenario)<<32 | ScenarioVersion, uint64(ni)<<32 | uint64(NS)},
		fmt.Sprintf("header: magic %s, version %d, %d iterations, %d slots (%d nodes x %d channels)", MagicScenario, ScenarioVersion, ni, NS, N, K))
	hex(sum, "checksum of the words below")
	for i, note := range notes {
		hex(body[i], note)
	}
	hex(body[ni*NS], fmt.Sprintf("end: %d iterations, %d slots", ni, NS))
	return b.Bytes(), ni
}

// channelCheckTrace is checkTrace for a run of communicators: every event
// on a node of the system, every rank of every communicator released
// once per iteration of its communicator (unless an error ends the run).
// It returns the run's cycle count.
func channelCheckTrace(s *design.Design, p *verilog.Channels, evs []barrierunit.Event) (int64, error) {
	comm := commOfRank(p)
	released := make([]int, len(comm))
	var last int64 = -1
	errs := false
	for i, e := range evs {
		if int(e.Node) >= s.Topo.Nodes {
			return 0, fmt.Errorf("event #%d %q: node %d out of range", i, FormatEvent(e), e.Node)
		}
		switch e.Kind {
		case barrierunit.EvError:
			errs = true
		case barrierunit.EvRelease:
			if int(e.Rank) >= len(comm) {
				return 0, fmt.Errorf("event #%d %q: rank out of range (the run has %d ranks)", i, FormatEvent(e), len(comm))
			}
			released[e.Rank]++
			last = e.Cycle
		}
	}
	if !errs {
		for v, n := range released {
			k := comm[v]
			if want := p.Comms[k].Sys.IterationCount(); n != want {
				return 0, fmt.Errorf("rank %d of communicator %s is released %d times of %d: the model's run did not complete, so there is nothing a testbench could pass",
					v-p.Bases[k], p.Comms[k].Name, n, want)
			}
		}
	}
	if n := len(evs); n > 0 && evs[n-1].Cycle > last {
		return evs[n-1].Cycle + 1, nil
	}
	return last + 1, nil
}

// slotBases is the body of tb.v's function sbase: the run's first rank of
// the communicator of every slot whose base is not 0.
func slotBases(p *verilog.Channels) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	for n := range p.Slots {
		for c, sl := range p.Slots[n] {
			if sl.Comm >= 0 && sl.Base != 0 {
				fmt.Fprintf(&b, "            %d: sbase = 32'd%d;\n", n*p.K+c, sl.Base)
			}
		}
	}
	return b.String()
}

// channelTrace is Trace for a run of communicators: the events of a
// node, cycle and kind in channel order, as the testbench's monitor
// prints them (the model lists them in its own order).
func channelTrace(s *sim.System) ([]byte, *sim.Result, error) {
	plan, err := verilog.ChannelPlan(Resolved(s))
	if err != nil {
		return nil, nil, err
	}
	type chEv struct {
		e  barrierunit.Event
		ch int
	}
	var evs []chEv
	comm := commOfRank(plan)
	_, res, err := runTrace(s, func(cyc []barrierunit.Event) {
		for _, e := range cyc {
			evs = append(evs, chEv{e, eventChannel(s, plan, comm, e)})
		}
	})
	if err != nil {
		return nil, nil, err
	}
	slices.SortStableFunc(evs, func(a, b chEv) int {
		switch {
		case a.e.Cycle != b.e.Cycle:
			return cmpInt(a.e.Cycle, b.e.Cycle)
		case a.e.Node != b.e.Node:
			return cmpInt(a.e.Node, b.e.Node)
		case a.e.Kind != b.e.Kind:
			return cmpInt(a.e.Kind, b.e.Kind)
		}
		return a.ch - b.ch
	})
	var out []byte
	for _, x := range evs {
		out = sim.AppendEvent(out, x.e)
	}
	return out, res, nil
}

// eventChannel is the channel of its node a model event is of: the
// channel of the rank it is about (sim.System.EventRank); for an error,
// the channel of the communicator its source is in, and K for NORANK (the
// node's own register).
func eventChannel(s *sim.System, p *verilog.Channels, comm []int, e barrierunit.Event) int {
	if e.Kind != barrierunit.EvError {
		if v := s.EventRank(e); v >= 0 {
			e.Rank = v
		}
	}
	return chanOf(p, comm, e)
}
