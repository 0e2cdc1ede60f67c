package sim

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
)

// runWith runs the default 4x4 system (op sum) with faults and edits;
// a unit error or a stuck run is an outcome here, not a failure.
func runWith(t *testing.T, edit func(*hw.System), faults ...string) (*System, *Result, string) {
	t.Helper()
	sys := hw.Default()
	sys.Op = hw.OpSum
	sys.Faults = faults
	if edit != nil {
		edit(&sys)
	}
	if err := sys.Validate(); err != nil {
		t.Fatal(err)
	}
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tr strings.Builder
	res, _ := s.Run(Options{Trace: &tr})
	if res == nil {
		t.Fatalf("%v: no result", faults)
	}
	return s, res, tr.String()
}

// firstCrossing is the cycle the first flit crosses channel name in a
// fault-free run of the default 4x4 sum (-1: none).
func firstCrossing(t *testing.T, name string) int64 {
	t.Helper()
	sys := hw.Default()
	sys.Op = hw.OpSum
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := noc.NewChannelIndex(s.Fabric).Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	first := int64(-1)
	s.Net.Record(func(c noc.Crossing) {
		if !c.Credit && int(c.Channel) == id && first < 0 {
			first = c.Cycle
		}
	})
	if _, err := s.Run(Options{}); err != nil {
		t.Fatal(err)
	}
	return first
}

// A fault @first hits the first flit (ACK word, credit) its channel
// carries, and the run is the run of the fault at that cycle: same
// trace, same hits; ResolvedFaults names that cycle.
func TestFaultAtFirst(t *testing.T) {
	retry := func(s *hw.System) { s.LinkRetry, s.BufferDepth = 4, 4 }
	watchdog := func(s *hw.System) { s.Watchdog = 100 }
	for _, c := range []struct {
		spec, cycled string // cycled: the spec with %d for the cycle
		edit         func(*hw.System)
		flit         bool // it acts on a flit (the first crossing is its cycle)
	}{
		{"flip:n4.d0.up@first:3", "flip:n4.d0.up@%d:3", nil, true},
		{"drop:n5.d1.down@first", "drop:n5.d1.down@%d", watchdog, true},
		{"dead:n5.d1.down@first", "dead:n5.d1.down@%d", watchdog, true},
		{"flip:n4.d0.up@first:3", "flip:n4.d0.up@%d:3", retry, false},
		{"ackflip:n4.d0.up@first", "ackflip:n4.d0.up@%d", retry, false},
		{"creditdrop:n4.d0.up@first", "creditdrop:n4.d0.up@%d", retry, false},
		{"creditdrop:n4.d0.up@first", "creditdrop:n4.d0.up@%d", nil, false},
	} {
		s, res, tr := runWith(t, c.edit, c.spec, "stuck:9")
		f := res.Faults[0]
		if f.Hits == 0 || f.First < 0 {
			t.Errorf("%s: hit nothing: %+v", c.spec, f)
			continue
		}
		if c.flit {
			if want := firstCrossing(t, channelOf(c.spec)); f.First != want {
				t.Errorf("%s: hit in cycle %d, the first flit crosses in %d", c.spec, f.First, want)
			}
		}
		at := strings.Replace(c.cycled, "%d", itoa(f.First), 1)
		if got := s.ResolvedFaults(); len(got) != 2 || got[0] != at || got[1] != "stuck:9" {
			t.Errorf("%s: ResolvedFaults = %q, want [%s stuck:9]", c.spec, got, at)
		}
		_, res2, tr2 := runWith(t, c.edit, at, "stuck:9")
		if tr2 != tr || res2.Faults[0].Hits != f.Hits || res2.Faults[0].First != f.First || res2.Cycles != res.Cycles {
			t.Errorf("%s: the run differs from the run of %s (hits %d/%d, first %d/%d)", c.spec, at, f.Hits, res2.Faults[0].Hits, f.First, res2.Faults[0].First)
		}
	}
	// An @first fault on a channel that carries nothing hits nothing and
	// is left out of ResolvedFaults.
	s, res, _ := runWith(t, func(s *hw.System) { s.Avoid = []string{"n0.d1.up"} }, "dead:n0.d1.up@first")
	if res.Faults[0].Hits != 0 || len(s.ResolvedFaults()) != 0 {
		t.Errorf("avoided channel: %+v, resolved %q", res.Faults[0], s.ResolvedFaults())
	}
}

// Each kind of fault says what it did: the packet, a misroute, the error
// that detected it, retry's replays; nil where it did not happen.
func TestFaultEffects(t *testing.T) {
	retry := func(s *hw.System) { s.LinkRetry, s.BufferDepth = 4, 4 }
	watchdog := func(s *hw.System) { s.Watchdog = 100 }
	pkt := func(src, dst, gate int, flit string) *FaultPacket { return &FaultPacket{src, dst, gate, flit} }
	for _, c := range []struct {
		spec      string
		edit      func(*hw.System)
		packet    *FaultPacket
		misrouted string // "from->to", "from->none", "" for nil
		detected  string // "CODE@node", "" for nil
		replays   int    // -1: nil
		effect    []string
	}{
		{"flip:n4.d0.up@first:3", nil, pkt(4, 6, 4, "head"), "6->14", "CRC@14", -1,
			[]string{"cycle 50: flipped bit 3 (dst_addr) of the head flit of rank 4 -> node 6 gate 4", "misrouted from node 6 to node 14", "detected by CRC at node 14, cycle 56"}},
		{"flip:n4.d0.up@first:97", watchdog, pkt(4, 6, 4, "head"), "", "TIMEOUT@6", -1,
			[]string{"bit 97 (head mark)", "which became a payload flit", "detected by TIMEOUT at node 6"}},
		{"flip:n4.d0.up@first:70", nil, pkt(4, 6, 4, "head"), "", "", -1,
			[]string{"bit 70 (check code)", "changed nothing a receiver reads"}},
		{"drop:n5.d1.down@first", watchdog, pkt(13, 5, 2, "head"), "", "TIMEOUT@5", -1,
			[]string{"cycle 26: lost the head flit of rank 13 -> node 5 gate 2", "detected by TIMEOUT at node 5"}},
		{"drop:n5.d1.down@first", retry, pkt(13, 5, 2, "head"), "", "", 1,
			[]string{"lost the head flit of rank 13", "caught by link-level retry: 1 replay, the flit 4 cycles later"}},
		{"flip:n4.d0.up@first:3", retry, pkt(4, 6, 4, "head"), "", "", 1,
			[]string{"flipped bit 3 (dst_addr)", "caught by link-level retry"}},
		{"dead:n5.d1.down@10", func(s *hw.System) { s.Watchdog = 50 }, pkt(13, 5, 2, "head"), "", "TIMEOUT@5", -1,
			[]string{"cycle 26: dead: swallowed 4 flits, the first head flit of rank 13 -> node 5 gate 2", "detected by TIMEOUT at node 5"}},
		// A flit after the head: its packet is the head its channel sent
		// before it (a sum's packet is a head and a tail).
		{"drop:n5.d1.down@27", func(s *hw.System) { s.Watchdog = 100 }, pkt(13, 5, 2, "tail"), "", "CRC@5", -1,
			[]string{"cycle 27: lost the tail flit of rank 13 -> node 5 gate 2", "detected by CRC at node 5, cycle 44"}},
		{"stuck:7", watchdog, nil, "", "TIMEOUT@3", -1, []string{"rank 7 never arrives", "detected by TIMEOUT at node 3"}},
		// Without a watchdog the run stops where nothing can happen any
		// more, and the effect says so (not max_cycles, never reached).
		{"stuck:7", nil, nil, "", "", -1, []string{"rank 7 never arrives", "wait for good: the run stopped after cycle", "where nothing could happen any more"}},
		{"stuck:7", func(s *hw.System) { s.MaxCycles = 45 }, nil, "", "", -1, []string{"rank 7 never arrives", "the run stopped at max_cycles"}},
		{"drop:n5.d1.down@first", func(s *hw.System) { s.Op = hw.OpBarrier }, pkt(13, 5, 2, "head+tail"), "", "", -1,
			[]string{"lost the head+tail flit", "no unit raised an error (no watchdog): the run stopped after cycle"}},
		{"ackflip:n4.d0.up@first", retry, nil, "", "", -1, []string{"damaged the ACK word", "the next ACK word repairs it"}},
		{"creditdrop:n4.d0.up@first", nil, nil, "", "", -1, []string{"damaged the credit", "lost for good"}},
		{"drop:n0.d0.up@999999", nil, nil, "", "", -1, []string{"hit nothing", "@first aims at the first"}},
		{"dead:n0.d1.up@0", func(s *hw.System) { s.Avoid = []string{"n0.d1.up"} }, nil, "", "", -1, []string{"the channel is avoided"}},
	} {
		_, res, _ := runWith(t, c.edit, c.spec)
		f := res.Faults[0]
		what := c.spec
		if (f.Packet == nil) != (c.packet == nil) || f.Packet != nil && *f.Packet != *c.packet {
			t.Errorf("%s: packet %+v, want %+v", what, f.Packet, c.packet)
		}
		mis := ""
		if m := f.Misrouted; m != nil {
			to := "none"
			if m.To != nil {
				to = itoa(int64(*m.To))
			}
			mis = itoa(int64(m.From)) + "->" + to
		}
		if mis != c.misrouted {
			t.Errorf("%s: misrouted %q, want %q", what, mis, c.misrouted)
		}
		det := ""
		if e := f.DetectedBy; e != nil {
			det = e.Code + "@" + itoa(int64(e.Node))
		}
		if det != c.detected {
			t.Errorf("%s: detected by %q, want %q (errors %+v)", what, det, c.detected, res.Errors)
		}
		if (f.Replays == nil) != (c.replays < 0) || f.Replays != nil && (*f.Replays != c.replays || *f.ReplayCycles <= 0) {
			t.Errorf("%s: replays %v / %v, want %d", what, f.Replays, f.ReplayCycles, c.replays)
		}
		for _, want := range c.effect {
			if !strings.Contains(f.Effect, want) {
				t.Errorf("%s: effect %q lacks %q", what, f.Effect, want)
			}
		}
	}
}

// The JSON of a fault: snake_case keys, null for what did not happen,
// and it reads back.
func TestFaultEffectJSON(t *testing.T) {
	_, res, _ := runWith(t, nil, "flip:n4.d0.up@first:3", "drop:n0.d0.up@999999")
	b, err := json.Marshal(res.Faults)
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	hit, miss := raw[0], raw[1]
	for _, k := range []string{"spec", "hit", "hits", "first", "effect", "packet", "misrouted", "detected_by", "replays", "replay_cycles"} {
		if _, ok := hit[k]; !ok {
			t.Errorf("no key %q in %s", k, b)
		}
	}
	if hit["hit"] != true || hit["first"] != 50.0 || hit["misrouted"].(map[string]any)["to_node"] != 14.0 ||
		hit["packet"].(map[string]any)["src_rank"] != 4.0 || hit["detected_by"].(map[string]any)["code"] != "CRC" || hit["replays"] != nil {
		t.Errorf("hit fault: %s", b)
	}
	for _, k := range []string{"first", "packet", "misrouted", "detected_by", "replays", "replay_cycles"} {
		if v, ok := miss[k]; !ok || v != nil {
			t.Errorf("a fault that hit nothing: %s = %v, want null", k, v)
		}
	}
	if miss["hit"] != false {
		t.Errorf("a fault that hit nothing: hit = %v", miss["hit"])
	}
	var back []FaultResult
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if b2, _ := json.Marshal(back); string(b2) != string(b) {
		t.Errorf("round trip:\n%s\n%s", b, b2)
	}
}

// TestErrorContextSaysWhatAStuckRankDid: the run's error lists the faults
// behind it, a stuck rank with what it did (it never arrives), not its
// bare spec.
func TestErrorContextSaysWhatAStuckRankDid(t *testing.T) {
	sys := hw.Default()
	sys.Op, sys.Faults = hw.OpSum, []string{"flip:n4.d0.up@first:3", "stuck:7"}
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Run(Options{})
	if err == nil || !strings.HasSuffix(err.Error(), "; fault stuck:7: rank 7 never arrives") {
		t.Errorf("run error %v", err)
	}
}
