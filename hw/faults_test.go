package hw

import (
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
	} {
		got, err := ParseFault(c.spec)
		if err != nil || got != c.want || got.String() != c.spec {
			t.Errorf("ParseFault(%q) = %+v, %v", c.spec, got, err)
		}
	}
	for _, bad := range []string{"", "flip", "flip:n0@1", "flip:n0@x:1", "drop:@3", "dead:n0.d0.up", "stuck:-1", "melt:n0@1", "drop:n0@-4"} {
		if _, err := ParseFault(bad); err == nil {
			t.Errorf("ParseFault(%q): no error", bad)
		}
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
