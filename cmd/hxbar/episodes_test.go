package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type episodesJSON struct {
	Cycles   int64 `json:"cycles"`
	Complete bool  `json:"complete"`
	Episodes []struct {
		Episode      int    `json:"episode"`
		Collective   string `json:"collective"`
		FirstArrival int64  `json:"first_arrival"`
		LastRelease  int64  `json:"last_release"`
		ConfigCycles int64  `json:"config_cycles"`
	} `json:"episodes"`
	Nodes []struct {
		Release  int64   `json:"release"`
		Releases []int64 `json:"releases"`
	} `json:"nodes"`
}

func TestSimRepeatJSON(t *testing.T) {
	// One episode: the keys of before plus "episodes" and "releases".
	code, one, errs := hx(t, "sim", "--op", "sum", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r1 episodesJSON
	if err := json.Unmarshal([]byte(one), &r1); err != nil {
		t.Fatal(err)
	}
	if len(r1.Episodes) != 1 || r1.Episodes[0].Episode != 1 || r1.Episodes[0].ConfigCycles != 0 ||
		r1.Episodes[0].LastRelease != r1.Cycles-1 || r1.Episodes[0].Collective != "barrier" {
		t.Fatalf("one episode: %+v", r1.Episodes)
	}
	for _, n := range r1.Nodes {
		if !reflect.DeepEqual(n.Releases, []int64{n.Release}) {
			t.Fatalf("node releases %v, release %d", n.Releases, n.Release)
		}
	}
	var keys map[string]json.RawMessage
	json.Unmarshal([]byte(one), &keys)
	for _, k := range []string{"cycles", "ranks", "complete", "released", "nodes", "network", "episodes"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("no key %q", k)
		}
	}

	code, out, errs := hx(t, "sim", "--op", "sum", "--repeat", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r episodesJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Episodes) != 3 || !r.Complete || r.Episodes[0] != r1.Episodes[0] || r.Cycles != r.Episodes[2].LastRelease+1 {
		t.Fatalf("episodes %+v, cycles %d", r.Episodes, r.Cycles)
	}
	for i, e := range r.Episodes[1:] {
		if e.ConfigCycles != 0 || e.FirstArrival <= r.Episodes[i].LastRelease {
			t.Fatalf("episode %+v after %+v", e, r.Episodes[i])
		}
	}
	for _, n := range r.Nodes {
		if len(n.Releases) != 3 || n.Releases[2] != n.Release {
			t.Fatalf("node %+v", n)
		}
	}
}

func TestSimEpisodesFile(t *testing.T) {
	code, out, errs := hx(t, "sim", "--config", "../../examples/episodes-4x4.yaml", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r episodesJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var colls []string
	for _, e := range r.Episodes {
		colls = append(colls, e.Collective)
	}
	if !reflect.DeepEqual(colls, []string{"barrier", "allgather", "barrier"}) || r.Episodes[1].ConfigCycles == 0 || r.Episodes[2].ConfigCycles == 0 {
		t.Fatalf("episodes %+v", r.Episodes)
	}
	code, out, errs = hx(t, "sim", "--config", "../../examples/episodes-4x4.yaml", "--repeat", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "6 episodes of 6 run back to back") || !strings.Contains(out, "CONFIG CYCLES") {
		t.Fatalf("no episode table:\n%s", out)
	}
	// --item-flits applies when an episode is a data collective.
	if code, _, errs := hx(t, "sim", "--config", "../../examples/episodes-4x4.yaml", "--item-flits", "2"); code != 0 {
		t.Fatalf("--item-flits with a data episode: exit %d: %s", code, errs)
	}
}

func TestEpisodesRefused(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("episodes:\n  - {op: sum}\n  - {buffer_depth: 2}\n"), 0o644)
	late := filepath.Join(dir, "late.yaml") // an error the model finds, placed on its line
	os.WriteFile(late, []byte("episodes:\n  - {}\n  - {collective: allgather,\n     algo: dissemination}\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--config", bad}, `bad.yaml: line 3: episodes[1] (episode 2): key "buffer_depth" cannot change between episodes`},
		{[]string{"sim", "--config", late}, `late.yaml: line 4: invalid episodes[1].algo: "dissemination" (allowed: butterfly (near-last) or butterfly-near-first with collective allgather, in episode 2)`},
		{[]string{"sim", "--repeat", "0"}, "flag --repeat: invalid repeat: 0 (allowed: 1..10000)"},
		{[]string{"sim", "--repeat", "10001"}, "invalid repeat: 10001"},
		{[]string{"traffic", "--repeat", "2"}, "--repeat does not apply to traffic"},
	} {
		code, _, errs := hx(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}
