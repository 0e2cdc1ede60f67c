package hw

import (
	"errors"
	"flag"
	"fmt"
	"reflect"
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
	fs    *flag.FlagSet
	val   System          // the flags' values; fields of flags not given keep Default()'s
	bound map[string]bool // the flags BindFlags registered
}

// BindFlags registers the System flags on fs (see Flags). The defaults shown
// in the help are Default()'s. A flag fs already has is the command's own:
// that key gets no flag there.
func BindFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{fs: fs, val: Default(), bound: map[string]bool{}}
	v := &f.val
	for _, k := range keys {
		if k.flag == "" || fs.Lookup(k.flag) != nil {
			continue
		}
		f.bound[k.flag] = true
		usage := k.usage
		if usage == "" {
			usage = fmt.Sprintf("%s; allowed: %s (key %s)", k.help, k.allowed, k.key)
		}
		bindField(fs, k.field(v), k.flag, usage)
	}
	return f
}

// given returns the keys whose flags were set on the command line, and the
// flags in the order the flag package visits them.
func (f *Flags) given() (map[string]bool, []string) {
	set := map[string]bool{}
	var names []string
	f.fs.Visit(func(fl *flag.Flag) {
		for _, k := range keys {
			if k.flag == fl.Name && f.bound[fl.Name] {
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
		if key == "repeat" && v.Repeat < 1 { // Validate reads 0 as 1 (a Go literal); a flag says 1
			return &FlagError{Flag: "repeat", Err: outOfRange("repeat", v.Repeat, 1, MaxEpisodes)}
		}
		if key == "iterations" && v.Iterations < 1 {
			return &FlagError{Flag: "iterations", Err: outOfRange("iterations", v.Iterations, 1, MaxIterations)}
		}
		if key == "channels" && v.Channels < 1 { // Validate reads 0 as 1 (a Go literal); a flag says 1, as a file must
			return &FlagError{Flag: specOf("channels").flag, Err: outOfRange("channels", v.Channels, 1, MaxChannels)}
		}
		k := specOf(key)
		copyField(k.field(&s), k.field(v))
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

// bindField registers the flag name on the System field p (keySpec.field),
// its current value as the default. A string type (Topology, OpName, ...)
// is a string flag, a list its own flag.Value.
func bindField(fs *flag.FlagSet, p any, name, usage string) {
	switch p := p.(type) {
	case flag.Value:
		fs.Var(p, name, usage)
	case *int:
		fs.IntVar(p, name, *p, usage)
	case *int64:
		fs.Int64Var(p, name, *p, usage)
	case *uint64:
		fs.Uint64Var(p, name, *p, usage)
	default:
		// A string or a string type: the flag sets it through *string.
		sp := reflect.ValueOf(p).Convert(reflect.TypeFor[*string]()).Interface().(*string)
		fs.StringVar(sp, name, *sp, usage)
	}
}

// copyField sets the field dst points to to src's (both keySpec.field
// pointers of the same key), a list copied.
func copyField(dst, src any) {
	d, sv := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	if sv.Kind() == reflect.Slice && !sv.IsNil() {
		c := reflect.MakeSlice(sv.Type(), sv.Len(), sv.Len())
		reflect.Copy(c, sv)
		d.Set(c)
		return
	}
	d.Set(sv)
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
