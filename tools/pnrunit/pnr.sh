#!/bin/bash
# pnr.sh: the barrier unit of the default 4x4 design (hx_barrier_unit with
# its hx_alu, hx_fifo, hx_credit and hx_mem_1r1w instances: FW = 64, CB = 32,
# B = 4, AB = RB = 4, MAXG = NRT = 4, NDIM = 2, K0 = K1 = 4, value mode)
# placed and routed on the iCE40-HX8K by the flow of `hxbar synth --pnr
# ice40` (docs/area.md, "Place and route"): the same wrapper (every port
# registered, inputs a shift chain, outputs into a signature register),
# synth_ice40, nextpnr-ice40 --hx8k --package ct256 --freq 12 --seed 1.
# It places the unit alone, elaborated with its parameters, instead of
# every row of the whole design: minutes instead of a quarter of an hour.
# It prints Fmax, logic cells and the ends of the critical path; the
# directory keeps nextpnr.log (its "Critical path report") and report.json.
# (tools/pnrswitch/pnr.sh is the same for one switch.)
#
# usage: tools/pnrunit/pnr.sh NAME [", .DATA(1)": more parameters]
#   RTL=DIR takes the RTL from DIR (default verilog/rtl of this tree);
#   SEED=N places with nextpnr's seed N (default 1);
#   the work directory is a new ${TMPDIR:-/tmp}/hxbar-pnrunit-NAME.XXXXXX
#   (mktemp: never an existing path), printed first.
set -e
NAME=$1; EXTRA=${2:-}; SEED=${SEED:-1}
RTL=${RTL:-$(cd "$(dirname "$0")/../../verilog/rtl" && pwd)}
D=$(mktemp -d "${TMPDIR:-/tmp}/hxbar-pnrunit-$NAME.XXXXXX"); echo "work directory: $D"; cd "$D"
W=98   # flit: FW + 2 + CB
NI=$((1 + 1 + 64 + 1 + 1 + W + 3 + 32 + 32))
NO=$((1 + 64 + 1 + W + 1 + 32 + 1 + 1 + 1))
cat > wrap.v <<V
module hx_pnr_wrap (input clk, input si, output so);
  reg [$((NI-1)):0] in_q;
  always @(posedge clk) in_q <= {in_q[$((NI-2)):0], si};
  wire [$((NO-1)):0] out_w;
  reg [$((NO-1)):0] out_q, sig;
  always @(posedge clk) out_q <= out_w;
  always @(posedge clk) sig <= {sig[$((NO-2)):0], 1'b0} ^ out_q;
  assign so = sig[$((NO-1))];
V
python3 - >>wrap.v <<PY
W=$W
ins=[("rst",1),("arrive",1),("operand",64),("inj_credit",1),("ej_valid",1),("ej_flit",W),("psel",1),("penable",1),("pwrite",1),("paddr",32),("pwdata",32)]
outs=[("released",1),("result",64),("inj_valid",1),("inj_flit",W),("ej_credit",1),("prdata",32),("pready",1),("pslverr",1),("irq",1)]
c=[".clk(clk)"]; n=0
for nm,w in ins: c.append(".%s(in_q[%d:%d])"%(nm,n+w-1,n)); n+=w
n=0
for nm,w in outs: c.append(".%s(out_w[%d:%d])"%(nm,n+w-1,n)); n+=w
print("  hx_barrier_unit #(.FW(64), .B(4), .AB(4), .RB(4), .MAXG(4), .NRT(4), .DATA(0), .NIL(1), .NDIM(2), .K0(4), .K1(4), .CB(32) $EXTRA) dut (%s);"%", ".join(c))
print("endmodule")
PY
cat > pnr.ys <<Y
read_verilog -defer -DSYNTHESIS $RTL/hx_barrier_unit.v $RTL/hx_alu.v $RTL/hx_fifo.v $RTL/hx_mem_1r1w.v $RTL/hx_credit.v wrap.v
hierarchy -top hx_pnr_wrap
synth_ice40 -top hx_pnr_wrap -json ice40.json
Y
start=$(date +%s)
yosys -q -l yosys.log -s pnr.ys
nextpnr-ice40 --hx8k --package ct256 --json ice40.json --freq 12 --seed "$SEED" --timing-allow-fail --report report.json -l nextpnr.log >/dev/null 2>&1
python3 - <<PY
import json
r=json.load(open("report.json"))
f=min(v["achieved"] for v in r["fmax"].values())
lc=r["utilization"]["ICESTORM_LC"]["used"]
ram=r["utilization"]["ICESTORM_RAM"]["used"]
best=None
for c in r["critical_paths"]:
    if c["from"]=="<async>" or c["to"]=="<async>" or not c["path"]: continue
    d=sum(s["delay"] for s in c["path"]); l=sum(1 for s in c["path"] if s["type"]=="logic")
    if best is None or d>best[0]: best=(d,l,c["path"][0]["from"]["cell"],c["path"][-1]["to"]["cell"])
print("$NAME seed $SEED fmax %.1f MHz  LC %d  RAM %d  crit %.2f ns %d logic  %s -> %s"%(f,lc,ram,best[0],best[1],best[2],best[3]))
PY
echo "  ($(( $(date +%s) - start )) s)"
