package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
	"github.com/olekukonko/tablewriter"
)

// runCheck proves the routing tables of a system's topology.
func runCheck(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", stderr)
	// check's --channels lists the network's channels (the key channels,
	// barrier channels per unit, is --barrier-channels).
	channels := fs.Bool("channels", false, "list the channels (the names --fault and --avoid take) instead of proving the tables")
	sys := bindSystem(fs.FlagSet)
	format := fs.String("format", "table", "output format: table or json")
	limit := bindBudget(fs.FlagSet)
	fs.neverTakes(notApplicable{systemFlags("topology", "dims", "wrap", "avoid"),
		"it proves the routing tables of --topology, --dims and --wrap (with --avoid: around those channels), nothing else of the system"})
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
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
	if *channels {
		if *format == "table" {
			// JSON is streamed; the table renderer holds every row.
			lim, err := limit()
			if err != nil {
				return err
			}
			if err := lim.Check(fmt.Sprintf("the channel table of %d channels", noc.NumChannels(f)), channelTableBytes(f),
				"--format json streams the list in constant memory"); err != nil {
				return usageError{err}
			}
		}
		return listChannels(f, *format, stdout)
	}
	rep, err := proveTables(fs.FlagSet, &s, f)
	if err != nil {
		return err
	}
	if *format == "json" {
		return json.NewEncoder(stdout).Encode(rep)
	}
	return printCheck(stdout, &s, rep)
}

// proveTables proves the fabric's routing tables: all pairs, around the
// avoided channels, or (a torus too large to walk) by dimension.
func proveTables(fs *flag.FlagSet, s *hw.System, f noc.Fabric) (*noc.CheckReport, error) {
	// A torus too large for the all-pairs walk is proved by dimension,
	// unless channels are avoided: AvoidChannels walks every pair.
	tor, isTorus := f.(*noc.Torus)
	byDim := isTorus && f.NumNodes() > noc.MaxCheckNodes && len(s.Avoid) == 0
	if f.NumNodes() > noc.MaxCheckNodes && !byDim {
		check := "the all-pairs check"
		if isTorus {
			check = "the all-pairs check of --avoid"
		}
		return nil, usageError{explainSystemError(fs, fmt.Errorf("invalid dims: %v is %d nodes (allowed: at most %d nodes for %s)", s.Dims, f.NumNodes(), noc.MaxCheckNodes, check))}
	}
	var rep *noc.CheckReport
	var err error
	if len(s.Avoid) > 0 {
		ids, err := design.AvoidIDs(s, f)
		if err != nil {
			return nil, usageError{explainSystemError(fs, err)}
		}
		if _, rep, err = noc.AvoidChannels(f, ids); err != nil {
			return nil, failure{err.Error()}
		}
	} else if byDim {
		// Too many pairs to walk them all: prove each dimension's line and
		// sample the whole torus (noc.CheckByDimension).
		rep, err = noc.CheckByDimension(tor, noc.CheckSamples, s.Seed)
	} else if t, ok := f.(*noc.Topology); ok {
		rep, err = t.Check(func(sw int) []uint8 { return t.Tables()[sw] })
	} else {
		rep, err = noc.CheckFabric(f)
	}
	if err != nil {
		return nil, failure{err.Error()}
	}
	return rep, nil
}

// printCheck prints a proof's report as check's table.
func printCheck(stdout io.Writer, s *hw.System, rep *noc.CheckReport) error {
	if len(rep.Avoided) > 0 {
		fmt.Fprintf(stdout, "routing tables of the %s %s around %s: proved\n", dimsString(s.Dims), topologyNames[s.Topology], strings.Join(rep.Avoided, ", "))
	} else {
		fmt.Fprintf(stdout, "routing tables of the %s %s: proved\n", dimsString(s.Dims), topologyNames[s.Topology])
	}
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
	if len(rep.Avoided) > 0 {
		tw.Append("no path crosses an avoided channel", true)
		tw.Append("routing exceptions (all switches)", rep.Exceptions)
		tw.Append("routing exceptions (fullest switch)", rep.MaxExceptions)
	}
	return tw.Render()
}

// listChannels prints every channel of f: its name (as --fault takes it),
// kind, the switch output that drives it and what it feeds.
func listChannels(f noc.Fabric, format string, stdout io.Writer) error {
	if format == "json" {
		return writeChannelsJSON(stdout, f)
	}
	chs := noc.Channels(f)
	tw := tablewriter.NewWriter(stdout)
	tw.Header("channel", "kind", "from", "to")
	for _, c := range chs {
		from := fmt.Sprintf("switch %d port %d", c.Switch, c.Port)
		if c.Switch < 0 {
			from = fmt.Sprintf("node %d", c.Port)
		}
		tw.Append(c.Name, c.Kind, from, c.To)
	}
	return tw.Render()
}

// writeChannelsJSON writes the channel list one element at a time without
// holding it (2^21 nodes have tens of millions): a JSON array with one
// channel a line, so grep, head and a line-by-line reader work on it
// (one compact line of hundreds of megabytes did not).
func writeChannelsJSON(w io.Writer, f noc.Fabric) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	sep := "[\n"
	err := noc.EachChannel(f, func(c noc.Channel) error {
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		bw.WriteString(sep)
		sep = ",\n"
		_, err = bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	if sep == "[\n" {
		bw.WriteString("[]\n")
	} else {
		bw.WriteString("\n]\n")
	}
	return bw.Flush()
}
