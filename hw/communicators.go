package hw

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Communicators run barriers on groups of ranks at the same time on one
// network (docs/microarchitecture.md, "Channels and communicators"): each
// unit has Channels barrier channels, and every communicator a rank
// belongs to gets one on its node.

// MaxChannels bounds channels: the head flit's channel field and the
// unit's per-channel state grow with it.
const MaxChannels = 8

// MaxCommunicators bounds the communicators of a system after splits.
const MaxCommunicators = 1 << 16

// CommunicatorKeys are the keys of an entry of communicators: its name,
// its ranks (ranks or split) and what it runs; the keys it leaves out are
// the system's.
var CommunicatorKeys = []string{"name", "ranks", "split", "collective", "op", "algo", "iterations", "compute", "jitter", "skew", "seed"}

// Communicator is one entry of a system's communicators list. Exactly one
// of Ranks (the system's ranks, in the communicator's rank order) and
// Split (one communicator per line or plane of the network) names its
// ranks; the other fields override the system's (nil: the system's).
type Communicator struct {
	Name       string      `yaml:"name" json:"name"`
	Ranks      []int       `yaml:"ranks,omitempty" json:"ranks,omitempty"`
	Split      string      `yaml:"split,omitempty" json:"split,omitempty"`
	Collective *Collective `yaml:"collective,omitempty" json:"collective,omitempty"`
	Op         *OpName     `yaml:"op,omitempty" json:"op,omitempty"`
	Algo       *Algorithm  `yaml:"algo,omitempty" json:"algo,omitempty"`
	Iterations *int        `yaml:"iterations,omitempty" json:"iterations,omitempty"`
	Compute    *int        `yaml:"compute,omitempty" json:"compute,omitempty"`
	Jitter     *int        `yaml:"jitter,omitempty" json:"jitter,omitempty"`
	Skew       *int        `yaml:"skew,omitempty" json:"skew,omitempty"`
	Seed       *uint64     `yaml:"seed,omitempty" json:"seed,omitempty"`
}

// SplitAllowed describes the allowed split values.
const SplitAllowed = `"dim:K" (one communicator per line of dimension K) or "plane:K,L" (one per plane of dimensions K and L), K and L dimension indices`

// Comm is one communicator of a run, splits expanded: its name, its
// ranks (system ranks, in its rank order), its channel on each of their
// nodes, and the system it runs (Sys: the system with the entry's
// overrides, its ranks placed on their nodes, no communicators).
type Comm struct {
	Name    string
	Entry   int   // index into System.Communicators
	Ranks   []int // system ranks; local rank j is Ranks[j]
	Channel []int // Channel[j]: the channel local rank j uses on its node
	Sys     System
}

// ChannelCount is Channels, with 0 (a System literal that does not set
// it) read as 1.
func (s *System) ChannelCount() int { return max(s.Channels, 1) }

// HasCommunicators reports whether the run is a communicators list.
func (s *System) HasCommunicators() bool { return len(s.Communicators) > 0 }

// chanBits is the head bits naming the destination channel: 0 with one
// channel.
func (s *System) chanBits() int {
	if s.ChannelCount() <= 1 {
		return 0
	}
	return Bits(s.ChannelCount())
}

// Comms expands the communicators list (splits into one communicator per
// line or plane) and assigns channels: on every node, the communicators
// with a rank there take channels 0, 1, ... in list order. Without a list
// the run is one communicator, world, of every rank. Errors name the
// entry's key (communicators[i].key).
func (s *System) Comms() ([]Comm, error) {
	if !s.HasCommunicators() {
		w := s.commSystem(nil, "world", nil)
		ranks := make([]int, s.NumRanks())
		for r := range ranks {
			ranks[r] = r
		}
		return []Comm{{Name: "world", Ranks: ranks, Channel: make([]int, len(ranks)), Sys: w}}, nil
	}
	var out []Comm
	for i := range s.Communicators {
		c := &s.Communicators[i]
		groups, err := s.commGroups(i)
		if err != nil {
			return nil, err
		}
		for k, g := range groups {
			name := c.Name
			if c.Split != "" {
				name = c.Name + "." + strconv.Itoa(k)
			}
			if len(out) == MaxCommunicators {
				return nil, &FieldError{Field: "communicators", Value: fmt.Sprintf("more than %d after splits", MaxCommunicators), Allowed: fmt.Sprintf("at most %d communicators", MaxCommunicators)}
			}
			cs := s.commSystem(c, name, g)
			// The members of a split draw apart, as the processes of
			// different rows do: member k's seed is the entry's plus k.
			cs.Seed += uint64(k)
			out = append(out, Comm{Name: name, Entry: i, Ranks: g, Channel: make([]int, len(g)), Sys: cs})
		}
	}
	return out, s.assignChannels(out)
}

// commGroups returns the rank lists of entry i: its ranks, or its split's
// lines or planes (each in rank order, the groups in the order of their
// lowest rank).
func (s *System) commGroups(i int) ([][]int, error) {
	c := &s.Communicators[i]
	field := func(k string) string { return fmt.Sprintf("communicators[%d].%s", i, k) }
	if c.Split == "" {
		return [][]int{slices.Clone(c.Ranks)}, nil
	}
	free, err := s.splitDims(c.Split)
	if err != nil {
		return nil, &FieldError{Field: field("split"), Value: showString(c.Split), Allowed: err.Error()}
	}
	key := func(node int) int { // the node with its free coordinates zeroed
		stride := 1
		for k, d := range s.Dims {
			if slices.Contains(free, k) {
				node -= (node / stride % d) * stride
			}
			stride *= d
		}
		return node
	}
	index := map[int]int{}
	var groups [][]int
	for r := range s.NumRanks() {
		k := key(s.RankNode(r))
		j, ok := index[k]
		if !ok {
			j = len(groups)
			index[k] = j
			groups = append(groups, nil)
		}
		groups[j] = append(groups[j], r)
	}
	return groups, nil
}

// splitDims parses a split value into the dimensions a group spans.
func (s *System) splitDims(v string) ([]int, error) {
	kind, arg, ok := strings.Cut(v, ":")
	n := 1
	switch {
	case ok && kind == "dim":
	case ok && kind == "plane":
		n = 2
	default:
		return nil, errors.New(SplitAllowed)
	}
	parts := strings.Split(arg, ",")
	if len(parts) != n {
		return nil, errors.New(SplitAllowed)
	}
	var dims []int
	for _, p := range parts {
		k, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || k < 0 || k >= len(s.Dims) {
			return nil, fmt.Errorf("%s; dimension %s is not one of 0..%d (dims %s)", SplitAllowed, showString(p), len(s.Dims)-1, showInts(s.Dims))
		}
		if slices.Contains(dims, k) {
			return nil, fmt.Errorf("%s; K and L must differ", SplitAllowed)
		}
		dims = append(dims, k)
	}
	return dims, nil
}

// commSystem is the system communicator c (nil: world) runs: s with c's
// overrides, ranks on the nodes of the system ranks g (nil: all).
func (s *System) commSystem(c *Communicator, name string, g []int) System {
	e := *s
	e.Communicators, e.Channels = nil, 0
	e.Dims = slices.Clone(s.Dims)
	e.Wrap = slices.Clone(s.Wrap)
	e.Faults, e.Avoid = nil, nil
	if c == nil {
		e.Placement = slices.Clone(s.Placement)
		return e
	}
	e.Name = ""
	if validName(name) {
		e.Name = name
	}
	e.Ranks = len(g)
	e.Placement = make([]int, len(g))
	for j, r := range g {
		e.Placement[j] = s.RankNode(r)
	}
	if c.Collective != nil {
		e.Collective = *c.Collective
	}
	if c.Op != nil {
		e.Op = *c.Op
	}
	if c.Algo != nil {
		e.Algo = *c.Algo
	}
	if c.Iterations != nil {
		e.Iterations = *c.Iterations
	}
	if c.Compute != nil {
		e.Compute = *c.Compute
	}
	if c.Jitter != nil {
		e.Jitter = *c.Jitter
	}
	if c.Skew != nil {
		e.Skew = *c.Skew
	}
	if c.Seed != nil {
		e.Seed = *c.Seed
	}
	// compute and jitter given for the system's loop are defaults for the
	// communicators that loop: one that runs once does not inherit them
	// (they would be refused under a key the file does not hold).
	if e.Iterations <= 1 {
		if c.Compute == nil {
			e.Compute = 0
		}
		if c.Jitter == nil {
			e.Jitter = 0
		}
	}
	return e
}

// assignChannels gives every communicator's ranks their channel: on each
// node the communicators with a rank there, in order, take channels 0, 1,
// ...; a node that needs more than ChannelCount is an error naming it.
func (s *System) assignChannels(cs []Comm) error {
	used := map[int][]int{} // node -> communicators (indices into cs) with a rank there
	for ci := range cs {
		for j, r := range cs[ci].Ranks {
			n := s.RankNode(r)
			cs[ci].Channel[j] = len(used[n])
			used[n] = append(used[n], ci)
		}
	}
	worst, at := 0, 0
	for n, l := range used {
		if len(l) > worst || len(l) == worst && n < at {
			worst, at = len(l), n
		}
	}
	if worst <= s.ChannelCount() {
		return nil
	}
	names := make([]string, len(used[at]))
	for i, ci := range used[at] {
		names[i] = cs[ci].Name
	}
	return &FieldError{Field: "channels", Value: s.ChannelCount(),
		Allowed: fmt.Sprintf("%d..%d: node %d (rank %d) is in %d communicators (%s), each needing a channel there", worst, MaxChannels, at, s.rankOn(at), worst, strings.Join(names, ", "))}
}

// rankOn is the rank on node n (-1: none).
func (s *System) rankOn(n int) int {
	for r := range s.NumRanks() {
		if s.RankNode(r) == n {
			return r
		}
	}
	return -1
}

// validateCommunicators checks channels and the communicators list: each
// entry names its ranks once (ranks of the system, no rank twice) and
// runs a loop or a single barrier (no episodes, no data collectives yet),
// and the channels suffice on every node.
func (s *System) validateCommunicators() error {
	if s.Channels != 0 {
		if err := inRange("channels", s.Channels, 1, MaxChannels); err != nil {
			return err
		}
	}
	if !s.HasCommunicators() {
		return nil
	}
	if s.MultiEpisode() {
		return &FieldError{Field: "communicators", Value: fmt.Sprintf("%d entries", len(s.Communicators)),
			Allowed: "[] with repeat or episodes (each communicator runs its own loop: give it iterations)"}
	}
	if s.IsData() {
		return &FieldError{Field: "collective", Value: showString(string(s.Collective)), Allowed: "barrier with communicators (data collectives run on world only)"}
	}
	names := map[string]int{}
	for i := range s.Communicators {
		if err := s.validateCommunicator(i, names); err != nil {
			return err
		}
	}
	cs, err := s.Comms()
	if err != nil {
		return err
	}
	if err := s.commNamesUnique(cs); err != nil {
		return err
	}
	for _, c := range cs {
		if err := c.Sys.Validate(); err != nil {
			return commError(c.Entry, c.Name, err)
		}
	}
	return nil
}

// commNamesUnique refuses two communicators of the same name after splits
// (an entry named "rows.0" beside a split named "rows"): results, traces
// and tables name communicators by it.
func (s *System) commNamesUnique(cs []Comm) error {
	first := make(map[string]int, len(cs))
	for k, c := range cs {
		j, dup := first[c.Name]
		if !dup {
			first[c.Name] = k
			continue
		}
		a, b := cs[j].Entry, c.Entry
		return &FieldError{Field: fmt.Sprintf("communicators[%d].name", b), Value: showString(s.Communicators[b].Name),
			Allowed: fmt.Sprintf("a name no other communicator has after splits (communicators[%d] makes %s too; a split named N makes N.0, N.1, ...)", a, showString(c.Name))}
	}
	return nil
}

// validateCommunicator checks entry i's own keys; names holds the names
// of the entries before it.
func (s *System) validateCommunicator(i int, names map[string]int) error {
	c := &s.Communicators[i]
	field := func(k string) string { return fmt.Sprintf("communicators[%d].%s", i, k) }
	if !validName(c.Name) {
		return &FieldError{Field: field("name"), Value: showString(c.Name), Allowed: "1..64 characters from A-Z a-z 0-9 _ - . starting with a letter, digit or _"}
	}
	if j, dup := names[c.Name]; dup {
		return &FieldError{Field: field("name"), Value: showString(c.Name), Allowed: fmt.Sprintf("a name not given before (communicators[%d] has it)", j)}
	}
	names[c.Name] = i
	if c.Iterations != nil && *c.Iterations < 1 { // an override says what it means: 0 is not 1
		return outOfRange(field("iterations"), *c.Iterations, 1, MaxIterations)
	}
	loops := s.IterationCount() > 1
	if c.Iterations != nil {
		loops = *c.Iterations > 1
	}
	if c.Compute != nil && *c.Compute > 0 && !loops {
		return &FieldError{Field: field("compute"), Value: *c.Compute, Allowed: "0 with iterations 1 (compute is the work between a loop's iterations: give the communicator iterations above 1)"}
	}
	if c.Jitter != nil && *c.Jitter > 0 && !loops {
		return &FieldError{Field: field("jitter"), Value: *c.Jitter, Allowed: "0 with iterations 1 (jitter varies a loop's next arrivals: give the communicator iterations above 1)"}
	}
	if c.Collective != nil && *c.Collective != CollBarrier {
		return &FieldError{Field: field("collective"), Value: showString(string(*c.Collective)), Allowed: "barrier (with any op): data collectives run on world only"}
	}
	switch {
	case c.Split != "" && len(c.Ranks) > 0:
		return &FieldError{Field: field("split"), Value: showString(c.Split), Allowed: "absent when ranks is given (a communicator names its ranks one way)"}
	case c.Split == "" && len(c.Ranks) == 0:
		return &FieldError{Field: field("ranks"), Value: "[]", Allowed: fmt.Sprintf("a list of distinct ranks 0..%d, or a split (%s)", s.NumRanks()-1, SplitAllowed)}
	case c.Split != "":
		_, err := s.commGroups(i)
		return err
	}
	seen := make(map[int]int, len(c.Ranks))
	for j, r := range c.Ranks {
		if r < 0 || r >= s.NumRanks() {
			return &FieldError{Field: fmt.Sprintf("%s[%d]", field("ranks"), j), Value: r, Allowed: fmt.Sprintf("0..%d, a rank of the system", s.NumRanks()-1)}
		}
		if k, dup := seen[r]; dup {
			return &FieldError{Field: fmt.Sprintf("%s[%d]", field("ranks"), j), Value: r, Allowed: fmt.Sprintf("a rank not listed before (ranks[%d] is %d)", k, r)}
		}
		seen[r] = j
	}
	return nil
}

// commError renames a field error of entry i's system to
// communicators[i].field, naming the communicator.
func commError(i int, name string, err error) error {
	fe, ok := err.(*FieldError)
	if !ok {
		return fmt.Errorf("communicators[%d] (%s): %w", i, name, err)
	}
	g := *fe
	g.Field = fmt.Sprintf("communicators[%d].%s", i, fe.Field)
	return &g
}

// headExtraBits is the head bits above the header: the iteration bit of
// a loop, then the destination channel.
func (s *System) headExtraBits() int {
	if s.chanBits() > 0 {
		return 1 + s.chanBits() // the channel field starts above the iteration bit
	}
	loop := s.loopBits()
	if s.HasCommunicators() {
		loop = 0
		for i := range s.Communicators {
			if c := s.Communicators[i].Iterations; c != nil && *c > 1 || c == nil && s.Looping() {
				loop = 1
			}
		}
	}
	return loop + s.chanBits()
}

// ChannelBit is the head flit's first channel bit: the channel field
// follows the iteration bit (HeaderBits), Bits(channels) wide.
func (s *System) ChannelBit() int { return s.HeaderBits() + 1 }

var communicatorsAllowed = "a list of mappings, each with name, ranks or split, and some of " + strings.Join(CommunicatorKeys[3:], ", ")

// decodeCommunicators reads the communicators list: a sequence of mappings
// whose keys are CommunicatorKeys, each at most once.
func decodeCommunicators(n *yaml.Node) ([]Communicator, error) {
	r := resolve(n)
	if r == nil || r.Kind != yaml.SequenceNode {
		return nil, typeError(n, "communicators", communicatorsAllowed)
	}
	out := make([]Communicator, len(r.Content))
	for i, en := range r.Content {
		m := resolve(en)
		field := fmt.Sprintf("communicators[%d]", i)
		if m == nil || m.Kind != yaml.MappingNode {
			return nil, typeError(en, field, "a mapping with name and ranks or split, e.g. {name: rows, split: \"dim:0\"}")
		}
		seen := map[string]int{}
		for j := 0; j+1 < len(m.Content); j += 2 {
			kn, vn := m.Content[j], m.Content[j+1]
			k := resolve(kn)
			if k == nil || k.Kind != yaml.ScalarNode || !slices.Contains(CommunicatorKeys, k.Value) {
				return nil, &ParseError{Line: kn.Line, Err: fmt.Errorf("%s: unknown key %s (allowed keys: %s)", field, show(kn), strings.Join(CommunicatorKeys, ", "))}
			}
			if l, dup := seen[k.Value]; dup {
				return nil, &ParseError{Line: kn.Line, Err: fmt.Errorf("%s: key %q given twice (first on line %d)", field, k.Value, l)}
			}
			seen[k.Value] = kn.Line
			if err := decodeCommKey(&out[i], field, k.Value, vn); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// decodeCommKey decodes one key of a communicator entry; the keys it
// shares with the system use the system key's own decoder.
func decodeCommKey(c *Communicator, field, key string, vn *yaml.Node) (err error) {
	switch key {
	case "name":
		c.Name, err = decodeString(vn, field+".name", "a name")
		return err
	case "ranks":
		c.Ranks, err = decodeIntList(vn, field+".ranks", "a list of ranks", "a rank")
		return err
	case "split":
		c.Split, err = decodeString(vn, field+".split", SplitAllowed)
		return err
	}
	var s System
	if err := specOf(key).decode(&s, vn); err != nil {
		if pe, ok := err.(*ParseError); ok {
			if fe, ok := pe.Err.(*FieldError); ok {
				g := *fe
				g.Field = field + "." + fe.Field
				pe.Err = &g
			}
		}
		return err
	}
	switch key {
	case "collective":
		c.Collective = &s.Collective
	case "op":
		c.Op = &s.Op
	case "algo":
		c.Algo = &s.Algo
	case "iterations":
		c.Iterations = &s.Iterations
	case "compute":
		c.Compute = &s.Compute
	case "jitter":
		c.Jitter = &s.Jitter
	case "skew":
		c.Skew = &s.Skew
	case "seed":
		c.Seed = &s.Seed
	}
	return nil
}

// writeCommunicators writes the communicators list in flow style, one
// entry a line.
func writeCommunicators(s *System) string {
	if len(s.Communicators) == 0 {
		return "[]"
	}
	var b strings.Builder
	for _, c := range s.Communicators {
		parts := []string{"name: " + strconv.Quote(c.Name)}
		if c.Split != "" {
			parts = append(parts, "split: "+strconv.Quote(c.Split))
		} else {
			parts = append(parts, "ranks: "+writeInts(c.Ranks, "      "))
		}
		if c.Collective != nil {
			parts = append(parts, "collective: "+string(*c.Collective))
		}
		if c.Op != nil {
			parts = append(parts, "op: "+string(*c.Op))
		}
		if c.Algo != nil {
			parts = append(parts, "algo: "+string(*c.Algo))
		}
		for _, kv := range []struct {
			k string
			v *int
		}{{"iterations", c.Iterations}, {"compute", c.Compute}, {"jitter", c.Jitter}, {"skew", c.Skew}} {
			if kv.v != nil {
				parts = append(parts, kv.k+": "+strconv.Itoa(*kv.v))
			}
		}
		if c.Seed != nil {
			parts = append(parts, "seed: "+strconv.FormatUint(*c.Seed, 10))
		}
		b.WriteString("\n  - {" + strings.Join(parts, ", ") + "}")
	}
	return b.String()
}
