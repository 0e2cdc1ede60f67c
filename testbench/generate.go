package testbench

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/gendir"
	"github.com/hxbar/hxbar/verilog"
)

// Files returns the names of the files Generate writes, in the order it
// writes them.
func Files() []string {
	return []string{TBFile, ScenarioFile, ConfigFile, ExpectedFile, RunScript, MakefileName, SourcesFile}
}

// PartTestbench is the gendir part of the files Render returns.
const PartTestbench = "testbench"

// Generate writes the testbench for d into dir (see Render) through
// gendir.Write: an existing directory must be one hxbar wrote or empty, and
// a file the directory's manifest does not own (a user's file, an edited
// generated file, a symlink) is never overwritten (a *gendir.RefusedError
// names it). dir is expected to hold (or to receive) the design that
// verilog.Generate writes for the same d; its files are kept.
func Generate(dir string, d *design.Design, expected []byte) error {
	files, err := Render(d, expected)
	if err != nil {
		return err
	}
	if dir == "" {
		return errors.New("output directory: empty name")
	}
	_, err = gendir.Write(dir, files, gendir.Options{Parts: []string{PartTestbench}, Tool: "hxbar (testbench.Generate)"})
	return err
}

// Render returns the testbench for d, in memory (part PartTestbench):
// tb.v, scenario.hex, expected.hex, run.sh (mode 0755), Makefile and
// hx_sources.f, the list of the sources to compile (the RTL library,
// hx_top.v, tb.v: the simulators compile these and no other .v file). See
// the package comment and docs/cosim.md. expected is the model's event
// trace for d, as sim.System.Run writes it; it must be complete (every
// rank released), since a testbench can only pass a run that completes.
// The scenario is d's: every episode's arrivals (design.Design.Arrivals).
//
// The same d and expected always give byte-identical files; tb.v depends
// only on the system's name, its node count and the number of events, so
// regenerating for another seed of the same system leaves it unchanged (and
// a compiled simulation reusable: the data files are read at run time).
func Render(d *design.Design, expected []byte) ([]gendir.File, error) {
	m, err := testbenchFiles(d, expected)
	if err != nil {
		return nil, err
	}
	var out []gendir.File
	for _, name := range Files() {
		mode := fs.FileMode(0o644)
		if name == RunScript {
			mode = 0o755
		}
		out = append(out, gendir.File{Name: name, Data: m[name], Mode: mode, Part: PartTestbench})
	}
	return out, nil
}

// Sources is the list of the files a testbench directory compiles, in
// order: the RTL library, hx_top.v, tb.v.
func Sources() []string {
	return append(append(verilog.Library(), verilog.TopFile), TBFile)
}

// testbenchFiles renders every file Generate writes.
func testbenchFiles(s *design.Design, expected []byte) (map[string][]byte, error) {
	if s == nil || s.Topo == nil && verilog.Torus(s) == nil {
		return nil, errors.New("testbench: no hyper-crossbar or torus design (use design.New)")
	}
	if s.Sys.Duplex != hw.DuplexFull {
		return nil, fmt.Errorf("testbench: duplex %q: the RTL is full duplex only (half duplex is a model-only what-if)", s.Sys.Duplex)
	}
	var plan *verilog.Channels // a run of communicators: a slot per node and channel
	var err error
	if verilog.UsesChannels(s) {
		if plan, err = verilog.ChannelPlan(s); err != nil {
			return nil, err
		}
	}
	evs, err := parseTrace(expected, plan != nil)
	if err != nil {
		return nil, fmt.Errorf("expected trace: %w", err)
	}
	var cycles int64
	if plan != nil {
		cycles, err = channelCheckTrace(s, plan, evs) // in the monitor's order (Trace)
	} else {
		cycles, err = checkTrace(s, evs)
	}
	if err != nil {
		return nil, fmt.Errorf("expected trace: %w", err)
	}
	last := cycles - 1
	limit := last + 64 + last/4
	if mc := s.Sys.MaxCycles; mc > last+drainCycles+2 && mc < limit {
		limit = mc
	}
	if limit >= 1<<maxCycleBits {
		return nil, fmt.Errorf("expected trace: cycle %d does not fit the %d-bit cycle field of %s", limit, maxCycleBits, ExpectedFile)
	}
	var writes []cfgWrite
	scen, ni := []byte(nil), s.Sys.IterationCount()
	if plan != nil {
		writes, err = channelWrites(s, plan)
		scen, ni = channelScenario(s, plan)
	} else {
		writes, err = episodeWrites(s)
		scen = scenarioFile(s)
	}
	if err != nil {
		return nil, err
	}
	inj, err := faultInjection(s)
	if err != nil {
		return nil, err
	}
	ne := s.NumEpisodes()
	return map[string][]byte{
		TBFile:       tbText(s.Sys.Title(), s.Fabric.NumNodes(), len(evs), ne, ni, len(writes), inj, plan),
		ConfigFile:   configFile(s.Sys.Title(), ne, writes),
		ScenarioFile: scen,
		ExpectedFile: expectedFile(s.Sys.Title(), s.Fabric.NumNodes(), s.Ranks(), evs, cycles, limit),
		RunScript:    []byte(strings.ReplaceAll(runScript, "@VERILATOR_OPTIONS@", verilatorOptions(s.Fabric.NumNodes()))),
		MakefileName: []byte(strings.ReplaceAll(makefile, "@VERILATOR_OPTIONS@", verilatorOptions(s.Fabric.NumNodes()))),
		SourcesFile:  []byte(strings.Join(Sources(), "\n") + "\n"),
	}, nil
}

// checkTrace checks that a parsed trace belongs to s and is complete: every
// event on a node that hosts a rank, arrival and release events naming that
// rank, every rank released once per episode (per iteration of a loop). It returns the run's cycle
// count (last release + 1).
func checkTrace(s *design.Design, evs []barrierunit.Event) (int64, error) {
	nodes := s.Fabric.NumNodes()
	rankOf := make([]int32, nodes)
	for n := range rankOf {
		rankOf[n] = int32(s.RankOf(n))
	}
	E := s.NumEpisodes() * s.Sys.IterationCount() // releases per rank (a loop has one episode)
	R := s.Ranks()
	released := make([]int, R) // releases of each rank so far
	nrel := 0
	var last int64 = -1
	errs := false
	for i, e := range evs {
		// A unit's error (docs/microarchitecture.md, "Error paths") may
		// be on a node without a rank (NORANK), and ends the run
		// without every release. Its source is what the flit's header
		// held: a flipped head mark makes data a header, so any rank.
		if e.Kind == barrierunit.EvError {
			if int(e.Node) >= nodes {
				return 0, fmt.Errorf("event #%d %q: node %d out of range (the fabric has %d nodes)", i, FormatEvent(e), e.Node, nodes)
			}
			errs = true
			continue
		}
		if int(e.Node) >= nodes || rankOf[e.Node] < 0 {
			return 0, fmt.Errorf("event #%d %q: node %d hosts no rank of this system", i, FormatEvent(e), e.Node)
		}
		r := rankOf[e.Node]
		switch e.Kind {
		case barrierunit.EvArrive, barrierunit.EvRelease:
			if e.Rank != r {
				return 0, fmt.Errorf("event #%d %q: node %d hosts rank %d", i, FormatEvent(e), e.Node, r)
			}
		case barrierunit.EvSend, barrierunit.EvRecv:
			if int(e.Rank) >= R {
				return 0, fmt.Errorf("event #%d %q: rank %d out of range (the system has %d ranks)", i, FormatEvent(e), e.Rank, R)
			}
		}
		if e.Kind == barrierunit.EvRelease {
			if released[r] == E {
				return 0, fmt.Errorf("event #%d %q: rank %d released %d times, more than the %d episodes", i, FormatEvent(e), r, E+1, E)
			}
			released[r]++
			nrel++
			last = e.Cycle
		}
	}
	if nrel < E*R && !errs {
		for r, n := range released {
			if n < E {
				return 0, fmt.Errorf("rank %d (node %d) is released in %d of %d episodes: the model's run did not complete, so there is nothing a testbench could pass", r, s.NodeOf(r), n, E)
			}
		}
	}
	if n := len(evs); n > 0 && evs[n-1].Cycle > last {
		return evs[n-1].Cycle + 1, nil
	}
	return last + 1, nil
}

const runScript = `#!/bin/sh
# run.sh: run the hxbar testbench in this directory without Go (docs/cosim.md).
#
#   ./run.sh                      Icarus Verilog (iverilog + vvp)
#   ./run.sh verilator            Verilator 5 (--binary, build in obj_dir/)
#   ./run.sh icarus +vcd          extra arguments are plusargs: +vcd dumps hx.vcd,
#                                 +context=N, +scenario=FILE, +expected=FILE
#   ./run.sh check                only check that the testbench is the one
#                                 generated for system.yaml and that no file
#                                 of the design is missing (make runs this)
#
# The sources compiled are those hx_sources.f lists (the RTL library,
# hx_top.v, tb.v), no other .v file of the directory. tb.v, scenario.hex,
# expected.hex and system.yaml must be as hxbar wrote them (their SHA-256
# in hxbar-manifest.json); the RTL, the tables and hx_sources.f may be
# edited, they are the design under test.
#
# Prints the event trace, then exactly one line "PASS ..." or "FAIL ...";
# the exit status is 0 only for PASS (2 for a directory that cannot run).
set -eu
cd "$(dirname "$0")"
dir=$(pwd)
sim=${1:-icarus}
[ $# -gt 0 ] && shift
regen="hxbar gen --config $dir/system.yaml"
[ -f schedule.json ] && regen="$regen --schedule $dir/schedule.json"
[ -f data-schedule.json ] && regen="$regen --schedule $dir/data-schedule.json"
regen="$regen --out $dir"
[ -f system.yaml ] || { echo "$dir: no system.yaml: write the directory with 'hxbar gen --out $dir'" >&2; exit 2; }
# the system's name, or for an unnamed system the title hxbar gave it
name=$(sed -n 's/^name: *//p' system.yaml | head -n 1 | tr -d '"')
[ -n "$name" ] || name=$(sed -n 's/^# configuration: *//p' system.yaml | head -n 1)
[ -f hxbar-manifest.json ] || { echo "$dir: no hxbar-manifest.json: regenerate with '$regen'" >&2; exit 2; }
if command -v sha256sum >/dev/null 2>&1; then sum="sha256sum"
elif command -v shasum >/dev/null 2>&1; then sum="shasum -a 256"
else sum=""; echo "run.sh: no sha256sum or shasum: the testbench is not checked against hxbar-manifest.json" >&2
fi
if [ -n "$sum" ]; then
    for f in tb.v scenario.hex expected.hex system.yaml; do
        [ -f "$f" ] || { echo "$dir: no $f: regenerate with '$regen'" >&2; exit 2; }
        want=$(grep -F "\"name\": \"$f\"" hxbar-manifest.json | sed 's/.*"sha256": "\([0-9a-f]*\)".*/\1/')
        have=$($sum "$f" | cut -d ' ' -f 1)
        [ "$want" = "$have" ] || { echo "$dir: $f is not the one generated for system $name (stale or edited); regenerate with '$regen'" >&2; exit 2; }
    done
fi
for f in $(grep -F '"part": "design"' hxbar-manifest.json | sed 's/.*"name": "\([^"]*\)".*/\1/'); do
    [ -f "$f" ] || { echo "$dir: no $f (a file of the design): regenerate with '$regen'" >&2; exit 2; }
done
case $sim in
check)
    exit 0
    ;;
icarus)
    for t in iverilog vvp; do
        command -v $t >/dev/null 2>&1 || { echo "$t not found: install Icarus Verilog with 'apt-get install -y iverilog'" >&2; exit 2; }
    done
    echo "run.sh: system $name, Icarus Verilog" >&2
    iverilog -g2005 -s hx_tb -o sim.vvp -c hx_sources.f
    exec vvp -N sim.vvp "$@"
    ;;
verilator)
    for t in verilator make g++; do
        command -v $t >/dev/null 2>&1 || { echo "$t not found: install Verilator with 'apt-get install -y verilator make g++'" >&2; exit 2; }
    done
    echo "run.sh: system $name, Verilator" >&2
    verilator @VERILATOR_OPTIONS@ --top-module hx_tb -Mdir obj_dir -o hx_tb -f hx_sources.f >obj_dir.log 2>&1 || { cat obj_dir.log >&2; exit 2; }
    exec ./obj_dir/hx_tb "$@"
    ;;
*)
    echo "usage: ./run.sh [icarus|verilator|check] [+plusargs]" >&2
    exit 2
    ;;
esac
`

const makefile = `# Makefile: run the hxbar testbench in this directory without Go (docs/cosim.md).
#
#   make             Icarus Verilog: compile sim.vvp, run it
#   make vcd         the same, dumping the waveform hx.vcd
#   make verilator   Verilator 5: build obj_dir/hx_tb, run it
#   make check       check the testbench against hxbar-manifest.json (every run does)
#   make clean       remove the builds and hx.vcd
#
# Each run prints the event trace, then exactly one line "PASS ..." or
# "FAIL ..."; the exit status is 0 only for PASS. The design is the files
# hx_sources.f lists (the RTL library, hx_top.v, tb.v), no other .v file;
# the tables and the data files are read when the simulation starts, so
# editing them needs no rebuild.
IVERILOG  ?= iverilog
VVP       ?= vvp
VERILATOR ?= verilator
SRCS      := $(shell cat hx_sources.f)

.PHONY: all icarus vcd verilator check clean

all: icarus

check:
	@sh ./run.sh check

sim.vvp: $(SRCS) hx_params.vh hx_sources.f
	@sh ./run.sh check
	$(IVERILOG) -g2005 -s hx_tb -o $@ -c hx_sources.f

icarus: sim.vvp
	@sh ./run.sh check
	$(VVP) -N sim.vvp

vcd: sim.vvp
	@sh ./run.sh check
	$(VVP) -N sim.vvp +vcd

obj_dir/hx_tb: $(SRCS) hx_params.vh hx_sources.f
	@sh ./run.sh check
	$(VERILATOR) @VERILATOR_OPTIONS@ --top-module hx_tb -Mdir obj_dir -o hx_tb -f hx_sources.f

verilator: obj_dir/hx_tb
	@sh ./run.sh check
	./obj_dir/hx_tb

clean:
	rm -rf sim.vvp sim.vvp.stamp obj_dir obj_dir.log hx.vcd
`
