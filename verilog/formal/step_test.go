package formal

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/hw"
)

// TestClassesClosed follows every history of up to six episodes through
// the classes' transitions from the class of its first episode: the class
// reached must hold the tables the history leaves (the same writes, so the
// same next writes), and every class's representative must lie in it.
func TestClassesClosed(t *testing.T) {
	b, d := hw.AlgoButterfly, hw.AlgoDissemination
	for _, dims := range [][]int{{3}, {4}} {
		s := Spec{Name: "t", Dims: dims, Algos: []hw.Algorithm{b, d}, Window: 6}
		cls, err := Classes(s, 6)
		if err != nil {
			t.Fatal(err)
		}
		if len(cls) < 2 {
			t.Fatalf("%v: %d classes, want at least one per schedule", dims, len(cls))
		}
		first := map[hw.Algorithm]int{}
		for i, c := range cls {
			if len(c.Rep) == 1 {
				first[c.Rep[0]] = i
			}
		}
		for n := 1; n <= 6; n++ {
			for m := range 1 << n {
				seq := make([]hw.Algorithm, n)
				for i := range seq {
					seq[i] = []hw.Algorithm{b, d}[m>>i&1]
				}
				c := first[seq[0]]
				for _, a := range seq[1:] {
					c = cls[c].Next[a]
				}
				key, err := s.tablesKey(seq)
				if err != nil {
					t.Fatal(err)
				}
				if key != cls[c].key {
					t.Fatalf("%v: history %s reaches class %d (rep %s), whose tables differ", dims, seqName(seq), c, seqName(cls[c].Rep))
				}
			}
		}
	}
	// A maximum length the exploration cannot close within fails.
	s := Spec{Name: "t", Dims: []int{3}, Algos: []hw.Algorithm{b, d}, Window: 6}
	if _, err := Classes(s, 1); err == nil {
		t.Error("Classes with maxLen 1 on line3: no error, want one (bd reaches new tables)")
	}
}

// TestHarnessHistory: with Fixed set, the history's episodes take every
// arrival at the window's end whatever the free input says, the episode
// after them takes its arrivals from it, and bnd is never early.
func TestHarnessHistory(t *testing.T) {
	s := spec(t, "line3-bdb")
	s.Fixed = 2
	j, err := Build(s, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	run := simHarness(t, j, 260)
	N, E, W := j.Nodes, len(j.Seq), s.Window
	rng := rand.New(rand.NewPCG(20, 9))
	for range 6 {
		offs := make([]int, E*N)
		for i := range offs {
			offs[i] = rng.IntN(W)
		}
		want := slices.Clone(offs)
		for i := range s.Fixed * N {
			want[i] = W - 1
		}
		checkArrivals(t, "line3-bdb fixed 2", run(offs), want, N, E, W)
	}
}

// TestStepModel edits a small boundary model: a free register loses its
// initial value, a free FIFO's pointers are tied by an assumption, and
// moved compares the defined bits of every other register in done.
func TestStepModel(t *testing.T) {
	il := []byte(`module \hx_formal
  attribute \init 3'101
  wire width 3 \dut.u.a
  attribute \init 1'1
  attribute \src "x.v:1"
  wire \dut.u.idle
  attribute \init 2'10
  wire width 2 \dut.x.fifo.rp
  attribute \init 2'10
  wire width 2 \dut.x.fifo.wp
  attribute \init 1'0
  wire \cyc
  wire output 3 \done
  wire input 1 \clk
end
`)
	diff := map[string]bool{"fifo": true}
	free := func(n string) bool { return Free(diff, n) }
	st := inits(il, `\dut.`)
	if st[`\dut.u.a`] != "101" || st[`\dut.u.idle`] != "1" || len(st) != 4 {
		t.Fatalf("inits: %v", st)
	}
	next := State{`\dut.u.a`: "1x0", `\dut.u.idle`: "0", `\dut.x.fifo.rp`: "01", `\dut.x.fifo.wp`: "01"}
	out, names, err := stepModel(il, free, next)
	if err != nil {
		t.Fatal(err)
	}
	m := string(out)
	if got := inits(out, `\dut.`); len(got) != 1 || got[`\dut.u.a`] != "101" {
		t.Errorf("initial values kept: %v, want only dut.u.a's", got)
	}
	if !slices.Equal(names, []string{`\dut.u.a`}) {
		t.Errorf("compared %v, want [\\dut.u.a]", names)
	}
	for _, want := range []string{
		"wire width 1 output 4 \\moved",
		"connect \\A { \\dut.u.a [2] \\dut.u.a [0] }",
		"connect \\B 2'10",
		"connect \\B \\done",
		"cell $assume",
		"connect \\A \\dut.x.fifo.rp\n    connect \\B \\dut.x.fifo.wp",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("model lacks %q:\n%s", want, m)
		}
	}
	if !strings.HasSuffix(m, "end\n") || strings.Count(m, "\nend\n") != 1 {
		t.Errorf("model does not end its module once:\n%s", m)
	}
}

// TestGroup: a FIFO's pointers and words share one group, its count does
// not (a free count would fill an empty FIFO with junk).
func TestGroup(t *testing.T) {
	for name, want := range map[string]string{
		`\dut.tile1.g_unit.bu.xa_q`:           "bu.xa_q",
		`\dut.sw3.g_in[1].fifo.rp`:            "fifo",
		`\dut.tile2.g_unit.bu.ej_fifo.mem[1]`: "fifo",
		`\dut.sw3.g_in[1].fifo.cnt`:           "fifo.cnt",
		`\x`:                                  `\x`,
	} {
		if got := Group(name); got != want {
			t.Errorf("Group(%s) = %q, want %q", name, got, want)
		}
	}
}

func TestFreeReceiveWords(t *testing.T) {
	groups := map[string]bool{"bu.xa_q": true}
	for name, want := range map[string]bool{
		`\dut.tile1.g_unit.bu.xmem_a.mem[3]`: true,
		`\dut.tile1.g_unit.bu.xmem_b.mem[0]`: true,
		`\dut.tile1.g_unit.bu.xmem_a.ra_q`:   false, // tied to xa_a: freeing it alone breaks the read
		`\dut.tile1.g_unit.bu.gmem.mem[0]`:   false, // a table: the class fixes it
		`\dut.tile1.g_unit.bu.wdog_idle`:     false,
		`\dut.tile1.g_unit.bu.idle`:          true,
		`\dut.tile0.g_unit.bu.xa_q`:          true,
		`\dut.sw3.g_in[1].fifo.rp`:           false,
	} {
		if got := Free(groups, name); got != want {
			t.Errorf("Free(%s) = %v, want %v", name, got, want)
		}
	}
}

// TestStepModelExact: with no end state (an exact run) every initial
// value stays and moved is a constant 0 that yosys reads.
func TestStepModelExact(t *testing.T) {
	il := []byte("module \\hx_formal\n  attribute \\init 2'10\n  wire width 2 \\dut.x.fifo.rp\n  wire output 3 \\done\nend\n")
	out, names, err := stepModel(il, func(string) bool { return false }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 0 || !strings.Contains(string(out), "connect \\moved 1'0") {
		t.Errorf("names %v, model:\n%s", names, out)
	}
	if got := inits(out, `\dut.`); got[`\dut.x.fifo.rp`] != "10" {
		t.Errorf("initial values: %v", got)
	}
	if _, err := exec.LookPath("yosys"); err != nil {
		t.Skip("no yosys")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m.il"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command("yosys", "-q", "-p", "read_rtlil "+filepath.Join(dir, "m.il")+"; proc; opt_clean").CombinedOutput(); err != nil {
		t.Errorf("yosys: %v: %s", err, msg)
	}
}
