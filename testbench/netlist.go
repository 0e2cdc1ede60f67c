package testbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/hxbar/hxbar/internal/outfile"
	"github.com/hxbar/hxbar/internal/procgroup"
	"github.com/hxbar/hxbar/verilog"
	"github.com/hxbar/hxbar/verilog/synth"
)

// Gate-level co-simulation (docs/cosim.md, "Gate-level co-simulation"):
// the design of a directory synthesized by Yosys, its netlist written
// with write_verilog and simulated by the directory's own testbench under
// Icarus. Everything lives in the directory's NetlistDir.
const (
	NetlistDir    = "netlist"       // subdirectory of a design directory
	NetlistFile   = "hx_netlist.v"  // the netlist (write_verilog), in NetlistDir
	NetlistScript = "hx_netlist.ys" // the Yosys script that wrote it
	netlistLog    = "yosys.log"
	netlistStat   = "stat.txt"
	netlistStamp  = NetlistFile + stampSuffix // hash of the sources and script it was made from
	netlistVVP    = "sim.vvp"                 // the netlist testbench's Icarus build
)

// installYosys installs Yosys on Debian/Ubuntu.
const installYosys = "apt-get install -y yosys"

// MonitorSignals are the unit signals the testbench's monitor reads
// hierarchically (tb.v): registers nothing in the design reads, so that
// synthesis would remove them. The netlist's synthesis keeps them (keep,
// and fsm_encoding none so that no FSM recoding renames them); they drive
// nothing, so the rest of the netlist is what synth builds without them.
var MonitorSignals = []string{"ev_*", "has_rank", "rank"}

// Netlist is the synthesis of a design directory for a gate-level run.
type Netlist struct {
	File      string        // the netlist, dir/NetlistDir/NetlistFile
	Cells     int           // cells of the whole design (Yosys stat, hierarchy counted)
	SynthTime time.Duration // wall time of the Yosys run (0: an up-to-date netlist was reused)
	Reused    bool          // the netlist was made by an earlier run from the same sources
}

// NetlistYosysScript is the Yosys script of a gate-level run: sources (the
// design's files, relative to the directory Yosys runs in) read with
// SYNTHESIS defined, as hxbar synth reads them; the monitor's signals
// kept; synth -top hx_top (hierarchy kept: the testbench's paths name
// modules, docs/cosim.md); the netlist written by write_verilog, every
// Yosys cell as a Verilog expression or flip-flop process.
func NetlistYosysScript(sources []string) string {
	var keep []string
	for _, s := range MonitorSignals {
		keep = append(keep, "w:"+s)
	}
	return strings.Join([]string{
		"read_verilog -defer -DSYNTHESIS " + strings.Join(sources, " "),
		"hierarchy -top " + verilog.TopModule,
		`setattr -set keep 1 -set fsm_encoding "none" ` + strings.Join(keep, " "),
		"synth -top " + verilog.TopModule,
		"check -assert",
		"tee -q -o " + NetlistDir + "/" + netlistStat + " stat",
		"write_verilog -noattr " + NetlistDir + "/" + NetlistFile,
	}, "\n") + "\n"
}

// Synthesize writes dir's netlist (dir/NetlistDir/NetlistFile) with Yosys,
// unless the one there was made from the same sources and script: a
// netlist is reused, as it stands, while the design's sources are
// unchanged, so a netlist edited by hand is the design under test (the
// mutation check of docs/cosim.md). A missing yosys is a *ToolError, a
// failed run a *synth.YosysError.
func Synthesize(ctx context.Context, dir string) (*Netlist, error) {
	ys, err := exec.LookPath(synth.Yosys)
	if err != nil {
		return nil, &ToolError{Tool: synth.Yosys, Install: installYosys}
	}
	srcs, err := synth.Sources(dir)
	if err != nil {
		return nil, err
	}
	nd := filepath.Join(dir, NetlistDir)
	if err := os.MkdirAll(nd, 0o755); err != nil {
		return nil, err
	}
	script := NetlistYosysScript(srcs)
	h := []string{script}
	for _, f := range srcs {
		data, err := inputfile.Read(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		h = append(h, f, string(data))
	}
	stamp := hashStrings(h)
	nl := &Netlist{File: filepath.Join(nd, NetlistFile)}
	if old, err := inputfile.ReadCapped(filepath.Join(nd, netlistStamp), 4<<10); err == nil && string(old) == stamp && exists(nl.File) {
		nl.Reused = true
		nl.Cells, err = netlistCells(nd)
		return nl, err
	}
	os.Remove(filepath.Join(nd, netlistStamp))
	for _, f := range []string{NetlistScript, netlistLog, netlistStat, NetlistFile} {
		if err := outfile.Check(filepath.Join(nd, f)); err != nil {
			return nil, err
		}
	}
	if err := outfile.WriteFile(filepath.Join(nd, NetlistScript), []byte(script), 0o644); err != nil {
		return nil, err
	}
	start := time.Now()
	cmd := procgroup.Command(ctx, ys, "-q", "-l", NetlistDir+"/"+netlistLog, "-s", NetlistDir+"/"+NetlistScript)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := procgroup.Run(cmd)
	nl.SynthTime = time.Since(start)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("yosys stopped: %w", ctx.Err())
	}
	if runErr != nil {
		log, _ := inputfile.Read(filepath.Join(nd, netlistLog))
		msg := yosysErrors(string(log))
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		return nil, &synth.YosysError{Dir: dir, Err: runErr, Msg: msg}
	}
	if nl.Cells, err = netlistCells(nd); err != nil {
		return nil, err
	}
	if err := outfile.WriteFile(filepath.Join(nd, netlistStamp), []byte(stamp), 0o644); err != nil {
		return nil, err
	}
	return nl, nil
}

// yosysErrors picks the ERROR lines out of a Yosys log.
func yosysErrors(log string) string {
	var keep []string
	for _, l := range strings.Split(log, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "ERROR") {
			keep = append(keep, t)
		}
	}
	return strings.Join(keep, "; ")
}

var cellsLine = regexp.MustCompile(`Number of cells:\s+(\d+)`)

// netlistCells reads the design's cell count from the stat output in nd:
// its last "Number of cells" (the hierarchy's total; a design of one
// module has only its own).
func netlistCells(nd string) (int, error) {
	data, err := inputfile.Read(filepath.Join(nd, netlistStat))
	if err != nil {
		return 0, err
	}
	m := cellsLine.FindAllSubmatch(data, -1)
	if len(m) == 0 {
		return 0, fmt.Errorf("%s: no cell count in Yosys's stat", filepath.Join(nd, netlistStat))
	}
	return strconv.Atoi(string(m[len(m)-1][1]))
}

// NetlistPath spells an RTL instance path (e.g. tile3.g_unit.bu) as it is
// in a netlist that keeps the hierarchy: Yosys names an instance inside
// generate blocks by one escaped identifier, the blocks' names and the
// instance's joined by dots (\g_unit.bu ). A segment is a generate block
// when it starts with "g_" or is a block of hx_barrier_node's ch[c]
// (docs/rtl.md, "Hierarchy"); the others are instance names.
func NetlistPath(path string) string {
	var out, scopes []string
	for _, seg := range strings.Split(path, ".") {
		if strings.HasPrefix(seg, "g_") || strings.HasPrefix(seg, "ch[") {
			scopes = append(scopes, seg)
			continue
		}
		if len(scopes) == 0 {
			out = append(out, seg)
			continue
		}
		out = append(out, `\`+strings.Join(append(scopes, seg), ".")+" ")
		scopes = nil
	}
	return strings.Join(out, ".")
}

// netlistTB is tb.v (tb, as Generate wrote it for s) for the netlist: the
// same text but the monitor's hierarchical paths spelled as the netlist
// names them (NetlistPath). A path left in its RTL spelling is an error.
func netlistTB(s *design.Design, tb []byte) ([]byte, error) {
	chans := verilog.UsesChannels(s)
	var pairs []string
	for n := s.Fabric.NumNodes() - 1; n >= 0; n-- { // tile10 before tile1
		p := verilog.UnitPath(n, chans)
		pairs = append(pairs, "dut."+p+".", "dut."+NetlistPath(p)+".")
	}
	out := strings.NewReplacer(pairs...).Replace(string(tb))
	if chans {
		out = chanPath.ReplaceAllStringFunc(out, func(m string) string {
			return "." + NetlistPath(m[1:len(m)-1]) + "."
		})
	}
	for _, rtl := range []string{".g_unit.bu.", ".g_node.bu.", "].u."} {
		if i := strings.Index(out, rtl); i >= 0 {
			return nil, fmt.Errorf("netlist testbench: %q left in its RTL spelling (%q)", rtl, out[max(0, i-40):min(len(out), i+40)])
		}
	}
	return []byte(out), nil
}

var chanPath = regexp.MustCompile(`\.ch\[\d+\]\.u\.`)

// runNetlist writes the netlist's testbench (tb, respelled by netlistTB)
// into dir/NetlistDir and runs it under Icarus, in dir (where the data
// files are), on the netlist as it stands.
func runNetlist(ctx context.Context, dir string, s *design.Design, tb []byte) (*RunResult, error) {
	for _, t := range []ToolError{{"iverilog", installIcarus}, {"vvp", installIcarus}} {
		if _, err := exec.LookPath(t.Tool); err != nil {
			return nil, &t
		}
	}
	ntb, err := netlistTB(s, tb)
	if err != nil {
		return nil, err
	}
	nd := filepath.Join(dir, NetlistDir)
	if err := outfile.WriteFile(filepath.Join(nd, TBFile), ntb, 0o644); err != nil {
		return nil, err
	}
	if err := outfile.Check(filepath.Join(nd, netlistVVP)); err != nil {
		return nil, err
	}
	if err := checkDataFiles(dir); err != nil {
		return nil, err
	}
	srcs := []string{NetlistDir + "/" + NetlistFile, NetlistDir + "/" + TBFile}
	var h []string
	for _, f := range append(srcs, paramsFile) {
		data, err := inputfile.Read(filepath.Join(dir, f))
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s: regenerate with '%s'", dir, f, RegenerateCommand(dir))
		}
		if err != nil {
			return nil, err
		}
		h = append(h, f, string(data))
	}
	// tb.v includes hx_params.vh from dir: -I.
	return runBuild(ctx, dir, Icarus, append([]string{"-I."}, srcs...), hashStrings(h), NetlistDir+"/"+netlistVVP, nil)
}
