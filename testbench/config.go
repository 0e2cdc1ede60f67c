package testbench

import (
	"bytes"
	"fmt"

	"github.com/hxbar/hxbar/barrierunit/regmap"
	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/verilog"
)

// ConfigFile is the configuration program the testbench replays through
// hx_top's APB ports (docs/registers.md, docs/cosim.md).
const ConfigFile = "config.hex"

// MagicConfig is config.hex's magic.
const MagicConfig = "HXCF"

// FabricPort is the port number of hx_top's fabric APB port in config.hex.
const FabricPort = 0xffff

// cfgWrite is one APB write of one port in one episode (1-based).
type cfgWrite struct {
	Episode, Port int
	Addr, Data    uint32
}

// configFile builds config.hex:
//
//	word 0    [127:96] "HXCF" [95:64] version 1 [63:32] episodes E [31:0] writes W
//	word 1    checksum of words 2 .. W+2
//	word 2+i  write i: [127:112] episode [111:96] port (node, or ffff: fabric) [63:32] paddr [31:0] pwdata
//	word W+2  [127:96] "END!" [63:32] E [31:0] W
//
// Writes are sorted by episode, then port, then program order.
func configFile(name string, episodes int, writes []cfgWrite) []byte {
	W := len(writes)
	body := make([]word, W+1)
	for i, w := range writes {
		body[i] = word{uint64(w.Episode)<<48 | uint64(w.Port)<<32, uint64(w.Addr)<<32 | uint64(w.Data)}
	}
	body[W] = word{magic32(MagicEnd) << 32, uint64(episodes)<<32 | uint64(W)}
	var sum word
	for _, w := range body {
		sum = rotlXor(sum, w, 2)
	}
	var b bytes.Buffer
	b.Grow(80 * (W + 8))
	fmt.Fprintf(&b, "// %s: the configuration writes the testbench tb.v replays through the APB ports (docs/cosim.md)\n", ConfigFile)
	fmt.Fprintf(&b, "// system: %s\n", name)
	b.WriteString("// write word: episode[127:112] port[111:96] (ffff: fabric) paddr[63:32] pwdata[31:0]\n")
	hex := func(w word, comment string) {
		fmt.Fprintf(&b, "%016x%016x // %s\n", w[0], w[1], comment)
	}
	hex(word{magic32(MagicConfig)<<32 | 1, uint64(episodes)<<32 | uint64(W)},
		fmt.Sprintf("header: magic %s, version 1, %d episodes, %d writes", MagicConfig, episodes, W))
	hex(sum, "checksum of the words below")
	for i, w := range writes {
		port := fmt.Sprintf("node %d", w.Port)
		if w.Port == FabricPort {
			port = fmt.Sprintf("fabric, switch %d", w.Addr>>16)
		}
		hex(body[i], fmt.Sprintf("episode %d, %s: %08x <- %08x", w.Episode, port, w.Addr, w.Data))
	}
	hex(body[W], fmt.Sprintf("end: %d episodes, %d writes", episodes, W))
	return b.Bytes()
}

// episodeWrites is every episode's configuration program
// (regmap.Config: every unit's Full program followed by its exchanger's
// routing table and routing exceptions on each node's port, and the
// crossbars' routing tables and exceptions on the fabric port, for
// episode 1; then each unit's Diff), the programs the
// model counts the cycles of (docs/microarchitecture.md, "Episodes").
func episodeWrites(s *design.Design) ([]cfgWrite, error) {
	var out []cfgWrite
	cfg := &regmap.Config{RankOf: s.RankOfNode()}
	addr := s.RankAddrs()
	for k := 1; k <= s.NumEpisodes(); k++ {
		ep := s.Episode(k)
		progs, err := cfg.Programs(&regmap.Tables{Tab: ep.Table, Data: ep.DataTable, Op: ep.Op, Addr: addr, Watchdog: s.WatchdogReg()})
		if err != nil {
			return nil, fmt.Errorf("episode %d: configuration: %w", k, err)
		}
		var tabs [][]uint8 // a torus routes by coordinates: no tables
		if s.Topo != nil {
			tabs = s.Topo.Tables()
		}
		exc := verilog.Exceptions(s) // nil without avoided channels
		for n, p := range progs {
			if k == 1 && tabs != nil {
				// Each node's port also loads its exchanger's routing
				// table, all nodes in parallel, then its routing
				// exceptions (avoided channels).
				p = append(p, regmap.ExchangerProgram(tabs[n])...)
				if exc != nil {
					p = append(p, regmap.ExceptionProgram(regmap.NodeExchanger, exc[n])...)
				}
			}
			if k == 1 {
				// A torus router's address and directions (nil on
				// another network).
				p = append(p, verilog.RouterProgram(s, n)...)
			}
			for _, w := range p {
				out = append(out, cfgWrite{Episode: k, Port: n, Addr: w.Addr, Data: w.Data})
			}
		}
		if k == 1 && tabs != nil {
			out = append(out, fabricWrites(s, tabs, exc)...)
		}
	}
	return out, nil
}

// fabricWrites is the fabric port's program: the crossbars' routing
// tables, then their routing exceptions (avoided channels).
func fabricWrites(s *design.Design, tabs [][]uint8, exc [][]regmap.Exception) []cfgWrite {
	var out []cfgWrite
	xbars := make([][]uint8, len(tabs))
	copy(xbars[s.Topo.Nodes:], tabs[s.Topo.Nodes:])
	for _, w := range regmap.FabricProgram(xbars) {
		out = append(out, cfgWrite{Episode: 1, Port: FabricPort, Addr: w.Addr, Data: w.Data})
	}
	for sw := s.Topo.Nodes; sw < len(exc); sw++ {
		for _, w := range regmap.ExceptionProgram(uint32(sw)<<16, exc[sw]) {
			out = append(out, cfgWrite{Episode: 1, Port: FabricPort, Addr: w.Addr, Data: w.Data})
		}
	}
	return out
}
