package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hxbar/hxbar/sim"
	"github.com/olekukonko/tablewriter"
	twopt "github.com/olekukonko/tablewriter/tw"
)

func runTraffic(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("traffic", stderr)
	limit := bindBudget(fs.FlagSet)
	sys := bindSystem(fs.FlagSet)
	printCfg := bindPrintConfig(fs.FlagSet)
	pattern := fs.String("pattern", "uniform", "traffic pattern: "+strings.Join(sim.Patterns, ", "))
	rate := fs.Float64("rate", 0.1, "offered load in flits per node per cycle (0 < rate <= 1)")
	pflits := fs.Int("packet-flits", 1, "flits per packet, head included")
	cycles := fs.Int64("cycles", 10000, "cycles of injection")
	warmup := new(optInt64)
	fs.Var(warmup, "warmup", "the first `N` cycles, left out of the statistics; allowed: 0..cycles-1 (default cycles/10)")
	hotspot := fs.Float64("hotspot", 0.1, "hotspot pattern: fraction of packets sent to node 0")
	format := fs.String("format", "table", "output format: table or json")
	progress := fs.Bool("progress", false, "report progress on stderr")
	// The system's seed draws, here, when each node injects and where its
	// packets go (uniform and hotspot), not arrivals or operands.
	fs.Lookup("seed").Usage = "seed of the injection cycles and of the random destinations (uniform, hotspot); allowed: 0.." + strconv.FormatUint(math.MaxUint64, 10) + " (key seed)"
	bindPictureFlags(fs.FlagSet) // refused below: they draw runs of hxbar sim
	// Traffic reads the network and the seed of the system, nothing else.
	fs.neverTakes(
		notApplicable{[]string{"max-cycles"}, "it runs --cycles cycles"},
		notApplicable{[]string{"skew"}, "every node injects at --rate from cycle 0"},
		notApplicable{[]string{"ranks", "placement"}, "every node of --dims injects traffic"},
		notApplicable{[]string{"flit-width"}, "packets are counted in flits: --packet-flits"},
		notApplicable{[]string{"name"}, "its report names no system"},
		pictureFlagsNotApplicable,
		notApplicable{systemFlags("topology", "dims", "wrap", "seed", "link-latency", "buffer-depth", "duplex"),
			"it runs synthetic packets, not a barrier or collective: see --pattern and --packet-flits"},
	)
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if *pattern != "hotspot" {
		if err := refuseFlags(fs.FlagSet, "--pattern "+*pattern, notApplicable{[]string{"hotspot"}, "it applies to --pattern hotspot"}); err != nil {
			return err
		}
	}
	s, err := sys()
	if err != nil {
		return usageError{err}
	}
	if *printCfg {
		return printConfig(stdout, s)
	}
	if err := checkModelBudget(limit, fmt.Sprintf("the network model of %d nodes", s.Nodes()), &s, 0); err != nil {
		return err
	}
	cfg := sim.TrafficConfig{Pattern: *pattern, Rate: *rate, PacketFlits: *pflits, Cycles: *cycles,
		Warmup: *cycles / 10, Hotspot: *hotspot, Seed: s.Seed}
	if warmup.set {
		if warmup.v < 0 || *cycles > 0 && warmup.v >= *cycles {
			return usagef("invalid --warmup: %d (allowed: 0..%d, less than --cycles; default --cycles/10)", warmup.v, max(*cycles-1, 0))
		}
		cfg.Warmup = warmup.v
	}
	if *progress {
		cfg.Progress = func(done, total int64) {
			fmt.Fprintf(stderr, "\rtraffic: %3d%%", done*100/total)
		}
	}
	start := time.Now()
	res, err := sim.RunTraffic(s, cfg)
	if err != nil {
		err = flagSpelled(err, "pattern", "rate", "packet-flits", "cycles", "hotspot", "warmup")
		return usageError{explainSystemError(fs.FlagSet, err)}
	}
	if *progress {
		fmt.Fprintf(stderr, "\rtraffic: 100%% in %v\n", time.Since(start).Round(time.Millisecond))
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintf(stdout, "%s traffic on a %s %s (%d nodes), %d-flit packets, %d cycles (warm-up %d)\n",
		res.Pattern, dimsString(s.Dims), topologyNames[s.Topology], res.Nodes, *pflits, res.Cycles, cfg.Warmup)
	// Headers as written: the automatic format would split "p99" and
	// "flits/node/cycle" into "P 99" and "FLITS / NODE / CYCLE".
	tw := tablewriter.NewTable(stdout, tablewriter.WithHeaderAutoFormat(twopt.Off))
	tw.Header("OFFERED (FLITS/NODE/CYCLE)", "ACCEPTED", "LATENCY AVG", "LATENCY P99", "PACKETS MEASURED", "DRAINED")
	avg, p99 := fmt.Sprintf("%.2f", res.LatencyAvg), fmt.Sprintf("%.0f", res.LatencyP99)
	if res.Packets == 0 {
		avg, p99 = "none", "none" // no packet measured: no latency
	}
	tw.Append(fmt.Sprintf("%.4f", res.Offered), fmt.Sprintf("%.4f", res.Accepted), avg, p99, res.Packets, res.Drained)
	return tw.Render()
}

// optInt64 is an integer flag whose default depends on other flags: unset,
// it shows no default in the help (which says what it is) and set says so.
type optInt64 struct {
	v   int64
	set bool
}

func (o *optInt64) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatInt(o.v, 10)
}

func (o *optInt64) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return errors.New("not an integer")
	}
	o.v, o.set = v, true
	return nil
}
