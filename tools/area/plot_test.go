package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hxbar/hxbar/internal/xmlcheck"
	"github.com/hxbar/hxbar/verilog/synth"
)

// TestPlotsParse: the area plots (docs/img/area-*.svg) are SVG a strict XML
// parser reads, drawn here from made-up reports instead of Yosys runs.
func TestPlotsParse(t *testing.T) {
	d := t.TempDir()
	rep := func(cells int) *synth.Report {
		r := &synth.Report{Total: synth.Total{Cells: 4 * cells, MemoryBits: 512}}
		for i, g := range groups {
			r.Modules = append(r.Modules, synth.Module{Module: g, Instances: 1, Cells: cells * (i + 1), MemoryBits: 64})
		}
		return r
	}
	results := map[string]*result{}
	for i, p := range ports {
		r := &result{rep: rep(100 * (i + 1)), sum: map[string]synth.Module{}}
		for _, m := range r.rep.Modules {
			r.sum[m.Module] = m
		}
		results[p.name] = r
	}
	units := map[int]*synth.Report{}
	for _, g := range maxgs {
		units[g] = rep(50 * g)
	}
	stack := filepath.Join(d, "area-ports.svg")
	if err := plotStack(results, ports, func(p point) string { return p.name }, "cells & <depth>", stack); err != nil {
		t.Fatal(err)
	}
	gates := filepath.Join(d, "area-gates.svg")
	if err := plotGates(units, gates); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{stack, gates} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := xmlcheck.Strict(b); err != nil {
			t.Errorf("%s: not XML: %v", filepath.Base(f), err)
		}
	}
}
