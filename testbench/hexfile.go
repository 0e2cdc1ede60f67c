package testbench

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/sim"
)

// File names written by Generate.
const (
	TBFile       = "tb.v"         // the testbench, module TBModule
	ScenarioFile = "scenario.hex" // per node: arrival cycle and operand
	ExpectedFile = "expected.hex" // the model's events
	RunScript    = "run.sh"       // runs the testbench without Go
	MakefileName = "Makefile"     // make / make verilator / make vcd
	SourcesFile  = "hx_sources.f" // the Verilog sources to compile, one a line
	TBModule     = "hx_tb"        // top module of the simulation
)

// Magics (4 ASCII characters, first one in the most significant byte) and
// format version of the two data files, see docs/cosim.md.
const (
	MagicExpected = "HXEV"
	MagicScenario = "HXSC"
	MagicEnd      = "END!"
	FormatVersion = 1
	// ScenarioVersion is scenario.hex's format version (2: per episode).
	ScenarioVersion = 2
)

// Field limits of the word formats.
const (
	maxCycleBits = 48 // cycle fields of expected.hex
	maxArrBits   = 63 // arrival cycle field of scenario.hex
)

// drainCycles is how many cycles the testbench keeps watching after the
// last expected event and the last release, to catch stray events.
const drainCycles = 3

// word is a wide $readmemh word, most significant 64 bits first:
// w[0] holds bits 191..128 (expected.hex) or 127..64 (scenario.hex, which
// uses only w[0] and w[1]).
type word [3]uint64

func magic32(m string) uint64 {
	return uint64(m[0])<<24 | uint64(m[1])<<16 | uint64(m[2])<<8 | uint64(m[3])
}

// rotlXor folds w into the checksum c: c = rotl(c, 1) ^ w over n words of
// 64 bits (2 for 128-bit, 3 for 192-bit words), the same rotate-and-xor as
// the table checksum of docs/tables.md, over the full word width.
func rotlXor(c, w word, n int) word {
	top := c[0] >> 63
	var r word
	for i := 0; i < n; i++ {
		r[i] = c[i] << 1
		if i+1 < n {
			r[i] |= c[i+1] >> 63
		} else {
			r[i] |= top
		}
		r[i] ^= w[i]
	}
	return r
}

// eventWord packs an event into the 192-bit expected.hex word:
//
//	[191:144] cycle  [143:112] node  [111:104] kind  [103:96] gate
//	[95:64]   rank   [63:0]    value
//
// An error event (kind 5) has its gate, its source rank as rank and its
// code as value, as the monitor of tb.v builds it.
func eventWord(e barrierunit.Event) word {
	node := uint64(uint32(e.Node))
	return word{
		uint64(e.Cycle)<<16 | node>>16,
		(node&0xffff)<<48 | uint64(e.Kind)<<40 | uint64(e.Gate)<<32 | uint64(uint32(e.Rank)),
		e.Value,
	}
}

// expectedFile builds expected.hex from the parsed model trace.
//
//	word 0          [191:160] "HXEV" [159:128] version [127:96] nodes [95:64] ranks [63:0] events E
//	word 1          checksum of words 2 .. E+3
//	word 2          [191:144] watchdog limit (cycle) [143:96] model cycles [95:0] 0
//	word 3 .. E+2   one event each (eventWord)
//	word E+3        [191:160] "END!" [63:0] E
func expectedFile(name string, nodes, ranks int, evs []barrierunit.Event, cycles, limit int64) []byte {
	body := make([]word, 0, len(evs)+2)
	body = append(body, word{uint64(limit)<<16 | uint64(cycles)>>32, uint64(cycles) << 32, 0})
	for _, e := range evs {
		body = append(body, eventWord(e))
	}
	body = append(body, word{magic32(MagicEnd) << 32, 0, uint64(len(evs))})
	var sum word
	for _, w := range body {
		sum = rotlXor(sum, w, 3)
	}
	var b bytes.Buffer
	b.Grow(112 * (len(evs) + 10))
	fmt.Fprintf(&b, "// %s: the Go model's event trace for the testbench tb.v (docs/cosim.md)\n", ExpectedFile)
	fmt.Fprintf(&b, "// system: %s\n", name)
	b.WriteString("// event word: cycle[191:144] node[143:112] kind[111:104] gate[103:96] rank[95:64] value[63:0]\n")
	b.WriteString("// kinds: 0 arrive, 1 gate, 2 release, 3 send, 4 recv, 5 error (rank: source, value: code)\n")
	hex := func(w word, comment string) {
		fmt.Fprintf(&b, "%016x%016x%016x // %s\n", w[0], w[1], w[2], comment)
	}
	hex(word{magic32(MagicExpected)<<32 | FormatVersion, uint64(nodes)<<32 | uint64(ranks), uint64(len(evs))},
		fmt.Sprintf("header: magic %s, version %d, %d nodes, %d ranks, %d events", MagicExpected, FormatVersion, nodes, ranks, len(evs)))
	hex(sum, "checksum of the words below")
	hex(body[0], fmt.Sprintf("watchdog limit cycle %d, model cycles %d", limit, cycles))
	for i, e := range evs {
		hex(body[i+1], "#"+strconv.Itoa(i)+": "+FormatEvent(e))
	}
	hex(body[len(body)-1], fmt.Sprintf("end: %d events", len(evs)))
	return b.Bytes()
}

// scenarioFile builds scenario.hex: where and when each rank arrives, per
// episode (s.Arrivals, with the operand of an op without a payload 0).
//
//	word 0              [127:96] "HXSC" [95:64] version 2 [63:32] groups E [31:0] nodes N
//	word 1              checksum of words 2 .. E*N+2
//	word 2+(e-1)*N+n    episode e, node n: [127] arrives [126:64] arrival offset [63:0] operand
//	word E*N+2          [127:96] "END!" [63:32] E [31:0] N
//
// Episode 1's offsets are cycles; a later episode's count from the cycle
// its configuration ends (docs/registers.md).
func scenarioFile(s *design.Design) []byte {
	nodes := s.Fabric.NumNodes()
	episodes := s.NumEpisodes()
	rankOf := s.RankOfNode()
	// Episode k's offsets and operands: the system's draw.
	type arr struct {
		at  int64
		opd uint64
	}
	eps := make([][]arr, episodes)
	for k := 1; k <= episodes; k++ {
		a := make([]arr, s.Ranks())
		op := s.Episode(k).Op
		for r, x := range s.Arrivals(k) {
			a[r].at = x.Cycle
			if op.HasPayload() {
				a[r].opd = x.Operand
			}
		}
		eps[k-1] = a
	}
	// A loop's iterations 2..NI follow as groups: the delay from the first
	// cycle a rank's released reads 1 to its next arrival (compute + its
	// jitter), and the iteration's operand.
	for k := 2; k <= s.Sys.IterationCount(); k++ {
		a := make([]arr, s.Ranks())
		op := s.Episode(1).Op
		for r := range a {
			jit, opd := s.Sys.IterationDraw(r, k)
			a[r].at = int64(s.Sys.Compute) + jit
			if op.HasPayload() {
				a[r].opd = opd
			}
		}
		eps = append(eps, a)
	}
	groups := len(eps)
	// A stuck rank (fault stuck:R) never arrives: in episode 1, as the
	// model's units (an episode after it never starts: the watchdog ends
	// the run).
	for _, f := range s.Sys.ParsedFaults() {
		if f.Kind == hw.FaultStuck {
			eps[0][f.Rank].at = sim.Never
		}
	}
	body := make([]word, groups*nodes+1)
	for k := range eps {
		for r := range s.Ranks() {
			if eps[k][r].at == sim.Never {
				continue // a stuck rank (fault stuck:R): no arrival
			}
			body[k*nodes+s.NodeOf(r)] = word{1<<63 | uint64(eps[k][r].at), eps[k][r].opd}
		}
	}
	body[groups*nodes] = word{magic32(MagicEnd) << 32, uint64(groups)<<32 | uint64(nodes)}
	var sum word
	for _, w := range body {
		sum = rotlXor(sum, w, 2)
	}
	var b bytes.Buffer
	b.Grow(80 * (groups*nodes + 8))
	fmt.Fprintf(&b, "// %s: the CPU side of the scenario for the testbench tb.v (docs/cosim.md)\n", ScenarioFile)
	fmt.Fprintf(&b, "// system: %s\n", s.Sys.Title())
	b.WriteString("// node word: arrives[127] arrival_offset[126:64] operand[63:0]\n")
	hex := func(w word, comment string) {
		fmt.Fprintf(&b, "%016x%016x // %s\n", w[0], w[1], comment)
	}
	hex(word{magic32(MagicScenario)<<32 | ScenarioVersion, uint64(groups)<<32 | uint64(nodes)},
		fmt.Sprintf("header: magic %s, version %d, %d episodes and iterations, %d nodes", MagicScenario, ScenarioVersion, groups, nodes))
	hex(sum, "checksum of the words below")
	for k := range eps {
		for n := 0; n < nodes; n++ {
			c := fmt.Sprintf("episode %d, node %d: no rank, never arrives", k+1, n)
			if r := rankOf[n]; r >= 0 && eps[k][r].at == sim.Never {
				c = fmt.Sprintf("episode %d, node %d: rank %d never arrives (fault stuck:%d)", k+1, n, r, r)
			} else if r >= 0 {
				when := "in cycle"
				if k > 0 {
					when = "at offset"
				}
				c = fmt.Sprintf("episode %d, node %d: rank %d arrives %s %d, operand %016x", k+1, n, r, when, eps[k][r].at, eps[k][r].opd)
				if k >= episodes { // a loop's iteration k-episodes+2
					c = fmt.Sprintf("iteration %d, node %d: rank %d arrives %d cycles after its release is seen, operand %016x", k-episodes+2, n, r, eps[k][r].at, eps[k][r].opd)
				}
			} else if k >= episodes {
				c = fmt.Sprintf("iteration %d, node %d: no rank, never arrives", k-episodes+2, n)
			}
			hex(body[k*nodes+n], c)
		}
	}
	hex(body[groups*nodes], fmt.Sprintf("end: %d episodes and iterations, %d nodes", groups, nodes))
	return b.Bytes()
}
