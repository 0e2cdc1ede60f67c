package formal

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// harnessTB drives hx_formal's free input from a table: rank r arrives in
// episode e when the episode has run offs[e*N+r] cycles (a value of W or
// more: never by itself, the window's end forces it). It prints one line
// a cycle: cycle, episode, running, arrive, released, early, refused, done.
const harnessTB = "`timescale 1ns / 1ps\n" + `module tb;
    localparam integer N = %[1]d, E = %[2]d, CYCLES = %[3]d;
    reg clk = 1'b0;
    reg [7:0] offs [0:E*N+N-1];
    wire [N-1:0] arr;
    wire early, refused, late, done;
    genvar r;
    generate for (r = 0; r < N; r = r + 1) begin : a
        assign arr[r] = f.running && f.ep_c != 0 && f.wc_c == offs[(f.ep_c - 1) * N + r];
    end endgenerate
    hx_formal f (.clk(clk), .arr(arr), .bound({%[4]d{1'b1}}), .early(early), .refused(refused), .late(late), .done(done));
    integer t;
    reg [1023:0] file;
    initial begin
        if (!$value$plusargs("offs=%%s", file)) $finish;
        $readmemh(file, offs);
        for (t = 0; t < CYCLES; t = t + 1) begin
            #1 $display("%%0d %%0d %%b %%b %%b %%b %%b %%b", t, f.ep_c, f.running, f.arrive, f.released, early, refused, done);
            #4 clk = 1'b1;
            #5 clk = 1'b0;
        end
        $finish;
    end
endmodule
`

// harnessCycle is one printed line of harnessTB.
type harnessCycle struct {
	t, ep                int
	running              bool
	arrive, released     uint64
	early, refused, done bool
}

// simHarness builds j's harness under Icarus (skipped without it) and
// returns a function that runs it with an offset table.
func simHarness(t *testing.T, j *Job, cycles int) func(offs []int) []harnessCycle {
	t.Helper()
	iv, err := exec.LookPath("iverilog")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("iverilog not found (CI is set)")
		}
		t.Skip("iverilog not found")
	}
	dir := t.TempDir()
	for name, data := range j.Files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tb := fmt.Sprintf(harnessTB, j.Nodes, len(j.Seq), cycles, cyclesWidth)
	if err := os.WriteFile(filepath.Join(dir, "tb.v"), []byte(tb), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-g2005", "-s", "tb", "-o", "sim.vvp", "tb.v"}, j.Sources...)
	cmd := exec.Command(iv, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("iverilog: %v\n%s", err, out)
	}
	runs := 0
	return func(offs []int) []harnessCycle {
		t.Helper()
		runs++
		var hex bytes.Buffer
		for _, o := range offs {
			fmt.Fprintf(&hex, "%02x\n", o)
		}
		file := filepath.Join(dir, fmt.Sprintf("offs%d.hex", runs))
		if err := os.WriteFile(file, hex.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("vvp", "-n", "sim.vvp", "+offs="+file)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("vvp: %v\n%s", err, out)
		}
		var cs []harnessCycle
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 8 {
				continue
			}
			var c harnessCycle
			c.t, _ = strconv.Atoi(f[0])
			c.ep, _ = strconv.Atoi(f[1])
			c.running = f[2] == "1"
			c.arrive, _ = strconv.ParseUint(f[3], 2, 64)
			c.released, _ = strconv.ParseUint(f[4], 2, 64)
			c.early, c.refused, c.done = f[5] == "1", f[6] == "1", f[7] == "1"
			cs = append(cs, c)
		}
		if len(cs) != cycles {
			t.Fatalf("vvp printed %d cycles, want %d:\n%s", len(cs), cycles, out)
		}
		return cs
	}
}

// TestHarnessArrivals runs the harness of a proof whose later episodes
// write nothing (line3-bbb: they start in the cycle of the last release)
// and of one that writes between episodes (line3-bdb) under Icarus, with
// offset tables drawn at random and at both ends of the window. Each rank
// must arrive exactly once an episode, in the cycle its offset names (the
// window's last cycle when the offset lies beyond it), the last episode
// must complete, and the fixed unit must never raise early or refused.
// The old unit must raise early on line3-bdb when rank 2 arrives first in
// episode 3 and the others at the window's end (issue 20, item 1).
func TestHarnessArrivals(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 8))
	for _, name := range []string{"line3-bbb", "line3-bdb"} {
		s := spec(t, name)
		j, err := Build(s, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		run := simHarness(t, j, 260)
		N, E, W := j.Nodes, len(j.Seq), s.Window
		tables := [][]int{make([]int, E*N), make([]int, E*N)}
		for i := range tables[1] {
			tables[1][i] = W + 3 // beyond the window: forced at its end
		}
		for range 12 {
			offs := make([]int, E*N)
			for i := range offs {
				offs[i] = rng.IntN(W + 1)
			}
			tables = append(tables, offs)
		}
		for _, offs := range tables {
			checkArrivals(t, name, run(offs), offs, N, E, W)
		}
	}

	j := oldUnitJob(t, "line3-bdb")
	offs := make([]int, 3*3)
	offs[2*3+0], offs[2*3+1] = 5, 5 // episode 3: ranks 0 and 1 at the window's end, rank 2 at once
	early := false
	for _, c := range simHarness(t, j, 260)(offs) {
		early = early || c.early
	}
	if !early {
		t.Error("old unit, line3-bdb: early never raised with rank 2 first in episode 3")
	}
}

func spec(t *testing.T, name string) Spec {
	t.Helper()
	for _, s := range Systems() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no proof %s", name)
	return Spec{}
}

func checkArrivals(t *testing.T, name string, cs []harnessCycle, offs []int, N, E, W int) {
	t.Helper()
	first := map[int]int{} // episode -> its first running cycle
	seen := map[[2]int]int{}
	done := false
	for _, c := range cs {
		if c.early || c.refused {
			t.Fatalf("%s offs %v: cycle %d: early %v, refused %v", name, offs, c.t, c.early, c.refused)
		}
		if c.running && c.ep > 0 {
			if _, ok := first[c.ep]; !ok {
				first[c.ep] = c.t
			}
		}
		for r := range N {
			if c.arrive>>r&1 == 1 {
				k := [2]int{c.ep, r}
				if _, dup := seen[k]; dup {
					t.Fatalf("%s offs %v: rank %d arrives twice in episode %d", name, offs, r, c.ep)
				}
				seen[k] = c.t
			}
		}
		done = done || c.done
	}
	if !done {
		t.Fatalf("%s offs %v: the last episode never completes", name, offs)
	}
	for e := 1; e <= E; e++ {
		for r := range N {
			at, ok := seen[[2]int{e, r}]
			want := first[e] + min(offs[(e-1)*N+r], W-1)
			if !ok || at != want {
				t.Errorf("%s offs %v: rank %d of episode %d arrives in cycle %d (seen %v), want %d", name, offs, r, e, at, ok, want)
			}
		}
	}
}

// oldUnitJob builds proof name with the old (parity-tagged) unit 01691af.
func oldUnitJob(t *testing.T, name string) *Job {
	t.Helper()
	old, err := os.ReadFile("testdata/hx_barrier_unit_01691af.v")
	if err != nil {
		t.Fatal(err)
	}
	j, err := Build(spec(t, name), old, "old")
	if err != nil {
		t.Fatal(err)
	}
	return j
}
