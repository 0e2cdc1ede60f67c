package hw

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func newFlags(t testing.TB) (*flag.FlagSet, *Flags) {
	fs := flag.NewFlagSet("hxbar", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("config", "", "system file") // a flag of the CLI that is not ours
	return fs, BindFlags(fs)
}

func TestBindFlagsRegistersEveryKey(t *testing.T) {
	fs, _ := newFlags(t)
	for _, k := range keys {
		if k.flag == "" { // file only (episodes)
			continue
		}
		fl := fs.Lookup(k.flag)
		if fl == nil {
			t.Errorf("no flag --%s for key %s", k.flag, k.key)
			continue
		}
		if !strings.Contains(fl.Usage, "key "+k.key) {
			t.Errorf("usage of --%s does not name key %s: %q", k.flag, k.key, fl.Usage)
		}
	}
	if d := fs.Lookup("dims").DefValue; d != "4,4" {
		t.Errorf("--dims shows default %q, want 4,4", d)
	}
}

// TestApplyOnlyGivenFlags: flags the user did not give must not override the
// configuration with their built-in defaults.
func TestApplyOnlyGivenFlags(t *testing.T) {
	base := Default()
	base.Name = "from-config"
	base.Skew = 7
	base.Seed = 99
	base.Dims = []int{8, 8}
	base.Ranks = 32
	base.Duplex = "half"

	fs, f := newFlags(t)
	if err := fs.Parse([]string{"--config", "x.yaml", "--op", "sum", "--link-latency", "3", "--seed=5"}); err != nil {
		t.Fatal(err)
	}
	got := base
	if err := f.Apply(&got); err != nil {
		t.Fatal(err)
	}
	want := base
	want.Op, want.LinkLatency, want.Seed = "sum", 3, 5
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Apply =\n %+v, want\n %+v", got, want)
	}

	// No flags: nothing changes.
	fs, f = newFlags(t)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	got = base
	if err := f.Apply(&got); err != nil || !reflect.DeepEqual(got, base) {
		t.Fatalf("Apply with no flags changed the system: %+v, %v", got, err)
	}
}

func TestApplyEveryFlag(t *testing.T) {
	fs, f := newFlags(t)
	args := []string{
		"--name", "cli", "--topology", "hyperxbar", "--dims", "4, 8", "--ranks", "3",
		"--placement", "31,0,7", "--algo", "dissemination", "--op", "min", "--seed", "18446744073709551615",
		"--skew", "0", "--link-latency", "64", "--buffer-depth", "1", "--flit-width", "128",
		"--duplex", "half", "--max-cycles", "1099511627776", "--crc-bits", "0", "--watchdog", "500",
		"--fault", "stuck:2", "--fault", "drop:n0.d0.up@5", "--avoid", "n1.d1.up, n2.d0.down",
		"--iterations", "7", "--compute", "3", "--jitter", "2",
	}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	got := Default()
	if err := f.Apply(&got); err != nil {
		t.Fatal(err)
	}
	want := System{Name: "cli", Topology: "hyperxbar", Dims: []int{4, 8}, Ranks: 3, Placement: []int{31, 0, 7},
		Algo: "dissemination", Op: "min", Seed: 1<<64 - 1, Skew: 0, LinkLatency: 64, BufferDepth: 1,
		FlitWidth: 128, Duplex: "half", MaxCycles: 1 << 40, Collective: "barrier", ItemFlits: 4, Repeat: 1,
		Iterations: 7, Compute: 3, Jitter: 2, Watchdog: 500, Channels: 1, Faults: []string{"stuck:2", "drop:n0.d0.up@5"}, Avoid: []string{"n1.d1.up", "n2.d0.down"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Apply =\n %+v, want\n %+v", got, want)
	}
}

func TestApplyRanksRule(t *testing.T) {
	withPlacement := Default()
	withPlacement.Ranks = 4
	withPlacement.Placement = []int{0, 5, 10, 15}
	cases := []struct {
		name  string
		base  System
		args  []string
		ranks int
		place []int
	}{
		{"dims alone: every node", Default(), []string{"--dims", "8,8"}, 0, nil},
		{"dims and ranks", Default(), []string{"--dims", "8,8", "--ranks", "10"}, 10, nil},
		{"placement alone: one rank per entry", Default(), []string{"--placement", "3,2,1"}, 3, []int{3, 2, 1}},
		{"dims keeps the configured placement", withPlacement, []string{"--dims", "8,8"}, 4, []int{0, 5, 10, 15}},
		{"empty placement clears it", withPlacement, []string{"--placement", ""}, 0, nil},
		{"ranks alone", Default(), []string{"--ranks", "5"}, 5, nil},
		{"other flags keep ranks", withPlacement, []string{"--skew", "3"}, 4, []int{0, 5, 10, 15}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, f := newFlags(t)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			s := c.base
			if err := f.Apply(&s); err != nil {
				t.Fatal(err)
			}
			if s.Ranks != c.ranks || !reflect.DeepEqual(s.Placement, c.place) {
				t.Fatalf("ranks %d placement %v, want %d %v", s.Ranks, s.Placement, c.ranks, c.place)
			}
		})
	}
}

func TestFlagErrors(t *testing.T) {
	// Values the flag package itself rejects: its message names the flag.
	for _, args := range [][]string{
		{"--dims", "4,x"}, {"--dims", "4,,4"}, {"--placement", "1,2,a"}, {"--ranks", "many"},
		{"--seed", "-1"}, {"--skew", "1.5"}, {"--max-cycles", "99999999999999999999"},
	} {
		fs, _ := newFlags(t)
		err := fs.Parse(args)
		if err == nil || !strings.Contains(err.Error(), "-"+strings.TrimLeft(args[0], "-")) {
			t.Errorf("Parse(%v) = %v, want an error naming %s", args, err, args[0])
		}
	}

	withPlacement := Default()
	withPlacement.Ranks = 4
	withPlacement.Placement = []int{0, 5, 10, 15}
	// Values that parse but make an invalid system: Apply names the flag.
	cases := []struct {
		base  System
		args  []string
		flag  string
		field string
	}{
		{Default(), []string{"--dims", "4,65"}, "dims", "dims[1]"},
		{Default(), []string{"--dims", "4,4,4,4,4,4,4"}, "dims", "dims"},
		{Default(), []string{"--wrap", "1,0"}, "wrap", "wrap"}, // a hyper-crossbar has no wrap
		{Default(), []string{"--topology", "torus", "--wrap", "1,0,1"}, "wrap", "wrap"},
		{Default(), []string{"--ranks", "17"}, "ranks", "ranks"},
		{Default(), []string{"--placement", "0,0"}, "placement", "placement[1]"},
		{Default(), []string{"--placement", "0,16"}, "placement", "placement[1]"},
		{Default(), []string{"--algo", "ring"}, "algo", "algo"},
		{Default(), []string{"--op", "mul"}, "op", "op"},
		{Default(), []string{"--algo", "dissemination", "--op", "xor"}, "op", "op"},
		{Default(), []string{"--skew", "-1"}, "skew", "skew"},
		{Default(), []string{"--link-latency", "0"}, "link-latency", "link_latency"},
		{Default(), []string{"--buffer-depth", "100"}, "buffer-depth", "buffer_depth"},
		{Default(), []string{"--flit-width", "8"}, "flit-width", "flit_width"},
		{Default(), []string{"--duplex", "simplex"}, "duplex", "duplex"},
		{Default(), []string{"--max-cycles", "0"}, "max-cycles", "max_cycles"},
		{Default(), []string{"--topology", "mesh"}, "topology", "topology"},
		{Default(), []string{"--collective", "allgather", "--items", "3", "--order", "OX"}, "order", "order"},
		{Default(), []string{"--item-flits", "0"}, "item-flits", "item_flits"},
		{Default(), []string{"--name", "a b"}, "name", "name"},
		{Default(), []string{"--ranks", "2", "--placement", "1,2,3"}, "placement", "placement"},
		// ranks derived from a too-long placement: blamed on --placement.
		{Default(), []string{"--placement", "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"}, "placement", "ranks"},
		// --dims shrinks the network under the configured placement's ranks.
		{withPlacement, []string{"--dims", "3"}, "dims", "ranks"},
	}
	for _, c := range cases {
		fs, f := newFlags(t)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		s := c.base
		before := c.base
		err := f.Apply(&s)
		flagErr, ok := errors.AsType[*FlagError](err)
		if !ok || flagErr.Flag != c.flag {
			t.Errorf("Apply(%v) = %v, want a *FlagError for --%s", c.args, err, c.flag)
			continue
		}
		if fe, ok := errors.AsType[*FieldError](err); !ok || fe.Field != c.field {
			t.Errorf("Apply(%v) = %v, want field %s", c.args, err, c.field)
		}
		if !strings.HasPrefix(err.Error(), "flag --"+c.flag+": invalid ") {
			t.Errorf("Apply(%v) message %q does not start with the flag", c.args, err)
		}
		if !reflect.DeepEqual(s, before) {
			t.Errorf("Apply(%v) changed the system although it failed", c.args)
		}
	}

	// A configured value made invalid by another flag: no flag is blamed,
	// but the message says which flags were given.
	fs, f := newFlags(t)
	if err := fs.Parse([]string{"--dims", "2,2"}); err != nil {
		t.Fatal(err)
	}
	s := Default()
	s.Ranks = 2
	s.Placement = []int{0, 9}
	err := f.Apply(&s)
	if _, isFlag := errors.AsType[*FlagError](err); err == nil || isFlag || !strings.Contains(err.Error(), "flags given: --dims") {
		t.Fatalf("Apply = %v, want an unattributed error listing --dims", err)
	}
}

// TestApplyDoesNotAlias: the result must not share slices with the flags.
func TestApplyDoesNotAlias(t *testing.T) {
	fs, f := newFlags(t)
	if err := fs.Parse([]string{"--dims", "8,8", "--placement", "1,2"}); err != nil {
		t.Fatal(err)
	}
	a, b := Default(), Default()
	if err := f.Apply(&a); err != nil {
		t.Fatal(err)
	}
	a.Dims[0], a.Placement[0] = 2, 9
	if err := f.Apply(&b); err != nil {
		t.Fatal(err)
	}
	if b.Dims[0] != 8 || b.Placement[0] != 1 {
		t.Fatalf("second Apply sees the first result's edits: %+v", b)
	}
}

// TestFlagsRoundTrip: giving every field of a random valid system as flags
// reproduces it, whatever the base system was.
func TestFlagsRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		if err := flagsRoundTrip(genSystem(rt)); err != nil {
			rt.Fatal(err)
		}
	})
}

// flagsRoundTrip checks that every field of s given as a flag reaches the
// system Apply fills.
func flagsRoundTrip(s System) error {
	join := func(v []int) string {
		p := make([]string, len(v))
		for i, x := range v {
			p[i] = strconv.Itoa(x)
		}
		return strings.Join(p, ",")
	}
	args := []string{
		"--name=" + s.Name, "--topology=" + string(s.Topology), "--dims=" + join(s.Dims),
		"--ranks=" + strconv.Itoa(s.Ranks), "--placement=" + join(s.Placement),
		"--algo=" + string(s.Algo), "--op=" + string(s.Op), "--seed=" + strconv.FormatUint(s.Seed, 10),
		"--skew=" + strconv.Itoa(s.Skew), "--link-latency=" + strconv.Itoa(s.LinkLatency),
		"--buffer-depth=" + strconv.Itoa(s.BufferDepth), "--flit-width=" + strconv.Itoa(s.FlitWidth),
		"--duplex=" + string(s.Duplex), "--max-cycles=" + strconv.FormatInt(s.MaxCycles, 10),
		"--collective=" + string(s.Collective), "--items=" + strconv.Itoa(s.Items),
		"--item-flits=" + strconv.Itoa(s.ItemFlits), "--order=" + s.Order,
		"--item-placement=" + join(s.ItemPlace), "--repeat=" + strconv.Itoa(s.Repeat), "--iterations=" + strconv.Itoa(s.IterationCount()), "--compute=" + strconv.Itoa(s.Compute), "--jitter=" + strconv.Itoa(s.Jitter), "--barrier-channels=" + strconv.Itoa(s.ChannelCount()),
		"--crc-bits=" + strconv.Itoa(s.CRCBits), "--watchdog=" + strconv.FormatInt(s.Watchdog, 10),
		"--link-retry=" + strconv.Itoa(s.LinkRetry),
	}
	fs, f := newFlags(nil)
	if err := fs.Parse(args); err != nil {
		return err
	}
	base := Default()
	base.Placement = []int{4, 3, 2, 1, 0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	if err := f.Apply(&base); err != nil {
		return fmt.Errorf("Apply(%v) = %v", args, err)
	}
	if !reflect.DeepEqual(base, s) {
		return fmt.Errorf("flags gave\n %+v, want\n %+v", base, s)
	}
	return nil
}

func TestFlagsLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(path, []byte("dims: [8]\nskew: 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, f := newFlags(t)
	if err := fs.Parse([]string{"--op", "max"}); err != nil {
		t.Fatal(err)
	}
	s, err := f.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Dims, []int{8}) || s.Skew != 9 || s.Op != "max" || s.Ranks != 0 {
		t.Fatalf("Load(config) + flags = %+v", s)
	}
	s, err = f.Load("")
	want := Default()
	want.Op = "max"
	if err != nil || !reflect.DeepEqual(s, want) {
		t.Fatalf("Load(\"\") + flags = %+v, %v", s, err)
	}
	if _, err := f.Load(filepath.Join(dir, "none.yaml")); err == nil {
		t.Fatal("Load of a missing config succeeded")
	}
}

// TestWrapFlag: --wrap takes 1/0 and true/false spellings, and an empty
// value clears the file's list.
func TestWrapFlag(t *testing.T) {
	for _, c := range []struct {
		arg  string
		want []bool
	}{
		{"1,1,1,0,1,0", []bool{true, true, true, false, true, false}},
		{"true, true,true,false,TRUE,f", []bool{true, true, true, false, true, false}},
		{"", nil},
	} {
		fs, f := newFlags(t)
		if err := fs.Parse([]string{"--topology", "torus", "--dims", "24,23,24,2,3,2", "--wrap", c.arg}); err != nil {
			t.Fatal(err)
		}
		s := Default()
		s.Wrap = []bool{false, false}
		if err := f.Apply(&s); err != nil || !slices.Equal(s.Wrap, c.want) {
			t.Errorf("--wrap %q: %v, %v", c.arg, s.Wrap, err)
		}
	}
	fs, _ := newFlags(t)
	if err := fs.Parse([]string{"--wrap", "1,x"}); err == nil || !strings.Contains(err.Error(), `entry 1, "x", is not a boolean`) {
		t.Errorf("--wrap 1,x: %v", err)
	}
}

// TestFlagFieldIsTheKeys: the field a key's flag sets (keySpec.field) is
// the System field whose yaml tag is the key, so the descriptor table
// cannot bind a flag to another key's field.
func TestFlagFieldIsTheKeys(t *testing.T) {
	var s System
	base := reflect.ValueOf(&s).Elem()
	for _, k := range keys {
		if k.flag == "" {
			if k.field != nil {
				t.Errorf("key %s has a field but no flag", k.key)
			}
			continue
		}
		if k.field == nil || (k.help == "") == (k.usage == "") {
			t.Errorf("key %s: flag --%s needs a field and exactly one of help, usage", k.key, k.flag)
			continue
		}
		addr := reflect.ValueOf(k.field(&s)).Pointer()
		found := ""
		for i := range base.NumField() {
			if base.Field(i).Addr().Pointer() == addr {
				found, _, _ = strings.Cut(base.Type().Field(i).Tag.Get("yaml"), ",")
			}
		}
		if found != k.key {
			t.Errorf("flag --%s sets the field of key %q, want %q", k.flag, found, k.key)
		}
	}
}

// One rule for Ranks: 0 is every node, in the struct, the file and the
// flags alike. hw.Default() with new Dims, a file with dims and no ranks,
// and --dims without --ranks are the same system: 64 ranks on 8x8.
func TestRanksZeroIsEveryNode(t *testing.T) {
	lib := Default()
	lib.Dims = []int{8, 8}
	if err := lib.Validate(); err != nil {
		t.Fatal(err)
	}
	file, err := Parse([]byte("dims: [8, 8]\n"))
	if err != nil {
		t.Fatal(err)
	}
	fs, f := newFlags(t)
	if err := fs.Parse([]string{"--dims", "8,8"}); err != nil {
		t.Fatal(err)
	}
	cli := Default()
	if err := f.Apply(&cli); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]System{"struct": lib, "file": file, "flags": cli} {
		if s.Ranks != 0 || s.NumRanks() != 64 || s.RankNode(63) != 63 {
			t.Errorf("%s: ranks %d, NumRanks %d, want 0 and 64 (every node)", name, s.Ranks, s.NumRanks())
		}
		if !reflect.DeepEqual(s, lib) {
			t.Errorf("%s reads as %+v, the struct as %+v", name, s, lib)
		}
	}
	// Ranks past the nodes is refused by name, not cut to the nodes.
	lib.Ranks = 65
	if err := lib.Validate(); err == nil || !strings.Contains(err.Error(), "invalid ranks: 65") {
		t.Errorf("ranks 65 on 64 nodes: %v", err)
	}
}
