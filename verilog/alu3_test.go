package verilog

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// alu3Vectors are (op, a, b, c, want3, want2) with want3 = op(op(a, b), c)
// and want2 = op(a, b) by the model's hw.OpCode.Apply: every op code (7 gives 0), corner values, ties
// in every position, and random words (some sharing their high half, so a
// comparison is decided low).
func alu3Vectors() string {
	rng := rand.New(rand.NewPCG(22, 2))
	corner := []uint64{0, 1, 2, 1<<63 - 1, 1 << 63, ^uint64(0), ^uint64(0) - 1, 0x00000001_00000000, 0x00000000_ffffffff}
	var b strings.Builder
	add := func(op hw.OpCode, x, y, z uint64) {
		fmt.Fprintf(&b, "%d %016x %016x %016x %016x %016x\n", op, x, y, z, op.Apply(op.Apply(x, y), z), op.Apply(x, y))
	}
	for op := hw.OpCode(0); op < 8; op++ {
		for _, x := range corner {
			for _, y := range corner {
				for _, z := range corner {
					add(op, x, y, z)
				}
			}
		}
		for range 300 {
			x, y, z := rng.Uint64(), rng.Uint64(), rng.Uint64()
			if rng.IntN(2) == 0 {
				y = x&^0xffffffff | y&0xffffffff
				z = x&^0xffffffff | z&0xffffffff
			}
			add(op, x, y, z)
			add(op, x, x, z)
			add(op, x, y, y)
			add(op, z, y, z)
		}
	}
	return b.String()
}

// runALU3 runs hx_alu3 and hx_alu of alu (the text of hx_alu.v) on the vectors under
// Icarus and returns the testbench's last line ("alu3_tb: N vectors, B bad").
func runALU3(t *testing.T, iv, vvp, alu, vec string) string {
	t.Helper()
	dir := t.TempDir()
	tb := "`timescale 1ns / 1ps\n" + `module alu3_tb;
    reg [2:0] op; reg [63:0] a, b, c, want, want2;
    wire [63:0] y, y2;
    integer fd, k, bad, got;
    hx_alu3 u (.op(op), .a(a), .b(b), .c(c), .y(y));
    hx_alu u2 (.op(op), .a(a), .b(b), .y(y2));
    initial begin
        fd = $fopen("vec.txt", "r"); bad = 0; k = 0;
        while (!$feof(fd)) begin
            got = $fscanf(fd, "%h %h %h %h %h %h\n", op, a, b, c, want, want2);
            #1;
            if (y !== want || y2 !== want2) begin
                bad = bad + 1;
                if (bad <= 5) $display("FAIL op %0d %h %h %h: %h %h, want %h %h", op, a, b, c, y, y2, want, want2);
            end
            k = k + 1;
        end
        $display("alu3_tb: %0d vectors, %0d bad", k, bad);
        $finish;
    end
endmodule
`
	for name, s := range map[string]string{"alu3_tb.v": tb, "vec.txt": vec, "hx_alu.v": alu} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := run(t, dir, time.Minute, iv, "-g2005", "-Wall", "-o", "alu3.vvp", "alu3_tb.v", "hx_alu.v"); err != nil || out != "" {
		t.Fatalf("iverilog: %v\n%s", err, out)
	}
	out, err := run(t, dir, time.Minute, vvp, "-n", "alu3.vvp")
	if err != nil {
		t.Fatalf("vvp: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// hx_alu3, the gate pass's three-operand op (docs/area.md, "The unit's
// clock"), is the model's op applied twice, op(op(a, b), c), and hx_alu the
// model's op, for every op code; and each mutant below (of hx_alu3 or of
// both: a wrong pair in a selection, the carry-save carries not shifted,
// the carry select inverted, a comparison decided by the low halves
// alone) fails the same vectors.
func TestALU3MatchesModel(t *testing.T) {
	iv := needTool(t, "iverilog")
	vvp := needTool(t, "vvp")
	src, err := os.ReadFile(filepath.Join("rtl", "hx_alu.v"))
	if err != nil {
		t.Fatal(err)
	}
	vec := alu3Vectors()
	n := strings.Count(vec, "\n")
	if got, want := runALU3(t, iv, vvp, string(src), vec), fmt.Sprintf("alu3_tb: %d vectors, 0 bad", n); got != want {
		t.Fatalf("hx_alu3, hx_alu: %q, want %q", got, want)
	}
	for _, m := range [][2]string{
		{"mxb = !ab && bc;", "mxb = !ab && ac;"},
		{"mnb = ab && !bc;", "mnb = ab && !ac;"},
		{"(op == 3'd2 && !agt) || (op == 3'd3 && agt)", "(op == 3'd2 && !agt) || (op == 3'd3 && !agt)"},
		{"add64(cs_s, {cs_k[62:0], 1'b0})", "add64(cs_s, cs_k)"},
		{"add64 = {lo[32] ? h1[32:1] : h0, lo[31:0]};", "add64 = {lo[32] ? h0 : h1[32:1], lo[31:0]};"},
		{"(g[1] || (e[1] && g[0]))", "(g[1] || g[0])"},
		{"wire        bc   = gt64(b, c);", "wire        bc   = gt64(c, b);"},
	} {
		if !strings.Contains(string(src), m[0]) {
			t.Fatalf("mutant %q: not in hx_alu.v", m[0])
		}
		mut := strings.ReplaceAll(string(src), m[0], m[1])
		if got := runALU3(t, iv, vvp, mut, vec); strings.HasSuffix(got, " 0 bad") || !strings.HasPrefix(got, "alu3_tb: ") {
			t.Errorf("mutant %q -> %q: %q", m[0], m[1], got)
		}
	}
}
