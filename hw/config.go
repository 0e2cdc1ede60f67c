package hw

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/hxbar/hxbar/internal/inputfile"
)

// ParseError is an error in a system file: the file (empty when parsing
// bytes), the line (0 when no line applies, e.g. for a key the file does not
// set) and the underlying error, which is a *FieldError when one field is at
// fault. Its message is always one line.
type ParseError struct {
	File string
	Line int
	Err  error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(oneLine(e.Err.Error()))
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), "; ")
}

// keySpec describes one key of the system file: its CLI flag, its type and
// allowed values (for messages and docs), the comment written above it by
// YAML, how it is decoded and written, and the System field it sets. A
// field is declared here once, for the file and for its flag: BindFlags
// registers a flag on field, Apply copies it (TestKeysMatchStruct keeps the
// table in step with System, TestConfigDocs with docs/config.md).
type keySpec struct {
	key     string
	flag    string
	typ     string
	allowed string
	doc     string
	decode  func(s *System, n *yaml.Node) error
	write   func(s *System) string
	// field is the System field of the key, a pointer to it (a list's as
	// the flag.Value that parses the flag: intList, boolList, commaList,
	// stringList); nil for a key without a flag.
	field func(s *System) any
	// help is the flag's help text, completed with "; allowed: ..." and
	// the key; usage, when set, is the whole help text instead.
	help  string
	usage string
}

// keys lists every key of the system file in the order YAML writes them.
// TestKeysMatchStruct keeps it in step with the yaml tags of System.
var keys = []keySpec{
	{key: "name", flag: "name", typ: "string", allowed: NameAllowed,
		field: func(s *System) any { return &s.Name }, help: "label for reports and generated files",
		doc: "A label for this system, used in reports and generated file names.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Name, err = decodeString(n, "name", NameAllowed)
			return err
		},
		write: func(s *System) string { return strconv.Quote(s.Name) }},
	{key: "topology", flag: "topology", typ: "string", allowed: Join(Topologies),
		field: func(s *System) any { return &s.Topology }, help: "network topology",
		doc: "Network. hyperxbar: a hyper-crossbar, one crossbar per line of every dimension, joined at each node by an exchanger; torus: a k-ary n-cube (dims [16] is a 16-node ring) with two virtual channels and a dateline; fattree: a k-ary n-tree (dims all equal to k, n levels). fattree is model only; hyperxbar and torus also have RTL (docs/networks.md).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Topology, err = decodeName[Topology](n, "topology", Join(Topologies))
			return err
		},
		write: func(s *System) string { return string(s.Topology) }},
	{key: "dims", flag: "dims", typ: "list of integers", allowed: dimsAllowed,
		field: func(s *System) any { return (*intList)(&s.Dims) }, usage: fmt.Sprintf("comma-separated dimension sizes, e.g. 4,4; allowed: %d to %d sizes, each %d..%d (key dims)", MinDims, MaxDims, MinDimSize, MaxDimSize),
		doc: "Size of each dimension, dimension 0 first (it varies fastest in the node number). The network has the product of the sizes as nodes.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Dims, err = decodeIntList(n, "dims", dimsAllowed, fmt.Sprintf("%d..%d", MinDimSize, MaxDimSize))
			return err
		},
		write: func(s *System) string { return writeInts(s.Dims, "") }},
	{key: "wrap", flag: "wrap", typ: "list of booleans", allowed: WrapAllowed,
		field: func(s *System) any { return (*boolList)(&s.Wrap) }, usage: "comma-separated wrap flag per torus dimension, each 1/0 or true/false, e.g. 1,1,1,0,1,0; empty: every dimension wraps; torus only (key wrap)",
		doc: "Torus only: per dimension, true for a ring (wrap-around link, dateline on two virtual channels) or false for a mesh line (no wrap link, one virtual channel used). Empty: every dimension wraps.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Wrap, err = decodeBoolList(n, "wrap", WrapAllowed)
			if len(s.Wrap) == 0 {
				s.Wrap = nil
			}
			return err
		},
		write: func(s *System) string { return writeBools(s.Wrap) }},
	{key: "ranks", flag: "ranks", typ: "integer", allowed: "0..number of nodes (0 means every node)",
		field: func(s *System) any { return &s.Ranks }, usage: "ranks taking part, 0..nodes, 0 = every node; when --dims or --placement is given without --ranks: the number of placement entries (key ranks)",
		doc: "Ranks taking part; 0 means one rank on every node.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Ranks, err = decodeInt(n, "ranks", "0..number of nodes (0 means every node)")
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.Ranks) }},
	{key: "placement", flag: "placement", typ: "list of integers", allowed: placementAllowed,
		field: func(s *System) any { return (*intList)(&s.Placement) }, usage: "comma-separated node of each rank, e.g. 0,5,10,15, distinct, one per rank; empty: rank r on node r (key placement)",
		doc: "Node of each rank: rank r runs on node placement[r]. Empty: rank r runs on node r.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Placement, err = decodeIntList(n, "placement", placementAllowed, "a node number 0..nodes-1")
			if len(s.Placement) == 0 {
				s.Placement = nil
			}
			return err
		},
		write: func(s *System) string { return writeInts(s.Placement, "  ") }},
	{key: "algo", flag: "algo", typ: "string", allowed: Join(Algorithms),
		field: func(s *System) any { return &s.Algo }, help: "gate schedule",
		doc: "Gate schedule. butterfly: the near-last butterfly (shortest routes at the last gates); butterfly-near-first: the same exchanges with the shortest routes first; dissemination: the dissemination barrier.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Algo, err = decodeName[Algorithm](n, "algo", Join(Algorithms))
			return err
		},
		write: func(s *System) string { return string(s.Algo) }},
	{key: "op", flag: "op", typ: "string", allowed: Join(Ops),
		field: func(s *System) any { return &s.Op }, help: "reduction carried by the barrier",
		doc: "Reduction carried by the barrier, on 64-bit unsigned operands; barrier carries no value. With algo dissemination only barrier, max, min, and, or.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Op, err = decodeName[OpName](n, "op", Join(Ops))
			return err
		},
		write: func(s *System) string { return string(s.Op) }},
	{key: "collective", flag: "collective", typ: "string", allowed: Join(Collectives),
		field: func(s *System) any { return &s.Collective }, help: "what the units run",
		doc: "What the units run. barrier: the gate schedule of algo with op; allgather: every item reaches every rank; broadcast: one item from its rank to all (docs/transfers.md).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Collective, err = decodeName[Collective](n, "collective", Join(Collectives))
			return err
		},
		write: func(s *System) string { return string(s.Collective) }},
	{key: "items", flag: "items", typ: "integer", allowed: "0..ranks (0: ranks for allgather, 1 for broadcast)",
		field: func(s *System) any { return &s.Items }, help: "items of a data collective",
		doc: "Items of a data collective, each starting on its own rank. allgather with items = ranks is recursive doubling (algo butterfly: near-last, butterfly-near-first: near-first); fewer items use order.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Items, err = decodeInt(n, "items", "0..ranks (0: ranks for allgather, 1 for broadcast)")
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.Items) }},
	{key: "item_flits", flag: "item-flits", typ: "integer", allowed: fmt.Sprintf("1..%d", MaxItemFlits),
		field: func(s *System) any { return &s.ItemFlits }, help: "payload flits per item",
		doc: "Payload flits per item of a data collective (a message of n items is 1 + n*item_flits flits).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.ItemFlits, err = decodeInt(n, "item_flits", fmt.Sprintf("1..%d", MaxItemFlits))
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.ItemFlits) }},
	{key: "order", flag: "order", typ: "string", allowed: "empty, or O and M characters, e.g. OOMM",
		field: func(s *System) any { return &s.Order }, help: "one-sided/mutual step order of an all-gather",
		doc: "Step order of an all-gather with fewer items than ranks: log2(ranks/items) one-sided (O) and log2(items) mutual (M) steps; empty: the Hitachi order (all O, then all M).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Order, err = decodeString(n, "order", "empty, or O and M characters, e.g. OOMM")
			return err
		},
		write: func(s *System) string { return strconv.Quote(s.Order) }},
	{key: "item_placement", flag: "item-placement", typ: "list of integers", allowed: "a list of distinct ranks, one per item, or []",
		field: func(s *System) any { return (*intList)(&s.ItemPlace) }, usage: "comma-separated rank each item starts on, distinct; empty: the seed's placement (key item_placement)",
		doc: "Rank each item starts on: item i on rank item_placement[i]. Empty: the Hitachi seed's placement (broadcast: rank 0).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.ItemPlace, err = decodeIntList(n, "item_placement", "a list of distinct ranks, one per item, or []", "a rank number 0..ranks-1")
			if len(s.ItemPlace) == 0 {
				s.ItemPlace = nil
			}
			return err
		},
		write: func(s *System) string { return writeInts(s.ItemPlace, "  ") }},
	{key: "seed", flag: "seed", typ: "integer", allowed: "0..18446744073709551615",
		field: func(s *System) any { return &s.Seed }, help: "seed of arrival cycles and operands",
		doc: "Seed of the arrival cycles and operands: the same seed gives the same scenario.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Seed, err = decodeUint64(n, "seed", "0..18446744073709551615")
			return err
		},
		write: func(s *System) string { return strconv.FormatUint(s.Seed, 10) }},
	{key: "skew", flag: "skew", typ: "integer", allowed: fmt.Sprintf("0..%d", MaxSkew),
		field: func(s *System) any { return &s.Skew }, help: "arrival cycles are drawn from 0..skew",
		doc: "Arrival skew: each rank's CPU arrives at a cycle drawn uniformly from 0..skew.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Skew, err = decodeInt(n, "skew", fmt.Sprintf("0..%d", MaxSkew))
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.Skew) }},
	{key: "link_latency", flag: "link-latency", typ: "integer", allowed: fmt.Sprintf("1..%d", MaxLinkLatency),
		field: func(s *System) any { return &s.LinkLatency }, help: "cycles per network channel",
		doc: "Cycles a flit (and a returned credit) takes on a network channel between an exchanger and a crossbar.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.LinkLatency, err = decodeInt(n, "link_latency", fmt.Sprintf("1..%d", MaxLinkLatency))
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.LinkLatency) }},
	{key: "buffer_depth", flag: "buffer-depth", typ: "integer", allowed: fmt.Sprintf("1..%d", MaxBufferDepth),
		field: func(s *System) any { return &s.BufferDepth }, help: "flits per switch input FIFO",
		doc: "Flits each switch input FIFO holds (the credits of the channel feeding it); below 2*link_latency a packet stream is throttled by the credit round trip.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.BufferDepth, err = decodeInt(n, "buffer_depth", fmt.Sprintf("1..%d", MaxBufferDepth))
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.BufferDepth) }},
	{key: "flit_width", flag: "flit-width", typ: "integer", allowed: fmt.Sprintf("%d..%d, at least the header bits", MinFlitWidth, MaxFlitWidth),
		field: func(s *System) any { return &s.FlitWidth }, help: "data bits per flit",
		doc: "Data bits per flit. The head flit must hold the header: address bits + rank bits + 6 gate bits.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.FlitWidth, err = decodeInt(n, "flit_width", fmt.Sprintf("%d..%d", MinFlitWidth, MaxFlitWidth))
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.FlitWidth) }},
	{key: "duplex", flag: "duplex", typ: "string", allowed: Join(DuplexModes),
		field: func(s *System) any { return &s.Duplex }, help: "link duplex mode",
		doc: "full: both channels of an exchanger-crossbar link move a flit in the same cycle; half: they share one wire, one direction per cycle (model only).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Duplex, err = decodeName[Duplex](n, "duplex", Join(DuplexModes))
			return err
		},
		write: func(s *System) string { return string(s.Duplex) }},
	{key: "max_cycles", flag: "max-cycles", typ: "integer", allowed: fmt.Sprintf("1..%d", int64(MaxMaxCycles)),
		field: func(s *System) any { return &s.MaxCycles }, help: "stop a run that has not released every rank within this many cycles (incomplete, exit 1)",
		doc: "A run that has not released every rank within this many cycles stops there, incomplete.",
		decode: func(s *System, n *yaml.Node) (err error) {
			var v int64
			v, err = decodeInteger(n, "max_cycles", fmt.Sprintf("1..%d", int64(MaxMaxCycles)), math.MinInt64, math.MaxInt64)
			s.MaxCycles = v
			return err
		},
		write: func(s *System) string { return strconv.FormatInt(s.MaxCycles, 10) }},
	{key: "repeat", flag: "repeat", typ: "integer", allowed: fmt.Sprintf("1..%d", MaxEpisodes),
		field: func(s *System) any { return &s.Repeat }, help: "run the collective (or the file's episodes list) this many times back to back",
		doc: "Episodes run back to back: the collective (or the episodes list) this many times; each episode's arrivals are drawn from seed and count from the previous episode's last release (docs/microarchitecture.md, Episodes).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Repeat, err = decodeInt(n, "repeat", fmt.Sprintf("1..%d", MaxEpisodes))
			if err == nil && s.Repeat < 1 { // Validate reads 0 as 1 (a Go literal); a file says 1
				return &ParseError{Line: n.Line, Err: outOfRange("repeat", s.Repeat, 1, MaxEpisodes)}
			}
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.RepeatCount()) }},
	{key: "iterations", flag: "iterations", typ: "integer", allowed: fmt.Sprintf("1..%d", MaxIterations),
		field: func(s *System) any { return &s.Iterations }, help: "run the barrier this many times back to back, each rank arriving again compute cycles after its own release",
		doc: "Back-to-back iterations (MPI_Barrier in a loop): each rank arrives at the next iteration compute (+ jitter) cycles after its own release, with no quiet point between iterations; the same tables serve every iteration (docs/microarchitecture.md, Iterations). Collective barrier only, with one episode.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Iterations, err = decodeInt(n, "iterations", fmt.Sprintf("1..%d", MaxIterations))
			if err == nil && s.Iterations < 1 { // Validate reads 0 as 1 (a Go literal); a file says 1
				return &ParseError{Line: n.Line, Err: outOfRange("iterations", s.Iterations, 1, MaxIterations)}
			}
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.IterationCount()) }},
	{key: "compute", flag: "compute", typ: "integer", allowed: fmt.Sprintf("0..%d", MaxSkew),
		field: func(s *System) any { return &s.Compute }, help: "cycles from a rank's release to its next arrival in a loop",
		doc: "Cycles of work between iterations: a rank released in cycle t arrives at the next iteration in cycle t + 1 + compute (+ its jitter). 0: at once, the most overlap.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Compute, err = decodeInt(n, "compute", fmt.Sprintf("0..%d", MaxSkew))
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.Compute) }},
	{key: "jitter", flag: "jitter", typ: "integer", allowed: fmt.Sprintf("0..%d", MaxSkew),
		field: func(s *System) any { return &s.Jitter }, help: "extra 0..jitter cycles (drawn from seed per rank and iteration) before each next arrival",
		doc: "Jitter of the loop: each rank's arrival at iteration i > 1 comes a further 0..jitter cycles late, drawn from seed per rank and iteration.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Jitter, err = decodeInt(n, "jitter", fmt.Sprintf("0..%d", MaxSkew))
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.Jitter) }},
	{key: "episodes", flag: "", typ: "list of mappings", allowed: episodesAllowed + "; at most " + strconv.Itoa(MaxEpisodes) + " episodes with repeat",
		doc:    "The run as a list of episodes, each a mapping overriding keys of this system for that episode (each entry overrides the system, not the entry before it). Empty: every episode is this system. File only (no flag).",
		decode: nil, // set by init: decodeEpisodes reads the other keys' decoders
		write:  writeEpisodes},
	{key: "faults", flag: "fault", typ: "list of strings", allowed: FaultAllowed,
		field: func(s *System) any { return (*stringList)(&s.Faults) }, usage: "inject a fault, repeatable: " + FaultAllowed + "; --fault \"\" alone clears the system file's faults (key faults)",
		doc: "Faults injected into the run (docs/reliability.md): a bit flip or a lost flit on a channel in one cycle, a damaged ACK word or a lost credit on its reverse path, a channel dead from a cycle on, a rank that never arrives. Empty: no fault. The flag --fault is repeatable.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Faults, err = decodeStringList(n, "faults", FaultAllowed)
			if len(s.Faults) == 0 {
				s.Faults = nil
			}
			return err
		},
		write: func(s *System) string { return writeStrings(s.Faults) }},
	{key: "avoid", flag: "avoid", typ: "list of strings", allowed: AvoidAllowed,
		field: func(s *System) any { return (*commaList)(&s.Avoid) }, usage: "comma-separated channels the routing keeps off, e.g. n0.d1.up,n5.d0.down (key avoid)",
		doc: "Channels the routing keeps off (dead links): the switches get routing exceptions that reach every node without them, proved deadlock-free (docs/reliability.md). Empty: the generated tables.",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Avoid, err = decodeStringList(n, "avoid", AvoidAllowed)
			if len(s.Avoid) == 0 {
				s.Avoid = nil
			}
			return err
		},
		write: func(s *System) string { return writeStrings(s.Avoid) }},
	{key: "crc_bits", flag: "crc-bits", typ: "integer", allowed: CRCAllowed,
		field: func(s *System) any { return &s.CRCBits }, help: "check code bits per packet",
		doc: "Check code of every packet, carried in sideband bits of its tail flit (no extra flit): the receiving unit recomputes it and raises CRC on a mismatch (docs/reliability.md).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.CRCBits, err = decodeInt(n, "crc_bits", CRCAllowed)
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.CRCBits) }},
	{key: "watchdog", flag: "watchdog", typ: "integer", allowed: fmt.Sprintf("0..%d (0: no watchdog)", int64(MaxMaxCycles)),
		field: func(s *System) any { return &s.Watchdog }, help: "cycles without progress before a waiting unit raises TIMEOUT",
		doc: "Cycles a unit waiting at a gate may go without passing a gate, sending or receiving before it raises TIMEOUT, naming the gate and the ranks still missing; 0: no watchdog (docs/reliability.md).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Watchdog, err = decodeInteger(n, "watchdog", fmt.Sprintf("0..%d", int64(MaxMaxCycles)), math.MinInt64, math.MaxInt64)
			return err
		},
		write: func(s *System) string { return strconv.FormatInt(s.Watchdog, 10) }},
	{key: "link_retry", flag: "link-retry", typ: "integer", allowed: fmt.Sprintf("0, or buffer_depth..%d flits", MaxLinkRetry),
		field: func(s *System) any { return &s.LinkRetry }, help: "replay buffer of link-level retry in flits (at least buffer_depth), 0: none",
		doc: "Link-level retry: the replay buffer of every link direction in flits (go-back-N, at least buffer_depth). A flit a flip or drop hits is caught by the receiving link and resent, crossing the wire 2*link_latency cycles later, unharmed; 0: no retry (docs/reliability.md).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.LinkRetry, err = decodeInt(n, "link_retry", fmt.Sprintf("0, or buffer_depth..%d", MaxLinkRetry))
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.LinkRetry) }},
	{key: "switch_pipeline", flag: "switch-pipeline", typ: "integer", allowed: "0 or 1",
		field: func(s *System) any { return &s.SwitchPipeline }, help: "1: every switch registers its requests (faster clock, one more cycle per hop for a packet's head)",
		doc: "Switch pipeline: 1 registers every switch's requests, so the route lookup and the arbitration are in two cycles (a higher clock) and a packet's head spends one more cycle per switch; 0: the one-cycle decision (docs/microarchitecture.md, Switch pipeline).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.SwitchPipeline, err = decodeInt(n, "switch_pipeline", "0 or 1")
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.SwitchPipeline) }},
	{key: "unit_pipeline", flag: "unit-pipeline", typ: "integer", allowed: "0 or 1",
		field: func(s *System) any { return &s.UnitPipeline }, help: "1: every barrier unit's ALUs start at flip-flops (faster clock; a signal counts for the gate check two cycles later)",
		doc: "Unit pipeline: 1 gives every barrier unit's ALUs operands from flip-flops only (a second stage of the receive fold, the gate check from registers), so that a received signal counts for the check from the third cycle after its pop instead of the first and no check is made in the cycle after a move (a higher clock; a gate that waits for a signal passes two cycles later); 0: the unit without them (docs/microarchitecture.md, Unit pipeline).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.UnitPipeline, err = decodeInt(n, "unit_pipeline", "0 or 1")
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.UnitPipeline) }},
	{key: "channels", flag: "barrier-channels", typ: "integer", allowed: fmt.Sprintf("1..%d", MaxChannels),
		field: func(s *System) any { return &s.Channels }, help: "barrier channels per unit: how many communicators a node can take part in at once",
		doc: "Barrier channels of every unit: each communicator a rank belongs to takes one on its node, so a node can synchronise in that many communicators at once (docs/microarchitecture.md, Channels and communicators).",
		decode: func(s *System, n *yaml.Node) (err error) {
			s.Channels, err = decodeInt(n, "channels", fmt.Sprintf("1..%d", MaxChannels))
			if err == nil && s.Channels < 1 { // Validate reads 0 as 1 (a Go literal); a file says 1
				return &ParseError{Line: n.Line, Err: outOfRange("channels", s.Channels, 1, MaxChannels)}
			}
			return err
		},
		write: func(s *System) string { return strconv.Itoa(s.ChannelCount()) }},
	{key: "communicators", flag: "", typ: "list of mappings", allowed: communicatorsAllowed,
		doc:    "Groups of ranks that run barriers at the same time on one network, each on its own channel: every entry has a name, its ranks (a list, or split: \"dim:K\" for one communicator per line of dimension K, \"plane:K,L\" for one per plane) and may set collective, op, algo, iterations, compute, jitter, skew and seed for itself. Empty: one communicator, world, of every rank. File only (no flag).",
		decode: nil, // set by init: decodeCommunicators reads the other keys' decoders
		write:  writeCommunicators},
}

func init() {
	specOf("communicators").decode = func(s *System, n *yaml.Node) (err error) {
		s.Communicators, err = decodeCommunicators(n)
		if len(s.Communicators) == 0 {
			s.Communicators = nil
		}
		return err
	}
	specOf("episodes").decode = func(s *System, n *yaml.Node) (err error) {
		s.Episodes, err = decodeEpisodes(n)
		if len(s.Episodes) == 0 {
			s.Episodes = nil
		}
		return err
	}
}

var (
	dimsAllowed      = fmt.Sprintf("a list of %d to %d integers, each %d..%d, e.g. [4, 4]", MinDims, MaxDims, MinDimSize, MaxDimSize)
	placementAllowed = "a list of distinct node numbers, one per rank, or []"
)

func specOf(key string) *keySpec {
	for i := range keys {
		if keys[i].key == key {
			return &keys[i]
		}
	}
	return nil
}

// KeyFlag is the command-line flag (without dashes) of a key, "" when the
// key has none (episodes). It, BindFlags and LocateInFile stay in hw: the
// flags come from the same table as the keys (so the two cannot drift),
// and any program that reads a system from flags or a file can use them.
func KeyFlag(key string) string {
	if k := specOf(key); k != nil {
		return k.flag
	}
	return ""
}

// Keys returns the keys of the system file in their documented order.
func Keys() []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.key
	}
	return out
}

func allowedKeys() string { return strings.Join(Keys(), ", ") }

// resolve follows aliases (*name) to the node they stand for.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 32; i++ {
		n = n.Alias
	}
	return n
}

// show formats a node's value for an error message, on one line.
func show(n *yaml.Node) string {
	n = resolve(n)
	switch {
	case n == nil || n.Kind == yaml.AliasNode:
		return "an alias"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind != yaml.ScalarNode:
		return "a YAML document"
	case n.ShortTag() == "!!null":
		return "null (no value)"
	case n.ShortTag() == "!!str":
		return showString(n.Value)
	}
	v := n.Value
	if r := []rune(v); len(r) > 40 {
		v = string(r[:40]) + "..."
	}
	for _, r := range v {
		if !unicode.IsPrint(r) {
			return showString(n.Value)
		}
	}
	return v
}

func typeError(n *yaml.Node, field, allowed string) error {
	return &ParseError{Line: n.Line, Err: &FieldError{Field: field, Value: show(n), Allowed: allowed}}
}

// decodeString accepts any non-null scalar (so "name: 2024" is the string
// "2024"); whether the text is allowed is Validate's business.
func decodeString(n *yaml.Node, field, allowed string) (string, error) {
	r := resolve(n)
	if r == nil || r.Kind != yaml.ScalarNode || r.ShortTag() == "!!null" {
		return "", typeError(n, field, allowed)
	}
	var v string
	if err := r.Decode(&v); err != nil {
		return "", typeError(n, field, allowed)
	}
	return v, nil
}

// decodeName decodes a string field of a named string type (topology, algo,
// op, collective, duplex); Validate checks the value.
func decodeName[T ~string](n *yaml.Node, field, allowed string) (T, error) {
	v, err := decodeString(n, field, allowed)
	return T(v), err
}

// decodeInteger accepts a YAML integer (decimal, 0x, 0o, 0b, with optional
// _ separators) in lo..hi. Floats, strings, booleans and decimals with a
// leading zero (which YAML 1.1 reads as octal) are type errors. The range
// check proper is Validate's; lo..hi is the range of the Go field.
func decodeInteger(n *yaml.Node, field, allowed string, lo, hi int64) (int64, error) {
	r := resolve(n)
	if r == nil || r.Kind != yaml.ScalarNode || r.ShortTag() != "!!int" {
		return 0, typeError(n, field, "an integer, "+allowed)
	}
	if t := strings.TrimLeft(r.Value, "+-"); len(t) > 1 && t[0] == '0' && t[1] >= '0' && t[1] <= '9' {
		return 0, typeError(n, field, allowed+", written without a leading zero")
	}
	var v any
	if err := r.Decode(&v); err != nil {
		return 0, typeError(n, field, "an integer, "+allowed)
	}
	switch v := v.(type) {
	case int:
		if int64(v) >= lo && int64(v) <= hi {
			return int64(v), nil
		}
	case int64:
		if v >= lo && v <= hi {
			return v, nil
		}
	}
	return 0, typeError(n, field, allowed)
}

func decodeInt(n *yaml.Node, field, allowed string) (int, error) {
	v, err := decodeInteger(n, field, allowed, math.MinInt, math.MaxInt)
	return int(v), err
}

func decodeUint64(n *yaml.Node, field, allowed string) (uint64, error) {
	r := resolve(n)
	if r == nil || r.Kind != yaml.ScalarNode || r.ShortTag() != "!!int" {
		return 0, typeError(n, field, "an integer, "+allowed)
	}
	if t := strings.TrimLeft(r.Value, "+"); len(t) > 1 && t[0] == '0' && t[1] >= '0' && t[1] <= '9' {
		return 0, typeError(n, field, allowed+", written without a leading zero")
	}
	var v any
	if err := r.Decode(&v); err != nil {
		return 0, typeError(n, field, "an integer, "+allowed)
	}
	switch v := v.(type) {
	case int:
		if v >= 0 {
			return uint64(v), nil
		}
	case int64:
		if v >= 0 {
			return uint64(v), nil
		}
	case uint64:
		return v, nil
	}
	return 0, typeError(n, field, allowed)
}

// decodeIntList accepts a YAML list of integers; an entry in error is named
// field[i] and located on its own line.
func decodeIntList(n *yaml.Node, field, allowed, entryAllowed string) ([]int, error) {
	r := resolve(n)
	if r == nil || r.Kind != yaml.SequenceNode {
		return nil, typeError(n, field, allowed)
	}
	out := make([]int, len(r.Content))
	for i, e := range r.Content {
		v, err := decodeInt(e, fmt.Sprintf("%s[%d]", field, i), entryAllowed)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// decodeBoolList accepts a YAML list of booleans (true/false); an entry in
// error is named field[i] and located on its own line.
func decodeBoolList(n *yaml.Node, field, allowed string) ([]bool, error) {
	r := resolve(n)
	if r == nil || r.Kind != yaml.SequenceNode {
		return nil, typeError(n, field, allowed)
	}
	out := make([]bool, len(r.Content))
	for i, e := range r.Content {
		er := resolve(e)
		// 1 and 0 as the flags take them (--wrap 1,0)
		if er != nil && er.Kind == yaml.ScalarNode && er.ShortTag() == "!!int" && (er.Value == "1" || er.Value == "0") {
			out[i] = er.Value == "1"
			continue
		}
		if er == nil || er.Kind != yaml.ScalarNode || er.ShortTag() != "!!bool" {
			return nil, typeError(e, fmt.Sprintf("%s[%d]", field, i), "true or false (or 1 or 0)")
		}
		if err := er.Decode(&out[i]); err != nil {
			return nil, typeError(e, fmt.Sprintf("%s[%d]", field, i), "true or false (or 1 or 0)")
		}
	}
	return out, nil
}

// Parse reads a system from YAML (the format of docs/config.md) and
// validates it.
//
// The file holds one mapping; every key is optional and unknown keys are an
// error. A key the file does not set takes its value from Default(), with
// one exception: when the file sets dims or placement but not ranks, ranks
// is the length of placement (0, i.e. every node, when placement is empty or
// unset), because Default's ranks belong to Default's dims. An empty file
// (or one holding only comments, or null) is Default(). A key with no value
// ("skew:") is an error, as is a second YAML document.
//
// Errors are *ParseError values with the line when one is known.
func Parse(data []byte) (System, error) {
	s, _, err := parse(data)
	return s, err
}

// Load reads and parses the system file at path; errors name the file. The
// file must be a regular file of at most 64 MiB (internal/inputfile).
func Load(path string) (System, error) {
	data, err := inputfile.ReadInput(path)
	if err != nil {
		return System{}, err
	}
	s, err := Parse(data)
	if pe, ok := errors.AsType[*ParseError](err); ok {
		pe.File = path
	}
	return s, err
}

// decodeDocs reads the first YAML document and reports whether there is
// another. The YAML library is not ours: a panic in it is turned into an
// error rather than taking the caller down.
func decodeDocs(data []byte) (doc *yaml.Node, more *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, more, err = nil, nil, fmt.Errorf("YAML parser failed: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first yaml.Node
	if err := dec.Decode(&first); err != nil {
		if err == io.EOF {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	var second yaml.Node
	switch err := dec.Decode(&second); {
	case err == io.EOF:
		return &first, nil, nil
	case err != nil:
		return nil, nil, err
	}
	return &first, &second, nil
}

// yamlError turns the YAML library's "yaml: line N: msg" into a ParseError.
func yamlError(err error) *ParseError {
	msg := strings.TrimPrefix(oneLine(err.Error()), "yaml: ")
	var line int
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.Index(rest, ": "); i > 0 {
			if l, err := strconv.Atoi(rest[:i]); err == nil {
				line, msg = l, rest[i+2:]
			}
		}
	}
	return &ParseError{Line: line, Err: fmt.Errorf("YAML syntax: %s", msg)}
}

// parse does the work of Parse and also returns the value node of each key
// set in the file, for locating errors.
func parse(data []byte) (System, map[string]*yaml.Node, error) {
	s := Default()
	if err := checkYAMLBudget(data); err != nil {
		return System{}, nil, &ParseError{Err: err}
	}
	doc, more, err := decodeDocs(data)
	if err != nil {
		return System{}, nil, yamlError(err)
	}
	if more != nil {
		line := more.Line
		if len(more.Content) > 0 {
			line = more.Content[0].Line
		}
		return System{}, nil, &ParseError{Line: line, Err: errors.New("a second YAML document (a system file holds exactly one)")}
	}
	if doc == nil || len(doc.Content) == 0 {
		return s, nil, nil
	}
	return parseNode(doc.Content[0])
}

// ParseNode reads a system from a YAML node holding the keys of a system
// file (a mapping, or null for Default()), with the rules and errors of
// Parse: the lines of the errors are the nodes' lines, so a caller that
// assembles a mapping from nodes of another file (hxbar sweep: the base
// keys and one value of each varied key) gets errors on that file's lines.
func ParseNode(n *yaml.Node) (System, error) {
	s, _, err := parseNode(n)
	return s, err
}

func parseNode(n *yaml.Node) (System, map[string]*yaml.Node, error) {
	s := Default()
	root := resolve(n)
	if root != nil && root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return s, nil, nil
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return System{}, nil, &ParseError{Line: n.Line, Err: fmt.Errorf("the file must be a mapping of keys to values, not %s (allowed keys: %s)", show(n), allowedKeys())}
	}
	set := make(map[string]*yaml.Node, len(keys))
	lines := make(map[string]int, len(keys))
	for i := 0; i+1 < len(root.Content); i += 2 {
		kn, vn := root.Content[i], root.Content[i+1]
		k := resolve(kn)
		if k == nil || k.Kind != yaml.ScalarNode {
			return System{}, nil, &ParseError{Line: kn.Line, Err: fmt.Errorf("a key must be a plain name, not %s (allowed keys: %s)", show(kn), allowedKeys())}
		}
		spec := specOf(k.Value)
		if spec == nil {
			return System{}, nil, &ParseError{Line: kn.Line, Err: unknownKey(k.Value)}
		}
		if l, dup := lines[k.Value]; dup {
			return System{}, nil, &ParseError{Line: kn.Line, Err: fmt.Errorf("key %q given twice (first on line %d)", k.Value, l)}
		}
		lines[k.Value] = kn.Line
		set[k.Value] = vn
		if err := spec.decode(&s, vn); err != nil {
			return System{}, nil, err
		}
	}
	if _, ok := set["ranks"]; !ok {
		_, dims := set["dims"]
		_, pl := set["placement"]
		if dims || pl {
			s.Ranks = len(s.Placement)
		}
	}
	if err := s.Validate(); err != nil {
		return System{}, nil, locate(err, set)
	}
	return s, set, nil
}

// locate adds the line of the field a validation error names, or says that
// the field was not in the file.
func locate(err error, set map[string]*yaml.Node) error {
	fe, ok := errors.AsType[*FieldError](err)
	if !ok {
		return &ParseError{Err: err}
	}
	for _, list := range []string{"episodes", "communicators"} {
		if n, ok := set[list]; ok && strings.HasPrefix(fe.Field, list+"[") {
			return &ParseError{Line: entryLine(n, list, fe.Field), Err: err}
		}
	}
	key, idx := splitField(fe.Field)
	n, ok := set[key]
	if !ok {
		if key == "ranks" {
			if p, ok := set["placement"]; ok {
				return &ParseError{Line: p.Line, Err: fmt.Errorf("%w (ranks is not set, so it is the length of placement)", err)}
			}
			if _, ok := set["dims"]; ok {
				return &ParseError{Err: fmt.Errorf("%w (ranks is not set, so it is 0: every node)", err)}
			}
		}
		return &ParseError{Err: fmt.Errorf("%w (%s is not set in the file, so it has the default value)", err, key)}
	}
	line := n.Line
	if r := resolve(n); idx >= 0 && r != nil && r.Kind == yaml.SequenceNode && idx < len(r.Content) {
		line = r.Content[idx].Line
	}
	return &ParseError{Line: line, Err: err}
}

// fieldKeyRE finds the key in a message of the form "invalid KEY...: ...",
// which packages that do not build a *FieldError (noc) also write.
var fieldKeyRE = regexp.MustCompile(`^invalid ([a-z_]+(?:\[[0-9]+\])?):`)

// ErrorKey returns the system key an error is about: the field of a
// *FieldError inside it, else the KEY of a message "invalid KEY: ...", when
// KEY is a key of the system file; "" otherwise.
func ErrorKey(err error) string {
	field := ""
	if fe, ok := errors.AsType[*FieldError](err); ok {
		field = fe.Field
	} else if m := fieldKeyRE.FindStringSubmatch(err.Error()); m != nil {
		field = m[1]
	}
	if strings.HasPrefix(field, "episodes[") {
		return "episodes"
	}
	if key, _ := splitField(field); specOf(key) != nil {
		return key
	}
	return ""
}

// LocateInFile places an error found after the system file at path was
// read (a network too large for the model, a bound on max_cycles) on the
// line of the key it names, as Load places its own errors: a *ParseError
// with the file and line. err is returned unchanged when it names no key,
// the file does not set that key, or the file cannot be read again.
func LocateInFile(path string, err error) error {
	key := ErrorKey(err)
	if key == "" || path == "" {
		return err
	}
	data, rerr := inputfile.Read(path)
	if rerr != nil {
		return err
	}
	_, set, perr := parse(data)
	if perr != nil {
		return err
	}
	n, ok := set[key]
	if !ok {
		return err
	}
	line := n.Line
	if fe, ok := errors.AsType[*FieldError](err); ok && key == "episodes" {
		if l := episodeLine(n, fe.Field); l > 0 {
			line = l
		}
	} else if ok {
		if _, idx := splitField(fe.Field); idx >= 0 {
			if r := resolve(n); r != nil && r.Kind == yaml.SequenceNode && idx < len(r.Content) {
				line = r.Content[idx].Line
			}
		}
	}
	return &ParseError{File: path, Line: line, Err: err}
}

// splitField splits "dims[1]" into "dims" and 1; idx is -1 without an index.
func splitField(f string) (key string, idx int) {
	i := strings.IndexByte(f, '[')
	if i < 0 || !strings.HasSuffix(f, "]") {
		return f, -1
	}
	n, err := strconv.Atoi(f[i+1 : len(f)-1])
	if err != nil {
		return f[:i], -1
	}
	return f[:i], n
}

func unknownKey(k string) error {
	hint := ""
	if best := closestKey(k); best != "" {
		hint = fmt.Sprintf("; did you mean %q?", best)
	}
	return fmt.Errorf("unknown key %s (allowed keys: %s%s)", showString(k), allowedKeys(), hint)
}

// closestKey returns the key nearest to k (- and _ taken as equal, case
// ignored), or "" when no key is near enough to be a likely typo: see
// nearEnough.
func closestKey(k string) string {
	return Closest(k, Keys())
}

// Closest returns the name of known nearest to typed (- and _ taken as
// equal, case ignored), or "" when none is near enough to be a likely
// typo (see nearEnough): the did-you-mean of every YAML key.
func Closest(typed string, known []string) string {
	if len(typed) > 40 {
		return ""
	}
	typed = strings.ToLower(strings.ReplaceAll(typed, "-", "_"))
	best, bestD := "", -1
	for _, k := range known {
		if d := EditDistance(typed, k); nearEnough(typed, k, d) && (bestD < 0 || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}

// nearEnough reports whether a typed name at edit distance d from a known
// one is worth suggesting: d at most 1 when either is up to 4 characters
// long, at most 2 otherwise, and never d as large as either length (then
// every character is changed: "foo" is not a typo of "op").
func nearEnough(typed, known string, d int) bool {
	short := min(len(typed), len(known))
	limit := 2
	if short <= 4 {
		limit = 1
	}
	return d <= limit && d < short
}

// EditDistance is the Levenshtein distance of a and b (bytes), the
// measure of every did-you-mean hint.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// writeInts writes a YAML flow list, 16 entries per line; continuation
// lines start with indent.
func writeInts(v []int, indent string) string {
	var b strings.Builder
	b.Grow(2 + 9*len(v))
	b.WriteByte('[')
	var num [24]byte
	for i, x := range v {
		if i > 0 {
			b.WriteString(", ")
			if i%16 == 0 {
				b.WriteString("\n  ")
				b.WriteString(indent)
			}
		}
		b.Write(strconv.AppendInt(num[:0], int64(x), 10))
	}
	b.WriteByte(']')
	return b.String()
}

// writeBools writes a YAML flow list of booleans.
func writeBools(v []bool) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatBool(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// wrap breaks text into comment lines of at most width characters.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	// Words, except that a bracketed list such as "[4, 4]" stays whole.
	var words []string
	for _, w := range strings.Fields(text) {
		if n := len(words); n > 0 && strings.Count(words[n-1], "[") > strings.Count(words[n-1], "]") {
			words[n-1] += " " + w
			continue
		}
		words = append(words, w)
	}
	for _, w := range words {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// YAML writes the system as a documented system file: a header comment,
// then every key (so no defaulting applies when it is read back) with a
// comment giving its meaning, type and allowed values. Parse reads the
// result back to an equal System. An invalid system is an error, since no
// file could hold it.
func (s System) YAML() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# hxbar system %q\n", s.Title())
	dims := make([]string, len(s.Dims))
	for i, d := range s.Dims {
		dims[i] = strconv.Itoa(d)
	}
	what := string(s.Algo) + " " + string(s.Op)
	if s.IsData() {
		what = fmt.Sprintf("%s of %d items x %d flits", s.Collective, s.NumItems(), s.ItemFlits)
	}
	fmt.Fprintf(&b, "# %s %s, %d nodes, %d ranks, %s.\n", strings.Join(dims, "x"), s.Topology, s.Nodes(), s.NumRanks(), what)
	b.WriteString("# Every key is given, so no default applies when this file is read.\n")
	b.WriteString("# Keys, defaults and the matching CLI flags: docs/config.md.\n")
	comments := keyComments()
	for i := range keys {
		b.WriteByte('\n')
		b.WriteString(comments[i])
		b.WriteString(keys[i].key)
		v := keys[i].write(&s)
		if !strings.HasPrefix(v, "\n") { // a block list starts on the next line
			b.WriteByte(':')
			b.WriteByte(' ')
		} else {
			b.WriteByte(':')
		}
		b.WriteString(v)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// keyComments are the comment lines YAML writes above each key: what it
// means, then its type and allowed values.
var keyComments = sync.OnceValue(func() []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		var b strings.Builder
		for _, l := range wrap(k.doc, 76) {
			fmt.Fprintf(&b, "# %s\n", l)
		}
		for _, l := range wrap(fmt.Sprintf("%s; allowed: %s.", k.typ, k.allowed), 76) {
			fmt.Fprintf(&b, "# %s\n", l)
		}
		out[i] = b.String()
	}
	return out
})
