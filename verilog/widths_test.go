package verilog

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestRTLWidthsMatchLimits reads the hand-written barrier unit and checks
// that the field widths it spells as literals are the ones the limits in hw
// are derived from, so the model's checks and the RTL cannot drift apart.
func TestRTLWidthsMatchLimits(t *testing.T) {
	src, err := rtlFS.ReadFile("rtl/hx_barrier_unit.v")
	if err != nil {
		t.Fatal(err)
	}
	v := string(src)
	rng := func(bits int) string { return fmt.Sprintf("[%d:0]", bits-1) }
	for _, c := range []struct{ what, re, want string }{
		{"gate register cur (hw.GateBits)", `reg\s+(\[\d+:0\])\s+cur;`, rng(hw.GateBits)},
		{"gate register rx_gate (hw.GateBits)", `reg\s+(\[\d+:0\])\s+rx_gate;`, rng(hw.GateBits)},
		{"gate field of a head flit (hw.GateBits)", `rx_d\[AB\+RB \+: (\d+)\]`, fmt.Sprint(hw.GateBits)},
		{"head width check (hw.GateBits)", `FW < AB \+ RB \+ (\d+)\)`, fmt.Sprint(hw.GateBits)},
		{"event gate number (hw.GateBits)", `wire\s+(\[\d+:0\])\s+ev_gnum\s`, rng(hw.GateBits)},
		{"event gate registers (hw.GateBits)", `reg\s+(\[\d+:0\])\s+ev_send_gate, ev_recv_gate, ev_err_gate;`, rng(hw.GateBits)},
		{"receive count in the receive RAM word (hw.NeedBits)", `XW\s+= (\d+) \+ 64;`, fmt.Sprint(hw.NeedBits)},
		{"receive count of gate cur+1 (hw.NeedBits)", `wire\s+(\[\d+:0\])\s+cnt_n;`, rng(hw.NeedBits)},
		{"route index (hw.RouteIndexBits)", `reg\s+(\[\d+:0\])\s+ri;`, rng(hw.RouteIndexBits)},
		{"route start (hw.RouteIndexBits)", `reg\s+(\[\d+:0\])\s+cw_start;`, rng(hw.RouteIndexBits)},
		{"route count (hw.RouteIndexBits)", `reg\s+(\[\d+:0\])\s+cw_count;`, rng(hw.RouteIndexBits)},
		{"need field (hw.NeedBits)", `wire\s+(\[\d+:0\])\s+need_n\s`, rng(hw.NeedBits)},
		{"ITEMF range check (hw.MaxItemFlits)", `ok_if\s+= pwdata\[12:0\] != 13'd0 && pwdata\[12:0\] <= 13'd(\d+);`, fmt.Sprint(hw.MaxItemFlits)},
	} {
		m := regexp.MustCompile(c.re).FindStringSubmatch(v)
		if m == nil {
			t.Errorf("%s: %q not found in rtl/hx_barrier_unit.v", c.what, c.re)
			continue
		}
		if m[1] != c.want {
			t.Errorf("%s: the RTL has %s, the limits in hw give %s", c.what, m[1], c.want)
		}
	}
	// The generated top level has no debug pins: the testbench reads the
	// event registers hierarchically (testbench/tbv.go).
	dir, _ := generate(t, build(t, testSystem("widths", []int{2}, nil), nil))
	top, err := os.ReadFile(filepath.Join(dir, TopFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(top), "ev_gnum") {
		t.Errorf("hx_top.v brings out ev_gnum (no debug pins allowed)")
	}
}
