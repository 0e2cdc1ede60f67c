package hw

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Flags are the command-line flags that override the fields of a System,
// one per key of the system file (--dims for dims, --link-latency for
// link_latency, ...). Register them with BindFlags before the flag set is
// parsed; afterwards Apply copies only the flags the user actually gave onto
// a System, typically one read with Load from a --config file, so a flag's
// built-in default never overrides the file.
type Flags struct {
	fs  *flag.FlagSet
	val System // the flags' values; fields of flags not given keep Default()'s
}

// BindFlags registers the System flags on fs (see Flags). The defaults shown
// in the help are Default()'s.
func BindFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{fs: fs, val: Default()}
	v := &f.val
	u := func(key, text string) string {
		spec := specOf(key)
		return fmt.Sprintf("%s; allowed: %s (key %s)", text, spec.allowed, key)
	}
	fs.StringVar(&v.Name, "name", v.Name, u("name", "label for reports and generated files"))
	fs.StringVar((*string)(&v.Topology), "topology", string(v.Topology), u("topology", "network topology"))
	fs.Var((*intList)(&v.Dims), "dims", fmt.Sprintf("comma-separated dimension sizes, e.g. 4,4; allowed: %d to %d sizes, each %d..%d (key dims)", MinDims, MaxDims, MinDimSize, MaxDimSize))
	fs.Var((*boolList)(&v.Wrap), "wrap", "comma-separated wrap flag per torus dimension, each 1/0 or true/false, e.g. 1,1,1,0,1,0; empty: every dimension wraps; torus only (key wrap)")
	fs.IntVar(&v.Ranks, "ranks", v.Ranks, "ranks taking part, 0..nodes, 0 = every node; when --dims or --placement is given without --ranks: the number of placement entries (key ranks)")
	fs.Var((*intList)(&v.Placement), "placement", "comma-separated node of each rank, e.g. 0,5,10,15, distinct, one per rank; empty: rank r on node r (key placement)")
	fs.StringVar((*string)(&v.Algo), "algo", string(v.Algo), u("algo", "gate schedule"))
	fs.StringVar((*string)(&v.Op), "op", string(v.Op), u("op", "reduction carried by the barrier"))
	fs.StringVar((*string)(&v.Collective), "collective", string(v.Collective), u("collective", "what the units run"))
	fs.IntVar(&v.Items, "items", v.Items, u("items", "items of a data collective"))
	fs.IntVar(&v.ItemFlits, "item-flits", v.ItemFlits, u("item_flits", "payload flits per item"))
	fs.StringVar(&v.Order, "order", v.Order, u("order", "one-sided/mutual step order of an all-gather"))
	fs.Var((*intList)(&v.ItemPlace), "item-placement", "comma-separated rank each item starts on, distinct; empty: the seed's placement (key item_placement)")
	fs.Uint64Var(&v.Seed, "seed", v.Seed, u("seed", "seed of arrival cycles and operands"))
	fs.IntVar(&v.Skew, "skew", v.Skew, u("skew", "arrival cycles are drawn from 0..skew"))
	fs.IntVar(&v.LinkLatency, "link-latency", v.LinkLatency, u("link_latency", "cycles per network channel"))
	fs.IntVar(&v.BufferDepth, "buffer-depth", v.BufferDepth, u("buffer_depth", "flits per switch input FIFO"))
	fs.IntVar(&v.FlitWidth, "flit-width", v.FlitWidth, u("flit_width", "data bits per flit"))
	fs.StringVar((*string)(&v.Duplex), "duplex", string(v.Duplex), u("duplex", "link duplex mode"))
	fs.Int64Var(&v.MaxCycles, "max-cycles", v.MaxCycles, u("max_cycles", "stop with an error after this many cycles"))
	fs.IntVar(&v.Repeat, "repeat", v.Repeat, u("repeat", "run the collective (or the file's episodes list) this many times back to back"))
	fs.IntVar(&v.CRCBits, "crc-bits", v.CRCBits, u("crc_bits", "check code bits per packet"))
	fs.Int64Var(&v.Watchdog, "watchdog", v.Watchdog, u("watchdog", "cycles without progress before a waiting unit raises TIMEOUT"))
	fs.IntVar(&v.LinkRetry, "link-retry", v.LinkRetry, u("link_retry", "replay buffer of link-level retry in flits, 0: none"))
	fs.Var((*commaList)(&v.Avoid), "avoid", "comma-separated channels the routing keeps off, e.g. n0.d1.up,n5.d0.down (key avoid)")
	fs.Var((*stringList)(&v.Faults), "fault", "inject a fault, repeatable: "+FaultAllowed+" (key faults)")
	return f
}

// given returns the keys whose flags were set on the command line, and the
// flags in the order the flag package visits them.
func (f *Flags) given() (map[string]bool, []string) {
	set := map[string]bool{}
	var names []string
	f.fs.Visit(func(fl *flag.Flag) {
		for _, k := range keys {
			if k.flag == fl.Name {
				set[k.key] = true
				names = append(names, "--"+fl.Name)
			}
		}
	})
	return set, names
}

// Apply copies onto dst the flags that were given on the command line (and
// only those), then validates the result. When --dims or --placement is
// given without --ranks, ranks becomes the number of placement entries (0,
// every node, when there is no placement), the same rule as in a file. On
// error dst is unchanged and the error names the flag responsible (a
// *FlagError), or says that the field came from dst.
func (f *Flags) Apply(dst *System) error {
	s := *dst
	s.Dims = slices.Clone(s.Dims)
	s.Wrap = slices.Clone(s.Wrap)
	s.Placement = slices.Clone(s.Placement)
	s.ItemPlace = slices.Clone(s.ItemPlace)
	s.Episodes = slices.Clone(s.Episodes)
	s.Faults = slices.Clone(s.Faults)
	s.Avoid = slices.Clone(s.Avoid)
	set, names := f.given()
	v := &f.val
	for key := range set {
		switch key {
		case "name":
			s.Name = v.Name
		case "topology":
			s.Topology = v.Topology
		case "dims":
			s.Dims = slices.Clone(v.Dims)
		case "wrap":
			s.Wrap = slices.Clone(v.Wrap)
		case "ranks":
			s.Ranks = v.Ranks
		case "placement":
			s.Placement = slices.Clone(v.Placement)
		case "algo":
			s.Algo = v.Algo
		case "op":
			s.Op = v.Op
		case "seed":
			s.Seed = v.Seed
		case "skew":
			s.Skew = v.Skew
		case "link_latency":
			s.LinkLatency = v.LinkLatency
		case "buffer_depth":
			s.BufferDepth = v.BufferDepth
		case "flit_width":
			s.FlitWidth = v.FlitWidth
		case "duplex":
			s.Duplex = v.Duplex
		case "max_cycles":
			s.MaxCycles = v.MaxCycles
		case "collective":
			s.Collective = v.Collective
		case "items":
			s.Items = v.Items
		case "item_flits":
			s.ItemFlits = v.ItemFlits
		case "order":
			s.Order = v.Order
		case "item_placement":
			s.ItemPlace = slices.Clone(v.ItemPlace)
		case "faults":
			s.Faults = slices.Clone(v.Faults)
		case "avoid":
			s.Avoid = slices.Clone(v.Avoid)
		case "crc_bits":
			s.CRCBits = v.CRCBits
		case "watchdog":
			s.Watchdog = v.Watchdog
		case "link_retry":
			s.LinkRetry = v.LinkRetry
		case "repeat":
			if v.Repeat < 1 { // Validate reads 0 as 1 (a Go literal); a flag says 1
				return &FlagError{Flag: "repeat", Err: outOfRange("repeat", v.Repeat, 1, MaxEpisodes)}
			}
			s.Repeat = v.Repeat
		}
	}
	if len(s.Placement) == 0 {
		s.Placement = nil
	}
	if len(s.ItemPlace) == 0 {
		s.ItemPlace = nil
	}
	if len(s.Wrap) == 0 {
		s.Wrap = nil
	}
	derived := !set["ranks"] && (set["dims"] || set["placement"])
	if derived {
		s.Ranks = len(s.Placement)
	}
	if err := s.Validate(); err != nil {
		fe, ok := errors.AsType[*FieldError](err)
		if !ok {
			return err
		}
		key, _ := splitField(fe.Field)
		switch {
		case set[key]:
			return &FlagError{Flag: specOf(key).flag, Err: err}
		case key == "ranks" && derived:
			fl := "dims"
			if set["placement"] {
				fl = "placement"
			}
			return &FlagError{Flag: fl, Err: fmt.Errorf("%w (--ranks not given, so ranks is the number of placement entries)", err)}
		case len(names) > 0:
			return fmt.Errorf("%w (%s comes from the configuration, not a flag; flags given: %s)", err, key, strings.Join(names, " "))
		}
		return err
	}
	*dst = s
	return nil
}

// Load returns the system of the command line: the file at configPath (or
// Default() when configPath is empty) with the given flags applied.
func (f *Flags) Load(configPath string) (System, error) {
	s := Default()
	if configPath != "" {
		var err error
		if s, err = Load(configPath); err != nil {
			return System{}, err
		}
	}
	if err := f.Apply(&s); err != nil {
		return System{}, err
	}
	return s, nil
}

// FlagError is an invalid System caused by the value of a command-line flag.
type FlagError struct {
	Flag string // without dashes, e.g. "link-latency"
	Err  error
}

func (e *FlagError) Error() string { return "flag --" + e.Flag + ": " + e.Err.Error() }

func (e *FlagError) Unwrap() error { return e.Err }

// intList is a flag.Value for a comma-separated list of integers; an empty
// value is the empty list.
type intList []int

func (l *intList) String() string {
	if l == nil {
		return ""
	}
	parts := make([]string, len(*l))
	for i, v := range *l {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",")
}

func (l *intList) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "" {
		*l = nil
		return nil
	}
	parts := strings.Split(v, ",")
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return fmt.Errorf("entry %d, %s, is not an integer (want comma-separated integers, e.g. 4,4)", i, showString(strings.TrimSpace(p)))
		}
		out[i] = n
	}
	*l = out
	return nil
}

// boolList is a flag.Value for a comma-separated list of booleans, each
// 1/0, t/f or true/false (any case, as strconv.ParseBool reads them); an
// empty value is the empty list.
type boolList []bool

func (l *boolList) String() string {
	if l == nil {
		return ""
	}
	parts := make([]string, len(*l))
	for i, v := range *l {
		parts[i] = strconv.FormatBool(v)
	}
	return strings.Join(parts, ",")
}

func (l *boolList) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "" {
		*l = nil
		return nil
	}
	parts := strings.Split(v, ",")
	out := make([]bool, len(parts))
	for i, p := range parts {
		b, err := strconv.ParseBool(strings.TrimSpace(p))
		if err != nil {
			return fmt.Errorf("entry %d, %s, is not a boolean (want comma-separated 1/0 or true/false, e.g. 1,1,0)", i, showString(strings.TrimSpace(p)))
		}
		out[i] = b
	}
	*l = out
	return nil
}
