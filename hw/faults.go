package hw

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Fault kinds of a fault spec (docs/reliability.md, "Injection").
const (
	FaultFlip  = "flip"  // flip:CHANNEL@CYCLE:BIT  one bit of the flit crossing CHANNEL in CYCLE inverted
	FaultDrop  = "drop"  // drop:CHANNEL@CYCLE      the flit crossing CHANNEL in CYCLE lost
	FaultDead  = "dead"  // dead:CHANNEL@CYCLE      CHANNEL carries nothing from CYCLE on
	FaultStuck = "stuck" // stuck:RANK              the rank never arrives
	// Reverse-path faults (docs/reliability.md, "Link-level retry").
	FaultAckFlip    = "ackflip"    // ackflip:CHANNEL@CYCLE    the ACK word CHANNEL's receiving link sends in CYCLE damaged (link_retry > 0)
	FaultCreditDrop = "creditdrop" // creditdrop:CHANNEL@CYCLE the credit CHANNEL's downstream returns in CYCLE lost
)

// FaultKinds lists the fault kinds in documentation order.
var FaultKinds = []string{FaultFlip, FaultDrop, FaultDead, FaultStuck, FaultAckFlip, FaultCreditDrop}

// FaultAllowed describes a fault spec, for messages.
const FaultAllowed = "flip:CHANNEL@CYCLE:BIT, drop:CHANNEL@CYCLE, dead:CHANNEL@CYCLE, stuck:RANK, ackflip:CHANNEL@CYCLE (with link_retry) or creditdrop:CHANNEL@CYCLE; CHANNEL as hxbar check --channels lists it; CYCLE a number, or first: the first flit (ACK word, credit) that crosses"

// AtFirst is the CYCLE of a fault spec that aims at the first flit (ACK
// word, credit) the channel carries: the model fixes the cycle when it
// happens (docs/reliability.md, "Fault model and injection").
const AtFirst = "first"

// cycleAllowed describes a fault's CYCLE, for messages.
const cycleAllowed = "a number 0..max_cycles-1, or first (the first flit that crosses the channel)"

// CRCAllowed describes crc_bits, for messages.
const CRCAllowed = "0 (no check code) or 32 (CRC-32C in sideband bits of the tail flit)"

// AvoidAllowed describes the avoid key, for messages.
const AvoidAllowed = "a list of channel names as hxbar check --channels lists them, or []"

// Fault is one parsed fault spec. The channel is a name: which channel it
// is depends on the network (noc.ChannelIndex resolves it).
type Fault struct {
	Kind    string
	Channel string // flip, drop, dead
	Cycle   int64  // flip, drop, dead, ackflip, creditdrop (0 with First)
	// First: the spec says @first, the first flit (ACK word, credit) the
	// channel carries; the model resolves the cycle (Cycle is 0).
	First bool
	Bit   int // flip: bit of the flit on the wire (Wire): data, check code, tail, head
	Rank  int // stuck
}

// String is the spec the fault was parsed from (canonical form).
func (f Fault) String() string {
	at := strconv.FormatInt(f.Cycle, 10)
	if f.First {
		at = AtFirst
	}
	switch f.Kind {
	case FaultFlip:
		return fmt.Sprintf("flip:%s@%s:%d", f.Channel, at, f.Bit)
	case FaultStuck:
		return fmt.Sprintf("stuck:%d", f.Rank)
	}
	return fmt.Sprintf("%s:%s@%s", f.Kind, f.Channel, at)
}

// At returns f aimed at cycle c (a resolved @first).
func (f Fault) At(c int64) Fault {
	f.Cycle, f.First = c, false
	return f
}

// ParseFault parses a fault spec. Ranges that depend on the system (the
// bit against flit_width, the rank against ranks, the channel against the
// network) are checked by System.Validate and the model.
func ParseFault(spec string) (Fault, error) {
	bad := func(why string) (Fault, error) {
		return Fault{}, &faultSyntaxError{spec: spec, why: why}
	}
	kind, rest, ok := strings.Cut(strings.TrimSpace(spec), ":")
	if !ok {
		return bad("no kind")
	}
	f := Fault{Kind: kind}
	switch kind {
	case FaultStuck:
		r, ok := decimal(rest, 1<<40)
		if !ok {
			return bad(fmt.Sprintf("the rank %s %s (0..ranks-1)", showString(rest), notNumber(rest)))
		}
		f.Rank = int(r)
		return f, nil
	case FaultFlip, FaultDrop, FaultDead, FaultAckFlip, FaultCreditDrop:
	default:
		return bad(fmt.Sprintf("unknown kind %s", showString(kind)))
	}
	ch, at, ok := strings.Cut(rest, "@")
	if !ok || ch == "" {
		return bad("no CHANNEL@CYCLE")
	}
	f.Channel = ch
	if kind == FaultFlip {
		var bit string
		if at, bit, ok = strings.Cut(at, ":"); !ok {
			return bad("no :BIT")
		}
		b, ok := decimal(bit, 1<<20)
		if !ok {
			return bad(fmt.Sprintf("the bit %s %s (0..flit_width-1 or a sideband bit)", showString(bit), notNumber(bit)))
		}
		f.Bit = int(b)
	}
	if at == AtFirst {
		f.First = true
		return f, nil
	}
	c, ok := decimal(at, MaxMaxCycles)
	if !ok {
		return bad(fmt.Sprintf("the cycle %s is not %s", showString(at), cycleAllowed))
	}
	f.Cycle = c
	return f, nil
}

// faultSyntaxError is a fault spec ParseFault cannot read, with the
// reason it computed (kept by validateFaults in the field's message).
type faultSyntaxError struct{ spec, why string }

func (e *faultSyntaxError) Error() string {
	return fmt.Sprintf("%s: %s (want %s)", showString(e.spec), e.why, FaultAllowed)
}

// decimal parses s as digits only (no sign, no space) below limit.
// notNumber says why decimal refused s: too large, or not a number.
func notNumber(s string) string {
	if s != "" && strings.Trim(s, "0123456789") == "" {
		return "is out of range"
	}
	return "is not a number"
}

func decimal(s string, limit int64) (int64, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil && v < limit
}

// ParsedFaults parses s.Faults (Validate has accepted them).
func (s *System) ParsedFaults() []Fault {
	out := make([]Fault, 0, len(s.Faults))
	for _, spec := range s.Faults {
		if f, err := ParseFault(spec); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// validateFaults checks the fault specs against the system: syntax, the
// bit within flit_width, the rank within ranks. Channels are the model's.
func (s *System) validateFaults() error {
	seen := map[string]int{}
	for i, spec := range s.Faults {
		field := fmt.Sprintf("faults[%d]", i)
		f, err := ParseFault(spec)
		if err != nil {
			value := showString(spec)
			var se *faultSyntaxError
			if errors.As(err, &se) {
				value += ", " + se.why // the parser's reason, not only the forms
			}
			return &FieldError{Field: field, Value: value, Allowed: FaultAllowed}
		}
		if j, dup := seen[f.String()]; dup {
			return &FieldError{Field: field, Value: showString(spec), Allowed: fmt.Sprintf("a fault not given before (faults[%d] is the same fault; two equal flips would cancel)", j)}
		}
		seen[f.String()] = i
		switch {
		case f.Kind != FaultStuck && !f.First && f.Cycle >= s.MaxCycles:
			return &FieldError{Field: field, Value: showString(spec), Allowed: fmt.Sprintf("a cycle 0..%d (max_cycles %d)", s.MaxCycles-1, s.MaxCycles)}
		case f.Kind == FaultFlip && f.Bit >= s.Wire().Bits():
			return &FieldError{Field: field, Value: showString(spec), Allowed: s.Wire().BitsAllowed()}
		case f.Kind == FaultFlip && s.Wire().Unmodelled(f.Bit):
			return &FieldError{Field: field, Value: showString(spec), Allowed: s.Wire().BitsAllowed() + "; not yet data bits 64.." + strconv.Itoa(s.FlitWidth-1) + ", which the model does not carry"}
		case f.Kind == FaultAckFlip && s.LinkRetry == 0:
			return &FieldError{Field: field, Value: showString(spec), Allowed: "an ackflip only with link_retry > 0 (without link-level retry there is no ACK to flip)"}
		case f.Kind == FaultStuck && f.Rank >= s.NumRanks():
			return &FieldError{Field: field, Value: showString(spec), Allowed: fmt.Sprintf("a rank 0..%d", s.NumRanks()-1)}
		case f.Kind == FaultStuck && s.HasCommunicators() && !s.inSomeComm(f.Rank):
			return &FieldError{Field: field, Value: showString(spec),
				Allowed: fmt.Sprintf("a rank of a communicator (rank %d is in none: nothing waits for it, so it would change nothing)", f.Rank)}
		}
	}
	return nil
}

func decodeStringList(n *yaml.Node, field, allowed string) ([]string, error) {
	r := resolve(n)
	if r == nil || r.Kind != yaml.SequenceNode {
		return nil, typeError(n, field, allowed)
	}
	out := make([]string, len(r.Content))
	for i, e := range r.Content {
		v, err := decodeString(e, fmt.Sprintf("%s[%d]", field, i), allowed)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func writeStrings(v []string) string {
	if len(v) == 0 {
		return "[]"
	}
	var b strings.Builder
	for _, s := range v {
		b.WriteString("\n  - ")
		b.WriteString(strconv.Quote(s))
	}
	return b.String()
}

// stringList is a repeatable flag.Value: each use appends one entry; an
// empty value, allowed only before any other, clears the configuration
// file's list.
type stringList []string

func (l *stringList) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, " ")
}

func (l *stringList) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		if len(*l) > 0 {
			return fmt.Errorf("empty after %s: an empty value clears the configuration file's list and comes before every other", showString((*l)[len(*l)-1]))
		}
		*l = nil
		return nil
	}
	*l = append(*l, v)
	return nil
}

// commaList is a flag.Value for a comma-separated list of names.
type commaList []string

func (l *commaList) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, ",")
}

func (l *commaList) Set(v string) error {
	*l = nil
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// inSomeComm reports whether system rank r is in a communicator of the
// list (true when the list does not expand: its own error comes first).
func (s *System) inSomeComm(r int) bool {
	cs, err := s.Comms()
	if err != nil {
		return true
	}
	for _, c := range cs {
		if slices.Contains(c.Ranks, r) {
			return true
		}
	}
	return false
}
