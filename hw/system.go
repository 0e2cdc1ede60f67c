// Package hw describes a simulated system: the network shape, its timing
// parameters, which ranks take part, which gate schedule and reduction they
// run, and how the ranks arrive. It validates a description and names the
// offending field, the value and what is allowed. It imports nothing else of
// hxbar; every other package takes a validated System.
package hw

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// Topology is the topology field: the network the ranks sit on.
type Topology string

// The topologies.
const (
	TopoHyperXbar Topology = "hyperxbar" // hyper-crossbar: one crossbar per line of every dimension
	TopoTorus     Topology = "torus"     // k-ary n-cube with bidirectional rings
	TopoFatTree   Topology = "fattree"   // k-ary n-tree
)

// Algorithm is the algo field: the gate schedule the barrier units run.
type Algorithm string

// The gate schedules.
const (
	AlgoButterfly          Algorithm = "butterfly"            // Fujitsu near-last butterfly: longest routes first, 1-hop exchange last
	AlgoButterflyNearFirst Algorithm = "butterfly-near-first" // the same exchanges, 1-hop exchange first
	AlgoDissemination      Algorithm = "dissemination"        // ceil(log2 R) rounds for any R; sum and xor only when R is a power of two
)

// OpName is the op field: the reduction carried by the barrier; its
// number is its OpCode (hw/op.go).
type OpName string

// The reductions.
const (
	OpBarrier OpName = "barrier"
	OpSum     OpName = "sum"
	OpMax     OpName = "max"
	OpMin     OpName = "min"
	OpAnd     OpName = "and"
	OpOr      OpName = "or"
	OpXor     OpName = "xor"
)

// Collective is the collective field: what the units run.
type Collective string

// The collectives.
const (
	CollBarrier   Collective = "barrier"
	CollAllGather Collective = "allgather"
	CollBroadcast Collective = "broadcast"
)

// Duplex is the duplex field: the link duplex mode.
type Duplex string

// The duplex modes.
const (
	DuplexFull Duplex = "full"
	DuplexHalf Duplex = "half"
)

// Allowed values of the enumerated fields, in documentation order.
var (
	Topologies  = []Topology{TopoHyperXbar, TopoTorus, TopoFatTree}
	Collectives = []Collective{CollBarrier, CollAllGather, CollBroadcast}
	Algorithms  = []Algorithm{AlgoButterfly, AlgoButterflyNearFirst, AlgoDissemination}
	Ops         = slices.Clone(opNames[:]) // a copy: OpCode and Code read opNames
	DuplexModes = []Duplex{DuplexFull, DuplexHalf}
)

// Join lists names separated by ", ", as error messages show allowed values.
func Join[T ~string](names []T) string {
	ss := make([]string, len(names))
	for i, n := range names {
		ss[i] = string(n)
	}
	return strings.Join(ss, ", ")
}

// Limits of the numeric fields.
const (
	MinDims, MaxDims       = 1, 6
	MinDimSize, MaxDimSize = 2, 64
	// MaxNodes bounds any network: the largest hyper-crossbar has 64^4
	// nodes (a schedule's ranks, barrierunit.MaxRanks), and no command
	// handles more (the cycle model and the other topologies: 2^21).
	MaxNodes                   = 1 << 24
	MinFlitWidth, MaxFlitWidth = 16, 128
	MaxLinkLatency             = 64
	MaxBufferDepth             = 64
	MaxSkew                    = 1 << 30
	MaxMaxCycles               = 1 << 40
	MaxLinkRetry               = 255
	MaxRetryLatency            = 40 // a resend's 3*L within the model's 128-cycle timing wheel
	// MaxItemFlits bounds item_flits (the transfer engine's flit counter).
	MaxItemFlits = 4096
	// MaxCollectiveRanks bounds the ranks (nodes) of a data collective and
	// of a collective schedule: its schedule lists every item each transfer
	// carries, so an all-gather among M nodes lists M*(M-1) item ids.
	MaxCollectiveRanks = 1 << 12
)

// Limits of a schedule the barrier unit can run, set by the RTL's field
// widths (docs/rtl.md, "Decisions", item 11; docs/transfers.md). They are
// defined here once: barrierunit, sim and verilog check against them, the
// Verilog generator writes the widths from them, and a test of package
// verilog reads the hand-written RTL and checks its literal widths match.
const (
	// GateBits is the width of the gate field of a head flit and of the
	// unit's gate registers. Schedules have at most floor(log2 R)+2 gates
	// plus the end gate, so 6 bits cover R up to 2^60.
	GateBits = 6
	// MaxGates is the largest gate count G: the end gate G+1 must fit the
	// GateBits-bit gate field (62).
	MaxGates = 1<<GateBits - 2
	// NeedBits is the width of the unit's receive counter.
	NeedBits = 8
	// MaxNeed is the largest number of routes from other ranks that may
	// arrive at one gate (255).
	MaxNeed = 1<<NeedBits - 1
	// RouteIndexBits is the width of a gate's route start and route count
	// fields in the gate table.
	RouteIndexBits = 16
	// MaxRouteIndex bounds the route start and route count of a gate (65535).
	MaxRouteIndex = 1<<RouteIndexBits - 1
	// DataFieldBits is the width of the rank and item fields of the data
	// table and of ItemWord's origin and item fields.
	DataFieldBits = 16
	// MaxDataRanks is the largest rank count of a data schedule.
	MaxDataRanks = 1 << DataFieldBits
	// MaxItems is the largest item count (item id + 1) of a data schedule.
	MaxItems = 1 << DataFieldBits
)

// MaxWorkers is the number of goroutines that may evaluate a simulation's
// elements at once; the barrier units keep per-worker state for each.
const MaxWorkers = 8

// System is the full description of one simulated system and scenario.
// The YAML keys are the documented file format (see docs/config.md).
type System struct {
	Name     string   `yaml:"name" json:"name"`
	Topology Topology `yaml:"topology" json:"topology"`
	Dims     []int    `yaml:"dims" json:"dims"`
	// Wrap says, per dimension, whether a torus has its wrap-around link
	// (a ring) or not (a mesh line); empty means every dimension wraps.
	// Only the torus has it.
	Wrap []bool `yaml:"wrap,omitempty" json:"wrap,omitempty"`
	// Ranks is the number of ranks taking part; 0 means one rank on every
	// node, or one per Placement entry when there is one (NumRanks), so
	// that changing Dims keeps "every node" and setting Placement alone
	// places that many ranks, as in a file or the flags that leave ranks
	// out. Ranks R in 1..Nodes() runs ranks 0..R-1 on the nodes Placement
	// names, or on nodes 0..R-1.
	Ranks int `yaml:"ranks" json:"ranks"`
	// Placement is the node of each rank (distinct, exactly NumRanks
	// entries); empty: rank r on node r. With Ranks 0 it sets the number
	// of ranks, in Go as in a file or the flags.
	Placement   []int      `yaml:"placement,omitempty" json:"placement,omitempty"`
	Algo        Algorithm  `yaml:"algo" json:"algo"`
	Op          OpName     `yaml:"op" json:"op"`
	Collective  Collective `yaml:"collective" json:"collective"`
	Items       int        `yaml:"items" json:"items"`
	ItemFlits   int        `yaml:"item_flits" json:"item_flits"`
	Order       string     `yaml:"order" json:"order"`
	ItemPlace   []int      `yaml:"item_placement,omitempty" json:"item_placement,omitempty"`
	Seed        uint64     `yaml:"seed" json:"seed"`
	Skew        int        `yaml:"skew" json:"skew"`
	LinkLatency int        `yaml:"link_latency" json:"link_latency"`
	BufferDepth int        `yaml:"buffer_depth" json:"buffer_depth"`
	FlitWidth   int        `yaml:"flit_width" json:"flit_width"`
	Duplex      Duplex     `yaml:"duplex" json:"duplex"`
	MaxCycles   int64      `yaml:"max_cycles" json:"max_cycles"`
	// Repeat runs the collective (or the Episodes list) this many times
	// back to back; 0 is read as 1 (docs/microarchitecture.md, "Episodes").
	Repeat int `yaml:"repeat" json:"repeat,omitempty"`
	// Iterations runs the collective this many times in a loop with no
	// quiet point between iterations: each rank arrives at iteration i+1
	// Compute (+ a seeded 0..Jitter) cycles after its own release from i
	// (docs/microarchitecture.md, "Iterations"); 0 is read as 1.
	Iterations int `yaml:"iterations" json:"iterations,omitempty"`
	// Compute is the cycles from a rank's release to its next arrival in a
	// loop (its release event's cycle + 1 + Compute, plus its jitter).
	Compute int `yaml:"compute" json:"compute,omitempty"`
	// Jitter adds a seeded 0..Jitter cycles per rank and iteration to
	// Compute (IterationDraw).
	Jitter int `yaml:"jitter" json:"jitter,omitempty"`
	// Episodes, when not empty, is the run: one episode per entry, each
	// entry overriding some keys of the system (EpisodeKeys).
	Episodes []Episode `yaml:"episodes" json:"episodes,omitempty"`
	// Faults are injected into the run (docs/reliability.md): specs
	// flip:CHANNEL@CYCLE:BIT, drop:CHANNEL@CYCLE, dead:CHANNEL@CYCLE,
	// stuck:RANK, ackflip:CHANNEL@CYCLE, creditdrop:CHANNEL@CYCLE; CYCLE
	// may be first (AtFirst). Empty: a fault-free run.
	Faults []string `yaml:"faults" json:"faults,omitempty"`
	// Avoid names channels the routing keeps off (a hyper-crossbar's dead
	// channels, docs/reliability.md). Empty: the generated tables.
	Avoid []string `yaml:"avoid" json:"avoid,omitempty"`
	// CRCBits is the width of the check code each packet carries as
	// sideband bits of its tail flit (docs/reliability.md): 0 (none) or 32
	// (CRC-32C, PacketCode).
	CRCBits int `yaml:"crc_bits" json:"crc_bits"`
	// Watchdog is the cycles a unit waiting at a gate may go without
	// progress before it raises TIMEOUT; 0: no watchdog.
	Watchdog int64 `yaml:"watchdog" json:"watchdog,omitempty"`
	// LinkRetry is the replay buffer of every link direction in flits
	// (link-level retry, docs/reliability.md; RTL: hx_link_tx, hx_link_rx),
	// at least BufferDepth; 0: no retry.
	LinkRetry int `yaml:"link_retry" json:"link_retry,omitempty"`
	// SwitchPipeline is 1 when every switch registers its requests (one
	// more cycle per hop for a packet's head: docs/microarchitecture.md,
	// "Switch pipeline"; RTL: hx_switch's SP), 0 for the one-cycle
	// decision.
	SwitchPipeline int `yaml:"switch_pipeline" json:"switch_pipeline,omitempty"`
	// UnitPipeline is 1 when every barrier unit's ALUs take operands from
	// flip-flops only (a signal counts for the gate check from the third
	// cycle after its pop, not the first, and no check follows a move:
	// docs/microarchitecture.md, "Unit pipeline"; RTL: hx_barrier_unit's
	// UP), 0 for the unit without it.
	UnitPipeline int `yaml:"unit_pipeline" json:"unit_pipeline,omitempty"`
	// Channels is the barrier channels of every unit (communicators.go);
	// 0 is read as 1.
	Channels int `yaml:"channels" json:"channels,omitempty"`
	// Communicators, when not empty, are the groups of ranks that run
	// barriers at the same time, each on its own channel (Comms).
	Communicators []Communicator `yaml:"communicators" json:"communicators,omitempty"`
}

// Default returns the built-in default system: 16 ranks on a 4x4
// hyper-crossbar running the near-last butterfly barrier with skewed arrivals.
func Default() System {
	return System{
		Name:        "", // Title: named from what runs
		Topology:    TopoHyperXbar,
		Dims:        []int{4, 4},
		Ranks:       0, // every node: the same rule as a file or --dims without ranks
		Algo:        AlgoButterfly,
		Op:          OpBarrier,
		Collective:  CollBarrier,
		ItemFlits:   4,
		Seed:        1,
		Skew:        40,
		LinkLatency: 1,
		BufferDepth: 4,
		FlitWidth:   64,
		Duplex:      DuplexFull,
		MaxCycles:   1_000_000,
		Repeat:      1,
		Iterations:  1,
		Channels:    1,
		CRCBits:     PacketCodeBits,
	}
}

// FieldError reports one invalid field of a System.
type FieldError struct {
	Field   string // YAML key, e.g. "dims[1]"
	Value   any
	Allowed string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("invalid %s: %v (allowed: %s)", e.Field, e.Value, e.Allowed)
}

// Nodes is the number of network nodes, the product of Dims.
func (s *System) Nodes() int {
	n := 1
	for _, d := range s.Dims {
		n *= d
	}
	return n
}

// NumRanks is the number of ranks taking part: Ranks, or when it is 0 one
// per Placement entry, or every node without a placement (the rule of a
// file and the flags that leave ranks out).
func (s *System) NumRanks() int {
	switch {
	case s.Ranks != 0:
		return s.Ranks
	case len(s.Placement) > 0:
		return len(s.Placement)
	}
	return s.Nodes()
}

// RankNode returns the node that hosts rank r: Placement[r] when given,
// otherwise r (row-major order, dimension 0 fastest).
func (s *System) RankNode(r int) int {
	if len(s.Placement) > 0 {
		return s.Placement[r]
	}
	return r
}

// showString formats a string value for an error message: quoted, and cut
// short so that a huge value cannot make a huge message.
func showString(v string) string {
	const max = 40
	if r := []rune(v); len(r) > max {
		return strconv.Quote(string(r[:max])) + "..."
	}
	return strconv.Quote(v)
}

// showInts formats a list for an error message, cut short after a few entries.
func showInts(v []int) string {
	const max = 8
	if len(v) <= max {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%v... (%d entries)", v[:max], len(v))
}

func oneOf[T ~string](field string, v T, allowed []T) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return &FieldError{Field: field, Value: showString(string(v)), Allowed: Join(allowed)}
}

// inRange returns a *FieldError when v is outside lo..hi, else nil. (It
// returns *FieldError, not error, so callers can amend Allowed; compare it
// with nil before returning it as an error.)
func inRange[T int | int64](field string, v, lo, hi T) *FieldError {
	if v < lo || v > hi {
		return outOfRange(field, v, lo, hi)
	}
	return nil
}

func outOfRange[T int | int64](field string, v, lo, hi T) *FieldError {
	return &FieldError{Field: field, Value: v, Allowed: fmt.Sprintf("%d..%d", lo, hi)}
}

// SwitchPipelineAllowed describes switch_pipeline, for messages.
const SwitchPipelineAllowed = "0 (a switch decides in one cycle) or 1 (a registered request stage: one more cycle per hop)"

// UnitPipelineAllowed describes unit_pipeline, for messages.
const UnitPipelineAllowed = "0 (a signal counts for the gate check from the cycle after its pop) or 1 (from the third cycle after it: a faster clock)"

// MaxNameLen is the longest allowed name.
const MaxNameLen = 64

// NameAllowed describes the allowed names.
const NameAllowed = `"" (named from what runs, e.g. hyperxbar-4x4-butterfly-barrier) or 1..64 characters from A-Z a-z 0-9 _ - . starting with a letter, digit or _`

// Title is the system's name for reports and generated files: Name when
// set, otherwise a name made from what runs (topology, dims, algo and
// op or collective, e.g. hyperxbar-8x8-butterfly-barrier), so that an
// unnamed system changed by flags or by a program is never called by the
// name of another.
func (s *System) Title() string {
	if s.Name != "" {
		return s.Name
	}
	dims := make([]string, len(s.Dims))
	for i, d := range s.Dims {
		dims[i] = strconv.Itoa(d)
	}
	what := string(s.Op)
	if s.Collective != "" && s.Collective != CollBarrier {
		what = string(s.Collective)
	}
	n := strings.Join([]string{string(s.Topology), strings.Join(dims, "x"), string(s.Algo), what}, "-")
	if len(s.Episodes) > 0 || s.Repeat > 1 {
		n += fmt.Sprintf("-%dep", s.NumEpisodes())
	}
	return fitName(n)
}

// fitName makes a derived name valid: a byte outside the allowed set
// becomes '_', a leading '-' or '.' gets a '_' before it, and a name
// longer than MaxNameLen keeps its first bytes and ends in '-' and eight
// hex digits of a hash of the whole name, so that two long names that
// differ only at the end stay apart and a name never changes from run to
// run.
func fitName(n string) string {
	b := []byte(n)
	for i, c := range b {
		if !nameByte(c) {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] == '-' || b[0] == '.' {
		b = append([]byte{'_'}, b...)
	}
	if len(b) <= MaxNameLen {
		return string(b)
	}
	h := fnv.New32a()
	h.Write([]byte(n))
	sum := fmt.Sprintf("-%08x", h.Sum32())
	head := strings.TrimRight(string(b[:MaxNameLen-len(sum)]), "-.")
	return head + sum
}

func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

func validName(n string) bool {
	if len(n) < 1 || len(n) > MaxNameLen || n[0] == '-' || n[0] == '.' {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !nameByte(n[i]) {
			return false
		}
	}
	return true
}

// Validate checks every field and returns the first problem found, as a
// *FieldError naming the field (the YAML key, with an index for list
// entries). It takes time and memory independent of the number of nodes,
// except for checking placement, which is linear in the placement list.
func (s *System) Validate() error {
	for _, check := range []func() error{
		s.validateShape, s.validateRanks, s.validateAlgo, s.validateFabric, s.validateFaults,
		s.validateChecks, s.validateAvoid, s.validateEpisodes, s.validateLoop, s.validateCommunicators,
	} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validateShape checks the name, the topology, the dimensions and the
// node count they give, and the wrap list.
func (s *System) validateShape() error {
	if s.Name != "" && !validName(s.Name) {
		return &FieldError{Field: "name", Value: showString(s.Name), Allowed: NameAllowed}
	}
	if err := oneOf("topology", s.Topology, Topologies); err != nil {
		return err
	}
	if len(s.Dims) < MinDims || len(s.Dims) > MaxDims {
		return &FieldError{Field: "dims", Value: showInts(s.Dims), Allowed: fmt.Sprintf("%d to %d dimension sizes, each %d..%d", MinDims, MaxDims, MinDimSize, MaxDimSize)}
	}
	for i, d := range s.Dims {
		if d < MinDimSize || d > MaxDimSize {
			return outOfRange(fmt.Sprintf("dims[%d]", i), d, MinDimSize, MaxDimSize)
		}
		if s.Topology == TopoFatTree && d != s.Dims[0] {
			return &FieldError{Field: fmt.Sprintf("dims[%d]", i), Value: d,
				Allowed: fmt.Sprintf("%d: a fat tree's dims are all equal (a k-ary n-tree: k = dims[0], n = the number of dims)", s.Dims[0])}
		}
	}
	// The node count before the fields that grow with it (flit_width must
	// hold a header of address and rank bits): 64^6 is refused for its
	// size, not for a header it could never fit.
	if n := s.Nodes(); n > MaxNodes { // 64^6 = 2^36 fits an int
		return &FieldError{Field: "dims", Value: fmt.Sprintf("%s = %d nodes", showInts(s.Dims), n),
			Allowed: fmt.Sprintf("at most %d (64^4) nodes; the cycle model (sim, traffic, faults), a torus and a fat tree at most 2097152 (2^21)", MaxNodes)}
	}
	return s.validateWrap()
}

// validateRanks checks ranks and placement against the node count.
func (s *System) validateRanks() error {
	nodes := s.Nodes()
	if err := inRange("ranks", s.Ranks, 0, nodes); err != nil {
		err.Allowed += " (0 means every node)"
		return err
	}
	if s.NumRanks() < 1 {
		return &FieldError{Field: "ranks", Value: s.Ranks, Allowed: fmt.Sprintf("1..%d", nodes)}
	}
	if len(s.Placement) > 0 {
		if len(s.Placement) != s.NumRanks() {
			return &FieldError{Field: "placement", Value: fmt.Sprintf("%d entries", len(s.Placement)), Allowed: fmt.Sprintf("empty, or exactly one node per rank (%d entries)", s.NumRanks())}
		}
		if err := checkPlacement(s.Placement, nodes); err != nil {
			return err
		}
	}
	return nil
}

// validateAlgo checks the gate schedule's algorithm, the op and the
// collective.
func (s *System) validateAlgo() error {
	if err := oneOf("algo", s.Algo, Algorithms); err != nil {
		return err
	}
	if err := oneOf("op", s.Op, Ops); err != nil {
		return err
	}
	if s.Algo == AlgoDissemination && (s.Op == OpSum || s.Op == OpXor) {
		return &FieldError{Field: "op", Value: showString(string(s.Op)),
			Allowed: "barrier, max, min, and, or with algo dissemination (dissemination delivers some operands more than once, which only idempotent ops tolerate)"}
	}
	return s.validateCollective()
}

// validateFabric checks the arrivals' skew, the links, the buffers, the
// flit width (against the header it must hold), duplex and max_cycles.
func (s *System) validateFabric() error {
	if err := inRange("skew", s.Skew, 0, MaxSkew); err != nil {
		return err
	}
	if err := inRange("link_latency", s.LinkLatency, 1, MaxLinkLatency); err != nil {
		return err
	}
	if err := inRange("buffer_depth", s.BufferDepth, 1, MaxBufferDepth); err != nil {
		return err
	}
	if err := inRange("flit_width", s.FlitWidth, MinFlitWidth, MaxFlitWidth); err != nil {
		return err
	}
	if need := s.HeaderBits() + s.headExtraBits(); s.FlitWidth < need {
		return &FieldError{Field: "flit_width", Value: s.FlitWidth, Allowed: fmt.Sprintf("%d..%d: the head flit must hold the %d-bit header of this system", need, MaxFlitWidth, need)}
	}
	if err := oneOf("duplex", s.Duplex, DuplexModes); err != nil {
		return err
	}
	if err := inRange("max_cycles", s.MaxCycles, 1, MaxMaxCycles); err != nil {
		return err
	}
	return nil
}

// validateChecks checks the check code, the watchdog, link-level retry
// and the pipeline keys.
func (s *System) validateChecks() error {
	if s.CRCBits != 0 && s.CRCBits != PacketCodeBits {
		return &FieldError{Field: "crc_bits", Value: s.CRCBits, Allowed: CRCAllowed}
	}
	if err := inRange("watchdog", s.Watchdog, 0, MaxMaxCycles); err != nil {
		err.Allowed += " (0: no watchdog)"
		return err
	}
	if s.LinkRetry != 0 && s.LinkLatency > MaxRetryLatency {
		return &FieldError{Field: "link_retry", Value: s.LinkRetry, Allowed: fmt.Sprintf("0 with link_latency %d (retry is modelled up to link_latency %d: a resent flit arrives 3*link_latency cycles after it was first sent)", s.LinkLatency, MaxRetryLatency)}
	}
	if s.LinkRetry != 0 && (s.LinkRetry < s.BufferDepth || s.LinkRetry > MaxLinkRetry) {
		return &FieldError{Field: "link_retry", Value: s.LinkRetry, Allowed: fmt.Sprintf("0 (no retry) or %d..%d flits: the replay buffer holds at least the flits a sender may have unacknowledged, buffer_depth %d", max(1, s.BufferDepth), MaxLinkRetry, s.BufferDepth)}
	}
	if s.SwitchPipeline != 0 && s.SwitchPipeline != 1 {
		return &FieldError{Field: "switch_pipeline", Value: s.SwitchPipeline, Allowed: SwitchPipelineAllowed}
	}
	if s.UnitPipeline != 0 && s.UnitPipeline != 1 {
		return &FieldError{Field: "unit_pipeline", Value: s.UnitPipeline, Allowed: UnitPipelineAllowed}
	}
	return nil
}

// validateAvoid checks that every avoided channel is named, once.
func (s *System) validateAvoid() error {
	seen := make(map[string]int, len(s.Avoid))
	for i, c := range s.Avoid {
		if strings.TrimSpace(c) == "" {
			return &FieldError{Field: fmt.Sprintf("avoid[%d]", i), Value: showString(c), Allowed: "a channel name as hxbar check --channels lists it"}
		}
		if j, dup := seen[strings.TrimSpace(c)]; dup {
			return &FieldError{Field: fmt.Sprintf("avoid[%d]", i), Value: showString(c), Allowed: fmt.Sprintf("a channel not given before (avoid[%d] is the same channel)", j)}
		}
		seen[strings.TrimSpace(c)] = i
	}
	return nil
}

// WrapAllowed describes the allowed wrap lists.
const WrapAllowed = "[] (every dimension wraps), or one true/false per dimension with topology torus"

// validateWrap checks wrap: empty, or with topology torus one entry per
// dimension.
func (s *System) validateWrap() error {
	if len(s.Wrap) == 0 {
		return nil
	}
	if s.Topology != TopoTorus {
		return &FieldError{Field: "wrap", Value: showBools(s.Wrap), Allowed: fmt.Sprintf("[] with topology %s (wrap belongs to topology torus: which of its dimensions are rings and which mesh lines)", s.Topology)}
	}
	if len(s.Wrap) != len(s.Dims) {
		return &FieldError{Field: "wrap", Value: showBools(s.Wrap), Allowed: fmt.Sprintf("[], or exactly one true/false per dimension (dims %v has %d)", s.Dims, len(s.Dims))}
	}
	return nil
}

// Wraps returns whether dimension k has its wrap-around link: always for
// a torus without a wrap list, never for the other topologies (which have
// no such link).
func (s *System) Wraps(k int) bool {
	if s.Topology != TopoTorus {
		return false
	}
	return len(s.Wrap) == 0 || s.Wrap[k]
}

// WrapList returns the torus's wrap flags, one per dimension (all true
// without a wrap list); nil for the other topologies.
func (s *System) WrapList() []bool {
	if s.Topology != TopoTorus {
		return nil
	}
	w := make([]bool, len(s.Dims))
	for k := range w {
		w[k] = s.Wraps(k)
	}
	return w
}

func showBools(v []bool) string {
	const max = 8
	if len(v) <= max {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%v... (%d entries)", v[:max], len(v))
}

// checkPlacement reports the first entry that is out of 0..nodes-1 or names a
// node an earlier rank already uses. Its memory is bounded by the length of
// p: a bit set over the nodes when p covers at least 1/64 of them (so the set
// is no larger than p itself), otherwise a map with one entry per rank.
func checkPlacement(p []int, nodes int) error {
	var seen func(n int) bool // reports whether n was seen, and marks it
	if len(p) >= nodes/64 {
		bits := make([]uint64, (nodes+63)/64)
		seen = func(n int) bool {
			w, m := n/64, uint64(1)<<(n%64)
			old := bits[w]&m != 0
			bits[w] |= m
			return old
		}
	} else {
		set := make(map[int]struct{}, len(p))
		seen = func(n int) bool {
			_, old := set[n]
			set[n] = struct{}{}
			return old
		}
	}
	for r, n := range p {
		if n < 0 || n >= nodes {
			return outOfRange(fmt.Sprintf("placement[%d]", r), n, 0, nodes-1)
		}
		if seen(n) {
			prev := slices.Index(p, n)
			return &FieldError{Field: fmt.Sprintf("placement[%d]", r), Value: n, Allowed: fmt.Sprintf("a node not already used (rank %d is on node %d)", prev, n)}
		}
	}
	return nil
}

// Bits returns the number of bits needed to hold values 0..n-1 (at least 1).
func Bits(n int) int {
	b := 1
	for (1 << b) < n {
		b++
	}
	return b
}

// CoordBits returns the width of each dimension's coordinate field.
func (s *System) CoordBits() []int {
	w := make([]int, len(s.Dims))
	for i, d := range s.Dims {
		w[i] = Bits(d)
	}
	return w
}

// AddrBits is the width of a packed node address (all coordinate fields).
func (s *System) AddrBits() int {
	t := 0
	for _, b := range s.CoordBits() {
		t += b
	}
	return t
}

// RankBits is the width of a rank number field.
func (s *System) RankBits() int { return Bits(s.NumRanks()) }

// HeaderBits is the number of head-flit bits: address, source rank, gate.
func (s *System) HeaderBits() int { return s.AddrBits() + s.RankBits() + GateBits }

// Arrival is one rank's scenario: the cycle its CPU arrives and its operand.
type Arrival struct {
	Cycle   int64
	Operand uint64
}

// Arrivals draws every rank's arrival cycle in [0, Skew] and a 64-bit
// operand from Seed. The same System always gives the same arrivals. The
// System must be valid (see Validate); the result has NumRanks entries.
//
// These are episode 1's arrivals; EpisodeArrivals gives the others.
func (s *System) Arrivals() []Arrival {
	return arrivals(s.Seed, 0, s.Skew, s.NumRanks())
}

// IsData reports whether the system runs a data collective rather than a
// barrier.
func (s *System) IsData() bool { return s.Collective != "" && s.Collective != CollBarrier }

// NumItems is the number of items of a data collective: Items, or when 0
// every rank's (all-gather) or one (broadcast).
func (s *System) NumItems() int {
	switch {
	case s.Items != 0:
		return s.Items
	case s.Collective == CollBroadcast:
		return 1
	}
	return s.NumRanks()
}

// validateCollective checks collective, items, item_flits, order and
// item_placement; the collective package checks what depends on the
// schedule (which orders a rank and item count allow).
func (s *System) validateCollective() error {
	if err := oneOf("collective", s.Collective, Collectives); err != nil {
		return err
	}
	if err := inRange("item_flits", s.ItemFlits, 1, MaxItemFlits); err != nil {
		return err
	}
	if !s.IsData() {
		// Data keys given to a barrier would be silently ignored.
		switch {
		case s.Items != 0:
			return &FieldError{Field: "items", Value: s.Items, Allowed: "0 with collective barrier (items belong to allgather and broadcast)"}
		case s.Order != "":
			return &FieldError{Field: "order", Value: showString(s.Order), Allowed: `"" with collective barrier (an order belongs to allgather)`}
		case len(s.ItemPlace) > 0:
			return &FieldError{Field: "item_placement", Value: showInts(s.ItemPlace), Allowed: "[] with collective barrier (items belong to allgather and broadcast)"}
		}
		return nil
	}
	R := s.NumRanks()
	if R > MaxCollectiveRanks {
		return &FieldError{Field: "ranks", Value: R, Allowed: fmt.Sprintf("1..%d with collective %s (its schedule lists every item moved)", MaxCollectiveRanks, s.Collective)}
	}
	if s.Op != OpBarrier {
		return &FieldError{Field: "op", Value: showString(string(s.Op)), Allowed: fmt.Sprintf("barrier with collective %s (the units carry items, not a reduction)", s.Collective)}
	}
	maxItems := R
	if s.Collective == CollBroadcast {
		maxItems = 1
	}
	if err := inRange("items", s.Items, 0, maxItems); err != nil {
		err.Allowed += fmt.Sprintf(" with collective %s on %d ranks (0 means %d)", s.Collective, R, maxItems)
		return err
	}
	for i, c := range s.Order {
		if c != 'O' && c != 'M' {
			return &FieldError{Field: "order", Value: showString(s.Order), Allowed: fmt.Sprintf(`a string of O (one-sided) and M (mutual) steps, e.g. "OOMM"; character %d is %q`, i, c)}
		}
	}
	if len(s.ItemPlace) > 0 {
		if len(s.ItemPlace) != s.NumItems() {
			return &FieldError{Field: "item_placement", Value: fmt.Sprintf("%d entries", len(s.ItemPlace)), Allowed: fmt.Sprintf("empty (the default placement), or one distinct rank per item (%d entries)", s.NumItems())}
		}
		for i, r := range s.ItemPlace {
			if r < 0 || r >= R {
				return outOfRange(fmt.Sprintf("item_placement[%d]", i), r, 0, R-1)
			}
			if j := slices.Index(s.ItemPlace, r); j < i {
				return &FieldError{Field: fmt.Sprintf("item_placement[%d]", i), Value: r, Allowed: fmt.Sprintf("a rank not already used (item %d starts on rank %d)", j, r)}
			}
		}
	}
	return s.validatePacketBits()
}

// MaxPacketBits is the length in wire bits of the system's longest packet,
// control bits included ({head, tail, data}: flit_width+2 bits a flit;
// the check code apart): a reduction's head and ceil(64/flit_width)
// payload flits, or a data message of 1 + items x item_flits flits.
func (s *System) MaxPacketBits() int64 {
	flits := int64(1 + (64+s.FlitWidth-1)/s.FlitWidth)
	if s.IsData() {
		flits = 1 + int64(s.NumItems())*int64(s.ItemFlits)
	}
	return flits * int64(s.FlitWidth+2)
}

// validatePacketBits refuses a data message longer than the packet check
// code's guarantee covers (docs/reliability.md, "Detection"). Only data
// collectives come near: 4096 items of 4096 flits of 130 bits are about
// 2^31 bits.
func (s *System) validatePacketBits() error {
	if s.CRCBits == 0 || s.MaxPacketBits() <= PacketCodeMaxBits {
		return nil
	}
	most := (PacketCodeMaxBits/int64(s.FlitWidth+2) - 1) / int64(s.NumItems())
	return &FieldError{Field: "item_flits", Value: s.ItemFlits, Allowed: fmt.Sprintf("1..%d with %d items and flit_width %d: a message of 1 + items x item_flits flits of flit_width+2 bits must stay within the %d bits the crc_bits %d code guarantees (or crc_bits 0)", most, s.NumItems(), s.FlitWidth, int64(PacketCodeMaxBits), s.CRCBits)}
}
