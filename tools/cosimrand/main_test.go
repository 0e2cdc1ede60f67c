package main

import (
	"math"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/testbench"
)

// TestCheckFlags: bad flags are refused with one line naming the flag
// (the review of issue 20 found -sim foo taken, every design then
// reported as failed and shrunk), good ones pass.
func TestCheckFlags(t *testing.T) {
	for _, c := range []struct {
		n, jobs int
		seed    uint64
		sim     string
		want    string // "" = accepted
	}{
		{100, 2, 1, testbench.Icarus, ""},
		{1, 1, math.MaxUint64, testbench.Verilator, ""},
		{0, 2, 1, testbench.Icarus, "-n 0"},
		{1, 0, 1, testbench.Icarus, "-j 0"},
		{2, 1, 1, "foo", `-sim "foo" (allowed: icarus, verilator)`},
		{2, 1, math.MaxUint64, testbench.Icarus, "-seed 18446744073709551615 with -n 2"},
	} {
		err := checkFlags(c.n, c.jobs, c.seed, c.sim)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: refused: %v", c, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%+v: error %v, want one line with %q", c, err, c.want)
		}
	}
}
