package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// simData is the JSON contract of `hxbar sim --collective ...`.
type simData struct {
	Cycles  int64 `json:"cycles"`
	Network struct {
		Flits    uint64 `json:"flits"`
		FlitHops uint64 `json:"flit_hops"`
	} `json:"network"`
	Steps []struct {
		Step int    `json:"step"`
		Kind string `json:"kind"`
		Gate int    `json:"gate"`
		Done int64  `json:"done"`
	} `json:"steps"`
	Data struct {
		Collective    string `json:"collective"`
		Algo          string `json:"algo"`
		Order         string `json:"order"`
		Items         int    `json:"items"`
		ItemFlits     int    `json:"item_flits"`
		ItemsMoved    int    `json:"items_moved"`
		ItemsReceived int    `json:"items_received"`
		Cost          int    `json:"cost"`
	} `json:"data"`
}

func simJSON(t *testing.T, args ...string) simData {
	t.Helper()
	code, out, errs := hx(t, append([]string{"sim", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("sim %v: exit %d: %s", args, code, errs)
	}
	var res simData
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSimCollectiveJSONContract(t *testing.T) {
	res := simJSON(t, "--collective", "allgather", "--items", "4", "--item-flits", "8", "--order", "MMOO", "--skew", "0")
	d := res.Data
	if d.Collective != "allgather" || d.Order != "MMOO" || d.Items != 4 || d.ItemFlits != 8 || d.Cost != 11 || d.ItemsMoved != d.ItemsReceived || d.ItemsMoved != 60 {
		t.Fatalf("data %+v", d)
	}
	if len(res.Steps) != 4 || res.Steps[0].Kind != "M" || res.Steps[3].Kind != "O" || res.Steps[3].Gate != 5 || res.Steps[3].Done != res.Cycles-1 {
		t.Fatalf("steps %+v, cycles %d", res.Steps, res.Cycles)
	}
	if res.Network.Flits == 0 || res.Network.FlitHops == 0 {
		t.Fatalf("network %+v", res.Network)
	}
	// Recursive doubling: near-last moves its big messages one hop, so it
	// needs no more flit-hops than near-first (on a 1-D hyper-crossbar every
	// partner is one crossbar away, so they tie).
	last := simJSON(t, "--collective", "allgather", "--dims", "16", "--item-flits", "4", "--skew", "0")
	first := simJSON(t, "--collective", "allgather", "--dims", "16", "--item-flits", "4", "--skew", "0", "--algo", "butterfly-near-first")
	if last.Data.Algo != "recursive-doubling-near-last" || first.Data.Algo != "recursive-doubling-near-first" || last.Network.Flits != first.Network.Flits {
		t.Fatalf("near-last %+v, near-first %+v", last.Data, first.Data)
	}
	b := simJSON(t, "--collective", "broadcast", "--item-placement", "5", "--item-flits", "3")
	if b.Data.Algo != "broadcast" || b.Data.ItemsMoved != 15 {
		t.Fatalf("broadcast %+v", b.Data)
	}
}

func TestSimCollectiveSchedule(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := hx(t, "collective", "--algo", "order", "--nodes", "8", "--items", "2", "--order", "MOO", "--format", "json")
	if code != 0 {
		t.Fatalf("collective: exit %d: %s", code, errs)
	}
	path := filepath.Join(dir, "s.json")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	res := simJSON(t, "--collective", "allgather", "--dims", "8", "--schedule", path)
	if res.Data.Order != "MOO" || res.Data.ItemsReceived != res.Data.ItemsMoved {
		t.Fatalf("%+v", res.Data)
	}
	code, _, errs = hx(t, "sim", "--collective", "allgather", "--dims", "4", "--schedule", path)
	if code != 2 || !strings.Contains(errs, "invalid ranks: 8") {
		t.Fatalf("schedule for 8 ranks on 4: exit %d, %s", code, errs)
	}
}

func TestSimCollectiveBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--collective", "gather"}, "invalid collective"},
		{[]string{"--collective", "allgather", "--items", "4", "--order", "OOOM"}, "invalid order"},
		{[]string{"--collective", "allgather", "--op", "sum"}, "invalid op"},
		{[]string{"--collective", "allgather", "--item-flits", "5000"}, "invalid item_flits: 5000 (allowed: 1..4096)"},
		{[]string{"--collective", "broadcast", "--item-placement", "16"}, "item_placement[0]"},
	} {
		code, _, errs := hx(t, append([]string{"sim"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("sim %v: exit %d, %q; want exit 2 and one line with %q", c.args, code, errs, c.want)
		}
	}
}

func TestExperimentsCommand(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "e.md")
	code, out, errs := hx(t, "experiments", "--doc", doc, "--img", filepath.Join(dir, "img"))
	if code != 0 || !strings.Contains(out, "wrote") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	data, err := os.ReadFile(doc)
	if err != nil || !strings.Contains(string(data), "](img/exp-orders.svg)") {
		t.Fatalf("%v: %.200s", err, data)
	}
}

func TestCheckOtherNetworks(t *testing.T) {
	for _, c := range []struct{ args []string }{
		{[]string{"--topology", "torus", "--dims", "16"}},
		{[]string{"--topology", "torus", "--dims", "4,4,4"}},
		{[]string{"--topology", "fattree", "--dims", "2,2,2,2"}},
	} {
		code, out, errs := hx(t, append([]string{"check", "--format", "json"}, c.args...)...)
		var rep struct {
			Pairs   int  `json:"pairs"`
			Minimal bool `json:"minimal"`
			Acyclic bool `json:"acyclic"`
			MaxHops int  `json:"max_hops"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.Minimal || !rep.Acyclic || rep.MaxHops == 0 {
			t.Errorf("check %v: exit %d, %s %s", c.args, code, out, errs)
		}
	}
	code, _, errs := hx(t, "check", "--topology", "fattree", "--dims", "4,2")
	if code != 2 || !strings.Contains(errs, "invalid dims[1]: 2") {
		t.Errorf("fat tree with unequal dims: exit %d, %s", code, errs)
	}
}
