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
	// First the cycle of the first, -1 when it hit none.
	Hits  int   `json:"hits"`
	First int64 `json:"first"`
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
			s.Units.Arrive[f.Rank] = Never
			continue
		}
		id, err := idx.Parse(f.Channel)
		if err != nil {
			return &hw.FieldError{Field: fmt.Sprintf("faults[%d]", i), Value: fmt.Sprintf("%q", s.Sys.Faults[i]), Allowed: noc.ChannelHint(err)}
		}
		lf := noc.LinkFault{Channel: id, Cycle: f.Cycle, Bit: f.Bit}
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
	if s.Sys.CRCBits == 8 {
		s.Units.Check = s.checkCode()
	}
	if len(links) == 0 {
		return nil
	}
	if s.Sys.LinkRetry > 0 {
		s.Net.SetRetry()
	}
	return s.Net.SetFaults(links, s.flipper())
}

// flipper returns the function that inverts one bit of a flit in the wire
// format of docs/microarchitecture.md ("Packets and flits"): a head flit's
// data is dst_addr (AddrBits), src_rank (RankBits), gate (6 bits), then
// zeros (kept in the head's Data); a payload flit's data is its chunk;
// bits flit_width.. are the tail's check code. A flipped address whose
// coordinate names no node (a dimension size that is not a power of two)
// loses the flit; a flipped bit above bit 63 of a chunk changes nothing
// the model keeps (docs/reliability.md).
func (s *System) flipper() func(fl *hw.Flit, bit int) bool {
	sys := &s.Sys
	cb := sys.CoordBits()
	ab, rb := sys.AddrBits(), sys.RankBits()
	dims := sys.Dims
	fw, hdr := sys.FlitWidth, sys.HeaderBits()
	return func(fl *hw.Flit, bit int) bool {
		if bit >= fw { // the sideband: the tail's check code
			if fl.Tail() {
				fl.CRC ^= 1 << uint(bit-fw)
			}
			return true
		}
		if !fl.Head() {
			if bit < 64 {
				fl.Data ^= 1 << uint(bit)
			}
			return true
		}
		switch {
		case bit < ab:
			// Unpack the destination node's coordinates, flip, repack.
			var c [hw.MaxDims]int
			v := int(fl.Dst)
			for k, d := range dims {
				c[k] = v % d
				v /= d
			}
			k, b := 0, bit
			for b >= cb[k] {
				b -= cb[k]
				k++
			}
			c[k] ^= 1 << uint(b)
			if c[k] >= dims[k] {
				return false
			}
			node, stride := 0, 1
			var addr uint64
			for k, d := range dims {
				node += c[k] * stride
				stride *= d
				addr |= uint64(c[k]) << (hw.CoordField * k)
			}
			fl.Dst = int32(node)
			fl.SetDstAddr(addr)
		case bit < ab+rb:
			fl.Src ^= 1 << uint(bit-ab)
		case bit < hdr:
			fl.Gate ^= 1 << uint(bit-ab-rb)
		case bit-hdr < 64:
			// Above the header: 0 when sent, ignored by the receiver; the
			// model keeps them in the head flit's unused Data.
			fl.Data ^= 1 << uint(bit-hdr)
		}
		return true
	}
}

// faultResults reports the armed faults and what they hit.
func (s *System) faultResults() []FaultResult {
	var out []FaultResult
	for i, f := range s.Net.LinkFaults() {
		out = append(out, FaultResult{Spec: s.linkSpecs[i], Hits: f.Hits, First: f.First})
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
