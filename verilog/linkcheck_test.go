package verilog

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hxbar/hxbar/hw"
)

// linkPair is one link direction with link-level retry as the tiles and
// hx_top build it (hx_link): the output's flit in, the downstream FIFO's
// push out, the FIFO's pop in and the output's credit out, at link
// latency l (hx_link's L; the retrying link takes max(l, 2)).
func linkPair(w, l, r, b int) string {
	var sb strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&sb, f, a...) }
	p("module link_pair (\n")
	p("    input clk, input rst, input in_valid, input [%d:0] in_flit, input pop,\n", w-1)
	p("    output out_valid, output [%d:0] out_flit, output crd_out\n);\n", w-1)
	p("    hx_link #(.W(%d), .L(%d), .LR(%d), .B(%d), .CW(%d), .CPOLY(%d'h%04X)) lk (\n", w, l, r, b, hw.LinkCode.Width, hw.LinkCode.Width, hw.LinkCode.Poly)
	p("        .clk(clk), .rst(rst), .in_valid(in_valid), .in_flit(in_flit),\n")
	p("        .out_valid(out_valid), .out_flit(out_flit), .crd_in(pop), .crd_out(crd_out)\n    );\n")
	p("endmodule\n")
	return sb.String()
}

var xorCells = regexp.MustCompile(`(?m)^\s+\$_(?:XOR|XNOR)_\s+(\d+)$`)

// xors synthesizes top (yosys synth -flatten) and returns its XOR and
// XNOR cells: the link's CRC trees, the sender's and the receiver's.
func xors(t *testing.T, ys, dir, top, chparams string, files ...string) int {
	t.Helper()
	script := fmt.Sprintf("read_verilog %s; hierarchy -top %s %s; synth -flatten -top %s; stat", strings.Join(files, " "), top, chparams, top)
	out, err := run(t, dir, 5*time.Minute, ys, "-q", "-p", script+"; tee -o stat.txt stat")
	if err != nil {
		t.Fatalf("yosys %s: %v\n%s", top, err, out)
	}
	st, err := os.ReadFile(filepath.Join(dir, "stat.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range xorCells.FindAllStringSubmatch(string(st), -1) {
		k, _ := strconv.Atoi(m[1])
		n += k
	}
	return n
}

// The receiver's check survives synthesis at every link latency
// (docs/reliability.md, "Link-level retry"): a retrying link of latency 1
// is built with one register stage (hx_link), so after synth -flatten the
// receiver's CRC still reads a register, not the sender's nets. The XOR
// cells of a flattened link pair (hx_link: sender, channel, receiver) at link latency 1 and 2, must be at least 90% of the sender's and the receiver's
// synthesized alone (about half of it when the check is proved away).
func TestLinkCheckSurvivesFlatten(t *testing.T) {
	ys := needTool(t, "yosys")
	t.Parallel()
	dir := t.TempDir()
	var files []string
	for _, m := range []string{"hx_link_tx", "hx_link_rx", "hx_link_crc", "hx_chan", "hx_link", "hx_mem_1r1w"} {
		src, err := LibrarySource(m + ".v")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, m+".v"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, m+".v")
	}
	const w, r, b = 66, 4, 4
	params := fmt.Sprintf("-chparam W %d -chparam L 2 -chparam R %d -chparam B %d", w, r, b)
	alone := xors(t, ys, dir, "hx_link_tx", params, files...) + xors(t, ys, dir, "hx_link_rx", params, files...)
	for _, l := range []int{1, 2} {
		if err := os.WriteFile(filepath.Join(dir, "pair.v"), []byte(linkPair(w, l, r, b)), 0o644); err != nil {
			t.Fatal(err)
		}
		got := xors(t, ys, dir, "link_pair", "", append(files, "pair.v")...)
		t.Logf("link latency %d: %d XOR cells flattened, %d in the sender and receiver alone", l, got, alone)
		if 10*got < 9*alone {
			t.Errorf("link latency %d: %d XOR cells after synth -flatten, want at least 90%% of the %d of the sender and receiver alone: the check was proved away", l, got, alone)
		}
	}
}
