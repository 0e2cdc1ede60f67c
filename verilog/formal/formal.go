// Package formal proves, with Yosys and its model checker ABC (yosys-abc's
// bmc3), that no barrier unit of a small generated system releases a rank
// before every rank of its episode has arrived in that episode
// (docs/testing.md, "Formal proof").
//
// Build renders a system's RTL exactly as verilog.Render writes it, plus a
// harness module hx_formal around hx_top: a reset, the configuration
// writes of testbench.ConfigWrites for one fixed sequence of episodes
// replayed through the APB ports, free arrivals in a window of cycles at
// the start of each episode, and the property as outputs that must stay
// 0. Run builds the models and checks them to a depth past the last
// episode's completion, the depth itself checked.
package formal

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"

	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/testbench"
	"github.com/hxbar/hxbar/verilog"
)

// Spec is one proof: a system running one sequence of episodes.
type Spec struct {
	Name   string
	Dims   []int          // one rank on every node
	Algos  []hw.Algorithm // the schedules the RTL is built for
	Seq    []hw.Algorithm // the episodes of this proof, in order
	Window int            // every rank arrives in one of the first Window cycles its episode runs
	// Fixed: episodes 1..Fixed run with every arrival at the window's end
	// (no free input), and output bnd marks the cycle episode Fixed
	// completes: a step proof's history (step.go). 0 in a sequence proof.
	Fixed int
}

// Systems are the proofs make formal runs: on 3 and 4 nodes, every
// sequence of three episodes of butterfly and dissemination
// (docs/testing.md, "Formal proof").
func Systems() []Spec {
	algos := []hw.Algorithm{hw.AlgoButterfly, hw.AlgoDissemination}
	var out []Spec
	for _, dims := range [][]int{{3}, {4}} {
		for i := range 8 {
			seq := []hw.Algorithm{algos[i>>2&1], algos[i>>1&1], algos[i&1]}
			name := fmt.Sprintf("line%d-", dims[0])
			for _, a := range seq {
				name += string(a)[:1]
			}
			out = append(out, Spec{Name: name, Dims: dims, Algos: algos, Seq: seq, Window: 6})
		}
	}
	return out
}

// system is the hw.System of s running the episodes algos.
func (s *Spec) system(algos []hw.Algorithm) (hw.System, error) {
	sys := hw.Default()
	sys.Name = "formal-" + s.Name
	sys.Dims = slices.Clone(s.Dims)
	sys.Ranks = 0
	sys.Op = hw.OpBarrier
	sys.Skew = 0
	sys.FlitWidth, sys.CRCBits, sys.BufferDepth = 16, 0, 2
	sys.Algo = algos[0]
	for _, a := range algos {
		sys.Episodes = append(sys.Episodes, hw.Episode{Algo: &a})
	}
	if err := sys.Validate(); err != nil {
		return sys, fmt.Errorf("system %s: %w", s.Name, err)
	}
	return sys, nil
}

// Job is a built proof: the files of a directory to run it in.
type Job struct {
	Spec
	Nodes   int
	Prefix  int               // cycles before episode 1 runs (reset, its writes): simulated, not searched
	Files   map[string][]byte // RTL library, hx_top.v, hx_formal.v, formal.ys
	Sources []string          // the Verilog files, in read order
	Unit    string            // "" for the library's hx_barrier_unit.v, else what replaced it
}

// Harness file names.
const (
	HarnessFile = "hx_formal.v"
	HarnessTop  = "hx_formal"
	ScriptFile  = "formal.ys"
	PropFile    = "property.ys"   // written by Run: PropertyScript of the bound
	ModelFile   = "model.il"      // the model after the simulated prefix
	AIGFile     = "hx_formal.aig" // the property: output 1 when an assert fails
	MapFile     = "hx_formal.aim" // its symbol map (which output is which assert)
	DoneFile    = "hx_done.aig"   // the same model, arrivals as late as allowed: output 1 when the last episode is complete
)

// An older unit (the pinned fixture of issue 20) lacks some of what
// today's tile passes it: parameters added since (NBANK, CRC_POLY, K4, K5,
// UP: unused or at their defaults in the proofs' systems) and the irq
// output (the tile's irq is then left undriven). Yosys, unlike Icarus,
// refuses a parameter the module does not declare.
var (
	unitInstance = regexp.MustCompile(`(?s)hx_barrier_unit\s*#\((.*?)\)\s+bu\s*\(`)
	namedParam   = regexp.MustCompile(`,?\s*\.(\w+)\([^()]*\)`)
	declared     = regexp.MustCompile(`parameter\s+(?:integer\s+)?(\w+)`)
	oldIrq       = regexp.MustCompile(`, \.irq\(irq(\[[0-9]+\])?\)`)
)

// pinOldUnit adapts the tile to an older unit: it drops the parameters
// the unit does not declare from the unit's instances, and the irq
// connection when the unit has no irq output.
func pinOldUnit(files map[string][]byte, unit []byte) {
	has := map[string]bool{}
	for _, m := range declared.FindAllSubmatch(unit, -1) {
		has[string(m[1])] = true
	}
	dropUnknown := func(inst []byte) []byte {
		return namedParam.ReplaceAllFunc(inst, func(p []byte) []byte {
			if has[string(namedParam.FindSubmatch(p)[1])] {
				return p
			}
			return nil
		})
	}
	text := unitInstance.ReplaceAllFunc(files["hx_tile.v"], func(inst []byte) []byte {
		loc := unitInstance.FindSubmatchIndex(inst)
		params := dropUnknown(inst[loc[2]:loc[3]])
		params = bytes.TrimPrefix(bytes.TrimLeft(params, " \n"), []byte(","))
		return slices.Concat(inst[:loc[2]], params, inst[loc[3]:])
	})
	if !bytes.Contains(unit, []byte("output               irq")) {
		text = oldIrq.ReplaceAll(text, nil)
	}
	files["hx_tile.v"] = text
}

// Build renders the proof of s. unit, when not nil, replaces the library's
// hx_barrier_unit.v (unitName says what it is, for the report).
func Build(s Spec, unit []byte, unitName string) (*Job, error) {
	if len(s.Algos) == 0 || len(s.Seq) < 1 || s.Window < 1 {
		return nil, fmt.Errorf("proof %s: needs algos, at least one episode and window >= 1", s.Name)
	}
	// The RTL is built for every schedule: one episode of each sizes the
	// units' RAMs for all of them.
	sys, err := s.system(s.Algos)
	if err != nil {
		return nil, err
	}
	d, err := design.New(sys, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("proof %s: %w", s.Name, err)
	}
	if d.Ranks() != d.Topo.Nodes {
		return nil, fmt.Errorf("proof %s: %d ranks on %d nodes (the harness wants one on every node)", s.Name, d.Ranks(), d.Topo.Nodes)
	}
	m, files, err := verilog.Render(d)
	if err != nil {
		return nil, fmt.Errorf("proof %s: %w", s.Name, err)
	}
	j := &Job{Spec: s, Nodes: d.Topo.Nodes, Files: map[string][]byte{}, Unit: unitName}
	for _, f := range files {
		if slices.Contains(m.Sources, f.Name) {
			j.Files[f.Name] = f.Data
		}
	}
	if unit != nil {
		j.Files["hx_barrier_unit.v"] = unit
		pinOldUnit(j.Files, unit)
	}
	progs, err := s.programs(d.Topo.Nodes)
	if err != nil {
		return nil, err
	}
	// Reset, the setup cycle, then episode 1's longest port's writes (an
	// episode 1 without writes would run in the setup cycle, inside the
	// prefix; every generated episode 1 writes its tables).
	j.Prefix = 0
	for _, w := range progs[0] {
		j.Prefix = max(j.Prefix, 2+len(w))
	}
	if j.Prefix == 0 {
		return nil, fmt.Errorf("proof %s: episode 1 writes nothing (the harness simulates its writes as the prefix)", s.Name)
	}
	j.Files[HarnessFile] = harness(j, progs)
	j.Sources = append(slices.Clone(m.Sources), HarnessFile)
	j.Files[ScriptFile] = script(j.Sources, j.Prefix)
	return j, nil
}

// programs returns what every port writes at the start of every episode
// of the sequence: progs[e][p] for episode e+1 and port p (the nodes'
// ports, then the fabric's), as the co-simulation replays a design running
// the episodes so far.
func (s *Spec) programs(nodes int) ([][][]testbench.ConfigWrite, error) {
	var progs [][][]testbench.ConfigWrite
	for k := 1; k <= len(s.Seq); k++ {
		sys, err := s.system(s.Seq[:k])
		if err != nil {
			return nil, err
		}
		d, err := design.New(sys, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("proof %s, episodes %v: %w", s.Name, s.Seq[:k], err)
		}
		ws, err := testbench.ConfigWrites(d)
		if err != nil {
			return nil, fmt.Errorf("proof %s, episodes %v: %w", s.Name, s.Seq[:k], err)
		}
		per := make([][]testbench.ConfigWrite, nodes+1)
		for _, w := range ws {
			if w.Episode != k {
				continue
			}
			p := w.Port
			if p == testbench.FabricPort {
				p = nodes
			}
			per[p] = append(per[p], w)
		}
		progs = append(progs, per)
	}
	return progs, nil
}

// script is the Yosys script that builds the model and writes the bound's
// AIGER model. The RTL is read as synthesis reads it (SYNTHESIS defined:
// no simulation checks), the harness with its checks as outputs. The reset
// and episode 1's writes depend on no free input (arrivals are masked
// until the episode runs): Yosys' simulator runs them and their end state
// becomes the model's initial state; what they leave unknown (a RAM word
// never written, a register without reset) stays unknown: write_aiger
// -zinit gives it a free initial value.
func script(sources []string, prefix int) []byte {
	b := []byte("# generated by hxbar (verilog/formal): the proof's model (model.il) and its bound's AIGER model\n")
	for _, s := range sources {
		b = fmt.Appendf(b, "read_verilog %s\n", s)
	}
	b = fmt.Appendf(b, "prep -flatten -top %s\nmemory_map\nopt -fast\n", HarnessTop)
	b = fmt.Appendf(b, "sim -clock clk -n %d -w -q %s\n", prefix, HarnessTop)
	b = fmt.Appendf(b, "setundef -undriven -zero\nasync2sync\nwrite_rtlil %s\n", ModelFile)
	// The bound: arrivals at the window's end and done the only output;
	// its first frame is the longest run.
	b = fmt.Appendf(b, "delete -port %[1]s/early %[1]s/refused %[1]s/late %[1]s/arr %[1]s/bound\nconnect -set arr 0\nconnect -set bound 0\n", HarnessTop)
	b = append(b, aiger("hx_done.aim", DoneFile)...)
	return b
}

// PropertyScript is the Yosys script that writes the property's AIGER
// model from script's model: outputs early, refused and late, with the
// last episode due by cycle bound.
func PropertyScript(bound int) []byte {
	b := []byte("# generated by hxbar (verilog/formal): the property's AIGER model\n")
	b = fmt.Appendf(b, "read_rtlil %s\n", ModelFile)
	b = fmt.Appendf(b, "delete -port %[1]s/done %[1]s/bound\nconnect -set bound %[2]d\n", HarnessTop, bound)
	return append(b, aiger(MapFile, AIGFile)...)
}

// aigerFlat is aiger for a model with assumptions ($assume cells, a step
// proof's): without -miter, so that they become constraints; every output
// is still a property ABC checks.
func aigerFlat(mapFile, aigFile string) []byte {
	return bytes.Replace(aiger(mapFile, aigFile), []byte(" -miter "), []byte(" "), 1)
}

// aiger lowers the design to AND gates and latches and writes it, every
// output a bad state, flip-flops of unknown initial value given a free one.
func aiger(mapFile, aigFile string) []byte {
	return fmt.Appendf(nil, "techmap\nopt -fast\ndffunmap\naigmap\nopt_clean\nsetundef -undriven -zero\nsetundef -zero\nwrite_aiger -zinit -miter -map %s %s\n", mapFile, aigFile)
}
