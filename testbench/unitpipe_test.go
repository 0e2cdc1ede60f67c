package testbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/verilog"
)

// The unit pipeline (unit_pipeline 1, docs/microarchitecture.md, "Unit
// pipeline"): the unit's gate check reads the receive RAM without the
// forward of the count in flight, so a signal counts for it from the
// second cycle after its pop. The designs below co-simulate with the key
// on.

// unitPiped returns sys with the unit pipeline on, named apart.
func unitPiped(t testing.TB, sys hw.System) hw.System {
	t.Helper()
	sys.Name += "-up1"
	sys.UnitPipeline = 1
	if err := sys.Validate(); err != nil {
		t.Fatalf("%s: %v", sys.Name, err)
	}
	return sys
}

// unitPipeDesigns: every op with skewed arrivals on a 2x2 and an episode
// list (butterfly, dissemination, butterfly) on 3 ranks (the gate-combine
// runs), a few matrix designs (dissemination, near-first, tight credits,
// 16- and 32-bit flits), a data collective, back-to-back loops (a signal
// of the next iteration before the release), channels (communicators)
// and the switch pipeline with it, all with the unit pipeline on.
func unitPipeDesigns(t *testing.T) []hw.System {
	out := gateCombineSystems(t)
	m := matrixDesigns(t)
	d := dataDesigns(t)
	pick := func(list []hw.System, prefix string) hw.System {
		for _, s := range list {
			if strings.HasPrefix(s.Name, prefix) {
				return s
			}
		}
		t.Fatalf("no design %s", prefix)
		return hw.System{}
	}
	out = append(out, pick(m, "m03-"), pick(m, "m05-"), pick(m, "m08-"), pick(m, "m12-"), pick(d, "d03-"))
	loop := func(name string, dims []int, algo hw.Algorithm, op hw.OpName, it int) hw.System {
		s := hw.Default()
		s.Name, s.Dims, s.Algo, s.Op = name, dims, algo, op
		s.Iterations, s.Skew, s.Seed = it, 20, 5
		return s
	}
	out = append(out, loop("loop-bfly-4x4-sum", []int{4, 4}, hw.AlgoButterfly, hw.OpSum, 4),
		loop("loop-diss-2x3x4-max", []int{2, 3, 4}, hw.AlgoDissemination, hw.OpMax, 6))
	ex, err := hw.Load(filepath.Join("..", "examples", "rows-cols-4x4.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ex.Name = "rows-cols-4x4"
	sp := pick(m, "m11-")
	sp.SwitchPipeline = 1
	out = append(out, ex, sp)
	for i := range out {
		out[i] = unitPiped(t, out[i])
	}
	return out
}

// TestCosimUnitPipeline co-simulates unitPipeDesigns and a gather on
// its user schedule (gatherSystem) under Icarus and requires every run
// to match the model cycle for cycle. Then each
// mutant must make at least one run differ: hx_top.v without the tiles'
// UP(1) (the RTL without the pipeline while the model has it), a check
// in the cycle after a move (c_mv ignored), the check's registers
// without the write of their edge (c_fw), and the fold's second stage
// without the write of its edge (p2_fw: two tails of one entry in
// consecutive cycles, which only the gather's barrier packets of one
// flit give).
func TestCosimUnitPipeline(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	ctx := ctxFor(t, 30*time.Minute) // 17 designs, then 4 mutants until a run differs
	designs := unitPipeDesigns(t)
	gather := unitPiped(t, gatherSystem())
	designs = append(designs, gather)
	dirs := make([]string, len(designs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	errs := make([]string, len(designs))
	for i, s := range designs {
		dirs[i] = filepath.Join(t.TempDir(), s.Name)
		if s.Name == gather.Name {
			generateScheduled(t, dirs[i], s, gatherSchedule())
		} else {
			generate(t, dirs[i], s)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if rep, err := Cosim(ctx, dirs[i], Icarus); err != nil || !rep.OK() {
				errs[i] = fmt.Sprintf("%s: %v\n%s", s.Name, err, rep)
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
	if t.Failed() {
		return
	}
	t.Logf("%d designs with unit_pipeline 1 match the model", len(designs))
	mutants := []struct{ file, from, to string }{
		{"hx_top.v", ", .UP(1)", ""},
		{"hx_barrier_unit.v", "wire        c_ok      = UP == 0 || !c_mv;", "wire        c_ok      = 1'b1;"},
		{"hx_barrier_unit.v", "wire          c_fw  = wr_v && wr_a == xa_rq;", "wire          c_fw  = 1'b0;"},
		{"hx_barrier_unit.v", "wire          p2_fw = p2_v && p2_a == p1_a;", "wire          p2_fw = 1'b0;"},
	}
	// The gather first: it alone kills p2_fw. A mutant is killed by the
	// first run that differs; the rest are not run (make test's time).
	order := append([]string{dirs[len(dirs)-1]}, dirs[:len(dirs)-1]...)
	for _, m := range mutants {
		var failed []string
		for _, dir := range order {
			if len(failed) > 0 {
				break
			}
			path := filepath.Join(dir, m.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(src, []byte(m.from)) {
				t.Fatalf("%q not in %s of %s", m.from, m.file, filepath.Base(dir))
			}
			if err := os.WriteFile(path, bytes.ReplaceAll(src, []byte(m.from), []byte(m.to)), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := RunSimulator(ctx, dir, Icarus)
			if werr := os.WriteFile(path, src, 0o644); werr != nil {
				t.Fatal(werr)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !res.Passed() {
				failed = append(failed, fmt.Sprintf("%s (%s)", filepath.Base(dir), firstLine(res.Verdict())))
			}
		}
		if len(failed) == 0 {
			t.Errorf("mutant %s %q -> %q: every run still matches the model", m.file, m.from, m.to)
		} else {
			t.Logf("mutant %s %q: killed by %v", m.file, m.to, failed[0])
		}
	}
}

// gatherSystem is a barrier on a line of 4 without skew for
// gatherSchedule: the three signals into rank 0's gate 2 leave in one
// cycle and reach its ejection port through one crossbar output, so the
// unit pops their 1-flit packets (barrier: no payload) in consecutive
// cycles, two tails of one entry one cycle apart (p2_fw).
func gatherSystem() hw.System {
	s := hw.Default()
	s.Name, s.Dims, s.Ranks, s.Op, s.Skew = "gather-4-barrier", []int{4}, 4, hw.OpBarrier, 0
	return s
}

// gatherSchedule: every rank's gate 1 signals rank 0's gate 2, and rank
// 0's gate 2 every rank's gate 3 (a gather, then a broadcast).
func gatherSchedule() *barrierunit.Schedule {
	s := &barrierunit.Schedule{Ranks: 4, Algo: "gather4", Gates: 2}
	s.Routes = append(s.Routes, barrierunit.Route{FromRank: 0, FromGate: 1, ToRank: 0, ToGate: 2})
	for r := 1; r < 4; r++ {
		s.Routes = append(s.Routes,
			barrierunit.Route{FromRank: r, FromGate: 1, ToRank: 0, ToGate: 2, Distance: r},
			barrierunit.Route{FromRank: r, FromGate: 1, ToRank: r, ToGate: 2})
	}
	s.Routes = append(s.Routes, barrierunit.Route{FromRank: 0, FromGate: 2, ToRank: 0, ToGate: 3})
	for r := 1; r < 4; r++ {
		s.Routes = append(s.Routes, barrierunit.Route{FromRank: 0, FromGate: 2, ToRank: r, ToGate: 3, Distance: r})
	}
	return s
}

// generateScheduled is generate for sys run with the user schedule
// sched, recorded in dir as gen records it (ScheduleFile), so that Cosim
// rebuilds the model with it.
func generateScheduled(t testing.TB, dir string, sys hw.System, sched *barrierunit.Schedule) {
	t.Helper()
	s, err := sim.Build(sys, sched)
	if err != nil {
		t.Fatalf("%s: model: %v", sys.Name, err)
	}
	trace, _, err := Trace(s)
	if err != nil {
		t.Fatalf("%s: model: %v", sys.Name, err)
	}
	if _, err := verilog.Generate(dir, s.Design); err != nil {
		t.Fatalf("%s: verilog.Generate: %v", sys.Name, err)
	}
	if err := Generate(dir, s.Design, trace); err != nil {
		t.Fatalf("%s: testbench.Generate: %v", sys.Name, err)
	}
	b, err := json.MarshalIndent(sched, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ScheduleFile), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUnitPipelineCosts: the model with the key on ends later than
// without it on every design of unitPipeDesigns (a gate whose last
// signal comes over the network passes a cycle later). No simulator.
func TestUnitPipelineCosts(t *testing.T) {
	for _, sys := range unitPipeDesigns(t) {
		off := sys
		off.UnitPipeline = 0
		on := modelCycles(t, sys)
		if base := modelCycles(t, off); on <= base {
			t.Errorf("%s: %d cycles with the unit pipeline, %d without: the key changes nothing", sys.Name, on, base)
		}
	}
}
