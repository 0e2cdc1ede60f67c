package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/hxbar/hxbar/noc"
	"github.com/olekukonko/tablewriter"
)

// runCheck proves the routing tables of a system's topology.
func runCheck(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", stderr)
	sys := bindSystem(fs.FlagSet)
	format := fs.String("format", "table", "output format: table or json")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if err := refuseFlags(fs.FlagSet, "check", notApplicable{systemFlags("topology", "dims", "wrap"),
		"it proves the routing tables of --topology, --dims and --wrap, nothing else of the system"}); err != nil {
		return err
	}
	s, err := sys()
	if err != nil {
		return usageError{err}
	}
	f, err := noc.FabricOf(&s)
	if err != nil {
		return usageError{explainSystemError(fs.FlagSet, err)}
	}
	tor, isTorus := f.(*noc.Torus)
	if f.NumNodes() > noc.MaxCheckNodes && !isTorus {
		return usageError{explainSystemError(fs.FlagSet, fmt.Errorf("invalid dims: %v is %d nodes (allowed: at most %d nodes for the all-pairs check)", s.Dims, f.NumNodes(), noc.MaxCheckNodes))}
	}
	var rep *noc.CheckReport
	if isTorus && f.NumNodes() > noc.MaxCheckNodes {
		// Too many pairs to walk them all: prove each dimension's line and
		// sample the whole torus (noc.CheckByDimension).
		rep, err = noc.CheckByDimension(tor, noc.CheckSamples, s.Seed)
	} else if t, ok := f.(*noc.Topology); ok {
		rep, err = t.Check(func(sw int) []uint8 { return t.Tables()[sw] })
	} else {
		rep, err = noc.CheckFabric(f)
	}
	if err != nil {
		return failure{err.Error()}
	}
	if *format == "json" {
		return json.NewEncoder(stdout).Encode(rep)
	}
	fmt.Fprintf(stdout, "routing tables of the %s %s: proved\n", dimsString(s.Dims), topologyNames[s.Topology])
	tw := tablewriter.NewWriter(stdout)
	tw.Header("property", "value")
	if rep.Method == "by-dimension" {
		tw.Append("method", fmt.Sprintf("by dimension: each line all pairs, %d sampled paths", noc.CheckSamples))
	}
	tw.Append("source/destination paths walked", rep.Pairs)
	tw.Append("every path reaches its destination", true)
	tw.Append("every path minimal (gonum Dijkstra)", rep.Minimal)
	if rep.MaxHops > 0 {
		tw.Append("longest path (switch-to-switch links)", rep.MaxHops)
	} else {
		tw.Append("longest path (crossbars)", rep.MaxCrossbars)
	}
	tw.Append("channels used", rep.Channels)
	tw.Append("channel dependencies", rep.Dependencies)
	tw.Append("dependency graph acyclic (deadlock-free)", rep.Acyclic)
	return tw.Render()
}
