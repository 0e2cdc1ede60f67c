package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckOutputs(t *testing.T) {
	d := t.TempDir()
	t.Chdir(d)
	os.WriteFile("in.yaml", []byte("dims: [2, 2]\n"), 0o644)
	os.WriteFile("old.trace", nil, 0o644)
	os.Symlink("in.yaml", "link.yaml")
	os.Link("old.trace", "hard.trace")
	os.Symlink(".", "here")
	for _, c := range []struct {
		name    string
		in, out map[string]string
		want    string // "" for no error
	}{
		{"distinct", map[string]string{"config": "in.yaml"}, map[string]string{"trace": "a", "vcd": "b"}, ""},
		{"flags not given", map[string]string{"config": "", "schedule": ""}, map[string]string{"trace": "", "vcd": ""}, ""},
		{"trace is config", map[string]string{"config": "in.yaml"}, map[string]string{"trace": "./in.yaml"}, "--trace ./in.yaml is the input of --config"},
		{"trace is config via a symlink", map[string]string{"config": "in.yaml"}, map[string]string{"trace": "link.yaml"}, "--trace link.yaml is the input of --config"},
		{"absolute and relative", map[string]string{"schedule": filepath.Join(d, "s.json")}, map[string]string{"vcd": "s.json"}, "--vcd s.json is the input of --schedule"},
		{"outputs the same, not yet existing", nil, map[string]string{"trace": "x", "vcd": "sub/../x"}, "--trace and --vcd name the same file sub/../x"},
		{"outputs the same through a symlinked directory", nil, map[string]string{"trace": "new", "vcd": "here/new"}, "--trace and --vcd name the same file here/new"},
		{"outputs hard links", nil, map[string]string{"trace": "old.trace", "vcd": "hard.trace"}, "--trace and --vcd name the same file hard.trace"},
		{"outputs both /dev/null", nil, map[string]string{"trace": "/dev/null", "vcd": "/dev/null"}, ""},
	} {
		err := checkOutputs(c.in, c.out)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		case err != nil:
			if _, ok := err.(usageError); !ok {
				t.Errorf("%s: %T, want a usage error (exit 2)", c.name, err)
			}
		}
	}
}
