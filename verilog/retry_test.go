package verilog

import (
	"bytes"
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

// retrySystems are generated with link-level retry (link_retry > 0).
func retrySystems() []hw.System {
	return []hw.System{
		testSystem("grid2x3-xor-r5-retry", []int{2, 3}, func(s *hw.System) {
			s.Ranks = 5
			s.Op = "xor"
			s.FlitWidth = 24
			s.LinkLatency = 2
			s.LinkRetry = 4
		}),
		testSystem("line3-r2-sum-fw16-b1-retry", []int{3}, func(s *hw.System) {
			s.Ranks = 2
			s.Placement = []int{2, 0}
			s.Op = "sum"
			s.FlitWidth = 16
			s.LinkLatency = 3
			s.BufferDepth = 1
			s.LinkRetry = 1
		}),
		dataTestSystem("data-grid2x3-r5-ag-F2-fw24-retry", []int{2, 3}, 5, "allgather", 0, 2, func(s *hw.System) {
			s.FlitWidth = 24
			s.LinkLatency = 2
			s.Skew = 7
			s.LinkRetry = 5
		}),
	}
}

// With link_retry, every tile of hx_top gets the replay depth and the
// link codes (.LR(LR), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)): its hx_link instances (inj,
// ej, g_dim[k].up, g_dim[k].down) then wrap their hx_chan in hx_link_tx
// and hx_link_rx; without it no tile gets LR (hx_link's LR = 0: a plain
// channel) and the top declares no link layer.
func TestLinkRetryTop(t *testing.T) {
	tiles := regexp.MustCompile(`(?s)hx_tile #\(([^;]*?)\) tile(\d+) \(`)
	for _, sys := range retrySystems() {
		s := build(t, sys, nil)
		dir, _ := generate(t, s)
		top, err := os.ReadFile(filepath.Join(dir, TopFile))
		if err != nil {
			t.Fatal(err)
		}
		plain := sys
		plain.LinkRetry = 0
		pdir, _ := generate(t, build(t, plain, nil))
		ptop, err := os.ReadFile(filepath.Join(pdir, TopFile))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(ptop, []byte("hx_link")) || bytes.Contains(ptop, []byte(".LR(")) || bytes.Contains(ptop, []byte("localparam integer LR")) {
			t.Errorf("%s without retry: the top has a link layer", sys.Name)
		}
		got, want := tiles.FindAllStringSubmatch(string(top), -1), tiles.FindAllStringSubmatch(string(ptop), -1)
		if len(got) != s.Topo.Nodes || len(want) != s.Topo.Nodes {
			t.Fatalf("%s: %d tiles with retry, %d without, want %d", sys.Name, len(got), len(want), s.Topo.Nodes)
		}
		for n, m := range got {
			if m[2] != strconv.Itoa(n) || !strings.HasSuffix(m[1], ".L(L), .LR(LR), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)") {
				t.Errorf("%s: tile %s parameters %q, want the link's L, LR, CW, CPOLY, KW and KPOLY last", sys.Name, m[2], m[1])
			}
			if w := want[n][1] + ", .LR(LR), .CW(CW), .CPOLY(CPOLY), .KW(KW), .KPOLY(KPOLY)"; m[1] != w {
				t.Errorf("%s: tile %d parameters\n%q, want those without retry and the link's\n%q", sys.Name, n, m[1], w)
			}
		}
		for _, w := range []string{
			fmt.Sprintf("localparam integer LR   = %d;", sys.LinkRetry),
			fmt.Sprintf("localparam [CW-1:0] CPOLY = %d'h%04X;", hw.LinkCode.Width, hw.LinkCode.Poly),
			fmt.Sprintf("localparam [KW-1:0] KPOLY = %d'h%02X;", hw.CountCode.Width, hw.CountCode.Poly),
		} {
			if !strings.Contains(string(top), w) {
				t.Errorf("%s: no %q", sys.Name, w)
			}
		}
	}
}

// Fault-free, link-level retry adds no cycle beyond the register a 1-cycle
// link gets (docs/reliability.md): Icarus runs the generated top with the
// link layer on every channel and prints the model's trace (with
// link_retry) event for event; the design is clean under Verilator.
func TestLinkRetryRunsLikeTheModel(t *testing.T) {
	t.Parallel()
	iv := needTool(t, "iverilog")
	vvp := needTool(t, "vvp")
	vl := needTool(t, "verilator")
	for _, sys := range retrySystems() {
		t.Run(sys.Name, func(t *testing.T) {
			t.Parallel()
			s := build(t, sys, nil)
			dir, m := generate(t, s)
			out, err := run(t, dir, 120*time.Second, vl, append([]string{"--lint-only", "-Wall", "--top-module", TopModule}, m.Sources...)...)
			if err != nil || out != "" {
				t.Errorf("verilator --lint-only -Wall (%v):\n%s", err, out)
			}
			if err := os.WriteFile(filepath.Join(dir, "tb.v"), []byte(tinyTB(t, s)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err = run(t, dir, 60*time.Second, iv, append([]string{"-g2005", "-Wall", "-o", "tb.vvp", "tb.v"}, m.Sources...)...)
			if err != nil || out != "" {
				t.Fatalf("iverilog (%v):\n%s", err, out)
			}
			got, err := run(t, dir, 60*time.Second, vvp, "-n", "tb.vvp")
			if err != nil {
				t.Fatalf("vvp (%v):\n%s", err, got)
			}
			want := modelTraceWithResults(t, sys)
			if got != want {
				t.Errorf("RTL trace with retry differs from the model's\nRTL:\n%s\nmodel:\n%s", got, want)
			}
			if !strings.Contains(got, "release") {
				t.Errorf("no release in the trace:\n%s", got)
			}
		})
	}
}
