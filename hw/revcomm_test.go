package hw

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestCommNamesCollideAfterSplit: an entry named like a split's member
// ("rows.0" beside split "rows", in either order) is refused naming the
// later entry's name: two communicators of one name are two rows of the
// results nobody can tell apart.
func TestCommNamesCollideAfterSplit(t *testing.T) {
	for _, tc := range []struct {
		s     System
		field string
	}{
		{commSys(Communicator{Name: "rows", Split: "dim:0"}, Communicator{Name: "rows.0", Ranks: []int{0, 1}}), "communicators[1].name"},
		{commSys(Communicator{Name: "rows.3", Ranks: []int{12}}, Communicator{Name: "rows", Split: "dim:0"}), "communicators[1].name"},
	} {
		err := tc.s.Validate()
		fe, ok := err.(*FieldError)
		if !ok || fe.Field != tc.field || !strings.Contains(err.Error(), "communicators[0] makes") {
			t.Errorf("%+v: %v, want %s naming communicators[0]", tc.s.Communicators, err, tc.field)
		}
	}
	ok := commSys(Communicator{Name: "rows", Split: "dim:0"}, Communicator{Name: "rows.4", Ranks: []int{0, 1}})
	if err := ok.Validate(); err != nil {
		t.Errorf("rows.4 beside a 4-way split rows: %v", err)
	}
}

// TestCommErrorsOnTheirLine: a validation error inside a communicators
// entry is placed on the entry's key, not said to be "not set in the
// file".
func TestCommErrorsOnTheirLine(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"dims: [4, 4]\ncommunicators:\n  - {name: a, ranks: [1]}\n  - {name: b, ranks: [16]}\n", "line 4"},
		{"dims: [4, 4]\ncommunicators:\n  - {name: a, ranks: [1]}\n  - name: b\n    split: \"dim:7\"\n", "line 5"},
		{"dims: [4, 4]\ncommunicators:\n  - {name: a, ranks: [1], iterations: 2000000}\n", "line 3"},
	} {
		_, err := Parse([]byte(tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "not set in the file") {
			t.Errorf("%q: %v, want it on %s", tc.file, err, tc.want)
		}
	}
}

// TestChannelsFlagZero: --barrier-channels 0 is refused as channels: 0 in a file
// is (0 is only a Go literal's "unset").
func TestChannelsFlagZero(t *testing.T) {
	fs, f := newFlags(t)
	if err := fs.Parse([]string{"--barrier-channels", "0"}); err != nil {
		t.Fatal(err)
	}
	s := Default()
	err := f.Apply(&s)
	if err == nil || !strings.Contains(err.Error(), "--barrier-channels") || !strings.Contains(err.Error(), "1..8") {
		t.Fatalf("--barrier-channels 0: %v, want a flag error naming 1..8", err)
	}
}

// TestBindFlagsKeepsCommandFlag: a command's own flag of a key's flag
// name (a command defining --barrier-channels itself) is not bound again (flag panics on a
// redefinition) and, given, does not set the key.
func TestBindFlagsKeepsCommandFlag(t *testing.T) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	list := fs.Bool("barrier-channels", false, "a command's own flag")
	f := BindFlags(fs)
	if err := fs.Parse([]string{"--barrier-channels", "--dims", "8"}); err != nil {
		t.Fatal(err)
	}
	s := Default()
	s.Channels = 2
	if err := f.Apply(&s); err != nil || !*list || s.Channels != 2 || s.NumRanks() != 8 {
		t.Fatalf("apply: %v, --barrier-channels %v, channels %d, ranks %d; want nil, true, 2 (the file's), 8", err, *list, s.Channels, s.NumRanks())
	}
}
