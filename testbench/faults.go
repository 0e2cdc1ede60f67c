package testbench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hxbar/hxbar/design"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/noc"
	"github.com/hxbar/hxbar/sim"
	"github.com/hxbar/hxbar/verilog"
)

// injection is the fault injection of tb.v (docs/reliability.md, "Fault
// model and injection"; docs/cosim.md): drive holds statements of the
// falling-edge block (after the CPU inputs, where cyc reads the cycle
// being driven and run is 1 from cycle 0 on), module the module-level
// ones. Zero: a fault-free testbench, byte for byte the one before.
type injection struct {
	drive, module string
	// pass holds statements run before the PASS line (print_drops).
	pass string
}

// chanInst is where a channel is in hx_top: its hx_link instance (the
// hx_chan <link>.ch, with link-level retry the hx_link_rx <link>.g_rt.rx)
// and the credit counter (hx_credit's cnt) of the output that drives it.
type chanInst struct {
	link, credit string
}

// channelInstances maps every channel id of a hyper-crossbar to its
// instance (docs/rtl.md, "Hierarchy"): n<v>.d<k>.up is tile<v>.g_dim[k].up,
// n<v>.d<k>.down is tile<v>.g_dim[k].down, n<v>.inject is tile<v>.inj,
// n<v>.eject is tile<v>.ej.
func channelInstances(s *design.Design) map[int]chanInst {
	if tor := verilog.Torus(s); tor != nil {
		return torusChannelInstances(s, tor)
	}
	t := s.Topo
	// (crossbar, port) -> the node and dimension of its down channel.
	type sp struct{ sw, port int }
	down := map[sp][2]int{}
	for v := 0; v < t.Nodes; v++ {
		for k := 0; k < t.NumDims(); k++ {
			x, j := t.Crossbar(v, k)
			down[sp{x, j}] = [2]int{v, k}
		}
	}
	credit := func(sw, port int) string {
		return fmt.Sprintf("%s.g_out[%d].credit.cnt", verilog.SwitchPath(t.Nodes, sw), port)
	}
	chans := verilog.UsesChannels(s)
	out := map[int]chanInst{}
	for _, c := range noc.Channels(s.Fabric) {
		var ci chanInst
		switch {
		case c.Kind == noc.ChanInject:
			ci = chanInst{verilog.InjectPath(c.Port), verilog.UnitPath(c.Port, chans) + ".inj_cr.cnt"}
		case c.Kind == noc.ChanEject:
			ci = chanInst{verilog.EjectPath(c.Switch), credit(c.Switch, 0)}
		case !t.IsCrossbar(c.Switch):
			ci = chanInst{verilog.UpPath(c.Switch, c.Port-1), credit(c.Switch, c.Port)}
		default:
			vk, ok := down[sp{c.Switch, c.Port}]
			if !ok {
				continue
			}
			ci = chanInst{verilog.DownPath(vk[0], vk[1]), credit(c.Switch, c.Port)}
		}
		out[c.ID] = ci
	}
	return out
}

// torusChannelInstances maps every channel id of a torus to its instance
// (docs/rtl.md, "The torus tile"): n<x>.d<k><+|->.vc<c>, output p of
// router x, is tile<x>.g_out[p-1].up, its credit counter the router's
// output p's; n<v>.inject is tile<v>.inj, n<v>.eject tile<v>.ej. The
// outputs that leave a mesh line drive no channel and get no instance.
func torusChannelInstances(s *design.Design, tor *noc.Torus) map[int]chanInst {
	out := map[int]chanInst{}
	for _, c := range noc.Channels(s.Fabric) {
		switch {
		case c.Kind == noc.ChanInject:
			out[c.ID] = chanInst{verilog.InjectPath(c.Port), verilog.UnitPath(c.Port, false) + ".inj_cr.cnt"}
		case c.Port == 0:
			out[c.ID] = chanInst{verilog.EjectPath(c.Switch), verilog.RouterOutPath(c.Switch, 0) + ".credit.cnt"}
		case tor.IsChannel(c.Switch, c.Port):
			out[c.ID] = chanInst{verilog.RouterLinkPath(c.Switch, c.Port), verilog.RouterOutPath(c.Switch, c.Port) + ".credit.cnt"}
		}
	}
	return out
}

// Resolved is the design of s, run, as the testbench injects its faults:
// every @first fault aimed at the cycle the model's run hit it in, one
// that hit nothing left out (sim.System.ResolvedFaults). A run with the
// resolved faults is the run with @first, so the co-simulation compares
// the same thing; the directory's system.yaml keeps the specs as given.
func Resolved(s *sim.System) *design.Design {
	if !slices.ContainsFunc(s.Sys.ParsedFaults(), func(f hw.Fault) bool { return f.First }) {
		return s.Design
	}
	d := *s.Design
	d.Sys.Faults = s.ResolvedFaults()
	return &d
}

// faultInjection renders the system's faults as tb.v statements, as
// docs/reliability.md specifies, in the model's cycle numbering (cycle t
// is the cycle in which cyc reads t; the testbench drives at the falling
// edge inside it, so what it sets acts on the flit the upstream sends in
// that cycle):
//
//   - flip:C@T:B: bit B of C's flit inverted during cycle T (fi_mask);
//   - drop:C@T: C's valid forced to 0 during cycle T (fi_kill) and, when a
//     flit was lost (fi_hit, recorded by the edge that ends T), one credit
//     added to the sender's counter at the next falling edge: the edge
//     took the flit's credit, the testbench gives it back, so the sender
//     holds credits - 1 + 1 in cycle T+1 as in the model, and a genuine
//     credit returned by the same edge is kept (an addition, not a force);
//     With link-level retry (link_retry > 0) no credit is added: the
//     channel carries the link layer's wire (flit in its low bits, so a
//     flip's bit is the same bit), the receiving link discards the
//     damaged or missing flit and the sender resends it with its credit;
//   - dead:C@T: valid forced to 0 from cycle T on, no credit back;
//   - ackflip:C@T: bit 0 of the ACK word C's receiving link (<inst>_rx)
//     sends in cycle T inverted (fi_ackflip, link_retry only);
//   - creditdrop:C@T: the credit C's downstream returns in cycle T lost
//     (fi_ckill: the pulse forced to 0, or with link-level retry bit 0 of
//     the credit word inverted);
//   - stuck:R: nothing here (scenario.hex has no arrival for the rank).
//
// With faults the units' simulation-only payload check is off: the
// model's trace, with its CRC and SEQ errors, is the reference. What the
// testbench cannot inject as the model does is an error naming the fault.
func faultInjection(s *design.Design) (injection, error) {
	sys := &s.Sys
	if len(sys.Faults) == 0 {
		return injection{}, nil
	}
	tor := verilog.Torus(s)
	if s.Topo == nil && tor == nil {
		return injection{}, fmt.Errorf("faults: the RTL is a hyper-crossbar or a torus")
	}
	idx := noc.NewChannelIndex(s.Fabric)
	insts := channelInstances(s)
	parsed := sys.ParsedFaults()
	// The first dead cycle of each channel: a drop's clear must not
	// revive a dead channel.
	dead := map[int]int64{}
	ids := make([]int, len(parsed))
	for i, f := range parsed {
		if f.Kind == hw.FaultStuck {
			continue
		}
		if f.First {
			return injection{}, &hw.FieldError{Field: fmt.Sprintf("faults[%d]", i), Value: fmt.Sprintf("%q", sys.Faults[i]),
				Allowed: "a fault at a cycle: the testbench injects by cycle, so @first is resolved by the model's run first (testbench.Resolved; hxbar gen and hxbar cosim do it)"}
		}
		id, err := idx.Parse(f.Channel)
		if err != nil {
			return injection{}, &hw.FieldError{Field: fmt.Sprintf("faults[%d]", i), Value: fmt.Sprintf("%q", sys.Faults[i]), Allowed: err.Error()}
		}
		if _, ok := insts[id]; !ok {
			return injection{}, &hw.FieldError{Field: fmt.Sprintf("faults[%d]", i), Value: fmt.Sprintf("%q", sys.Faults[i]), Allowed: "a channel of the generated hx_top"}
		}
		ids[i] = id
		if f.Kind == hw.FaultDead {
			if d, ok := dead[id]; !ok || f.Cycle < d {
				dead[id] = f.Cycle
			}
		}
		if f.Kind == hw.FaultFlip {
			if err := rtlFlipBit(sys, f.Bit); err != "" {
				return injection{}, &hw.FieldError{Field: fmt.Sprintf("faults[%d]", i), Value: fmt.Sprintf("%q", sys.Faults[i]), Allowed: err}
			}
		}
	}
	var d, m strings.Builder
	d.WriteString("            // fault injection (docs/reliability.md): at the falling edge of the cycle\n")
	for i, f := range parsed {
		if f.Kind == hw.FaultStuck {
			fmt.Fprintf(&d, "            // %s: rank %d never arrives (scenario.hex)\n", f, f.Rank)
			continue
		}
		ci := insts[ids[i]]
		ch := "dut." + ci.link + ".ch"
		fmt.Fprintf(&d, "            // %s: %s\n", f, ci.link)
		switch f.Kind {
		case hw.FaultFlip:
			fmt.Fprintf(&d, "            if (run && cyc == 64'd%d) %s.fi_mask[%d] = 1'b1;\n", f.Cycle, ch, f.Bit)
			fmt.Fprintf(&d, "            if (run && cyc == 64'd%d) %s.fi_mask[%d] = 1'b0;\n", f.Cycle+1, ch, f.Bit)
		case hw.FaultDrop:
			if dc, ok := dead[ids[i]]; ok && dc <= f.Cycle {
				d.WriteString("            // (the channel is dead by then: nothing more)\n")
				continue
			}
			fmt.Fprintf(&d, "            if (run && cyc == 64'd%d) %s.fi_kill = 1'b1;\n", f.Cycle, ch)
			keep := "1'b0"
			if dc, ok := dead[ids[i]]; ok && dc <= f.Cycle+1 {
				keep = "1'b1"
			}
			fmt.Fprintf(&d, "            if (run && cyc == 64'd%d) begin\n", f.Cycle+1)
			fmt.Fprintf(&d, "                %s.fi_kill = %s;\n", ch, keep)
			if sys.LinkRetry == 0 {
				fmt.Fprintf(&d, "                if (%s.fi_hit) dut.%s <= dut.%s + 1'b1;   // the dropped flit's credit\n", ch, ci.credit, ci.credit)
			} else {
				// With link-level retry the resent copy uses the dropped
				// flit's credit: nothing to give back.
				d.WriteString("                // (link-level retry: the resent copy uses the dropped flit's credit)\n")
			}
			d.WriteString("            end\n")
		case hw.FaultDead:
			fmt.Fprintf(&d, "            if (run && cyc == 64'd%d) %s.fi_kill = 1'b1;\n", f.Cycle, ch)
		case hw.FaultAckFlip, hw.FaultCreditDrop:
			reg := ch + ".fi_ckill"
			if f.Kind == hw.FaultAckFlip {
				reg = "dut." + ci.link + ".g_rt.rx.fi_ackflip"
			}
			fmt.Fprintf(&d, "            if (run && cyc == 64'd%d) %s = 1'b1;\n", f.Cycle, reg)
			fmt.Fprintf(&d, "            if (run && cyc == 64'd%d) %s = 1'b0;\n", f.Cycle+1, reg)
		}
	}
	// Every switch: a torus node's router (hx_router, with DROPS and achk
	// as hx_switch's), else the hyper-crossbar's switches.
	nodes, paths := 0, []string{}
	if tor != nil {
		nodes = tor.Nodes
		for n := range nodes {
			paths = append(paths, verilog.RouterPath(n))
		}
	} else {
		nodes = s.Topo.Nodes
		for sw := range s.Topo.Switches {
			paths = append(paths, verilog.SwitchPath(nodes, sw))
		}
	}
	m.WriteString(quietChecks(s, nodes, paths))
	return injection{drive: d.String(), module: m.String(), pass: "                    print_drops(c);\n"}, nil
}

// quietChecks turns off, at time 0, the units' payload checks and the
// switches' (paths) illegal-flit assertions of a testbench injecting
// faults, and adds the task printing the switches' DROPS.
func quietChecks(s *design.Design, nodes int, paths []string) string {
	var m strings.Builder
	m.WriteString("\n    // Faults are injected: the units' simulation-only payload checks and\n")
	m.WriteString("    // the switches' illegal-flit assertions are off, the model's trace\n")
	m.WriteString("    // (its CRC and SEQ errors) and its drop counts are the reference.\n")
	m.WriteString("    initial begin\n")
	for n := range nodes {
		if verilog.UsesChannels(s) { // hx_barrier_node: a unit per channel
			for c := range s.Sys.ChannelCount() {
				fmt.Fprintf(&m, "        dut.%s.ch[%d].u.pchk = 1'b0;\n", verilog.UnitPath(n, true), c)
			}
			continue
		}
		fmt.Fprintf(&m, "        dut.%s.pchk = 1'b0;\n", verilog.UnitPath(n, false))
	}
	for _, p := range paths {
		fmt.Fprintf(&m, "        dut.%s.achk = 1'b0;\n", p)
	}
	m.WriteString("    end\n")
	m.WriteString(printDrops(paths))
	return m.String()
}

// printDrops is the task that prints every switch's DROPS register (docs/
// registers.md, "Switch") before the verdict, as one line
// "DROPS <cycle> <hex of switch 0> <hex of switch 1> ...": the counts of
// the illegal flits of cycles 0..cycle, which Cosim compares with the
// model's at that cycle (docs/cosim.md).
func printDrops(paths []string) string {
	var b strings.Builder
	b.WriteString("\n    // DROPS of every switch, before the verdict (the monitor's cycle c).\n")
	b.WriteString("    task print_drops;\n        input [63:0] at;\n        begin\n            $write(\"DROPS %0d\", at);\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "            $write(\" %%h\", dut.%s.drops);\n", p)
	}
	b.WriteString("            $display(\"\");\n        end\n    endtask\n")
	return b.String()
}

// rtlFlipBit says why the testbench cannot flip bit b as the model does
// ("" when it can): a data bit at or above 64 of a wider flit is one the
// model does not keep. (A flipped address that names no node is dropped
// by the next switch, in the RTL as in the model.)
func rtlFlipBit(sys *hw.System, b int) string {
	if b >= 64 && b < sys.FlitWidth {
		return fmt.Sprintf("in the RTL testbench, a bit 0..63 or %d..%d (the model keeps 64 data bits of a flit_width %d flit)", sys.FlitWidth, sys.Wire().Bits()-1, sys.FlitWidth)
	}
	return ""
}
