package sim

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestVCDIsWellFormed parses the VCD: every value change names a declared
// signal, time never goes back, and each rank's released bit rises once.
func TestVCDIsWellFormed(t *testing.T) {
	sys := hw.Default()
	sys.Op = "max"
	s, err := Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var vcd bytes.Buffer
	res, err := s.Run(Options{VCD: &vcd})
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]string{}
	released := map[string]int{}
	last := int64(-1)
	defs := true
	sc := bufio.NewScanner(&vcd)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "$var":
			declared[f[3]] = f[4]
		case f[0] == "$enddefinitions":
			defs = false
		case strings.HasPrefix(f[0], "#"):
			ts, err := strconv.ParseInt(f[0][1:], 10, 64)
			if err != nil || ts < last {
				t.Fatalf("time %q after %d", f[0], last)
			}
			last = ts
		case defs || f[0] == "$dumpvars" || f[0] == "$end":
		case strings.HasPrefix(f[0], "b"):
			if _, ok := declared[f[1]]; !ok {
				t.Fatalf("undeclared signal in %q", sc.Text())
			}
		default:
			id := f[0][1:]
			name, ok := declared[id]
			if !ok {
				t.Fatalf("undeclared signal in %q", sc.Text())
			}
			if name == "released" && f[0][0] == '1' {
				released[id]++
			}
		}
	}
	if len(released) != res.Ranks {
		t.Fatalf("%d released bits rose, want %d", len(released), res.Ranks)
	}
	for id, n := range released {
		if n != 1 {
			t.Fatalf("released %s rose %d times", id, n)
		}
	}
	if want := 10 * res.Cycles; last < want {
		t.Fatalf("VCD ends at %d, before the last release at %d", last, want)
	}
}

// TestVCDOfAStoppedRun: a run stopped by max_cycles (the stuck run a user
// debugs) writes its whole VCD, flushed to the stop: the waveform runs to
// the last cycle simulated, however small the buffer's share of it.
func TestVCDOfAStoppedRun(t *testing.T) {
	for _, maxCycles := range []int64{5, 20, 40} {
		sys := hw.Default()
		sys.Dims = []int{8, 8}
		sys.MaxCycles = maxCycles
		s, err := Build(sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		var vcd bytes.Buffer
		_, err = s.Run(Options{VCD: &vcd})
		if err == nil {
			t.Fatalf("max_cycles %d: the run completed; want it stopped", maxCycles)
		}
		text := vcd.String()
		if !strings.Contains(text, "$enddefinitions") {
			t.Fatalf("max_cycles %d: VCD of %d bytes has no header", maxCycles, len(text))
		}
		lines := strings.Split(strings.TrimSpace(text), "\n")
		lastTime := int64(-1)
		for _, l := range lines {
			if ts, ok := strings.CutPrefix(l, "#"); ok {
				lastTime, _ = strconv.ParseInt(ts, 10, 64)
			}
		}
		if want := 10 * maxCycles; lastTime < want {
			t.Errorf("max_cycles %d: VCD ends at time %d, want at least %d (flushed to the stop)", maxCycles, lastTime, want)
		}
	}
}
