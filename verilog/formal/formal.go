// Package formal proves, with Yosys' yosys-smtbmc and an SMT solver, that
// no barrier unit of a small generated system releases a rank before every
// rank of its episode has arrived in that episode (docs/testing.md,
// "Formal proof").
//
// Build renders a system's RTL exactly as verilog.Render writes it, plus a
// harness module hx_formal around hx_top: a reset, the configuration
// writes of testbench.ConfigWrites replayed through the APB ports as the
// co-simulation testbench replays them, free arrival inputs constrained to
// what the CPU interface allows, a free choice of each episode's schedule,
// and the property as an assert. Check runs the bounded model check.
package formal

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/testbench"
	"github.com/hxbar/hxbar/verilog"
)

// Spec is one system of the proof.
type Spec struct {
	Name     string
	Dims     []int          // one rank on every node
	Algos    []hw.Algorithm // each episode runs any one of these
	Episodes int            // every sequence of up to this many episodes
	Depth    int            // BMC steps (cycles, the reset cycle included)
}

// Systems are the systems make formal proves. The depth covers the reset,
// episode 1's configuration and three episodes with arrivals spread over
// several cycles (docs/testing.md, "Formal proof").
func Systems() []Spec {
	algos := []hw.Algorithm{hw.AlgoButterfly, hw.AlgoDissemination}
	return []Spec{
		{Name: "line3", Dims: []int{3}, Algos: algos, Episodes: 3, Depth: 130},
		{Name: "line4", Dims: []int{4}, Algos: algos, Episodes: 3, Depth: 130},
	}
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
	Files   map[string][]byte // RTL library, hx_top.v, hx_formal.v, formal.ys
	Sources []string          // the Verilog files, in read order
	Unit    string            // "" for the library's hx_barrier_unit.v, else what replaced it
}

// Harness file names.
const (
	HarnessFile = "hx_formal.v"
	HarnessTop  = "hx_formal"
	ScriptFile  = "formal.ys"
	AIGFile     = "hx_formal.aig"
	MapFile     = "hx_formal.aim"
)

// Build renders the proof of s. unit, when not nil, replaces the library's
// hx_barrier_unit.v (unitName says what it is, for the report).
func Build(s Spec, unit []byte, unitName string) (*Job, error) {
	if len(s.Algos) == 0 || s.Episodes < 1 || s.Depth < 1 {
		return nil, fmt.Errorf("system %s: needs algos, episodes >= 1 and depth >= 1", s.Name)
	}
	// The RTL is built for every schedule: one episode of each sizes the
	// units' RAMs for all of them.
	sys, err := s.system(s.Algos)
	if err != nil {
		return nil, err
	}
	d, err := design.New(sys, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("system %s: %w", s.Name, err)
	}
	if d.Ranks() != d.Topo.Nodes {
		return nil, fmt.Errorf("system %s: %d ranks on %d nodes (the harness wants one on every node)", s.Name, d.Ranks(), d.Topo.Nodes)
	}
	m, files, err := verilog.Render(d)
	if err != nil {
		return nil, fmt.Errorf("system %s: %w", s.Name, err)
	}
	j := &Job{Spec: s, Nodes: d.Topo.Nodes, Files: map[string][]byte{}, Unit: unitName}
	for _, f := range files {
		if slices.Contains(m.Sources, f.Name) {
			j.Files[f.Name] = f.Data
		}
	}
	if unit != nil {
		j.Files["hx_barrier_unit.v"] = unit
		// An older unit may lack parameters today's top passes (the old
		// fixture has no CRC_POLY; with crc_bits 0 it is unused).
		if !bytes.Contains(unit, []byte("CRC_POLY")) {
			top := j.Files[verilog.TopFile]
			j.Files[verilog.TopFile] = bytes.ReplaceAll(top, []byte(", .CRC_POLY(CRC_POLY)"), nil)
		}
	}
	progs, err := s.programs(d.Topo.Nodes)
	if err != nil {
		return nil, err
	}
	j.Files[HarnessFile] = harness(j, progs)
	j.Sources = append(slices.Clone(m.Sources), HarnessFile)
	j.Files[ScriptFile] = script(j.Sources)
	return j, nil
}

// programs returns the configuration program of every node of the episode
// tree: node 0 is the root (nothing configured yet), node h's children are
// h*A+1+c for the schedules c = 0..A-1, so a node at depth k is a sequence
// of k episodes. progs[h][p] is what port p (the nodes' ports, then the
// fabric) writes at the start of the last episode of sequence h.
func (s *Spec) programs(nodes int) ([][][]testbench.ConfigWrite, error) {
	progs := [][][]testbench.ConfigWrite{nil}
	var walk func(seq []hw.Algorithm) error
	walk = func(seq []hw.Algorithm) error {
		if len(seq) == s.Episodes {
			return nil
		}
		for _, a := range s.Algos {
			next := append(slices.Clone(seq), a)
			sys, err := s.system(next)
			if err != nil {
				return err
			}
			d, err := design.New(sys, nil, nil)
			if err != nil {
				return fmt.Errorf("system %s, episodes %v: %w", s.Name, next, err)
			}
			ws, err := testbench.ConfigWrites(d)
			if err != nil {
				return fmt.Errorf("system %s, episodes %v: %w", s.Name, next, err)
			}
			h := seqIndex(next, s.Algos)
			for len(progs) <= h {
				progs = append(progs, nil)
			}
			per := make([][]testbench.ConfigWrite, nodes+1)
			for _, w := range ws {
				if w.Episode != len(next) {
					continue
				}
				p := w.Port
				if p == testbench.FabricPort {
					p = nodes
				}
				per[p] = append(per[p], w)
			}
			progs[h] = per
		}
		for _, a := range s.Algos {
			if err := walk(append(slices.Clone(seq), a)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(nil); err != nil {
		return nil, err
	}
	return progs, nil
}

// seqIndex is the tree node of the sequence seq (see programs).
func seqIndex(seq, algos []hw.Algorithm) int {
	h := 0
	for _, a := range seq {
		h = h*len(algos) + 1 + slices.Index(algos, a)
	}
	return h
}

// script is the Yosys script that turns the sources into hx_formal.smt2.
func script(sources []string) []byte {
	b := []byte("# generated by hxbar (verilog/formal): the proof's model for yosys-smtbmc\n")
	// The RTL as synthesis reads it (SYNTHESIS defined: no simulation
	// checks), the harness with its assert, assume and cover.
	for _, s := range sources {
		if s == HarnessFile {
			b = fmt.Appendf(b, "read_verilog -formal %s\n", s)
		} else {
			b = fmt.Appendf(b, "read_verilog %s\n", s)
		}
	}
	// ABC's bmc3 on the AIGER model: unread RAM words and x constants read
	// 0 (no free input per bit and cycle); the cover is for smtbmc only.
	b = fmt.Appendf(b, "prep -flatten -top %s\nmemory_map\nopt -fast\nchformal -remove -cover\nsetundef -undriven -zero\nsetundef -zero\nasync2sync\ntechmap\nopt -fast\ndffunmap\naigmap\nopt_clean\nsetundef -undriven -zero\nsetundef -zero\nwrite_aiger -zinit -map %s %s\n", HarnessTop, MapFile, AIGFile)
	return b
}
