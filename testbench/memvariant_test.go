package testbench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// memVariant is a behavioural hx_mem_1r1w that keeps the wrapper's
// contract (docs/rtl.md, "Memories") but returns junk wherever the
// contract leaves the read data undefined: after an edge without re, for
// a word read by the edge that writes it, for a word never written, for
// an address past the depth. mode "random" gives $random bits, "x" gives
// X; "broken" returns junk on every read (it breaks the contract: a
// design must fail with it, which shows the variant is the one compiled).
func memVariant(mode string) string {
	junk := map[string]string{"random": "g[W-1:0]", "x": "{W{1'bx}}", "broken": "g[W-1:0]"}[mode]
	good := "re && !(we && wa == ra) && ra < D && ^mem[ra] !== 1'bx"
	if mode == "broken" {
		good = "1'b0"
	}
	return "// hx_mem_1r1w, test variant (" + mode + "): junk wherever the contract allows it\n" +
		"`timescale 1ns / 1ps\n" +
		`module hx_mem_1r1w #(
    parameter integer W  = 8,
    parameter integer D  = 2,
    parameter integer AW = 1
) (
    input           clk,
    input           we,
    input  [AW-1:0] wa,
    input  [W-1:0]  wd,
    input           re,
    input  [AW-1:0] ra,
    output [W-1:0]  rd
);
    reg [W-1:0]  mem [0:D-1];
    reg [W-1:0]  q;
    reg [W+31:0] g;
    integer      i;
    always @(posedge clk) begin
        for (i = 0; i < W; i = i + 32)
            g[i +: 32] = $random;
        if (` + good + `)
            q <= mem[ra];
        else
            q <= ` + junk + `;
        if (we)
            mem[wa] <= wd;
    end
    assign rd = q;
endmodule
`
}

// memVariantSystems cover every memory of the library: FIFOs everywhere,
// the unit's gate, route and receive RAMs (values: sum, min), the data
// engine's data route, item-list and expected-message RAMs (an
// all-gather), a loop's second receive bank, and link-level retry's replay
// buffer read by resends (a dropped flit).
func memVariantSystems(t *testing.T) []hw.System {
	sum := system(t, "mv-4x4-sum-B1", []int{4, 4}, 16, "butterfly", "sum", 1, 1, 64)
	sum.Skew, sum.Seed = 17, 3
	dis := system(t, "mv-3x3-r6-diss-min-L3-fw16", []int{3, 3}, 6, "dissemination", "min", 3, 2, 16)
	dis.Skew, dis.Seed = 60, 4
	// B = 1 < 2L: credits stall every packet, so a head's first payload
	// flit comes cycles after it (SEQ's expected word must be taken in the
	// cycle after the head, not later).
	ag := system(t, "mv-4x4-allgather-L3-B1", []int{4, 4}, 16, "butterfly", "barrier", 3, 1, 32)
	ag.Collective, ag.Items, ag.ItemFlits, ag.Skew, ag.Seed = hw.CollAllGather, 2, 3, 17, 5
	loop := hw.Default()
	loop.Name, loop.Dims, loop.Algo, loop.Op = "mv-loop-2x3x4-max", []int{2, 3, 4}, hw.AlgoDissemination, hw.OpMax
	loop.Iterations, loop.Skew, loop.Seed = 6, 20, 5
	rt := system(t, "mv-4x4-sum-retry-drop", []int{4, 4}, 16, "butterfly", "sum", 1, 2, 64)
	// Every rank arrives in cycle 0 and sends its first head in cycle 1,
	// its payload in 2: both are hit, and resent from the replay buffer.
	rt.Skew, rt.LinkRetry, rt.Watchdog, rt.Faults = 0, 2, 150, []string{"drop:n0.inject@1", "flip:n5.inject@2:3"}
	out := []hw.System{sum, dis, ag, loop, rt}
	for i := range out {
		if err := out[i].Validate(); err != nil {
			t.Fatalf("%s: %v", out[i].Name, err)
		}
	}
	return out
}

// TestCosimMemVariant swaps hx_mem_1r1w for a variant that returns junk
// wherever its contract leaves the read undefined, and requires every
// design to co-simulate exactly as with the library's memory: no user of
// the wrapper relies on an asynchronous, stale, unenabled or
// read-during-write read. The same designs with a memory that returns
// junk on every read must fail (the variant is the one simulated, and the
// memories matter).
func TestCosimMemVariant(t *testing.T) {
	needTools(t, Icarus)
	t.Parallel()
	systems := memVariantSystems(t)
	for i, sys := range systems {
		modes := []string{"random"}
		if i < 2 {
			modes = append(modes, "x")
		}
		if i == 0 || i == 2 {
			modes = append(modes, "broken")
		}
		t.Run(sys.Name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), sys.Name)
			s, _ := generate(t, dir, sys)
			if sys.LinkRetry > 0 && s.Net.Retried() == 0 {
				t.Fatalf("%v: no flit resent: the replay buffer is never read", sys.Faults)
			}
			for _, mode := range modes {
				if err := os.WriteFile(filepath.Join(dir, "hx_mem_1r1w.v"), []byte(memVariant(mode)), 0o644); err != nil {
					t.Fatal(err)
				}
				rep, err := Cosim(ctxFor(t, 5*time.Minute), dir, Icarus)
				if mode == "broken" {
					if err == nil {
						t.Errorf("%s: a memory that returns junk on every read co-simulates: the variant is not the one compiled", mode)
					}
					continue
				}
				if mm, ok := errors.AsType[*MismatchError](err); ok {
					t.Fatalf("memory variant %s: %s", mode, mm.Report.Summary())
				}
				if err != nil {
					t.Fatalf("memory variant %s: %v", mode, err)
				}
				if !rep.OK() || !rep.Run.Compiled {
					t.Fatalf("memory variant %s: compiled %v, report %s", mode, rep.Run.Compiled, rep.String())
				}
				if s := strings.Join(rep.Model, "\n"); !strings.Contains(s, " recv ") {
					t.Fatalf("memory variant %s: no recv event in the trace", mode)
				}
			}
		})
	}
}
