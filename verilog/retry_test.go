package verilog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// With link_retry, every channel of hx_top (inj<v>, ej<v>, up<v>_<k>,
// down<v>_<k>) is an hx_chan of the same name wrapped in hx_link_tx and
// hx_link_rx, its wire {chk, seq, flit} (LW bits) and R passed down;
// without it the top has no link layer.
func TestLinkRetryTop(t *testing.T) {
	chans := regexp.MustCompile(`hx_chan #\(\.W\((\w+)\), \.L\((\w+)\)\) (\w+) \(`)
	names := func(top string) []string {
		var out []string
		for _, m := range chans.FindAllStringSubmatch(top, -1) {
			out = append(out, m[3])
		}
		return out
	}
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
		if bytes.Contains(ptop, []byte("hx_link")) {
			t.Errorf("%s without retry: the top has a link layer", sys.Name)
		}
		got, want := names(string(top)), names(string(ptop))
		nch := 2*s.Topo.Nodes + 2*s.Topo.Nodes*s.Topo.NumDims()
		if !slices.Equal(got, want) || len(got) != nch {
			t.Errorf("%s: channels %v, want the %d of the top without retry %v", sys.Name, got, nch, want)
		}
		for _, m := range chans.FindAllStringSubmatch(string(top), -1) {
			if m[1] != "LW" {
				t.Errorf("%s: %s carries W=%s, want the link's LW", sys.Name, m[3], m[1])
			}
		}
		for _, name := range got {
			for _, w := range []string{
				fmt.Sprintf("hx_link_tx #(.W(W), .L(%s), .R(LR), .CW(CW), .CPOLY(CPOLY)) %s_tx (", latOf(name), name),
				fmt.Sprintf(".in_valid(%s_tv), .in_flit(%s_tf),", name, name),
				fmt.Sprintf("hx_link_rx #(.W(W), .L(%s), .R(LR), .CW(CW), .CPOLY(CPOLY)) %s_rx (", latOf(name), name),
			} {
				if !strings.Contains(string(top), w) {
					t.Errorf("%s: no %q", sys.Name, w)
				}
			}
		}
		if w := fmt.Sprintf("localparam integer LR   = %d;", sys.LinkRetry); !strings.Contains(string(top), w) {
			t.Errorf("%s: no %q", sys.Name, w)
		}
	}
}

func latOf(ch string) string {
	if strings.HasPrefix(ch, "inj") || strings.HasPrefix(ch, "ej") {
		return "1"
	}
	return "L"
}

// Fault-free, link-level retry adds no cycle: Icarus runs the generated
// top with the link layer on every channel and prints the model's trace,
// event for event; the design is clean under Verilator.
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
			// The model's trace without retry: retry must not move a cycle.
			plain := sys
			plain.LinkRetry = 0
			want := modelTraceWithResults(t, plain)
			if got != want {
				t.Errorf("RTL trace with retry differs from the model's without\nRTL:\n%s\nmodel:\n%s", got, want)
			}
			if !strings.Contains(got, "release") {
				t.Errorf("no release in the trace:\n%s", got)
			}
		})
	}
}
