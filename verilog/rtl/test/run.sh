#!/usr/bin/env bash
# Smoke tests of the hxbar RTL library (verilog/rtl/*.v).
#
# No library module reads a file: the tops (line_top, grid2_top) have APB
# configuration ports (docs/registers.md), and the simulation-only loader
# hx_tbl_load.v reads the scenario's table files (gt_n*.hex, rt_s*.hex,
# dt_n*.hex), checks them and writes them through the ports after reset;
# cycle 0 is the cycle after the last write.
#
# For every scenario below:
#   1. iverilog -g2005 -Wall compiles smoke_tb + the loader + the top + the
#      library: any output (warning or error) fails;
#   2. vvp runs it in the scenario's table directory: any stderr output, any
#      WARNING/ERROR line or a non-zero exit fails, and the printed trace must
#      equal expected/<scenario>.trace (worked out by hand from
#      docs/microarchitecture.md, see docs/rtl.md);
#   3. verilator --lint-only -Wall on the top with the same parameters: any
#      output fails;
#   4. yosys, in a directory without any table file: read_verilog, synth -top
#      <top>, check -assert: any warning fails.
# Then every module is linted on its own over a spread of parameters, the
# link-level retry layer (hx_link_tx + hx_chan + hx_link_rx) runs a directed
# stress bench (hx_link_stress_tb.v) and replays the Go model's vectors
# (link/*.hex, written by noc's TestLinkRetryRTLVectors: flips, drops, ACK
# flips, credit drops and a dead channel at L = 1, 2, 4) cycle by cycle,
# and each mutant of it (an off-by-one in the resend pointer, in the NAK's
# cycle, in the replay count or in the receiver's sequence check; a damaged
# ACK taken as a NAK, the ACK's or the credit's parity unchecked, credits
# as pulses, a credit that frees no entry) must fail one of them; the
# switch's configuration port is checked on its own (sw_apb_tb.v), as is
# the barrier node's (node_apb_tb.v: channel select, busy channel, NORANK,
# irq, with mutants that must fail it), the unit's software controls
# (unit_soft_tb.v: ABORT, WATCHDOG in WAIT, irq, held arrivals, readback,
# tagged staging; unit_xread_tb: an expected-message word read in the
# cycle a data-mode head pops is refused), its
# illegal-flit drops and DROPS register too (sw_drop_tb.v, and mutants of
# the drop logic must fail it), its
# routing exception CAM too (cam_tb.v, and yosys with E = 3), and the
# loader's table checks are exercised with broken tables (missing, bad magic,
# bad count, bad checksum, bad entry or gate count, a word missing or one too
# many, with the checksum recomputed or not, a word that is not 16 hex
# digits), and with valid tables past the units' capacity: each must stop
# the simulation with a non-zero exit and a message naming the file.
#
# Usage: verilog/rtl/test/run.sh [-k]   (-k keeps the work directory)
#
# RTL_PART=1 runs the scenarios only, RTL_PART=2 the rest (module lint,
# link layer, configuration ports, mutants, broken tables): make rtl
# runs the two halves at once, one per core.
set -u -o pipefail

PART=${RTL_PART:-all}
case "$PART" in
    all|1|2) ;;
    *) echo "run.sh: RTL_PART=$PART: allowed: 1, 2 or unset (all)" >&2; exit 2 ;;
esac

HERE=$(cd "$(dirname "$0")" && pwd)
RTL=$(cd "$HERE/.." && pwd)
LIB=(hx_mem_1r1w.v hx_fifo.v hx_credit.v hx_chan.v hx_link_crc.v hx_link_tx.v hx_link_rx.v hx_alu.v hx_switch.v hx_barrier_unit.v hx_barrier_node.v)
LIBP=("${LIB[@]/#/$RTL/}")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hxrtl.XXXXXX")
if [ "${1:-}" = "-k" ]; then
    echo "work directory: $WORK"
else
    trap 'rm -rf "$WORK"' EXIT
fi

for t in iverilog vvp verilator yosys; do
    command -v "$t" >/dev/null || { echo "FAIL: $t not found (apt-get install -y iverilog verilator yosys)"; exit 1; }
done

FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
finish() {
    echo
    if [ $FAILS -ne 0 ]; then
        echo "$FAILS check(s) FAILED"
        exit 1
    fi
    echo "all RTL smoke checks passed${RTL_PART:+ (part $PART)}"
    exit 0
}
pass() { echo "ok   $*"; }

# 128-bit packed per-node parameter (32 bits per node, node 0 in the LSBs).
pack4() { printf "128'h%08x%08x%08x%08x" "$4" "$3" "$2" "$1"; }

# Unit capacities of a scenario, from its per-node G, gate table words and
# data table words: the largest G (at least 1), route count NW - G - 2 and
# item-list length NDW - 1 - routes - G (at least 1 each).
caps() {   # caps "G per node" "words per node" ["data words per node"] -> "MAXG NRT NIL"
    local -a g=($1) w=($2) d=(${3:-})
    local i mg=1 mr=1 ml=1 r l
    for ((i = 0; i < ${#g[@]}; i++)); do
        [ "${g[i]}" -gt $mg ] && mg=${g[i]}
        r=$(( ${w[i]} - ${g[i]} - 2 ))
        [ $r -gt $mr ] && mr=$r
        if [ ${#d[@]} -gt $i ] && [ $r -ge 0 ]; then
            l=$(( ${d[i]} - 1 - r - ${g[i]} ))
            [ $l -gt $ml ] && ml=$l
        fi
    done
    echo "$mg $mr $ml"
}

# scenario: name dir top K L B FW OP "G per node" "words per node" "arrival per node" OPS
#           [IF "data words per node"]   (data mode, DATA = 1: line_top only)
# OP is the units' CTRL.OP; G and words are what the loader expects of the
# tables and give the units' capacities (caps above).
run_scenario() {
    [ "$PART" = 2 ] && return
    local name=$1 dir=$2 top=$3 k=$4 l=$5 b=$6 fw=$7 op=$8
    local -a ng=($9) nw=(${10}) arr=(${11})
    local ops=${12}
    local -a ndw=(${14:-})
    while [ ${#ng[@]} -lt 4 ]; do ng+=(0); nw+=(0); arr+=(0); done
    local ngv nwv arrv
    ngv=$(pack4 "${ng[@]}")
    nwv=$(pack4 "${nw[@]}")
    arrv=$(pack4 "${arr[@]}")
    local vvpf="$WORK/$name.vvp" log="$WORK/$name"
    local -a cp; cp=($(caps "$9" "${10}" "${14:-}"))
    local maxg=${cp[0]} nrt=${cp[1]} nil=${cp[2]}
    local -a ivd=() vlg=() ysp=()
    if [ "$top" = grid2_top ]; then ivd+=(-DTB_NSW=8); fi
    if [ -n "${13:-}" ]; then
        while [ ${#ndw[@]} -lt 4 ]; do ndw+=(1); done
        local ndwv; ndwv=$(pack4 "${ndw[@]}")
        ivd+=(-DTB_DATA=1 -DTB_IF="${13}" -DTB_NDWV="$ndwv" -DTB_NIL="$nil")
        vlg=(-GDATA=1 -GNIL="$nil")
        ysp=(-chparam DATA 1 -chparam NIL "$nil")
    fi

    # 1. compile
    if ! iverilog -g2005 -Wall -o "$vvpf" \
            -DTB_TOP="$top" -DTB_K="$k" -DTB_L="$l" -DTB_B="$b" -DTB_FW="$fw" -DTB_OP="$op" \
            -DTB_NGV="$ngv" -DTB_NWV="$nwv" -DTB_ARR="$arrv" -DTB_OPS="$ops" \
            -DTB_MAXG="$maxg" -DTB_NRT="$nrt" "${ivd[@]}" \
            "$HERE/smoke_tb.v" "$HERE/hx_tbl_load.v" "$HERE/$top.v" "${LIBP[@]}" >"$log.iv" 2>&1 || [ -s "$log.iv" ]; then
        fail "$name: iverilog"; sed 's/^/     /' "$log.iv"; return
    fi
    pass "$name: iverilog -g2005 -Wall (no output)"

    # 2. simulate and compare
    (cd "$HERE/$dir" && vvp -n "$vvpf") >"$log.out" 2>"$log.err"
    local rc=$?
    if [ $rc -ne 0 ] || [ -s "$log.err" ] || grep -qE 'WARNING|ERROR|FATAL' "$log.out"; then
        fail "$name: vvp (exit $rc)"; sed 's/^/     /' "$log.err" "$log.out" | head -20; return
    fi
    if ! diff -u "$HERE/expected/$name.trace" "$log.out" >"$log.diff"; then
        fail "$name: trace differs from expected/$name.trace"; sed 's/^/     /' "$log.diff"; return
    fi
    pass "$name: vvp trace == expected/$name.trace ($(wc -l <"$log.out") events)"

    # 3. lint the top with the same parameters
    if ! verilator --lint-only -Wall --top-module "$top" \
            -GK="$k" -GL="$l" -GB="$b" -GFW="$fw" -GMAXG="$maxg" -GNRT="$nrt" "${vlg[@]}" \
            "$HERE/$top.v" "${LIBP[@]}" >"$log.vl" 2>&1 || [ -s "$log.vl" ]; then
        fail "$name: verilator --lint-only -Wall"; sed 's/^/     /' "$log.vl" | head -20; return
    fi
    pass "$name: verilator --lint-only -Wall (no output)"

    # 4. synthesis, in a directory without any table file
    mkdir -p "$WORK/ys"
    (cd "$WORK/ys" && yosys -q -l "$log.ys" -p "read_verilog $HERE/$top.v ${LIBP[*]}; \
        hierarchy -top $top -chparam K $k -chparam L $l -chparam B $b -chparam FW $fw \
                  -chparam MAXG $maxg -chparam NRT $nrt ${ysp[*]}; \
        synth -top $top; check -assert; stat" >/dev/null 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || grep -qE '^(Warning|ERROR):' "$log.ys" || ls "$WORK/ys" | grep -q '\.hex$'; then
        fail "$name: yosys synth/check -assert (exit $rc)"; grep -E '^(Warning|ERROR):' "$log.ys" | head -20 | sed 's/^/     /'; return
    fi
    pass "$name: yosys synth -top $top; check -assert ($(awk '/Number of cells:/ {n=$4} END {print n}' "$log.ys") cells)"
}

[ "$PART" = 2 ] || echo "== scenarios"
# 2 nodes, butterfly R=2 G=1: rank 0 arrives at 0, rank 1 at 3.
run_scenario bfly2_l1_b2_barrier   bfly2     line_top 2 1 2 64 0 "1 1" "4 4" "0 3" "128'h0"
run_scenario bfly2_l3_b1_sum_fw16  bfly2     line_top 2 3 1 16 1 "1 1" "4 4" "0 3" \
    "128'h1000000000000001_0123456789abcdef"
# 3 nodes (2-bit addresses), node 2 without a rank (NG = 0, one body word):
# the same trace as bfly2_l1_b2_barrier.
run_scenario line3norank_l1_b2_barrier line3norank line_top 3 1 2 64 0 "1 1 0" "4 4 1" "0 3 0" "192'h0"
# One rank (node 1 without a rank): G = 0 releases in the arrival cycle,
# G = 1 with only the self route (what the generator emits for R = 1) one
# cycle later.
run_scenario single_g0_max         single_g0 line_top 2 1 2 64 2 "0 0" "2 1" "3 0" "128'h0_0000000000000042"
run_scenario single_g1_max         single_g1 line_top 2 1 2 64 2 "1 0" "3 1" "3 0" "128'h0_0000000000000042"
# 4 nodes on one line, gather to rank 0 then broadcast: round robin and
# wormhole at the crossbar output to node 0; arrivals 0, 2, 0, 1.
run_scenario gather4_l1_b2_sum_fw32 gather4  line_top 4 1 2 32 1 "2 2 2 2" "7 5 5 5" "0 2 0 1" \
    "256'h0000050000000600_0000003000000040_0000000100000002_000000000000000a"
# 2x2 grid, butterfly R=4 G=2 (gate 1 across dimension 1, gate 2 across 0).
run_scenario grid2_l2_b2_xor       grid2     grid2_top 4 2 2 64 6 "2 2 2 2" "6 6 6 6" "0 5 1 2" \
    "256'h8000400000001000_0033000000000100_0220000000000010_1111000000000001"
# 2x2 grid, gate 1 diagonal (through two crossbars and an intermediate
# exchanger), B = 1 so every hop is credit-throttled.
run_scenario grid2diag_l1_b1_min   grid2diag grid2_top 4 1 1 64 3 "2 2 2 2" "6 6 6 6" "0 0 4 1" \
    "256'h0000000000000070_0000000000000030_9000000000000000_0000000000000050"

# Data mode (docs/transfers.md): all-gather of 2 items on a 4-node line,
# Hitachi order OM, F = 2 flits per item, FW = 32; every payload flit is
# checked by the receiving unit, recv values are the payload checksums. The
# tables (ag4/) and the trace are the Go generator's and model's, with the
# command in the tables' first lines; TestGenerateMatchesHandTables keeps
# the tables equal to what the generator writes.
run_scenario ag4_l2_b1_fw32_f2     ag4       line_top 4 2 1 32 0 "2 2 2 2" "6 6 5 5" "0 0 0 0" "256'h0" \
    2 "8 8 7 7"

[ "$PART" = 1 ] && finish
echo "== module lint (verilator --lint-only -Wall) over parameter spreads"
lint_one() {
    local top=$1; shift
    if ! verilator --lint-only -Wall --top-module "$top" "$@" "${LIBP[@]}" >"$WORK/lint.log" 2>&1 \
            || [ -s "$WORK/lint.log" ]; then
        fail "lint $top $*"; sed 's/^/     /' "$WORK/lint.log" | head -10
    else
        pass "lint $top $*"
    fi
}
lint_one hx_mem_1r1w
lint_one hx_mem_1r1w -GW=98 -GD=6 -GAW=3
lint_one hx_mem_1r1w -GW=1 -GD=1
lint_one hx_fifo
lint_one hx_fifo -GB=1 -GW=18
lint_one hx_fifo -GB=64 -GW=162
lint_one hx_credit -GB=1
lint_one hx_credit -GB=64
lint_one hx_chan -GL=1
lint_one hx_chan -GL=2
lint_one hx_chan -GL=64 -GW=186
lint_one hx_link_crc -GN=1
lint_one hx_link_crc -GN=170
lint_one hx_link_crc -GN=1 -GCW=5 "-GPOLY=5'h15"
lint_one hx_link_crc -GN=8 -GCW=5 "-GPOLY=5'h15"
lint_one hx_link_tx -GR=1 -GB=1 -GW=18
lint_one hx_link_tx -GL=2 -GR=5
lint_one hx_link_tx -GL=3 -GR=2 -GB=8
lint_one hx_link_tx -GL=64 -GR=255 -GB=64 -GW=162
lint_one hx_link_rx -GR=1 -GB=1 -GW=18
lint_one hx_link_rx -GL=2 -GR=5
lint_one hx_link_rx -GL=64 -GR=255 -GB=64 -GW=162
lint_one hx_chan -GL=1 -GC=4
lint_one hx_chan -GL=3 -GC=9
lint_one hx_alu
lint_one hx_alu3
lint_one hx_switch
lint_one hx_switch -GP=5 -GNDIM=4 -GK0=64 -GK1=3 -GK2=5 -GK3=2 -GFW=128 -GB=64
lint_one hx_switch -GP=64 -GMODE=1 -GNDIM=4 -GK0=2 -GK1=2 -GK2=64 -GK3=2 -GXDIM=2 -GB=1
lint_one hx_switch -GP=3 -GMODE=1 -GNDIM=2 -GK0=4 -GK1=3 -GXDIM=1 -GFW=16
lint_one hx_switch -GP=7 -GNDIM=6 -GK0=2 -GK1=3 -GK2=2 -GK3=64 -GK4=5 -GK5=3 -GFW=16
lint_one hx_switch -GP=3 -GMODE=1 -GNDIM=6 -GK0=2 -GK1=2 -GK2=2 -GK3=2 -GK4=2 -GK5=3 -GXDIM=5 -GFW=16
# with the routing exception CAM (E > 0): an exchanger and crossbars, the
# 8x8 fullest case (E = 56), 8-bit ports (P = 255)
lint_one hx_switch -GE=1
lint_one hx_switch -GP=3 -GNDIM=2 -GK0=4 -GK1=4 -GE=12
lint_one hx_switch -GP=8 -GMODE=1 -GNDIM=2 -GK0=8 -GK1=8 -GXDIM=1 -GE=56
lint_one hx_switch -GP=5 -GNDIM=4 -GK0=64 -GK1=3 -GK2=5 -GK3=2 -GFW=128 -GB=64 -GE=1024
lint_one hx_switch -GP=255 -GMODE=1 -GNDIM=1 -GK0=255 -GE=2
lint_one hx_barrier_unit
lint_one hx_barrier_unit -GMAXG=62 -GNRT=1
lint_one hx_barrier_unit -GFW=24 -GAB=10 -GRB=2 -GNDIM=6 -GK0=2 -GK1=3 -GK2=2 -GK3=5 -GK4=3 -GK5=2
lint_one hx_barrier_unit -GFW=64 -GMAXG=26 -GNRT=53 -GAB=24 -GRB=24 -GB=64
lint_one hx_barrier_unit -GFW=128 -GMAXG=62 -GNRT=236
lint_one hx_barrier_unit -GFW=16 -GMAXG=3 -GNRT=3 -GAB=2 -GRB=3 -GB=1
lint_one hx_barrier_unit -GDATA=1
lint_one hx_barrier_unit -GDATA=1 -GMAXG=1 -GNRT=1 -GNIL=1
lint_one hx_barrier_unit -GDATA=1 -GFW=128 -GMAXG=62 -GNRT=236 -GNIL=4700 -GAB=16 -GRB=16 -GB=64
lint_one hx_barrier_unit -GDATA=1 -GFW=16 -GMAXG=3 -GNRT=3 -GNIL=12 -GAB=2 -GRB=3 -GB=1
lint_one hx_barrier_unit -GNBANK=2
lint_one hx_barrier_unit -GNBANK=2 -GMAXG=62 -GNRT=1
lint_one hx_barrier_unit -GNBANK=2 -GFW=16 -GMAXG=3 -GNRT=3 -GAB=2 -GRB=3 -GB=1
lint_one hx_barrier_unit -GNBANK=2 -GFW=64 -GMAXG=26 -GNRT=53 -GAB=24 -GRB=24 -GB=64 -GCB=32
lint_one hx_barrier_unit -GDATA=1 -GFW=24 -GMAXG=4 -GNRT=4 -GNIL=5 -GAB=3 -GRB=2
# with the check code (CB = 32: crc_bits 32, docs/reliability.md)
lint_one hx_barrier_unit -GCB=32
# a channel of hx_barrier_node (EXT = 1): the node's credit and FIFO, CHB channel bits
lint_one hx_barrier_unit -GEXT=1
lint_one hx_barrier_unit -GEXT=1 -GCHB=2 -GNBANK=2
lint_one hx_barrier_unit -GEXT=1 -GCHB=3 -GFW=16 -GAB=2 -GRB=3 -GMAXG=3 -GNRT=3
lint_one hx_barrier_unit -GEXT=1 -GCHB=1 -GCB=32 -GNBANK=2
# a node's channels (hx_barrier_node): one channel, a power of two and not,
# the most (8) with the narrowest flit that holds the head's channel field
lint_one hx_barrier_node
lint_one hx_barrier_node -GNCH=1
lint_one hx_barrier_node -GNCH=3 -GNBANK=2 -GAB=4 -GRB=4 -GMAXG=4 -GNRT=8
lint_one hx_barrier_node -GNCH=4 -GNDIM=2 -GK0=4 -GK1=4 -GAB=4 -GRB=5 -GNBANK=2 -GMAXG=10 -GNRT=20
lint_one hx_barrier_node -GNCH=8 -GFW=16 -GAB=2 -GRB=3 -GMAXG=3 -GNRT=3 -GCB=32
lint_one hx_barrier_unit -GCB=32 -GFW=16 -GMAXG=3 -GNRT=3 -GAB=2 -GRB=3 -GB=1
lint_one hx_barrier_unit -GCB=32 -GDATA=1 -GFW=128 -GMAXG=62 -GNRT=236 -GNIL=4700 -GAB=16 -GRB=16 -GB=64
lint_one hx_barrier_unit -GCB=32 -GDATA=1 -GFW=24 -GMAXG=4 -GNRT=4 -GNIL=5 -GAB=3 -GRB=2
lint_one hx_switch -GCB=32
lint_one hx_switch -GCB=32 -GP=3 -GMODE=1 -GNDIM=2 -GK0=4 -GK1=3 -GXDIM=1 -GFW=16
lint_one hx_chan -GL=3 -GW=98

echo "== link-level retry (hx_link_tb: the model's vectors, then mutants that must fail them)"
# link_run DIR: run every vector file of link/ against the link layer in
# DIR (hx_link_tx.v, hx_link_rx.v, hx_link_crc.v); prints one line per file,
# returns the number of files that did not pass.
link_run() {
    local rtl=$1 f base l b r bad=0
    for f in "$HERE"/link/link_*.hex; do
        base=$(basename "$f" .hex)
        l=$(echo "$base" | sed -E 's/^link_l([0-9]+)_b([0-9]+)_r([0-9]+).*/\1/')
        b=$(echo "$base" | sed -E 's/^link_l([0-9]+)_b([0-9]+)_r([0-9]+).*/\2/')
        r=$(echo "$base" | sed -E 's/^link_l([0-9]+)_b([0-9]+)_r([0-9]+).*/\3/')
        if ! iverilog -g2005 -Wall -o "$WORK/link.vvp" -DTB_W=18 -DTB_L="$l" -DTB_B="$b" -DTB_R="$r" -DTB_N=400 \
                "$HERE/hx_link_tb.v" "$rtl/hx_link_tx.v" "$rtl/hx_link_rx.v" "$rtl/hx_link_crc.v" \
                "$rtl/hx_chan.v" "$RTL/hx_mem_1r1w.v" "$RTL/hx_fifo.v" "$RTL/hx_credit.v" >"$WORK/link.iv" 2>&1 || [ -s "$WORK/link.iv" ]; then
            echo "$base: iverilog: $(head -1 "$WORK/link.iv")"; bad=$((bad + 1)); continue
        fi
        vvp -n "$WORK/link.vvp" +stim="$f" >"$WORK/link.out" 2>&1
        if [ $? -eq 0 ] && grep -q "^hx_link_tb: PASS" "$WORK/link.out" && ! grep -qE 'FAIL|FATAL|ERROR' "$WORK/link.out"; then
            echo "$base: $(grep '^hx_link_tb: PASS' "$WORK/link.out")"
        else
            echo "$base: $(grep -m1 -E 'FAIL|FATAL|ERROR' "$WORK/link.out")"; bad=$((bad + 1))
        fi
    done
    return $bad
}
# stress_run DIR: the directed stress bench (hx_link_stress_tb.v, 20,000
# cycles, self-checking: every flit delivered once and in order, delivery
# going on to the end) with an ACK flip at cycle 1000 (L = 1, the issue's
# reproduction), every fault kind once, two ACK flips in a row over a
# drop's NAK, a replay buffer smaller than the FIFO (R < B: the output is
# stopped by the buffer), the ACK path down for 50 cycles (credits free
# the buffer meanwhile), and 2- and 3-bit errors in ACK and credit words
# (every 37 cycles a credit word, every 53 a drop and the ACK word that
# carries its NAK; hw.CountCode detects them); returns the number of runs
# that failed.
stress_run() {
    local rtl=$1 cfg bad=0
    for cfg in "1 2 2 +ackflip=1000" \
               "1 5 4 +ackflip=1000 +drop=3000 +flip=5000 +creditdrop=7000" \
               "2 4 4 +drop=998 +ackflip=1000 +ackflip2=1001 +creditdrop=1500" \
               "4 8 8 +ackflip=1000 +ackflip2=1001 +creditdrop=1200 +flip=4000" \
               "2 2 8 +ackflip=1000 +drop=2000 +creditdrop=3000" \
               "1 2 2 +ackflip=1000 +acks=50" "3 3 3 +ackflip=1000 +acks=50 +drop=1020" \
               "1 2 2 +drop=1000 +dropevery=53 +ackflip=1001 +ackevery=53 +ackmask=3 +creditdrop=1010 +crdevery=37 +crdmask=3" \
               "3 4 4 +drop=1000 +dropevery=53 +ackflip=1002 +ackevery=53 +ackmask=6 +creditdrop=1010 +crdevery=37 +crdmask=10" \
               "2 4 4 +drop=1000 +dropevery=53 +ackflip=1001 +ackevery=53 +ackmask=11 +creditdrop=1010 +crdevery=37 +crdmask=137"; do
        set -- $cfg
        if ! iverilog -g2005 -Wall -o "$WORK/stress.vvp" -DTB_L="$1" -DTB_R="$2" -DTB_B="$3" -DTB_N=20000 \
                "$HERE/hx_link_stress_tb.v" "$rtl/hx_link_tx.v" "$rtl/hx_link_rx.v" "$rtl/hx_link_crc.v" \
                "$rtl/hx_chan.v" "$RTL/hx_mem_1r1w.v" "$RTL/hx_fifo.v" "$RTL/hx_credit.v" >"$WORK/stress.iv" 2>&1 || [ -s "$WORK/stress.iv" ]; then
            echo "stress $cfg: iverilog: $(head -1 "$WORK/stress.iv")"; bad=$((bad + 1)); continue
        fi
        vvp -n "$WORK/stress.vvp" "${@:4}" >"$WORK/stress.out" 2>&1
        if [ $? -eq 0 ] && grep -q "^hx_link_stress_tb: PASS" "$WORK/stress.out" && ! grep -qE 'FAIL|FATAL|ERROR' "$WORK/stress.out"; then
            echo "stress ${*:4}: $(grep '^hx_link_stress_tb: PASS' "$WORK/stress.out")"
        else
            echo "stress ${*:4}: $(grep -m1 -E 'FAIL|FATAL|ERROR' "$WORK/stress.out")"; bad=$((bad + 1))
        fi
    done
    return $bad
}
if out=$(stress_run "$RTL"); then
    echo "$out" | sed 's/^/ok   /'
else
    echo "$out" | sed 's/^/     /'; fail "hx_link_stress_tb: the link lost, duplicated or stopped"
fi
if out=$(link_run "$RTL"); then
    echo "$out" | sed 's/^/ok   /'
else
    echo "$out" | sed 's/^/     /'; fail "hx_link_tb: the RTL differs from the model's vectors"
fi
# Synthesis of the link layer on its own (L = 2, R = 5, W = 66).
for top in hx_link_tx hx_link_rx; do
    mkdir -p "$WORK/ys"
    (cd "$WORK/ys" && yosys -q -l "$WORK/$top.ys" -p "read_verilog $RTL/hx_link_tx.v $RTL/hx_link_rx.v $RTL/hx_link_crc.v $RTL/hx_mem_1r1w.v; \
        hierarchy -top $top -chparam W 66 -chparam L 2 -chparam R 5 -chparam B 4; synth -top $top; check -assert; stat" >/dev/null 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || grep -qE '^(Warning|ERROR):' "$WORK/$top.ys"; then
        fail "$top: yosys synth/check -assert (exit $rc)"; grep -E '^(Warning|ERROR):' "$WORK/$top.ys" | head -5 | sed 's/^/     /'
    else
        pass "$top: yosys synth -top $top; check -assert ($(awk '/Number of cells:/ {n=$4} END {print n}' "$WORK/$top.ys") cells)"
    fi
done
# mutant NAME FILE SED: the link layer with one edit must fail a vector file.
mutant() {
    local name=$1 file=$2 expr=$3 m="$WORK/mut_$1"
    rm -rf "$m"; mkdir -p "$m"
    cp "$RTL/hx_link_tx.v" "$RTL/hx_link_rx.v" "$RTL/hx_link_crc.v" "$RTL/hx_chan.v" "$m/"
    sed -i "$expr" "$m/$file"
    if cmp -s "$m/$file" "$RTL/$file"; then
        fail "mutant $name: the edit did not apply"; return
    fi
    local out
    if out=$(link_run "$m") && out=$(stress_run "$m"); then
        fail "mutant $name survived (every vector file and stress run passed)"
    else
        pass "mutant $name killed: $(echo "$out" | grep -v ': hx_link_tb: PASS\|: hx_link_stress_tb: PASS' | head -1)"
    fi
}
mutant resend_pointer hx_link_tx.v 's/sp_nx   = nak ? adv(ap, k) :/sp_nx   = nak ? adv(ap, k + ONE) :/'
mutant nak_cycle      hx_link_tx.v 's/localparam integer HL = 2 \* L - 1;/localparam integer HL = 2 * L;/'
mutant replay_count   hx_link_tx.v 's/bl   <= occn;/bl   <= occ;/'
mutant rx_sequence    hx_link_rx.v 's/in_flit\[W +: SB\] == eseq;/in_flit[W +: SB] == eseq + ONE;/'
# The reverse path: a damaged ACK word taken as a NAK (the old missing-ACK
# rule), an ACK word without its code check, a credit word without its
# code check, either checked by one code bit only (as weak as the former
# parity: 2-bit errors pass), and credits counted as pulses (one given per
# update: a damaged word loses a credit for good).
mutant ack_as_nak     hx_link_tx.v 's/wire          nak     = aok \&\& aw != nneed;/wire          nak     = (aok \&\& aw != nneed) || (due \&\& !aok);/'
mutant ack_code       hx_link_tx.v 's/wire          aok     = akc == ack\[SB +: KW\] \&\& ka <= occ;/wire          aok     = ka <= occ;/'
mutant credit_code    hx_link_tx.v 's/wire \[SB-1:0\] cur     = ckc == crd_in\[SB +: KW\] ? cw : clast;/wire [SB-1:0] cur     = cw;/'
mutant ack_code_bit   hx_link_tx.v 's/wire          aok     = akc == ack\[SB +: KW\] \&\& ka <= occ;/wire          aok     = akc[0] == ack[SB] \&\& ka <= occ;/'
mutant credit_code_bit hx_link_tx.v 's/wire \[SB-1:0\] cur     = ckc == crd_in\[SB +: KW\] ? cw : clast;/wire [SB-1:0] cur     = ckc[0] == crd_in[SB] ? cw : clast;/'
mutant credit_pulse   hx_link_tx.v 's/gcnt  <= gcnt + (give ? ONE : ZERO);/gcnt  <= cur;/'
# A credit that does not free its flit's entry: two damaged ACK words in a
# row then let the output send into a full buffer.
mutant credit_free    hx_link_tx.v 's/wire \[SB-1:0\] kcv     = (give \&\& kc <= occ) ? kc : ZERO;/wire [SB-1:0] kcv     = ZERO;/'

echo "== switch configuration port (sw_apb_tb)"
# ID, CAPS, reset values, write timing, read back, every refused transfer,
# and routes that follow rewritten tables (exchanger and crossbar).
if ! iverilog -g2005 -Wall -o "$WORK/sw_apb.vvp" "$HERE/sw_apb_tb.v" \
        "$RTL/hx_mem_1r1w.v" "$RTL/hx_fifo.v" "$RTL/hx_credit.v" "$RTL/hx_switch.v" >"$WORK/sw_apb.iv" 2>&1 \
        || [ -s "$WORK/sw_apb.iv" ]; then
    fail "sw_apb_tb: iverilog"; sed 's/^/     /' "$WORK/sw_apb.iv"
else
    (cd "$WORK" && vvp -n "$WORK/sw_apb.vvp") >"$WORK/sw_apb.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && [ "$(cat "$WORK/sw_apb.out")" = "sw_apb_tb: PASS" ]; then
        pass "sw_apb_tb: hx_switch APB port"
    else
        fail "sw_apb_tb (exit $rc)"; sed 's/^/     /' "$WORK/sw_apb.out" | head
    fi
fi

echo "== torus router configuration port (rt_apb_tb)"
# ID, CAPS, reset values, write timing, read back, every refused transfer,
# and routes that follow the written ADDR and PLUS registers; then mutants
# of the router's port, each of which the bench must kill.
rt_apb() {   # rt_apb DIR -> 0 when rt_apb_tb passes on DIR's hx_router*.v
    local d=$1
    iverilog -g2005 -Wall -o "$d/rt_apb.vvp" "$HERE/rt_apb_tb.v" "$RTL/hx_mem_1r1w.v" "$RTL/hx_fifo.v" \
        "$RTL/hx_credit.v" "$RTL/hx_drops.v" "$d/hx_router_dir.v" "$d/hx_router.v" >"$d/rt_apb.iv" 2>&1 && [ ! -s "$d/rt_apb.iv" ] &&
        (cd "$d" && vvp -n "$d/rt_apb.vvp") >"$d/rt_apb.out" 2>&1 && [ "$(cat "$d/rt_apb.out")" = "rt_apb_tb: PASS" ]
}
mkdir -p "$WORK/rt_apb" && cp "$RTL/hx_router.v" "$RTL/hx_router_dir.v" "$WORK/rt_apb/"
if rt_apb "$WORK/rt_apb"; then
    pass "rt_apb_tb: hx_router APB port"
else
    fail "rt_apb_tb"; cat "$WORK/rt_apb/rt_apb.iv" "$WORK/rt_apb/rt_apb.out" 2>/dev/null | sed 's/^/     /' | head
fi
rt_mutant() {   # rt_mutant NAME FILE SED: rt_apb_tb must fail on the edit
    local m="$WORK/rt_mut_$1"
    rm -rf "$m"; mkdir -p "$m"; cp "$RTL/hx_router.v" "$RTL/hx_router_dir.v" "$m/"
    sed -i "$3" "$m/$2"
    if cmp -s "$m/$2" "$RTL/$2"; then
        fail "router mutant $1: the edit did not apply"
    elif rt_apb "$m"; then
        fail "router mutant $1 survived rt_apb_tb"
    else
        pass "router mutant $1 killed: $(head -1 "$m/rt_apb.out")"
    fi
}
rt_mutant write_in_setup hx_router.v 's/wire        access = psel \&\& penable;/wire        access = psel;/'
rt_mutant no_coord_check hx_router.v 's/(NDIM < 2 || ((wa >> SH1) \& ((32.d1 << BK1) - 32.d1)) < K1) \&\&/1 \&\&/'
rt_mutant no_plus_check  hx_router.v 's/pl_ok = (kk >= 32) || ((v >> kk) == 32.d0);/pl_ok = 1;/'
rt_mutant word_clobbered hx_router_dir.v 's/pl <= nxt\[KK-1:0\];/pl <= wdata[KK-1:0];/'
rt_mutant stay_own_zero  hx_router.v 's/wire s0 = (c0\[BK0-1:0\] == oc0);/wire s0 = (c0[BK0-1:0] == 0);/'
rt_mutant vc1_fixed      hx_router_dir.v 's/assign vc1\[0\] = (RING != 0) \&\& (own32 == KK - 1);/assign vc1[0] = 1'"'"'b0;/'
rt_mutant hi_word_ignored hx_router.v 's/pl_ok = (kk > 32) ? ((v >> (kk - 32)) == 32.d0) : (v == 32.d0);/pl_ok = 1;/'

echo "== barrier node configuration port and ejection (node_apb_tb)"
# hx_barrier_node: channel select paddr[26:24], a busy channel refuses while
# another takes its write, node registers, the ejection demultiplexer and
# the node's NORANK; then each mutant must fail it.
napb() {   # napb NODE_SOURCE NAME -> 0 when node_apb_tb passes
    iverilog -g2005 -Wall -o "$WORK/node_apb_$2.vvp" "$HERE/node_apb_tb.v" \
        "$RTL/hx_mem_1r1w.v" "$RTL/hx_fifo.v" "$RTL/hx_credit.v" "$RTL/hx_alu.v" "$RTL/hx_barrier_unit.v" "$1" >"$WORK/node_apb_$2.iv" 2>&1 &&
        [ ! -s "$WORK/node_apb_$2.iv" ] &&
        (cd "$WORK" && vvp -n "$WORK/node_apb_$2.vvp") >"$WORK/node_apb_$2.out" 2>&1 &&
        [ "$(cat "$WORK/node_apb_$2.out")" = "node_apb_tb: PASS" ]
}
if napb "$RTL/hx_barrier_node.v" pristine; then
    pass "node_apb_tb: hx_barrier_node APB port and ejection"
else
    fail "node_apb_tb"; cat "$WORK/node_apb_pristine.iv" "$WORK/node_apb_pristine.out" 2>/dev/null | sed 's/^/     /' | head
fi
nodemutant() {   # nodemutant NAME SED-EXPRESSION
    sed "$2" "$RTL/hx_barrier_node.v" >"$WORK/hx_barrier_node_$1.v"
    if cmp -s "$RTL/hx_barrier_node.v" "$WORK/hx_barrier_node_$1.v"; then
        fail "node_apb_tb mutant $1: the edit matches nothing (update it)"
    elif napb "$WORK/hx_barrier_node_$1.v" "$1"; then
        fail "node_apb_tb mutant $1 passes"
    else
        pass "node_apb_tb mutant $1 caught"
    fi
}
nodemutant every_channel 's/assign c_sel\[gc\] = psel \&\& cok \&\& csel == gc;/assign c_sel[gc] = psel \&\& cok;/'
nodemutant no_norank     's/wire          nrk   = ready \&\& !taken;/wire          nrk   = 1'"'"'b0;/'
nodemutant head_to_ch0   's/wire \[7:0\] tgt = f_head ? h_ch :/wire [7:0] tgt = f_head ? 8'"'"'d0 :/'
nodemutant irq_ch0_only 's/assign irq = |c_irq;/assign irq = c_irq[0];/'

echo "== barrier unit software controls (unit_soft_tb)"
# hx_barrier_unit: ABORT, WATCHDOG in WAIT, irq, held arrivals, readback,
# tagged staging (docs/registers.md, "Software control"); verilog's
# TestUnitSoftControls runs its mutants.
if iverilog -g2005 -Wall -o "$WORK/unit_soft.vvp" "$HERE/unit_soft_tb.v" \
        "$RTL/hx_mem_1r1w.v" "$RTL/hx_fifo.v" "$RTL/hx_credit.v" "$RTL/hx_alu.v" "$RTL/hx_barrier_unit.v" >"$WORK/unit_soft.iv" 2>&1 &&
        [ ! -s "$WORK/unit_soft.iv" ] &&
        (cd "$WORK" && vvp -n "$WORK/unit_soft.vvp") >"$WORK/unit_soft.out" 2>&1 &&
        [ "$(cat "$WORK/unit_soft.out")" = "unit_soft_tb: PASS" ]; then
    pass "unit_soft_tb: hx_barrier_unit software controls"
else
    fail "unit_soft_tb"; cat "$WORK/unit_soft.iv" "$WORK/unit_soft.out" 2>/dev/null | sed 's/^/     /' | head
fi
if iverilog -g2005 -Wall -o "$WORK/unit_read.vvp" "$HERE/unit_read_tb.v" \
        "$RTL/hx_mem_1r1w.v" "$RTL/hx_fifo.v" "$RTL/hx_credit.v" "$RTL/hx_alu.v" "$RTL/hx_barrier_unit.v" >"$WORK/unit_read.iv" 2>&1 &&
        [ ! -s "$WORK/unit_read.iv" ] &&
        (cd "$WORK" && vvp -n "$WORK/unit_read.vvp") >"$WORK/unit_read.out" 2>&1 &&
        [ "$(cat "$WORK/unit_read.out")" = "unit_read_tb: PASS" ]; then
    pass "unit_read_tb: a data unit's table readback"
else
    fail "unit_read_tb"; cat "$WORK/unit_read.iv" "$WORK/unit_read.out" 2>/dev/null | sed 's/^/     /' | head
fi
# An expected-message word read in the cycle a data-mode head pops is
# refused; a cycle off, or another table, it is served (verilog's
# TestExpectedReadCollision runs its mutants).
if iverilog -g2005 -Wall -o "$WORK/unit_xread.vvp" "$HERE/unit_xread_tb.v" \
        "$RTL/hx_mem_1r1w.v" "$RTL/hx_fifo.v" "$RTL/hx_credit.v" "$RTL/hx_alu.v" "$RTL/hx_barrier_unit.v" >"$WORK/unit_xread.iv" 2>&1 &&
        [ ! -s "$WORK/unit_xread.iv" ] &&
        (cd "$WORK" && vvp -n "$WORK/unit_xread.vvp") >"$WORK/unit_xread.out" 2>&1 &&
        [ "$(cat "$WORK/unit_xread.out")" = "unit_xread_tb: PASS" ]; then
    pass "unit_xread_tb: an expected word read as a data head pops"
else
    fail "unit_xread_tb"; cat "$WORK/unit_xread.iv" "$WORK/unit_xread.out" 2>/dev/null | sed 's/^/     /' | head
fi

echo "== switch illegal flits and DROPS (sw_drop_tb)"
# Out-of-grid heads and their packets, orphans, a head inside a packet (a
# cut tail), a credit back for every dropped flit, DROPS read, cleared and
# saturated through APB, and counting a drop at the edge that ends its
# cycle; then each mutant of the drop logic must fail it.
swdrop() {   # swdrop SWITCH_SOURCE NAME -> 0 when sw_drop_tb passes
    iverilog -g2005 -Wall -o "$WORK/sw_drop_$2.vvp" "$HERE/sw_drop_tb.v" \
        "$RTL/hx_mem_1r1w.v" "$RTL/hx_fifo.v" "$RTL/hx_credit.v" "$1" >"$WORK/sw_drop_$2.iv" 2>&1 && [ ! -s "$WORK/sw_drop_$2.iv" ] &&
        (cd "$WORK" && vvp -n "$WORK/sw_drop_$2.vvp") >"$WORK/sw_drop_$2.out" 2>&1 &&
        [ "$(cat "$WORK/sw_drop_$2.out")" = "sw_drop_tb: PASS" ]
}
if swdrop "$RTL/hx_switch.v" pristine; then
    pass "sw_drop_tb: hx_switch illegal flits and DROPS"
else
    fail "sw_drop_tb"; cat "$WORK/sw_drop_pristine.iv" "$WORK/sw_drop_pristine.out" 2>/dev/null | sed 's/^/     /' | head
fi
dropmutant() {   # dropmutant NAME SED-EXPRESSION
    sed "$2" "$RTL/hx_switch.v" >"$WORK/hx_switch_$1.v"
    if cmp -s "$RTL/hx_switch.v" "$WORK/hx_switch_$1.v"; then
        fail "sw_drop_tb mutant $1: the edit matches nothing (update it)"
    elif swdrop "$WORK/hx_switch_$1.v" "$1"; then
        fail "sw_drop_tb mutant $1 passes"
    else
        pass "sw_drop_tb mutant $1 caught"
    fi
}
dropmutant oog_kept   's/assign ev_dis\[i\]  = idle \&\& (!hd || oog);/assign ev_dis[i]  = idle \&\& !hd;/'
dropmutant orphan_kept 's/assign ev_dis\[i\]  = idle \&\& (!hd || oog);/assign ev_dis[i]  = idle \&\& oog;/'
dropmutant no_cut     's/wire          cut   = own_hd;/wire          cut   = 1'"'"'b0;/'
dropmutant no_sat     's/sat = (v > 255) ? 8'"'"'hFF : v\[7:0\];/sat = v[7:0];/'
dropmutant no_clear   's/wire clr = access \&\& pwrite \&\& a_drop;/wire clr = 1'"'"'b0;/'
dropmutant read_lags  's/assign drops = {v_fl, v_cut, v_orph, v_oog};/assign drops = {d_fl, d_cut, d_orph, d_oog};/'

echo "== switch routing exception CAM (cam_tb)"
# EXC, reset values, read back, refused writes, a hit winning over the
# table, one-bit address differences missing, invalid entries ignored, the
# lowest matching entry winning, reset; then yosys on a switch with E = 3.
if ! iverilog -g2005 -Wall -o "$WORK/cam.vvp" "$HERE/cam_tb.v" \
        "$RTL/hx_mem_1r1w.v" "$RTL/hx_fifo.v" "$RTL/hx_credit.v" "$RTL/hx_switch.v" >"$WORK/cam.iv" 2>&1 \
        || [ -s "$WORK/cam.iv" ]; then
    fail "cam_tb: iverilog"; sed 's/^/     /' "$WORK/cam.iv"
else
    (cd "$WORK" && vvp -n "$WORK/cam.vvp") >"$WORK/cam.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && [ "$(cat "$WORK/cam.out")" = "cam_tb: PASS" ]; then
        pass "cam_tb: hx_switch routing exceptions"
    else
        fail "cam_tb (exit $rc)"; sed 's/^/     /' "$WORK/cam.out" | head
    fi
fi
mkdir -p "$WORK/ys"
(cd "$WORK/ys" && yosys -q -l "$WORK/cam.ys" -p "read_verilog $RTL/hx_mem_1r1w.v $RTL/hx_fifo.v $RTL/hx_credit.v $RTL/hx_switch.v; \
    hierarchy -top hx_switch -chparam P 3 -chparam NDIM 2 -chparam K0 4 -chparam K1 4 -chparam E 3; \
    synth -top hx_switch; check -assert; stat" >/dev/null 2>&1)
rc=$?
if [ $rc -ne 0 ] || grep -qE '^(Warning|ERROR):' "$WORK/cam.ys"; then
    fail "cam: yosys synth/check -assert (exit $rc)"; grep -E '^(Warning|ERROR):' "$WORK/cam.ys" | head -20 | sed 's/^/     /'
else
    pass "cam: yosys synth -top hx_switch (E = 3); check -assert ($(awk '/Number of cells:/ {n=$4} END {print n}' "$WORK/cam.ys") cells)"
fi

# rechecksum FILE: write the checksum of every word after it (whatever the
# header's count says) into word 1, as verilog.RewriteTable does: a file
# with an extra or a missing word whose checksum still matches its body.
rechecksum() {
    local f=$1 c=0 i ln
    local -a w
    mapfile -t w < <(sed 's#//.*##' "$f" | tr -s ' \t' '\n' | grep -v '^$')
    for ((i = 2; i < ${#w[@]}; i++)); do
        c=$(( ((c << 1) | ((c >> 63) & 1)) ^ 16#${w[i]} ))
    done
    ln=$(grep -n -m2 '^[0-9a-fA-F]\{16\}' "$f" | tail -1 | cut -d: -f1)
    sed -i "${ln}s/^[0-9a-fA-F]\{16\}/$(printf %016x "$c")/" "$f"
}
# lastword FILE: delete the file's last word (its last line).
lastword() { sed -i '$d' "$1"; }
# extraword FILE: append one word after the last.
extraword() { echo "0000000000000000 // one word too many" >>"$1"; }

echo "== table checks of the loader (each broken table must stop the simulation)"
# Build the bfly2 barrier scenario once; run it on damaged copies of bfly2/.
NEG="$WORK/neg.vvp"
iverilog -g2005 -Wall -o "$NEG" -DTB_TOP=line_top \
    "$HERE/smoke_tb.v" "$HERE/hx_tbl_load.v" "$HERE/line_top.v" "${LIBP[@]}" >/dev/null 2>&1
neg_case() {   # neg_case label file-named-in-message command-to-damage
    local label=$1 file=$2; shift 2
    local d="$WORK/neg_$label"
    rm -rf "$d"; cp -r "$HERE/bfly2" "$d"
    (cd "$d" && eval "$*")
    (cd "$d" && vvp -n "$NEG") >"$d.out" 2>&1
    local rc=$?
    if [ $rc -ne 0 ] && grep -q "FATAL" "$d.out" && grep "FATAL" -A0 "$d.out" | grep -q "$file"; then
        pass "broken table ($label): exit $rc, $(grep -m1 -o "$file.*" "$d.out")"
    else
        fail "broken table ($label) not detected (exit $rc)"; sed 's/^/     /' "$d.out" | head
    fi
}
neg_case missing    gt_n1.hex 'rm gt_n1.hex'
neg_case short      "rt_s2.hex: 3 words, fewer words than count + 2 = 4" 'sed -i "\$d" rt_s2.hex'
neg_case magic      rt_s0.hex 'sed -i "s/^4858525400000002/4858525500000002/" rt_s0.hex'
neg_case count      gt_n0.hex 'sed -i "s/^4858475400000004/4858475400000003/" gt_n0.hex'
neg_case checksum   gt_n1.hex 'sed -i "s/^0000000000000000 \/\/ body\[3\]/0000000000000001 \/\/ body[3]/" gt_n1.hex'
neg_case entry      rt_s1.hex 'printf "4858525400000002\n00000000000000f5\n0000000000000005\n00000000000000ff\n" > rt_s1.hex'
neg_case gates      gt_n0.hex 'printf "4858475400000004\n0000021300040007\n8000000200000000\n0000000000010000\n0000010100000001\n0000000100000001\n" > gt_n0.hex'
# The other side of the word rules: a table laid out otherwise (block
# comments, two words on a line, upper-case digits, no newline at the end)
# loads and gives the same trace.
d="$WORK/layout"; rm -rf "$d"; cp -r "$HERE/bfly2" "$d"
printf '/* switch 1\n   hand laid out */ 4858525400000002 // header\n00000000000000FD/* checksum */\n\t0000000000000001 00000000000000ff // two on a line' >"$d/rt_s1.hex"
(cd "$d" && vvp -n "$NEG") >"$d.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && ! grep -qE 'WARNING|ERROR|FATAL' "$d.out" && diff -q "$HERE/expected/bfly2_l1_b2_barrier.trace" "$d.out" >/dev/null; then
    pass "table layout (block comments, two words on a line, upper case): loads, same trace"
else
    fail "table layout not accepted (exit $rc)"; sed 's/^/     /' "$d.out" | head
fi
# Word count: exactly count + 2 words (docs/tables.md), an extra word
# (checksum recomputed or not) and a missing one.
neg_case rt_extra        "rt_s1.hex: 5 words, more words than count + 2 = 4" 'extraword rt_s1.hex'
neg_case rt_extra_sum    "rt_s2.hex: 5 words, more words than count + 2 = 4" 'extraword rt_s2.hex; rechecksum rt_s2.hex'
neg_case rt_missing_sum  "rt_s0.hex: 3 words, fewer words than count + 2 = 4" 'lastword rt_s0.hex; rechecksum rt_s0.hex'
neg_case gt_extra        "gt_n0.hex: 7 words, more words than count + 2 = 6" 'extraword gt_n0.hex'
neg_case gt_extra_sum    "gt_n1.hex: 7 words, more words than count + 2 = 6" 'extraword gt_n1.hex; rechecksum gt_n1.hex'
neg_case gt_missing      "gt_n1.hex: 5 words, fewer words than count + 2 = 6" 'lastword gt_n1.hex'
neg_case gt_missing_sum  "gt_n0.hex: 5 words, fewer words than count + 2 = 6" 'lastword gt_n0.hex; rechecksum gt_n0.hex'
# Word syntax: exactly 16 hex digits. Icarus reads "...0g0" as far as the
# bad digit (with an ERROR line, exit 0) and a short word as a number.
neg_case gt_baddigit     "gt_n1.hex: word 5 (the header is word 0) is not 16 hex digits" 'sed -i "s/^0000000000000000 \/\/ body\[3\]/00000000000000g0 \/\/ body[3]/" gt_n1.hex'
neg_case rt_shortword    "rt_s1.hex: word 3 (the header is word 0) is not 16 hex digits" 'sed -i "s/^00000000000000ff/ff/" rt_s1.hex'

# Capacities: valid tables that do not fit the hardware. The grid2 tables
# (G = 2, 2 routes per node) on units built with MAXG = 1 (the loader
# refuses the table from the unit's CAPS register), and with NRT = 1 (the
# unit refuses the write of route 1: pslverr).
cap_case() {   # cap_case label text-in-message maxg nrt
    local label=$1 text=$2 maxg=$3 nrt=$4
    local v="$WORK/cap_$label.vvp"
    iverilog -g2005 -Wall -o "$v" -DTB_TOP=grid2_top -DTB_NSW=8 -DTB_K=4 -DTB_L=2 -DTB_B=2 -DTB_FW=64 -DTB_OP=6 \
        -DTB_NGV="$(pack4 2 2 2 2)" -DTB_NWV="$(pack4 6 6 6 6)" -DTB_ARR="$(pack4 0 5 1 2)" -DTB_OPS="256'h0" \
        -DTB_MAXG="$maxg" -DTB_NRT="$nrt" \
        "$HERE/smoke_tb.v" "$HERE/hx_tbl_load.v" "$HERE/grid2_top.v" "${LIBP[@]}" >/dev/null 2>&1
    (cd "$HERE/grid2" && vvp -n "$v") >"$WORK/cap_$label.out" 2>&1
    local rc=$?
    if [ $rc -ne 0 ] && grep "FATAL" "$WORK/cap_$label.out" | grep -q "$text"; then
        pass "table past the capacity ($label): exit $rc, $(grep -m1 -o "$text.*" "$WORK/cap_$label.out")"
    else
        fail "table past the capacity ($label) not detected (exit $rc)"; sed 's/^/     /' "$WORK/cap_$label.out" | head
    fi
}
cap_case maxg "gt_n0.hex: G = 2, unit 0 holds at most 1 gates" 1 2
cap_case nrt  "gt_n0.hex: route 1: write of" 2 1

echo "== data table checks (DATA = 1; each broken table must stop the simulation)"
# The ag4 data scenario, run on damaged copies of ag4/.
NEGD="$WORK/negd.vvp"
iverilog -g2005 -Wall -o "$NEGD" -DTB_TOP=line_top -DTB_K=4 -DTB_L=2 -DTB_B=1 -DTB_FW=32 \
    -DTB_NGV="$(pack4 2 2 2 2)" -DTB_NWV="$(pack4 6 6 5 5)" -DTB_ARR="$(pack4 0 0 0 0)" -DTB_OPS="256'h0" \
    -DTB_DATA=1 -DTB_IF=2 -DTB_NDWV="$(pack4 8 8 7 7)" -DTB_MAXG=2 -DTB_NRT=2 -DTB_NIL=3 \
    "$HERE/smoke_tb.v" "$HERE/hx_tbl_load.v" "$HERE/line_top.v" "${LIBP[@]}" >/dev/null 2>&1
dneg_case() {   # dneg_case label text-in-message command-to-damage
    local label=$1 text=$2; shift 2
    local d="$WORK/dneg_$label"
    rm -rf "$d"; cp -r "$HERE/ag4" "$d"
    (cd "$d" && eval "$*")
    (cd "$d" && vvp -n "$NEGD") >"$d.out" 2>&1
    local rc=$?
    if [ $rc -ne 0 ] && grep "FATAL" "$d.out" | grep -q "$text"; then
        pass "broken data table ($label): exit $rc, $(grep -m1 -o "$text.*" "$d.out")"
    else
        fail "broken data table ($label) not detected (exit $rc)"; sed 's/^/     /' "$d.out" | head
    fi
}
dneg_case missing    "dt_n2.hex: data table missing" 'rm dt_n2.hex'
dneg_case magic      "dt_n0.hex: bad magic"          'sed -i "s/^4858445400000008/4858445500000008/" dt_n0.hex'
dneg_case count      "dt_n1.hex: 7 body words"       'sed -i "s/^4858445400000008/4858445400000007/" dt_n1.hex'
dneg_case checksum   "dt_n3.hex: checksum"           'sed -i "s/^0001000001000001 \/\/ body\[2\]/0001000001000002 \/\/ body[2]/" dt_n3.hex'
dneg_case short      "dt_n2.hex: 8 words, fewer words than count + 2 = 9" 'sed -i "\$d" dt_n2.hex'
dneg_case short_sum  "dt_n1.hex: 9 words, fewer words than count + 2 = 10" 'lastword dt_n1.hex; rechecksum dt_n1.hex'
dneg_case extra      "dt_n3.hex: 10 words, more words than count + 2 = 9" 'extraword dt_n3.hex'
dneg_case extra_sum  "dt_n0.hex: 11 words, more words than count + 2 = 10" 'extraword dt_n0.hex; rechecksum dt_n0.hex'
dneg_case gt_extra   "gt_n2.hex: 8 words, more words than count + 2 = 7" 'extraword gt_n2.hex'

finish
