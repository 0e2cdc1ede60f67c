package verilog

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/hw"
)

// Random software control, co-simulated (docs/testing.md, "Random
// co-simulation"): softScenario's unit (rank 0 of a 3-rank sum) under
// stimuli drawn from a seed: ABORT writes (the first while the unit
// waits), WATCHDOG writes (in WAIT among others), IRQ_ENABLE as
// configured and rewritten, an IRQ_STATUS clear, the packets of ranks 1
// and 2 at random cycles and credits returned at random delays. The
// model (barrierunit: Abort, Timeout, IrqPending, ClearIrq) and the RTL
// (unit_stim_tb) must agree on events, flits sent and irq cycle for cycle.

// softRandStream separates the scenario generator's PCG stream from every
// other use of a seed.
const softRandStream = 0x736f667472616e64 // "softrand"

// softRandCycles is the length of a drawn scenario after configuration.
const softRandCycles = 96

// softSlots hands out APB write access cycles: a write occupies its
// setup cycle (c-1) and its access cycle c.
type softSlots map[int64]bool

// take returns a free access cycle in [lo, hi], or -1.
func (s softSlots) take(rng *rand.Rand, lo, hi int64) int64 {
	for range 40 {
		c := lo + rng.Int64N(hi-lo+1)
		if !s[c-1] && !s[c] {
			s[c-1], s[c] = true, true
			return c
		}
	}
	return -1
}

// drawSoftScenario draws the stimuli of seed (cycles relative to the end
// of configuration). The first ABORT comes while the unit waits (after
// its first arrival; in one draw of two within 6 cycles of it, where its
// packet may be half sent for want of credits), the second arrival at or after it (in its cycle: held); more
// ABORTs, WATCHDOG (0 or 1..16) and IRQ_ENABLE (0..3) writes anywhere.
func drawSoftScenario(seed uint64) *softScenario {
	rng := rand.New(rand.NewPCG(seed, softRandStream))
	sc := &softScenario{push: map[int64]hw.Flit{}, wdog: map[int64]uint32{}, ien: map[int64]uint32{}}
	sc.arrive1 = 1 + rng.Int64N(4)
	sc.setArrive2 = sc.arrive1 + 1
	slots := softSlots{}
	hi := int64(36)
	if rng.IntN(2) == 0 { // while the unit's packet may still be half sent
		hi = sc.arrive1 + 6
	}
	a1 := slots.take(rng, sc.arrive1+2, hi)
	sc.aborts = []int64{a1}
	sc.arrive2 = a1 + rng.Int64N(9)
	for range rng.IntN(3) {
		if a := slots.take(rng, a1+3, softRandCycles-6); a >= 0 {
			sc.aborts = append(sc.aborts, a)
		}
	}
	for range rng.IntN(3) {
		if c := slots.take(rng, sc.arrive1+1, softRandCycles-6); c >= 0 {
			sc.wdog[c] = 0
			if rng.IntN(4) != 0 {
				sc.wdog[c] = 1 + rng.Uint32N(16)
			}
		}
	}
	sc.ien0 = rng.Uint32N(4)
	for range rng.IntN(3) {
		if c := slots.take(rng, 2, softRandCycles-6); c >= 0 {
			sc.ien[c] = rng.Uint32N(4)
		}
	}
	sc.clear = slots.take(rng, 2, softRandCycles-6)
	sc.clearBits = uint8(1 + rng.IntN(3))
	// 2-5 packets of ranks 1 and 2 to gate 2, three flits each
	busy := map[int64]bool{}
	for range 2 + rng.IntN(4) {
		at := 3 + rng.Int64N(softRandCycles-12)
		if busy[at] || busy[at+1] || busy[at+2] {
			continue
		}
		src, v := 1+rng.Int32N(2), rng.Uint64()
		sc.push[at] = hw.Flit{Flags: hw.FlitHead, Src: src, Gate: 2}
		sc.push[at+1] = hw.Flit{Data: v & 0xffffffff}
		sc.push[at+2] = hw.Flit{Flags: hw.FlitTail, Data: v >> 32}
		busy[at], busy[at+1], busy[at+2] = true, true, true
	}
	sc.creditDelay = make([]int64, 9)
	for i := range sc.creditDelay {
		sc.creditDelay[i] = 1 + rng.Int64N(20)
		if rng.IntN(6) == 0 {
			sc.creditDelay[i] = -1 // withheld
		}
	}
	slices.Sort(sc.aborts)
	return sc
}

// String is the scenario as a failing seed prints it.
func (sc *softScenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "arrivals %d and %d (model from %d), aborts %v, WATCHDOG %v, IRQ_ENABLE %d then %v, IRQ_STATUS clear %d of %d, credit delays %v",
		sc.arrive1, sc.arrive2, sc.setArrive2, sc.aborts, sc.wdog, sc.ien0, sc.ien, sc.clear, sc.clearBits, sc.creditDelay)
	cs := make([]int64, 0, len(sc.push))
	for c := range sc.push {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	for _, c := range cs {
		f := sc.push[c]
		fmt.Fprintf(&b, "\n  push %d: head %v tail %v src %d gate %d data %x", c, f.Head(), f.Tail(), f.Src, f.Gate, f.Data)
	}
	return b.String()
}

// softRandSeeds is the seeds a run draws: HXBAR_SOFT_SEED=s only s,
// HXBAR_SOFT_SEEDS=n seeds 1..n (60 by default).
func softRandSeeds(t *testing.T) []uint64 {
	if v := os.Getenv("HXBAR_SOFT_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("HXBAR_SOFT_SEED=%q: not a seed (allowed: an unsigned integer)", v)
		}
		return []uint64{s}
	}
	n := 60
	if v := os.Getenv("HXBAR_SOFT_SEEDS"); v != "" {
		k, err := strconv.Atoi(v)
		if err != nil || k < 1 {
			t.Fatalf("HXBAR_SOFT_SEEDS=%q: not a count (allowed: 1 or more)", v)
		}
		n = k
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

// TestSoftRandomCosim co-simulates drawn software-control scenarios on
// the model and the RTL. A difference prints the seed, the scenario and
// the stimulus file (kept), and HXBAR_SOFT_SEED reruns that seed alone.
// Over the seeds the draws must have raised irq, timed out and aborted a
// packet mid-send, so that the generator is not idle.
func TestSoftRandomCosim(t *testing.T) {
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
	N := C + softRandCycles
	seen := map[string]int{}
	for _, seed := range softRandSeeds(t) {
		sc := drawSoftScenario(seed)
		want := modelSoft(t, tab, sc, C, N, 0)
		stim := stimSoft(softProg(im, sc), sc, C, N)
		got, err := rtlSoftRun(t, iv, vvp, stim, 0)
		if err != nil {
			got = []string{err.Error()}
		}
		if !slices.Equal(got, want) {
			path := filepath.Join(os.TempDir(), fmt.Sprintf("hxbar-softrand-%d.stim", seed))
			if err := os.WriteFile(path, []byte(stim), 0o644); err != nil {
				t.Error(err)
			}
			t.Errorf("seed %d: RTL and model differ (configuration ends in cycle %d; rerun with HXBAR_SOFT_SEED=%d; unit_stim_tb stimulus %s)\nscenario: %s\nRTL:\n%s\nmodel:\n%s",
				seed, C-1, seed, path, sc, strings.Join(got, "\n"), strings.Join(want, "\n"))
			continue
		}
		for _, l := range want {
			switch {
			case strings.HasPrefix(l, "I "):
				seen["irq"]++
			case strings.HasPrefix(l, "E ") && strings.HasSuffix(l, fmt.Sprintf(" %d 2 8", barrierunit.EvError)):
				seen["timeout"]++
			}
		}
		if slices.ContainsFunc(want, func(l string) bool {
			return strings.HasPrefix(l, fmt.Sprintf("E %d %d ", C+sc.arrive2, barrierunit.EvArrive)) || strings.HasPrefix(l, fmt.Sprintf("E %d %d ", C+sc.arrive2+1, barrierunit.EvArrive))
		}) {
			seen["second arrival"]++
		}
	}
	if len(softRandSeeds(t)) >= 20 {
		for _, k := range []string{"irq", "timeout", "second arrival"} {
			if seen[k] == 0 {
				t.Errorf("no drawn scenario has a %s", k)
			}
		}
	}
	t.Logf("over the seeds: %v", seen)
}
