package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// FaultPacket is the packet a fault's first hit acted on (FaultResult):
// its source rank, destination node and gate as its head was sent, and
// which of its flits was hit.
type FaultPacket struct {
	Src  int    `json:"src_rank"`
	Dst  int    `json:"dst_node"`
	Gate int    `json:"gate"`
	Flit string `json:"flit"` // head, payload, tail, or head+tail (a one-flit packet)
}

func (p FaultPacket) String() string {
	return fmt.Sprintf("rank %d -> node %d gate %d", p.Src, p.Dst, p.Gate)
}

// Misroute is a head whose destination a flip changed: the node it was
// sent to and the node it went to instead (To nil: the address names no
// node, and the next switch drops the packet).
type Misroute struct {
	From int  `json:"from_node"`
	To   *int `json:"to_node"`
}

// flitRole names which flit of its packet fl is.
func flitRole(fl hw.Flit) string {
	switch {
	case fl.Head() && fl.Tail():
		return "head+tail"
	case fl.Head():
		return "head"
	case fl.Tail():
		return "tail"
	}
	return "payload"
}

// faultDetail fills what the first hit of link fault f acted on.
func faultDetail(r *FaultResult, f noc.LinkFault, retry bool) {
	if retry && (f.Kind == noc.LinkFlip || f.Kind == noc.LinkDrop) {
		r.Replays, r.ReplayCycles = &f.Replays, &f.ReplayCycles
	}
	if f.Hits == 0 || f.Kind == noc.LinkAckFlip || f.Kind == noc.LinkCreditDrop {
		return
	}
	if f.Packet.Head() {
		r.Packet = &FaultPacket{Src: int(f.Packet.Src), Dst: int(f.Packet.Dst), Gate: int(f.Packet.Gate), Flit: flitRole(f.Sent)}
	}
	if f.Kind == noc.LinkFlip && !retry && f.Sent.Head() && f.Got.Head() && f.Got.Dst != f.Sent.Dst {
		m := &Misroute{From: int(f.Sent.Dst)}
		if f.Got.Dst != hw.NoNode {
			to := int(f.Got.Dst)
			m.To = &to
		}
		r.Misrouted = m
	}
	r.sent, r.got = f.Sent, f.Got
}

// explainFaults says, for each fault of res, what it did (Effect) and
// which unit error, if any, reported it (DetectedBy): the first error
// that names the hit packet's source and gate (as sent, or as a flipped
// head names them), or for a stuck rank the first that names the rank.
func (s *System) explainFaults(res *Result) {
	for i := range res.Faults {
		f := &res.Faults[i]
		f.DetectedBy = s.detectedBy(f, res.Errors)
		f.Effect = s.effect(f, res)
	}
}

// detectedBy is the first error of errs that reports fault f (nil: none).
// In a run of communicators the errors name run ranks: a stuck system
// rank is each of its run ranks, a head's source the run rank of its
// destination channel's communicator (headSrc).
func (s *System) detectedBy(f *FaultResult, errs []ErrorResult) *ErrorResult {
	type key struct{ from, gate int }
	var keys []key
	switch ft, err := hw.ParseFault(f.Spec); {
	case err == nil && ft.Kind == hw.FaultStuck && s.virtOf != nil:
		for _, v := range s.virtOf[ft.Rank] {
			keys = append(keys, key{int(v), -1})
		}
	case err == nil && ft.Kind == hw.FaultStuck:
		keys = append(keys, key{ft.Rank, -1})
	case f.Packet != nil:
		keys = append(keys, key{f.Packet.Src, f.Packet.Gate})
		if src, ok := s.headSrc(f.got); ok && f.got.Head() {
			keys = append(keys, key{src, int(f.got.Gate)})
		}
	}
	for i := range errs {
		e := &errs[i]
		if e.Gate == 0 || e.NoFrom {
			continue // From 0 names no rank (JSON from null), not rank 0
		}
		for _, k := range keys {
			if e.From == k.from && (k.gate < 0 || e.Gate == k.gate) {
				return e
			}
		}
	}
	return nil
}

// effect is the one line the table prints for fault f.
func (s *System) effect(f *FaultResult, res *Result) string {
	var b strings.Builder
	kind, _, _ := strings.Cut(f.Spec, ":")
	switch {
	case kind == hw.FaultStuck:
		fmt.Fprintf(&b, "rank %s never arrives", strings.TrimPrefix(f.Spec, "stuck:"))
	case f.Hits == 0 && kind == hw.FaultDead && slices.Contains(s.Sys.Avoid, channelOf(f.Spec)):
		return "carried no flit: the channel is avoided, the traffic routed around it"
	case f.Hits == 0 && kind == hw.FaultDead:
		return "hit nothing: no flit crossed the channel from its cycle on"
	case f.Hits == 0 && strings.Contains(f.Spec, "@"+hw.AtFirst):
		return "hit nothing: no " + unitName(kind) + " crossed the channel in the whole run"
	case f.Hits == 0:
		return "hit nothing: no " + unitName(kind) + " crossed the channel in its cycle (@first aims at the first that does)"
	case kind == hw.FaultAckFlip || kind == hw.FaultCreditDrop:
		fmt.Fprintf(&b, "cycle %d: damaged the %s", f.First, unitName(kind))
		if f.Hits > 1 {
			fmt.Fprintf(&b, " (and %d more)", f.Hits-1)
		}
		switch {
		case kind == hw.FaultCreditDrop && s.Sys.LinkRetry == 0:
			b.WriteString(": the credit is lost for good, the output runs with one credit fewer")
		case kind == hw.FaultCreditDrop:
			b.WriteString(": link-level retry ignores the damaged word, the next one carries the credit")
		default:
			b.WriteString(": link-level retry ignores the damaged word, the next ACK word repairs it")
		}
	default:
		b.WriteString(s.flitEffect(f, kind))
	}
	switch {
	case f.DetectedBy != nil:
		e := f.DetectedBy
		fmt.Fprintf(&b, "; detected by %s at node %d, cycle %d", e.Code, e.Node, e.Cycle)
	case f.Replays != nil && *f.Replays > 0:
		fmt.Fprintf(&b, "; caught by link-level retry: %s, the flit %d cycles later", plural(*f.Replays, "replay"), *f.ReplayCycles)
	case kind == hw.FaultAckFlip || kind == hw.FaultCreditDrop:
	case kind == hw.FaultStuck && len(res.Errors) > 0:
		b.WriteString("; no error names the rank (the run stopped at an earlier error)")
	case kind == hw.FaultStuck:
		b.WriteString("; the ranks that wait for it wait for good: " + stopWords(res) + " (a watchdog reports it: --watchdog)")
	case len(res.Errors) > 0:
		b.WriteString("; no error names its packet")
	case kind == hw.FaultFlip && s.unread(f):
		b.WriteString("; changed nothing a receiver reads")
	case res.Complete:
		b.WriteString("; no unit raised an error (harmless, or silent: hxbar faults tells them apart against the fault-free run)")
	default:
		b.WriteString("; no unit raised an error (no watchdog): " + stopWords(res))
	}
	return b.String()
}

// stopWords says where a run that did not complete without a unit error
// stopped: where nothing could happen any more, or at max_cycles.
func stopWords(res *Result) string {
	if res.Stop == StopNoProgress {
		return fmt.Sprintf("the run stopped after cycle %d, where nothing could happen any more", res.Cycles-1)
	}
	return "the run stopped at max_cycles"
}

// flitEffect describes the first hit of a flip, drop or dead fault.
func (s *System) flitEffect(f *FaultResult, kind string) string {
	pkt := "a flit of a packet whose head was not seen"
	if p := f.Packet; p != nil {
		pkt = "the " + p.Flit + " flit of " + p.String()
		if p.Flit == "payload" {
			pkt = "a payload flit of " + p.String()
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cycle %d: ", f.First)
	switch kind {
	case hw.FaultFlip:
		bit := 0
		if ft, err := hw.ParseFault(f.Spec); err == nil {
			bit = ft.Bit
		}
		fmt.Fprintf(&b, "flipped bit %d (%s) of %s", bit, s.Sys.Wire().Field(bit, f.sent.Head()), pkt)
		if m := f.Misrouted; m != nil {
			if m.To != nil {
				fmt.Fprintf(&b, ", misrouted from node %d to node %d", m.From, *m.To)
			} else {
				fmt.Fprintf(&b, ", its address (meant for node %d) names no node: dropped by the next switch", m.From)
			}
		}
		if f.got.Head() != f.sent.Head() || f.got.Tail() != f.sent.Tail() {
			fmt.Fprintf(&b, ", which became a %s flit", flitRole(f.got))
		}
	case hw.FaultDrop:
		fmt.Fprintf(&b, "lost %s", pkt)
	case hw.FaultDead:
		fmt.Fprintf(&b, "dead: swallowed %s, the first %s", plural(f.Hits, "flit"), strings.TrimPrefix(pkt, "the "))
	}
	return b.String()
}

// unread reports whether flip f changed nothing a receiver reads: no
// field the model keeps, or the check-code bits of a flit other than a
// tail (docs/reliability.md, "Bits of a flit").
func (s *System) unread(f *FaultResult) bool {
	if f.sent == f.got {
		return true
	}
	ft, err := hw.ParseFault(f.Spec)
	return err == nil && !f.sent.Tail() && s.Sys.Wire().Field(ft.Bit, f.sent.Head()) == "check code"
}

// plural is "n thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// channelOf is the channel of a link fault's spec.
func channelOf(spec string) string {
	_, rest, _ := strings.Cut(spec, ":")
	ch, _, _ := strings.Cut(rest, "@")
	return ch
}

// unitName is what a fault of kind acts on.
func unitName(kind string) string {
	switch kind {
	case hw.FaultAckFlip:
		return "ACK word"
	case hw.FaultCreditDrop:
		return "credit"
	}
	return "flit"
}
