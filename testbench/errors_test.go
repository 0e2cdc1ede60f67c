package testbench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/verilog"
)

// The error paths of docs/microarchitecture.md ("Error paths"), each
// raised by corrupting what a real system's units are configured with (a
// table word, or one unit's CTRL register), the same way in the model and
// in config.hex: the model must name the error, and Icarus must print the
// same trace, error event included, cycle for cycle.

// errCase is one corruption of a built system.
type errCase struct {
	name string
	sys  hw.System
	// corrupt changes the model's tables or units and returns the change
	// to make to the configuration writes of config.hex (nil: none), and
	// what to undo in the model once it has run (nil: nothing).
	corrupt func(t *testing.T, s *sim.System) (patch func([]word) int, undo func())
	want    barrierunit.UnitError // the first error (Cycle -1: any cycle)
}

// ctrlOf is the CTRL value of a unit (docs/registers.md).
func ctrlOf(en bool, op barrierunit.Op, data bool, gates int) uint32 {
	v := uint32(op)<<regmap.CtrlOpShift | uint32(gates)<<regmap.CtrlGShift
	if en {
		v |= regmap.CtrlEN
	}
	if data {
		v |= regmap.CtrlDMode
	}
	return v
}

// setCtrl gives rank r's unit another CTRL, in the model and (the patch
// returned) in config.hex.
func setCtrl(t *testing.T, s *sim.System, r int, en bool, op barrierunit.Op, data bool, gates int) (func([]word) int, func()) {
	t.Helper()
	if err := s.Units.SetCtrl(r, en, op, data, gates); err != nil {
		t.Fatal(err)
	}
	node, v := uint64(s.Units.NodeOf[r]), ctrlOf(en, op, data, gates)
	return func(ws []word) int {
		n := 0
		for i := range ws {
			if ws[i][0]>>32&0xffff == node && ws[i][1]>>32 == 0x8 {
				ws[i][1] = 0x8<<32 | uint64(v)
				n++
			}
		}
		return n
	}, nil
}

// firstRank is the rank that arrives first.
func firstRank(s *sim.System) int {
	r := 0
	for q, a := range s.Units.Arrive {
		if a < s.Units.Arrive[r] {
			r = q
		}
	}
	return r
}

// gateIndex finds a rank and gate g >= 2 with need[g] >= 1.
func gateIndex(t *testing.T, tab *barrierunit.FlatTable) (int, int) {
	t.Helper()
	st := tab.Stride()
	for r := 0; r < tab.Ranks; r++ {
		for g := 2; g <= tab.Gates+1; g++ {
			if tab.Need[r*st+g] > 0 {
				return r, g
			}
		}
	}
	t.Fatal("no gate receives a route")
	return 0, 0
}

func errCases(t *testing.T) []errCase {
	data := system(t, "err-short-allgather", []int{2, 2}, 4, "butterfly", "barrier", 1, 2, 32)
	data.Collective, data.Items, data.ItemFlits = hw.CollAllGather, 4, 2
	if err := data.Validate(); err != nil {
		t.Fatal(err)
	}
	return []errCase{
		{"over-need-low", system(t, "err-over", []int{2, 2}, 4, "butterfly", "sum", 1, 2, 32),
			func(t *testing.T, s *sim.System) (func([]word) int, func()) {
				// One route more delivers to (r, g) than its need says;
				// r has received it before it arrives, so the gate check
				// finds more signals than need (gate 2, source 0).
				r, g := gateIndex(t, s.Table)
				s.Table.Need[r*s.Table.Stride()+g]--
				s.Units = rebuildUnits(t, s)
				return nil, nil
			}, barrierunit.UnitError{Cycle: 39, Node: 0, Rank: 0, Code: barrierunit.ErrOver, Gate: 2, From: 0, NoFrom: true}},
		{"over-passed-gate", system(t, "err-over-tail", []int{2, 2}, 4, "butterfly", "max", 1, 2, 64),
			func(t *testing.T, s *sim.System) (func([]word) int, func()) {
				// The first rank to arrive needs no signal at gate 2: it
				// passes the gate, then the route into it delivers a tail
				// for a gate passed.
				r := firstRank(s)
				s.Table.Need[r*s.Table.Stride()+2] = 0
				s.Units = rebuildUnits(t, s)
				return nil, nil
			}, barrierunit.UnitError{Cycle: -1, Code: barrierunit.ErrOver, Gate: 2}},
		{"over-pass-cycle", seeded(system(t, "err-over-pass", []int{2, 2}, 4, "butterfly", "max", 1, 2, 64), 4),
			lowerNeed(0, 2), barrierunit.UnitError{Cycle: 7, Node: 0, Rank: 0, Code: barrierunit.ErrOver, Gate: 2, From: 2}},
		{"over-release-cycle", seeded(system(t, "err-over-release", []int{2, 2}, 4, "butterfly", "max", 1, 2, 64), 6),
			// The tail comes in the cycle rank 2 passes its end gate 3:
			// OVER (the release event is written too).
			lowerNeed(2, 3), barrierunit.UnitError{Cycle: 45, Node: 2, Rank: 2, Code: barrierunit.ErrOver, Gate: 3, From: 3}},
		{"norank-node", system(t, "err-norank-node", []int{2, 2}, 3, "butterfly", "max", 1, 2, 64),
			func(t *testing.T, s *sim.System) (func([]word) int, func()) {
				// The routes to rank 1 carry the address of node 3, which
				// hosts no rank (a wrong route word).
				const r, node = 1, 3
				old := s.Units.NodeOf[r]
				s.Units.NodeOf[r] = node
				addr := s.Topo.Addr(node)
				return func(ws []word) int {
					n := 0
					for i := range ws[:len(ws)-1] {
						a, hi := ws[i][1]>>32, ws[i+1][1]
						if a >= 0x2000_0000 && a < 0x3000_0000 && a%8 == 0 && hi>>32 == a+4 && uint32(hi) == r {
							ws[i][1] = a<<32 | addr
							n++
						}
					}
					return n
				}, func() { s.Units.NodeOf[r] = old }
			}, barrierunit.UnitError{Cycle: -1, Node: 3, Code: barrierunit.ErrNoRank, Rank: -1}},
		{"norank-en0", system(t, "err-norank", []int{2, 2}, 4, "butterfly", "max", 1, 2, 64),
			func(t *testing.T, s *sim.System) (func([]word) int, func()) {
				// Rank 1's unit is not enabled: the node hosts no rank
				// for the hardware, and the first flit for it raises NORANK.
				return setCtrl(t, s, 1, false, barrierunit.OpBarrier, false, 0)
			}, barrierunit.UnitError{Cycle: -1, Code: barrierunit.ErrNoRank, Rank: -1}},
		{"badgate-g-low", system(t, "err-badgate", []int{4}, 4, "butterfly", "barrier", 2, 1, 16),
			func(t *testing.T, s *sim.System) (func([]word) int, func()) {
				// Rank 2's unit has one gate less than the schedule: the
				// packets of the last round come for its gate G+2.
				G := s.Table.Gates
				return setCtrl(t, s, 2, true, barrierunit.OpBarrier, false, G-1)
			}, barrierunit.UnitError{Cycle: -1, Code: barrierunit.ErrBadGate}},
		{"badgate-data", data,
			func(t *testing.T, s *sim.System) (func([]word) int, func()) {
				// The same in data mode: the message for gate G+1 is not
				// checked (no $fatal), the unit is in ERROR.
				return setCtrl(t, s, 1, true, barrierunit.OpBarrier, true, s.Table.Gates-1)
			}, barrierunit.UnitError{Cycle: -1, Code: barrierunit.ErrBadGate}},
		{"flits-op-barrier", system(t, "err-flits", []int{2, 2}, 4, "butterfly", "sum", 1, 2, 32),
			func(t *testing.T, s *sim.System) (func([]word) int, func()) {
				// Rank 3's unit runs op barrier (1-flit packets) among
				// units that send and expect 1 + 2 flits.
				return setCtrl(t, s, 3, true, barrierunit.OpBarrier, false, s.Table.Gates)
			}, barrierunit.UnitError{Cycle: -1, Code: barrierunit.ErrFlits}},
		{"short-value-unit", data,
			func(t *testing.T, s *sim.System) (func([]word) int, func()) {
				// A unit in value mode (DMODE = 0, op barrier):
				// its 1-flit packets reach data units as messages without
				// items.
				// The first rank to arrive, so that it sends before a
				// data packet makes it fail (FLITS).
				return setCtrl(t, s, firstRank(s), true, barrierunit.OpBarrier, false, s.Table.Gates)
			}, barrierunit.UnitError{Cycle: -1, Code: barrierunit.ErrShort}},
	}
}

// seeded is sys with another seed (other arrivals and operands).
func seeded(sys hw.System, seed uint64) hw.System {
	sys.Seed = seed
	return sys
}

// lowerNeed makes the need of rank r's gate g one lower than the routes
// delivering to it: with these seeds the last tail comes in the very cycle
// the gate passes (found by trying seeds).
func lowerNeed(r, g int) func(t *testing.T, s *sim.System) (func([]word) int, func()) {
	return func(t *testing.T, s *sim.System) (func([]word) int, func()) {
		s.Table.Need[r*s.Table.Stride()+g]--
		s.Units = rebuildUnits(t, s)
		return nil, nil
	}
}

// rebuildUnits makes the model's units again from s.Table (NewUnits copies
// the table into its per-gate records).
func rebuildUnits(t *testing.T, s *sim.System) *barrierunit.Units {
	t.Helper()
	u := s.Units
	nu := barrierunit.NewUnits(s.Table, u.Op, s.Sys.FlitWidth, u.NodeOf, u.Arrive, u.Operand)
	nu.SetNodes(s.Topo.Nodes)
	if s.DataTable != nil {
		if err := nu.SetData(s.DataTable); err != nil {
			t.Fatal(err)
		}
	}
	return nu
}

// patchConfig changes the writes of config.hex with patch (given every
// word, header and end included) and rewrites its checksum.
func patchConfig(t *testing.T, cfg []byte, patch func([]word) int) []byte {
	t.Helper()
	var out bytes.Buffer
	var words []word
	var lines []string
	for _, l := range strings.SplitAfter(string(cfg), "\n") {
		if l == "" || strings.HasPrefix(l, "//") {
			out.WriteString(l)
			continue
		}
		lines = append(lines, l)
	}
	for _, l := range lines {
		h := strings.Fields(l)[0]
		hi, err1 := strconv.ParseUint(h[:16], 16, 64)
		lo, err2 := strconv.ParseUint(h[16:32], 16, 64)
		if err1 != nil || err2 != nil || len(h) != 32 {
			t.Fatalf("config.hex line %q", l)
		}
		words = append(words, word{hi, lo})
	}
	if n := patch(words[2 : len(words)-1]); n == 0 {
		t.Fatal("config.hex: the patch changes no write")
	}
	var sum word
	for _, w := range words[2:] {
		sum = rotlXor(sum, w, 2)
	}
	words[1] = sum
	for i, w := range words {
		c := lines[i][strings.Index(lines[i], " "):]
		fmt.Fprintf(&out, "%016x%016x%s", w[0], w[1], c)
	}
	return out.Bytes()
}

// runErrCase builds the system, corrupts it, runs the model and checks its
// first error; then co-simulates the same corruption under Icarus.
func runErrCase(t *testing.T, c errCase, cosim bool) {
	s, err := sim.Build(c.sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	patch, undo := c.corrupt(t, s)
	var trace bytes.Buffer
	res, err := s.Run(sim.Options{Trace: &trace})
	if undo != nil {
		undo()
	}
	var ue *sim.UnitError
	if !errors.As(err, &ue) {
		t.Fatalf("run: %v, want a unit error", err)
	}
	// The wanted error is one of the run's (a corruption may raise
	// another first at another unit).
	var e barrierunit.UnitError
	for _, x := range ue.Errors {
		w := c.want
		if w.Cycle < 0 {
			w.Cycle, w.Node, w.Rank, w.Gate, w.From, w.NoFrom = x.Cycle, x.Node, x.Rank, x.Gate, x.From, x.NoFrom
		}
		if x == w || (c.want.Cycle < 0 && x.Code == w.Code && (c.want.Rank >= 0 || x.Rank < 0) &&
			(c.want.Gate == 0 || x.Gate == c.want.Gate) && (c.want.Node == 0 || x.Node == c.want.Node)) {
			e = x
			break
		}
	}
	if e.Code == 0 {
		t.Fatalf("errors %v, want one with code %s", ue.Errors, barrierunit.ErrName(c.want.Code))
	}
	if res.Complete || len(res.Errors) != len(ue.Errors) {
		t.Fatalf("result: complete %v, errors %v", res.Complete, res.Errors)
	}
	line := fmt.Sprintf("%d n%d error code=%d name=%s gate=%d from=%d", e.Cycle, e.Node, e.Code, barrierunit.ErrName(e.Code), e.Gate, e.From)
	if !strings.Contains(trace.String(), line+"\n") {
		t.Fatalf("trace lacks %q:\n%s", line, trace.String())
	}
	t.Logf("%s: %v\n%s", c.name, ue, trace.String())
	if !cosim {
		return
	}
	needTools(t, Icarus)
	dir := t.TempDir()
	if _, err := verilog.Generate(dir, s.Design); err != nil {
		t.Fatal(err)
	}
	if err := Generate(dir, s.Design, trace.Bytes()); err != nil {
		t.Fatal(err)
	}
	if patch != nil {
		path := filepath.Join(dir, ConfigFile)
		cfg, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, patchConfig(t, cfg, patch), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run, err := RunSimulator(ctxFor(t, 5*time.Minute), dir, Icarus)
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare(Lines(trace.Bytes()), run.Trace); d != nil || !run.Passed() {
		t.Fatalf("RTL differs from the model: %v\n%s", d, run.Output)
	}
}

func TestErrorPathsModel(t *testing.T) {
	for _, c := range errCases(t) {
		t.Run(c.name, func(t *testing.T) { runErrCase(t, c, false) })
	}
}

func TestErrorPathsCosim(t *testing.T) {
	t.Parallel()
	for _, c := range errCases(t) {
		t.Run(c.name, func(t *testing.T) { runErrCase(t, c, true) })
	}
}

// TestRouteAddressOutsideGridRefused: a route word whose address names no
// node of the grid (a coordinate past its dimension's size, or bits above
// the address width) is refused by the unit's configuration port
// (pslverr; docs/registers.md), so such an address never reaches the
// switches, which could not route it: tb.v stops with its configuration
// FAIL line. On a 3x3 grid coordinate 3 fits the 2-bit field but is no
// node.
func TestRouteAddressOutsideGridRefused(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	sys := system(t, "outside-grid", []int{3, 3}, 9, "butterfly", "barrier", 1, 2, 64)
	dir := t.TempDir()
	generate(t, dir, sys)
	ctx := ctxFor(t, 5*time.Minute)
	if rep, err := Cosim(ctx, dir, Icarus); err != nil || !rep.OK() {
		t.Fatalf("pristine: %v", err)
	}
	for _, c := range []struct {
		what string
		addr uint32
	}{
		{"coordinate 0 = 3 on a 3-wide dimension", 3},
		{"coordinate 1 = 3", 3 << 2},
		{"a bit above the 4-bit address", 1 << 4},
	} {
		episodes, writes := readConfig(t, dir)
		orig := slices.Clone(writes)
		found := false
		for i, w := range writes {
			// The low half of node 0's first route word (region 2).
			if w.Episode == 1 && w.Port == 0 && w.Addr == 0x2000_0000 {
				writes[i].Data = c.addr
				found = true
				break
			}
		}
		if !found {
			t.Fatal("no write of node 0's route 0 in config.hex")
		}
		writeConfig(t, dir, episodes, writes)
		res, err := RunSimulator(ctx, dir, Icarus)
		writeConfig(t, dir, episodes, orig)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if res.Passed() || !strings.Contains(res.Verdict(), "FAIL configuration: a write was refused (pslverr)") {
			t.Errorf("%s: want the pslverr FAIL, got %q (exit %d)", c.what, res.Verdict(), res.ExitCode)
		}
	}
}
