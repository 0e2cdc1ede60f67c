# hxbar: two commands for a newcomer.
#   make run   builds hxbar and runs the main job: the default barrier and
#              the Hitachi all-gather and a three-episode run, each
#              simulated and co-simulated; the default barrier's pictures
#              go to out/ (docs/pictures.md)
#   make test  installs what is missing (iverilog, verilator, yosys,
#              nextpnr-ice40, icestorm, SLURM) and runs every test
GO      ?= go
BIN     := ./hxbar
FUZZTIME ?= 5s

.PHONY: all build run pictures test deps vet unit race fuzz rtl slurm sweep-demo bench experiments area mutate clean faults cosim-random formal formal-status

all: build

build:
	$(GO) build -o $(BIN) ./cmd/hxbar

PICS ?= out
run: build deps
	@mkdir -p $(PICS)
	$(BIN) sim --plot $(PICS)/timeline.svg --plot-load $(PICS)/load.svg --trace-format chrome --trace $(PICS)/trace.json
	@echo "pictures of this run: $(PICS)/timeline.svg, $(PICS)/load.svg (a browser), $(PICS)/trace.json (https://ui.perfetto.dev or chrome://tracing)"
	$(BIN) cosim
	$(BIN) sim --config examples/allgather-hitachi-4x4.yaml
	$(BIN) cosim --config examples/allgather-hitachi-4x4.yaml
	$(BIN) sim --config examples/episodes-4x4.yaml
	$(BIN) cosim --config examples/episodes-4x4.yaml

# The default run's timeline and load pictures shown in README.md;
# TestRunPicturesInStep keeps them equal to what hxbar draws now.
pictures: build
	$(BIN) sim --plot docs/img/run-timeline.svg --plot-load docs/img/run-load.svg > /dev/null

# deps installs the simulators the RTL tests need, the iCE40 place and
# route of 'hxbar synth --pnr ice40' (nextpnr-ice40; fpga-icestorm brings
# icepack and icetime), and the single-node SLURM cluster of 'make slurm'
# (slurm-wlm, munge), when they are missing.
deps:
	@missing=""; \
	command -v iverilog >/dev/null || missing="$$missing iverilog"; \
	command -v verilator >/dev/null || missing="$$missing verilator"; \
	command -v yosys >/dev/null || missing="$$missing yosys"; \
	command -v nextpnr-ice40 >/dev/null || missing="$$missing nextpnr-ice40"; \
	{ command -v icepack >/dev/null && command -v icetime >/dev/null; } || missing="$$missing fpga-icestorm"; \
	{ command -v sbatch >/dev/null && command -v slurmctld >/dev/null && command -v slurmd >/dev/null; } || missing="$$missing slurm-wlm"; \
	{ command -v munged >/dev/null && command -v mungekey >/dev/null; } || missing="$$missing munge"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

vet:
	$(GO) vet ./...

# Every Go test; with yosys installed (deps) this includes
# TestSynthDefaultClean: the default 4x4 design, without any .hex file,
# through 'synth -top hx_top; check -assert' with no Yosys warning (~10 s).
# tools/testtime prints what go test prints (a line per package, a failed
# test's output) and then the slowest tests, so every run says where its
# time went; the exit status is go test's.
unit:
	@d=$$(mktemp -d); $(GO) build -o $$d/testtime ./tools/testtime || exit 1; \
	{ $(GO) test -count=1 -timeout 40m -json ./...; echo $$? > $$d/rc; } | $$d/testtime -top 20; \
	rc=$$(cat $$d/rc); rm -rf $$d; exit $$rc

# The parallel engine against the single-worker one, under the race detector.
race:
	$(GO) test -count=1 -race -run 'Parallel|Properties' ./sim

# The RTL library's own smoke tests: hand-computed traces, lint (iverilog
# -Wall, verilator -Wall) over a parameter sweep, yosys synth, broken tables;
# its two halves at once (run.sh, RTL_PART), their outputs in order.
rtl:
	@d=$$(mktemp -d); \
	RTL_PART=1 bash verilog/rtl/test/run.sh > $$d/1.log 2>&1 & p=$$!; \
	RTL_PART=2 bash verilog/rtl/test/run.sh > $$d/2.log 2>&1; r2=$$?; \
	wait $$p; r1=$$?; cat $$d/1.log $$d/2.log; rm -rf $$d; \
	test $$r1 -eq 0 -a $$r2 -eq 0

# Short, bounded fuzz runs (FUZZTIME each, 9 targets); see docs/testing.md
# for longer ones. Each -fuzz pattern is anchored: FuzzParse alone would
# match FuzzParseFault too, and go test fuzzes one target at a time. A
# failing run is tried once more: go's fuzz coordinator sometimes ends a
# timed run with "context deadline exceeded" and no input (seen in CI),
# while an input that fails was saved to testdata/fuzz and fails again.
fuzz:
	$(GO) test ./hw -run=NONE -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) || $(GO) test ./hw -run=NONE -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./hw -run=NONE -fuzz='^FuzzParseFault$$' -fuzztime=$(FUZZTIME) || $(GO) test ./hw -run=NONE -fuzz='^FuzzParseFault$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./barrierunit -run=NONE -fuzz='^FuzzReadSchedule$$' -fuzztime=$(FUZZTIME) || $(GO) test ./barrierunit -run=NONE -fuzz='^FuzzReadSchedule$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./sim -run=NONE -fuzz='^FuzzDataSchedule$$' -fuzztime=$(FUZZTIME) || $(GO) test ./sim -run=NONE -fuzz='^FuzzDataSchedule$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./sim -run=NONE -fuzz='^FuzzRunSystem$$' -fuzztime=$(FUZZTIME) || $(GO) test ./sim -run=NONE -fuzz='^FuzzRunSystem$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./sweep -run=NONE -fuzz='^FuzzParseSpec$$' -fuzztime=$(FUZZTIME) || $(GO) test ./sweep -run=NONE -fuzz='^FuzzParseSpec$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./sweep -run=NONE -fuzz='^FuzzParseLog$$' -fuzztime=$(FUZZTIME) || $(GO) test ./sweep -run=NONE -fuzz='^FuzzParseLog$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./sweep -run=NONE -fuzz='^FuzzParseMeta$$' -fuzztime=$(FUZZTIME) || $(GO) test ./sweep -run=NONE -fuzz='^FuzzParseMeta$$' -fuzztime=$(FUZZTIME)
	$(GO) test ./internal/gendir -run=NONE -fuzz='^FuzzParseManifest$$' -fuzztime=$(FUZZTIME) || $(GO) test ./internal/gendir -run=NONE -fuzz='^FuzzParseManifest$$' -fuzztime=$(FUZZTIME)

# The seeds' claims measured on the cycle model: rewrites docs/experiments.md
# and its plots in docs/img (a few seconds; TestDocInStep keeps them in step).
experiments: build
	$(BIN) experiments --doc docs/experiments.md --img docs/img

# Area and logic depth of the generated RTL under Yosys (docs/area.md):
# runs 'hxbar synth' over the design points of tools/area and synthesizes
# the barrier unit alone over its gate capacity (a few minutes on an idle
# machine; a point over 5 minutes is left out), caches the JSON in
# AREA_CACHE, prints the tables and rewrites docs/img/area-ports.svg,
# area-width.svg and area-gates.svg.
AREA_CACHE ?= /tmp/hxbar-area
area: build deps
	$(GO) run ./tools/area -hxbar $(BIN) -cache $(AREA_CACHE) -img docs/img

# hxbar sweep --slurm on a real single-node SLURM cluster started in a
# temporary directory (munged, slurmctld, slurmd) and stopped again: the
# array job's merged results must equal a local run's (tools/slurm/test.sh,
# docs/sweeps.md). Needs root, else it skips (with CI set it uses sudo).
SLURM_SPEC ?= examples/sweeps/orders.yaml
slurm: build deps
	SLURM=1 bash tools/slurm/test.sh $(BIN) $(SLURM_SPEC)

# The 240-point sweep of docs/sweeps.md (six orders x item flits x duplex x
# link latency): run locally, through the single-node SLURM cluster, and
# plotted into docs/img/sweep-orders.svg.
SWEEP_DIR ?= /tmp/hxbar-sweep-orders
sweep-demo: build deps
	$(BIN) sweep examples/sweeps/orders.yaml --out $(SWEEP_DIR)
	$(BIN) sweep --plot x=item_flits,y=cycles,series=order $(SWEEP_DIR) --plot-out docs/img/sweep-orders.svg
	SLURM=1 bash tools/slurm/test.sh $(BIN) examples/sweeps/orders.yaml

test: deps vet fuzz rtl race unit slurm
	@echo "make test: all passed"

# Random co-simulation (docs/testing.md): N designs drawn from seeds
# SEED..SEED+N-1 (testbench.RandomDesign: sizes, episode lists, ops,
# latency, buffers, retry, avoid, crc, watchdog, faults), each co-simulated
# under Icarus against the model; a failure is shrunk and its system files
# are written to COSIM_OUT. 'make test' runs seeds 1..30 (TestCosimRandom).
N ?= 200
COSIM_OUT ?= /tmp/hxbar-cosimrand
cosim-random: deps
	$(GO) run ./tools/cosimrand -n $(N) -seed $(SEED) -j 2 -out $(COSIM_OUT)

# Formal proofs (docs/testing.md, "Formal proof", "Step proofs"): no
# barrier unit of the 3- and 4-node systems (line3, line4) releases a rank
# before every rank of its episode arrived. By default the step proofs, by
# induction over episodes (sequences of any length), seeded with the free
# register groups the line3 run found (FORMAL_FREE); the old parity-tagged
# unit must fail line3. Hours on 2 cores (a step: minutes to an hour);
# FORMAL_RUN=line3 for one system. FORMAL_STEPS=false: the bounded proofs
# of every sequence of three episodes instead (FORMAL_RUN=line3-bdb for
# one; the old unit must fail line3-bdb). Needs yosys (deps), which
# brings yosys-abc. The step proofs resume: steps the ledger
# (verilog/formal/ledger.json) proves on today's inputs are skipped, and
# each step proved is merged into it (commit it).
ifndef FORMAL_OUT
FORMAL_OUT := /tmp/hxbar-formal-$(shell date +%Y%m%d-%H%M%S)
endif
FORMAL_RUN ?= .
FORMAL_STEPS ?= true
FORMAL_FREE ?= bu.g_wq,bu.p1_g,bu.p1_val,bu.r_wq,bu.rx_gate,bu.wlo,bu.wlo_a,bu.xb_byp,bu.xw_q,ej_fifo.wq,fifo,fifo.wq,g_out[0].rrm,m.ra_q,xmem_b.ra_q
formal: deps
ifeq ($(FORMAL_STEPS),true)
	@rc=0; $(GO) run ./tools/formal -j 2 -steps -resume -free '$(FORMAL_FREE)' -run '$(FORMAL_RUN)' -out $(FORMAL_OUT) -json $(FORMAL_OUT).json || rc=$$?; \
	$(GO) run ./tools/formal -add $(FORMAL_OUT) || rc=1; \
	$(GO) run ./tools/formal -status -run '$(FORMAL_RUN)' || rc=1; exit $$rc
else
	$(GO) run ./tools/formal -j 2 -steps=false -run '$(FORMAL_RUN)' -out $(FORMAL_OUT) -json $(FORMAL_OUT).json
endif

# Which steps of the step proofs the ledger (verilog/formal/ledger.json)
# proves on today's RTL; seconds, no solver run. Exit 1 unless all.
formal-status:
	$(GO) run ./tools/formal -status -run '$(FORMAL_RUN)'

# Mutation testing (minutes, not part of 'make test'): MUTANTS operator
# mutations per package, sampled with SEED, each run against the package's
# fast tests in a temporary copy of the tree; see docs/testing.md.
MUTANTS ?= 40
SEED ?= 1
mutate:
	$(GO) run ./tools/mutate -n $(MUTANTS) -seed $(SEED) -v

# Benchmarks and scale runs: long, not part of 'make test'. Figures are
# recorded in docs/performance.md. BenchmarkBarrierScale runs the same
# barrier at 4Ki, 16Ki, 64Ki, 256Ki and 1Mi ranks and prints ns/rank-gate
# (the growth); BenchmarkTofuD is examples/tofu-d-fugaku.yaml's barrier;
# BenchmarkTorusScale the same barrier on 16^4 and 32^4 tori.
bench: build
	$(GO) test -run=NONE -bench=. -skip='BarrierScale|TofuD|TorusScale' -benchmem ./noc ./sim ./barrierunit
	$(GO) test -run=NONE -bench='BarrierScale|TofuD|TorusScale' -benchtime=1x ./sim
	$(BIN) sim --dims 8,8,8,8 --skew 100 --format json --timing > /dev/null
	$(BIN) sim --dims 16,16,16,16 --skew 100 --format json --timing > /dev/null
	$(BIN) sim --dims 32,32,32,32 --skew 100 --format json --timing > /dev/null
	$(BIN) sim --config examples/tofu-d-fugaku.yaml --format json --timing > /dev/null
	$(BIN) sim --topology torus --dims 32,32,32,32 --skew 100 --format json --timing > /dev/null
	HXBAR_SPEED=1 $(GO) test -count=1 -run TestSpeed -v ./testbench/ | grep -v '^=== '
	HXBAR_FULL_MATRIX=1 $(GO) test -count=1 -timeout 30m -run 'TestYosysSynthSixDims|TestVerilatorLintSixDims|TestVerilatorLint' ./verilog/
	HXBAR_FULL_MATRIX=1 $(GO) test -count=1 -timeout 4h -run 'TestCosimSixDims' ./testbench/
	HXBAR_FULL_MATRIX=1 $(GO) test -count=1 -timeout 90m -run 'TestCosimMatrix|TestFaultsCosim$$|TestCosimAvoid$$|TestCosimEpisodes$$|TestCosimChannels$$|TestFaultsCosimWithRetry|TestCosimEpisodesVerilator|TestCosimDataVerilator|TestCosimNetlistMatrix' ./testbench/
	$(MAKE) faults

# The fault campaigns of docs/reliability.md (1,000 runs per kind and per
# K = 1, 2 faults a run, on 4x4 and 8x8, for a barrier, a sum reduction and
# the all-gather; about 20 minutes on one free core, mostly the 8x8 runs;
# N=100 or DIMS=4,4 for a quick one, PER_RUN="1 2 3 4" for more faults).
faults: build
	bash tools/faults/campaigns.sh $(BIN) --watchdog 1000

clean:
	rm -f $(BIN)
