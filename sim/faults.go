package sim

import (
	"fmt"
	"math"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// Never is the arrival cycle of a rank with a stuck fault: it never comes.
const Never = math.MaxInt64

// FaultResult is one injected fault and what it hit (Result.Faults).
type FaultResult struct {
	Spec string `json:"spec"`
	// Hits is the number of flits the fault acted on (a stuck rank: 0);
	// First the cycle of the first, -1 when it hit none (JSON: null).
	Hits  int   `json:"hits"`
	First int64 `json:"first"`
	// Effect says in one line what the fault did: the packet it hit,
	// where a flipped head went, and how it was detected or recovered
	// (the table's text; faulteffect.go).
	Effect string `json:"effect"`
	// Packet is the packet a flip, drop or dead fault first hit (nil:
	// none, or not a flit fault); Misrouted a flipped head's destination
	// before and after (nil: not misrouted).
	Packet    *FaultPacket `json:"packet"`
	Misrouted *Misroute    `json:"misrouted"`
	// DetectedBy is the unit error that reported the fault (nil: none
	// names its packet or rank).
	DetectedBy *ErrorResult `json:"detected_by"`
	// Replays and ReplayCycles: with link-level retry, the resends the
	// fault caused and the cycles they delayed its flit (nil without
	// retry, or for a kind retry does not resend).
	Replays      *int   `json:"replays"`
	ReplayCycles *int64 `json:"replay_cycles"`
	// The flit the first hit acted on, as sent and as it went on.
	sent, got hw.Flit
}

// armFaults resolves the system's fault specs on the network and arms them
// (docs/reliability.md). A channel name the network does not have is an
// error on that entry of faults, with the nearest names.
func (s *System) armFaults() error {
	if len(s.Sys.Faults) == 0 {
		return nil
	}
	idx := noc.NewChannelIndex(s.Fabric)
	var links []noc.LinkFault
	for i, f := range s.Sys.ParsedFaults() {
		if f.Kind == hw.FaultStuck {
			s.stuckRanks = append(s.stuckRanks, f.Rank)
			if s.virtOf != nil { // a stuck process arrives in none of its communicators
				for _, v := range s.virtOf[f.Rank] {
					s.Units.Arrive[v] = Never
				}
				continue
			}
			s.Units.Arrive[f.Rank] = Never
			continue
		}
		id, err := idx.Parse(f.Channel)
		if err != nil {
			return &hw.FieldError{Field: fmt.Sprintf("faults[%d]", i), Value: fmt.Sprintf("%q", s.Sys.Faults[i]), Allowed: noc.ChannelHint(err)}
		}
		lf := noc.LinkFault{Channel: id, Cycle: f.Cycle, Bit: f.Bit, AtFirst: f.First}
		switch f.Kind {
		case hw.FaultFlip:
			lf.Kind = noc.LinkFlip
		case hw.FaultDrop:
			lf.Kind = noc.LinkDrop
		case hw.FaultDead:
			lf.Kind = noc.LinkDead
		case hw.FaultAckFlip:
			lf.Kind = noc.LinkAckFlip
		case hw.FaultCreditDrop:
			lf.Kind = noc.LinkCreditDrop
		}
		links = append(links, lf)
		s.linkSpecs = append(s.linkSpecs, f.String())
	}
	s.Units.Detect = true
	if s.Sys.CRCBits != 0 {
		s.Units.Check = s.checkCode()
		s.Net.KeepCodes()
	}
	if len(links) == 0 {
		return nil
	}
	if s.Sys.LinkRetry > 0 {
		s.Net.SetRetry()
	}
	s.Net.SetCutTail(s.Sys.Wire().CutTail)
	return s.Net.SetFaults(links, s.flipper())
}

// flipper returns the function that inverts one bit of a flit in the wire
// format of the system (hw.Wire: data, check code, tail, head; docs/
// reliability.md, "Bits of a flit"). A flip never loses the flit: a head
// whose address it makes name no node (hw.NoNode) is dropped by the next
// switch (docs/microarchitecture.md, "Illegal flits").
func (s *System) flipper() func(fl *hw.Flit, bit int) bool {
	w := s.Sys.Wire()
	return func(fl *hw.Flit, bit int) bool {
		w.Flip(fl, bit)
		return true
	}
}

// SwitchDrops is one switch's illegal-flit counts (Result.Dropped):
// switch numbers as noc numbers them (hyper-crossbar: the exchanger of
// node v is switch v, the crossbars follow; the number hx_top's fabric
// port selects), the counts exact (the DROPS register saturates each at
// 255).
type SwitchDrops struct {
	Switch int `json:"switch"`
	noc.DropCounts
}

// dropResults lists the switches that met illegal flits.
func (s *System) dropResults() []SwitchDrops {
	var out []SwitchDrops
	for sw := range s.Fabric.NumSwitches() {
		if d := s.Net.Drops(sw); d.Any() {
			out = append(out, SwitchDrops{Switch: sw, DropCounts: d})
		}
	}
	return out
}

// faultResults reports the armed faults and what they hit.
func (s *System) faultResults() []FaultResult {
	var out []FaultResult
	for i, f := range s.Net.LinkFaults() {
		r := FaultResult{Spec: s.linkSpecs[i], Hits: f.Hits, First: f.First}
		faultDetail(&r, f, s.Sys.LinkRetry > 0)
		if r.Packet != nil { // communicators: the sender's run rank, as errors and traces name it
			if src, ok := s.headSrc(f.Packet); ok {
				r.Packet.Src = src
			}
		}
		out = append(out, r)
	}
	for _, r := range s.stuckRanks {
		out = append(out, FaultResult{Spec: fmt.Sprintf("stuck:%d", r), First: -1})
	}
	return out
}

// armAvoid routes the network around the design's avoided channels
// (design.Design.Avoid).
func (s *System) armAvoid() error {
	if s.Avoid == nil {
		return nil
	}
	return s.Net.SetAvoid(s.Avoid)
}

// checkCode is the units' check code for this system: the packed address
// of every node (coordinates of sys.Dims, CoordBits each).
func (s *System) checkCode() *barrierunit.CheckCode {
	sys := &s.Sys
	cb := sys.CoordBits()
	addr := make([]uint64, sys.Nodes())
	for v := range addr {
		x, shift := v, 0
		for k, d := range sys.Dims {
			addr[v] |= uint64(x%d) << shift
			x /= d
			shift += cb[k]
		}
	}
	return barrierunit.NewCheckCode(addr, sys.AddrBits(), sys.RankBits(), sys.FlitWidth)
}

// ResolvedFaults is, after Run, the system's fault specs with each @first
// fault aimed at the cycle of its first hit (the spec that does the same
// in a run of this system); an @first fault that hit nothing is left out,
// since it did nothing. The RTL testbench injects faults by cycle
// (testbench.Resolved).
func (s *System) ResolvedFaults() []string {
	links := s.Net.LinkFaults()
	out := make([]string, 0, len(s.Sys.Faults))
	k := 0
	for _, f := range s.Sys.ParsedFaults() {
		if f.Kind == hw.FaultStuck {
			out = append(out, f.String())
			continue
		}
		lf := links[k]
		k++
		switch {
		case !f.First:
			out = append(out, f.String())
		case !lf.AtFirst:
			out = append(out, f.At(lf.Cycle).String())
		}
	}
	return out
}
