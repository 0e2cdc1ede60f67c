package verilog

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/hw"
)

// stimCycle is one cycle's inputs of unit_stim_tb.
type stimCycle struct {
	psel, pen, pwr bool
	addr, data     uint32
	arrive         bool
	operand        uint64
	credit, ejv    bool
	flit           uint64 // {head, tail, data[31:0]}
}

func b01(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stimFlit is the RTL's ejection flit for f (FW 32, AB 2, RB 2; the
// destination, rank 0, at address 0).
func stimFlit(f hw.Flit) uint64 {
	w := f.Data & 0xffffffff
	if f.Head() {
		w = uint64(f.Gate)<<4 | uint64(f.Src)<<2
	}
	return uint64(b01(f.Head()))<<33 | uint64(b01(f.Tail()))<<32 | w
}

// stimPort is the model's network for unit_stim_tb's scenario: a flit
// pushed into the RTL's ejection FIFO in cycle c is popped in c+1; a
// credit returned in c is usable from c+1 (2 at reset).
type stimPort struct {
	rx    map[int64]hw.Flit // by the cycle it is popped
	give  map[int64]bool
	delay []int64 // credit delays per flit sent (softScenario.creditDelay)
	sent  []string
	nout  []int64 // cycles of the flits sent
}

func (p *stimPort) CanInject(_ int, t int64) bool {
	n := 2
	for c := range p.give {
		if c < t {
			n++
		}
	}
	for _, c := range p.nout {
		if c < t {
			n--
		}
	}
	return n > 0
}
func (p *stimPort) Inject(_ int, f hw.Flit, t int64, _ int) {
	d := f.Data & 0xffffffff
	if f.Head() { // the head's data as the RTL builds it: address, source, gate
		d = uint64(f.Gate)<<4 | uint64(f.Src)<<2 | 1 // destination rank 1 at address 1
	}
	p.sent = append(p.sent, fmt.Sprintf("F %d %d %d %x", t, b01(f.Head()), b01(f.Tail()), d))
	if i := len(p.nout); i < len(p.delay) && p.delay[i] >= 0 {
		p.give[t+p.delay[i]] = true
	}
	p.nout = append(p.nout, t)
}
func (p *stimPort) RxPending(_ int, t int64) bool          { _, ok := p.rx[t]; return ok }
func (p *stimPort) RxPop(_ int, t int64)                   { delete(p.rx, t) }
func (p *stimPort) RxFront(_ int, t int64) (hw.Flit, bool) { f, ok := p.rx[t]; return f, ok }

// softScenario is rank 0 of a 3-rank sum (rank 0 sends one packet to rank
// 1; its end gate needs the packets of ranks 1 and 2) under software
// control, cycles relative to the end of the configuration: an ABORT while
// the unit waits with a packet half sent (no credit for its tail), a
// signal of the episode counted and another half received, and an
// arrival in the ABORT's cycle; the drain, the discard, the held arrival,
// a fresh episode that releases (irq), an IRQ_STATUS clear and an error
// (irq again).
type softScenario struct {
	aborts         []int64
	clear, arrive2 int64
	wdog           map[int64]uint32 // WATCHDOG writes, by access cycle
	credits        []int64
	push           map[int64]hw.Flit // pushed into the ejection FIFO
	// arrive1 is the first arrival (operand 7), arrive2 the second (9),
	// handed to the model in cycle setArrive2 (after the first is taken).
	arrive1, setArrive2 int64
	clearBits           uint8            // the IRQ_STATUS write's bits
	ien0                uint32           // IRQ_ENABLE as configured
	ien                 map[int64]uint32 // IRQ_ENABLE writes, by access cycle
	// creditDelay, when set, replaces credits: the i-th flit the model
	// sends gets its credit back creditDelay[i] cycles later (none when
	// negative or past the list); the model's run fills credits.
	creditDelay []int64
}

func newSoftScenario() *softScenario {
	s := &softScenario{aborts: []int64{16}, clear: 45, arrive2: 16, push: map[int64]hw.Flit{},
		arrive1: 2, setArrive2: 10, clearBits: barrierunit.IrqRelease, ien0: 3}
	s.credits = []int64{22, 26, 27, 28}
	pkt := func(src int32, v uint64, at int64) {
		s.push[at] = hw.Flit{Flags: hw.FlitHead, Src: src, Gate: 2}
		s.push[at+1] = hw.Flit{Data: v & 0xffffffff}
		s.push[at+2] = hw.Flit{Flags: hw.FlitTail, Data: v >> 32}
	}
	pkt(1, 0x100000005, 6)                                    // counted, then aborted
	s.push[12] = hw.Flit{Flags: hw.FlitHead, Src: 2, Gate: 2} // open at the abort ...
	s.push[18] = hw.Flit{Data: 1}                             // ... its rest discarded
	s.push[19] = hw.Flit{Flags: hw.FlitTail, Data: 2}
	pkt(2, 3, 32)
	pkt(1, 4, 36)
	s.push[50] = hw.Flit{Flags: hw.FlitHead | hw.FlitTail, Src: 1, Gate: 9} // BADGATE
	return s
}

// TestSoftControlsCosim runs softScenario on the Go model and on the RTL
// (unit_stim_tb under Icarus): events, flits sent and irq must agree
// cycle for cycle.
func TestSoftControlsCosim(t *testing.T) {
	t.Parallel()
	iv, vvp := needTool(t, "iverilog"), needTool(t, "vvp")
	s := &barrierunit.Schedule{Ranks: 3, Gates: 1, Routes: []barrierunit.Route{
		{FromRank: 0, FromGate: 1, ToRank: 1, ToGate: 2, Distance: 1},
		{FromRank: 1, FromGate: 1, ToRank: 0, ToGate: 2, Distance: 1},
		{FromRank: 2, FromGate: 1, ToRank: 0, ToGate: 2, Distance: 2},
	}}
	tab, err := barrierunit.Flatten(s)
	if err != nil {
		t.Fatal(err)
	}
	im, err := regmap.NodeImage(&regmap.Tables{Tab: tab, Op: barrierunit.OpSum, Addr: regmap.RankAddr{0, 1, 2}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	C := int64(2 * (len(regmap.Full(im)) + 1))
	N := C + 60
	// The second run aborts again in the cycle the fresh episode would
	// release (the gate check's cycle: no release, no irq from it).
	// The third writes WATCHDOG while the unit waits (2 cycles: it times
	// out before the ABORT, which clears the error). All three run with
	// the unit pipeline off and on (unit_pipeline, UP): the ABORT and
	// CTRL writes are moves after which the check waits a cycle, and the
	// release comes 2 cycles later (relAt).
	for up, relAt := range []int64{40, 42} {
		for i, extra := range [][]int64{nil, {relAt}, nil} {
			sc := newSoftScenario()
			sc.aborts = append(sc.aborts, extra...)
			if i == 2 {
				sc.wdog = map[int64]uint32{14: 2, 18: 0} // off again after the ABORT
			}
			want := modelSoft(t, tab, sc, C, N, up)
			got := rtlSoft(t, iv, vvp, stimSoft(softProg(im, sc), sc, C, N), up)
			if !slices.Equal(got, want) {
				t.Errorf("UP %d, aborts %v: RTL and model differ (configuration ends in cycle %d)\nRTL:\n%s\nmodel:\n%s", up, sc.aborts, C-1, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			checkSoftRun(t, sc, want, C, i, relAt, extra == nil)
		}
	}
}

// checkSoftRun holds TestSoftControlsCosim's run i to what it is built
// for: every kind of line, the watchdog's TIMEOUT (run 2), and a release
// in cycle C+relAt exactly when no ABORT falls on it.
func checkSoftRun(t *testing.T, sc *softScenario, want []string, C int64, i int, relAt int64, rel bool) {
	t.Helper()
	for _, k := range []string{"E ", "F ", "I "} {
		if !slices.ContainsFunc(want, func(l string) bool { return strings.HasPrefix(l, k) }) {
			t.Errorf("aborts %v: the scenario has no %q line", sc.aborts, k)
		}
	}
	if i == 2 {
		if !slices.ContainsFunc(want, func(l string) bool { return strings.HasPrefix(l, fmt.Sprintf("E %d 5 2 8", C+15)) }) {
			t.Errorf("watchdog: no TIMEOUT in cycle %d (last progress %d, WATCHDOG 2 from %d)", C+15, C+13, C+15)
		}
		return
	}
	if got := slices.ContainsFunc(want, func(l string) bool { return strings.HasPrefix(l, fmt.Sprintf("E %d 2 ", C+relAt)) }); got != rel {
		t.Errorf("aborts %v: a release in cycle %d: %v", sc.aborts, C+relAt, got)
	}
}

// softProg is the configuration program of sc: the node image, then
// IRQ_ENABLE.
func softProg(im *regmap.Image, sc *softScenario) regmap.Program {
	return append(regmap.Full(im), regmap.Write{Addr: regmap.AddrIRQEnable, Data: sc.ien0})
}

// stimSoft is unit_stim_tb's stimulus: the configuration program from
// cycle 0, then the scenario from cycle C.
func stimSoft(prog regmap.Program, sc *softScenario, C, N int64) string {
	cy := make([]stimCycle, N)
	write := func(c int64, a, d uint32) {
		cy[c] = stimCycle{psel: true, pwr: true, addr: a, data: d}
		cy[c+1] = stimCycle{psel: true, pen: true, pwr: true, addr: a, data: d}
	}
	for i, w := range prog {
		write(int64(2*i), w.Addr, w.Data)
	}
	for _, a := range sc.aborts {
		write(C+a-1, regmap.AddrABORT, 0)
	}
	for a, v := range sc.wdog {
		write(C+a-1, regmap.AddrWATCHDOG, v)
	}
	for a, v := range sc.ien {
		write(C+a-1, regmap.AddrIRQEnable, v)
	}
	write(C+sc.clear-1, regmap.AddrIRQStatus, uint32(sc.clearBits))
	for c := C; c < N; c++ {
		cy[c].operand = 0x55
	}
	cy[C+sc.arrive1].arrive, cy[C+sc.arrive1].operand = true, 7
	cy[C+sc.arrive2].arrive, cy[C+sc.arrive2].operand = true, 9
	for _, c := range sc.credits {
		cy[C+c].credit = true
	}
	for c, f := range sc.push {
		cy[C+c].ejv, cy[C+c].flit = true, stimFlit(f)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%x\n", N)
	for _, x := range cy {
		fmt.Fprintf(&b, "%x %x %x %x %x %x %x %x %x %x\n", b01(x.psel), b01(x.pen), b01(x.pwr), x.addr, x.data,
			b01(x.arrive), x.operand, b01(x.credit), b01(x.ejv), x.flit)
	}
	return b.String()
}

// modelSoft runs the scenario on rank 0's unit of the model and returns
// its lines in unit_stim_tb's format, sorted.
func modelSoft(t *testing.T, tab *barrierunit.FlatTable, sc *softScenario, C, N int64, up int) []string {
	t.Helper()
	u := barrierunit.NewUnits(tab, barrierunit.OpSum, 32, []int32{0, 1, 2}, []int64{C + sc.arrive1, -1, -1}, []uint64{7, 0, 0})
	u.SetPipeline(up == 1)
	p := &stimPort{rx: map[int64]hw.Flit{}, give: map[int64]bool{}, delay: sc.creditDelay}
	for c, f := range sc.push {
		p.rx[C+c+1] = f
	}
	for _, c := range sc.credits {
		p.give[C+c] = true
	}
	var out []string
	u.Emit = func(_ int, e barrierunit.Event) {
		v := e.Value
		if e.Kind == barrierunit.EvSend {
			v = uint64(e.Rank)
		}
		out = append(out, fmt.Sprintf("E %d %d %d %x", e.Cycle, e.Kind, e.Gate, v))
	}
	irq, ien := false, sc.ien0
	u.Progress = make([]int64, tab.Ranks)
	wd := uint32(0) // WATCHDOG as it stands in cycle c
	for c := C; c < N; c++ {
		if slices.Contains(sc.aborts, c-C) {
			if err := u.Abort(0, c); err != nil {
				t.Fatal(err)
			}
		}
		if c == C+sc.setArrive2 {
			u.Arrive[0], u.Operand[0] = C+sc.arrive2, 9
		}
		if c == C+sc.clear {
			u.ClearIrq(0, sc.clearBits)
		}
		if v, ok := sc.ien[c-C]; ok {
			ien = v // irq follows it from the next cycle, as the pending bits
		}
		u.Eval(0, c, p, 0)
		// the watchdog as sim runs it (after the units of cycle c)
		if wd != 0 && u.Waiting(0) && u.Progress[0]+int64(wd) <= c {
			u.Timeout(0, c, 0)
		}
		if v, ok := sc.wdog[c-C]; ok {
			wd = v // from the next cycle on
		}
		u.Collect()
		if on := uint32(u.IrqPending(0))&ien != 0; on != irq && c+1 < N {
			out = append(out, fmt.Sprintf("I %d %d", c+1, b01(on)))
			irq = on
		}
	}
	out = append(out, p.sent...)
	slices.Sort(out)
	if sc.creditDelay != nil {
		sc.credits = sc.credits[:0]
		for c := range p.give {
			sc.credits = append(sc.credits, c-C)
		}
		slices.Sort(sc.credits)
	}
	return out
}

// rtlSoft runs unit_stim_tb on stim and returns its lines, sorted.
func rtlSoft(t *testing.T, iv, vvp, stim string, up int) []string {
	t.Helper()
	lines, err := rtlSoftRun(t, iv, vvp, stim, up)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// rtlSoftRun is rtlSoft returning a failed simulation as an error.
func rtlSoftRun(t *testing.T, iv, vvp, stim string, up int) ([]string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "stim.txt"), []byte(stim), 0o644); err != nil {
		return nil, err
	}
	rtl, err := filepath.Abs("rtl")
	if err != nil {
		return nil, err
	}
	src := []string{filepath.Join(rtl, "test", "unit_stim_tb.v")}
	for _, f := range []string{"hx_barrier_unit.v", "hx_alu.v", "hx_credit.v", "hx_fifo.v", "hx_mem_1r1w.v"} {
		src = append(src, filepath.Join(rtl, f))
	}
	out, err := run(t, dir, time.Minute, iv, append([]string{"-g2005", "-Wall", "-P", fmt.Sprintf("unit_stim_tb.UP=%d", up), "-o", "tb.vvp"}, src...)...)
	if err != nil || out != "" {
		return nil, fmt.Errorf("iverilog (%v):\n%s", err, out)
	}
	out, err = run(t, dir, time.Minute, vvp, "-n", "tb.vvp")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) == 0 || lines[len(lines)-1] != "END" {
		return nil, fmt.Errorf("unit_stim_tb (%v):\n%s", err, out)
	}
	lines = lines[:len(lines)-1]
	slices.Sort(lines)
	return lines, nil
}
