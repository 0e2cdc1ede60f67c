package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/verilog"
	"github.com/hxbar/hxbar/verilog/synth"
)

// runSynth runs Yosys on a generated design and reports its area and logic
// depth per module and in total (docs/area.md).
func runSynth(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("synth", stderr)
	sys := bindSystem(fs.FlagSet)
	dir := fs.String("dir", "", "synthesize the design in `DIR` (made by 'hxbar gen'); without it the system flags are generated into a temporary directory")
	format := fs.String("format", "table", "output format: table or json")
	keep := fs.Bool("keep", false, "without --dir: keep the temporary directory and print its name")
	pnr := fs.String("pnr", "", "also place and route each module, in a wrapper registering its ports, and the whole design, on `TARGET`: ice40 (iCE40-HX8K: nextpnr-ice40, from 'make deps'); adds fmax_mhz, logic_cells and rams")
	fs.neverTakes(notApplicable{[]string{"fault"}, "the generated testbench injects faults (hxbar gen, hxbar cosim); the synthesized design is the same without them"},
		// They set the testbench's arrivals, item placement and run length
		// (and the tables' contents, which the RTL loads at run time).
		notApplicable{[]string{"skew", "seed", "compute", "jitter", "max-cycles"}, "it sets the testbench's run (hxbar gen, hxbar cosim); the synthesized design is the same for every value"})
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	pnrSet := false
	fs.Visit(func(f *flag.Flag) { pnrSet = pnrSet || f.Name == "pnr" })
	if pnrSet { // --pnr "" included: it names no target
		if err := synth.CheckPnR(*pnr); err != nil {
			return usageError{err}
		}
	}
	own := map[string]bool{"dir": true, "format": true, "keep": true, "pnr": true}
	var sysFlags []string
	fs.Visit(func(f *flag.Flag) {
		if !own[f.Name] {
			sysFlags = append(sysFlags, "--"+f.Name)
		}
	})
	if *dir != "" && len(sysFlags) > 0 {
		return usagef("%s cannot be combined with --dir: the directory holds the design (regenerate it with 'hxbar gen --out DIR' and those flags)",
			strings.Join(sysFlags, ", "))
	}
	if *dir != "" && *keep {
		return usagef("--keep applies only without --dir (a temporary directory)")
	}

	// SIGTERM too (timeout(1), a killed make): the context kills Yosys,
	// which would otherwise run on for minutes without us.
	ctx, stop := runContext(stdout)
	defer stop()

	target, title := *dir, ""
	if target == "" {
		s, err := sys()
		if err != nil {
			return usageError{err}
		}
		if err := refuseFaults("synth", s); err != nil {
			return err
		}
		tmp, err := os.MkdirTemp("", "hxbar-synth-")
		if err != nil {
			return err
		}
		if *keep {
			defer fmt.Fprintf(stderr, "hxbar synth: kept %s\n", tmp)
		} else {
			defer os.RemoveAll(tmp)
		}
		sched, cs, err := schedulesFlag(fs.FlagSet, "", &s)
		if err != nil {
			return err
		}
		g, err := generateDir(tmp, s, sched, cs)
		if err != nil {
			return explainUsage(fs.FlagSet, err)
		}
		title = s.Title()
		fmt.Fprintf(stderr, "hxbar synth: %d nodes, %d switches: running yosys (seconds; minutes for the largest designs)\n", g.manifest.Nodes, g.manifest.Switches)
		target = tmp
	} else if err := checkDesignDir(target); err != nil {
		return err
	} else if s, err := hw.Load(filepath.Join(target, verilog.SystemFile)); err == nil {
		title = s.Title() // a directory without a readable system.yaml is still synthesized
	}

	rep, err := synth.Run(ctx, target, synth.Options{Progress: prefixWriter{stderr}, PnR: *pnr})
	var ye *synth.YosysError
	var pe *synth.PnRError
	switch {
	case errors.As(err, &ye), errors.As(err, &pe):
		return failure{err.Error()}
	case err != nil:
		return usageError{err} // no yosys (synth.ErrNoYosys), or the directory is not a design
	}
	rep.System = title
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteTable(stdout)
}

// prefixWriter prefixes progress lines with the command's name.
type prefixWriter struct{ w io.Writer }

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "hxbar %s", b); err != nil {
		return 0, err
	}
	return len(b), nil
}
