package hw

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseFault(t *testing.T) {
	for _, c := range []struct {
		spec string
		want Fault
	}{
		{"flip:n5.d1.up@44:3", Fault{Kind: FaultFlip, Channel: "n5.d1.up", Cycle: 44, Bit: 3}},
		{"drop:n0.eject@0", Fault{Kind: FaultDrop, Channel: "n0.eject", Cycle: 0}},
		{"dead:n3.d0+.vc1@12", Fault{Kind: FaultDead, Channel: "n3.d0+.vc1", Cycle: 12}},
		{"stuck:7", Fault{Kind: FaultStuck, Rank: 7}},
		{"ackflip:n1.d0.down@9", Fault{Kind: FaultAckFlip, Channel: "n1.d0.down", Cycle: 9}},
		{"creditdrop:n2.inject@30", Fault{Kind: FaultCreditDrop, Channel: "n2.inject", Cycle: 30}},
	} {
		got, err := ParseFault(c.spec)
		if err != nil || got != c.want || got.String() != c.spec {
			t.Errorf("ParseFault(%q) = %+v, %v", c.spec, got, err)
		}
	}
	for _, bad := range []string{"", "flip", "flip:n0@1", "flip:n0@x:1", "drop:@3", "dead:n0.d0.up", "stuck:-1", "melt:n0@1", "drop:n0@-4",
		"ackflip:n0.eject", "ackflip:@4", "ackflip:n0.eject@x", "creditdrop:n0.eject@-1", "creditdrop:n0.eject"} {
		_, err := ParseFault(bad)
		if err == nil {
			t.Errorf("ParseFault(%q): no error", bad)
			continue
		}
		// One line naming the spec and the allowed forms.
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "ackflip:CHANNEL@CYCLE") {
			t.Errorf("ParseFault(%q): %q", bad, msg)
		}
	}
	// An ackflip needs link-level retry: the entry and the reason named.
	s0 := Default()
	s0.Faults = []string{"stuck:1", "ackflip:n0.d0.up@5"}
	if err := s0.Validate(); err == nil || !strings.Contains(err.Error(), "faults[1]") || !strings.Contains(err.Error(), "link_retry") {
		t.Errorf("ackflip without link_retry: %v", err)
	}
	s0.LinkRetry, s0.BufferDepth = 4, 4
	if err := s0.Validate(); err != nil {
		t.Errorf("ackflip with link_retry: %v", err)
	}
	s0.LinkRetry = 0
	s0.Faults = []string{"creditdrop:n0.d0.up@5"}
	if err := s0.Validate(); err != nil {
		t.Errorf("creditdrop without link_retry: %v", err)
	}
	s := Default()
	// Bits 0..63 data, 64..95 check code, 96 tail, 97 head (hw.Wire).
	s.Faults = []string{"stuck:3", "flip:n0.d0.up@5:96", "flip:n0.d0.up@5:97"}
	if err := s.Validate(); err != nil {
		t.Errorf("tail and head bits: %v", err)
	}
	s.Faults = []string{"stuck:3", "flip:n0.d0.up@5:98"}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "faults[1]") || !strings.Contains(err.Error(), "0..97") ||
		!strings.Contains(err.Error(), "96 tail, 97 head") {
		t.Errorf("bit past the head bit: %v", err)
	}
	s.Faults = []string{"stuck:16"}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "0..15") {
		t.Errorf("rank past ranks: %v", err)
	}
}

// Numbers in a fault spec are plain digits, the field named when they are
// not; a fault given twice, a cycle past max_cycles and an empty --fault
// after another are refused.
func TestFaultSpecStrict(t *testing.T) {
	for bad, field := range map[string]string{
		"flip:n0.d0.up@+4:1":                   `the cycle "+4"`,
		"flip:n0.d0.up@ 4:1":                   `the cycle " 4"`,
		"drop:n0.d0.up@99999999999999999999":   "the cycle",
		"drop:n0.d0.up@1099511627776":          "the cycle", // MaxMaxCycles
		"flip:n0.d0.up@4:-1":                   `the bit "-1"`,
		"flip:n0.d0.up@4:+1":                   `the bit "+1"`,
		"stuck:-1":                             `the rank "-1"`,
		"stuck:1e3":                            `the rank "1e3"`,
		"creditdrop:n0.eject@0x10":             `the cycle "0x10"`,
		"flip:n0.d0.up@4:99999999999999999999": "the bit",
	} {
		_, err := ParseFault(bad)
		if err == nil || !strings.Contains(err.Error(), field) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseFault(%q) = %v; want one line naming %s", bad, err, field)
		}
	}
	s := Default()
	s.Faults = []string{"flip:n0.d0.up@5:7", "drop:n1.d0.up@5", "flip:n0.d0.up@5:7"}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "faults[2]") || !strings.Contains(err.Error(), "faults[0] is the same fault") {
		t.Errorf("a fault twice: %v", err)
	}
	s.Faults = []string{"flip:n0.d0.up@5:7", "flip:n0.d0.up@5:8"}
	if err := s.Validate(); err != nil {
		t.Errorf("two flips of different bits: %v", err)
	}
	s.MaxCycles = 100
	s.Faults = []string{"drop:n1.d0.up@99", "drop:n1.d0.up@100"}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "faults[1]") || !strings.Contains(err.Error(), "0..99") {
		t.Errorf("a cycle at max_cycles: %v", err)
	}

	var l stringList
	if err := l.Set(""); err != nil || l != nil {
		t.Errorf("a first empty --fault: %v, %v", l, err)
	}
	if err := l.Set("drop:n0.eject@4"); err != nil {
		t.Fatal(err)
	}
	if err := l.Set(""); err == nil || !strings.Contains(err.Error(), "drop:n0.eject@4") || len(l) != 1 {
		t.Errorf("an empty --fault after another: %v, list %v", err, l)
	}
}

// At flit width 128 the model carries 64 data bits of a payload flit: a
// flip of data bits 64..127 is refused by name (the RTL would see it),
// and ModelledBit enumerates exactly the bits a flip may name.
func TestFlipUnmodelledBits(t *testing.T) {
	s := Default()
	s.FlitWidth = 128
	w := s.Wire()
	for bit, ok := range map[int]bool{0: true, 63: true, 64: false, 127: false, 128: true, w.Bits() - 1: true} {
		s.Faults = []string{"flip:n0.d0.up@5:" + strconv.Itoa(bit)}
		err := s.Validate()
		if ok != (err == nil) || !ok && !strings.Contains(err.Error(), "64..127") {
			t.Errorf("flit width 128, bit %d: %v", bit, err)
		}
	}
	seen := map[int]bool{}
	for i := range w.Modelled() {
		b := w.ModelledBit(i)
		if b < 0 || b >= w.Bits() || w.Unmodelled(b) || seen[b] {
			t.Fatalf("ModelledBit(%d) = %d", i, b)
		}
		seen[b] = true
	}
	if len(seen) != w.Bits()-64 {
		t.Errorf("%d modelled bits, want %d", len(seen), w.Bits()-64)
	}
	s.FlitWidth = 64
	if w := s.Wire(); w.Modelled() != w.Bits() {
		t.Errorf("flit width 64: %d of %d bits modelled", w.Modelled(), w.Bits())
	}
}

// @first aims every channel fault at the first flit that crosses: it
// parses, prints back, and is not held to max_cycles; a CYCLE that is
// neither a number nor first is refused naming both forms.
func TestParseFaultFirst(t *testing.T) {
	for _, c := range []struct {
		spec string
		want Fault
	}{
		{"flip:n4.d0.up@first:3", Fault{Kind: FaultFlip, Channel: "n4.d0.up", First: true, Bit: 3}},
		{"drop:n5.d1.down@first", Fault{Kind: FaultDrop, Channel: "n5.d1.down", First: true}},
		{"dead:n0.inject@first", Fault{Kind: FaultDead, Channel: "n0.inject", First: true}},
		{"ackflip:n1.d0.down@first", Fault{Kind: FaultAckFlip, Channel: "n1.d0.down", First: true}},
		{"creditdrop:n2.eject@first", Fault{Kind: FaultCreditDrop, Channel: "n2.eject", First: true}},
	} {
		got, err := ParseFault(c.spec)
		if err != nil || got != c.want || got.String() != c.spec {
			t.Errorf("ParseFault(%q) = %+v (%s), %v", c.spec, got, got, err)
		}
		if at := got.At(42); at.First || at.Cycle != 42 || strings.Contains(at.String(), "first") {
			t.Errorf("%s.At(42) = %+v (%s)", c.spec, at, at)
		}
	}
	for _, bad := range []string{"flip:n0.d0.up@First:3", "flip:n0.d0.up@first", "flip:n0.d0.up@first:", "drop:n0.d0.up@first+1",
		"drop:n0.d0.up@firsts", "drop:n0.d0.up@", "dead:n0.d0.up@ first", "stuck:first"} {
		_, err := ParseFault(bad)
		if err == nil {
			t.Errorf("ParseFault(%q): no error", bad)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.Contains(msg, "CYCLE a number, or first") {
			t.Errorf("ParseFault(%q): %q lacks the allowed CYCLE forms", bad, msg)
		}
	}
	// The reason names the bad cycle and the forms it may take.
	if _, err := ParseFault("drop:n0.d0.up@firsts"); err == nil || !strings.Contains(err.Error(), `the cycle "firsts" is not a number 0..max_cycles-1, or first`) {
		t.Errorf("bad cycle: %v", err)
	}
	s := Default()
	s.MaxCycles = 10
	s.Faults = []string{"drop:n0.d0.up@first", "flip:n0.d0.up@first:3"}
	if err := s.Validate(); err != nil {
		t.Errorf("@first with max_cycles 10: %v", err)
	}
	s.Faults = []string{"drop:n0.d0.up@first", "drop:n0.d0.up@first"}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "faults[1]") {
		t.Errorf("the same @first fault twice: %v", err)
	}
}

// TestFaultNumberMessages: a rank or bit too large to be one is called out
// of range, not "not a number" (the message named the wrong problem).
func TestFaultNumberMessages(t *testing.T) {
	for spec, want := range map[string]string{
		"stuck:99999999999999":             `the rank "99999999999999" is out of range`,
		"stuck:12a":                        `the rank "12a" is not a number`,
		"flip:n0.d0.up@3:99999999":         `the bit "99999999" is out of range`,
		"flip:n0.d0.up@3:-1":               `the bit "-1" is not a number`,
		"stuck:99999999999999999999999999": `the rank "99999999999999999999999999" is out of range`,
	} {
		if _, err := ParseFault(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}
