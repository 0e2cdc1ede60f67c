package formal

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStepDigestsNameEverySystemStep: the status of the ledger covers
// exactly the steps a run proves (the two first episodes, then every
// class's next episode: docs/testing.md's ten of line3 and six of
// line4), each with its own inputs.
func TestStepDigestsNameEverySystemStep(t *testing.T) {
	want := map[string][]string{
		"line3": {"0.b", "0.d", "b.b", "b.d", "bd.b", "bd.d", "d.b", "d.d", "db.b", "db.d"},
		"line4": {"0.b", "0.d", "b.b", "b.d", "d.b", "d.d"},
	}
	for _, s := range StepSystems() {
		digests, err := StepDigests(s)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		seen := map[string]string{}
		for name, d := range digests {
			names = append(names, strings.TrimPrefix(name, s.Name+"-"))
			if other, ok := seen[d]; ok {
				t.Errorf("%s and %s share inputs digest %.12s", name, other, d)
			}
			seen[d] = name
		}
		slices.Sort(names)
		if !slices.Equal(names, want[s.Name]) {
			t.Errorf("%s: steps %v, want %v", s.Name, names, want[s.Name])
		}
		again, err := StepDigests(s)
		if err != nil || !maps.Equal(digests, again) {
			t.Errorf("%s: the digests change between two builds (%v)", s.Name, err)
		}
	}
}

func digestOf(c byte) string { return strings.Repeat(string(c), 64) }

// TestCover: steps add up only on today's digests under one free set
// and one set of tools; the best such set is reported with what it lacks.
func TestCover(t *testing.T) {
	digests := map[string]string{"s-0.b": digestOf('a'), "s-0.d": digestOf('b'), "s-b.b": digestOf('c')}
	proof := func(step string, inputs string, free ...string) Proof {
		return Proof{System: "s", Step: step, Inputs: inputs, Free: free, Tools: "Yosys 0.23"}
	}
	all := []Proof{proof("s-0.b", digestOf('a'), "f"), proof("s-0.d", digestOf('b'), "f"), proof("s-b.b", digestOf('c'), "f")}
	if c := Cover(all, digests); !c.Complete() || len(c.Proved) != 3 || strings.Join(c.Free, ",") != "f" {
		t.Fatalf("every step proved: %+v, want complete under free set f", c)
	}
	cases := map[string][]Proof{
		"a step missing":      all[:2],
		"a stale digest":      {all[0], all[1], proof("s-b.b", digestOf('d'), "f")},
		"another free set":    {all[0], all[1], proof("s-b.b", digestOf('c'), "f", "g")},
		"other tools":         {all[0], all[1], {System: "s", Step: "s-b.b", Inputs: digestOf('c'), Free: []string{"f"}, Tools: "Yosys 0.40"}},
		"the empty ledger":    nil,
		"an unknown step":     {all[0], all[1], proof("s-d.d", digestOf('c'), "f")},
		"a digest of another": {all[0], all[1], proof("s-b.b", digestOf('a'), "f")},
	}
	for name, ledger := range cases {
		c := Cover(ledger, digests)
		if c.Complete() {
			t.Errorf("%s: complete (%+v)", name, c)
		}
		if name != "the empty ledger" && !slices.Equal(c.Missing, []string{"s-b.b"}) {
			t.Errorf("%s: missing %v, want [s-b.b]", name, c.Missing)
		}
	}
	// The free set proving most steps wins, whatever the ledger's order.
	mixed := append([]Proof{proof("s-0.b", digestOf('a'), "g")}, all[:2]...)
	if c := Cover(mixed, digests); strings.Join(c.Free, ",") != "f" || len(c.Proved) != 2 {
		t.Errorf("mixed free sets: %+v, want the set f with two steps", c)
	}
}

// TestLedgerFile: the ledger reads back what it wrote, without repeats;
// a malformed record is refused naming the step; the repository's ledger
// is well formed.
func TestLedgerFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	if ps, err := ReadLedger(path); err != nil || ps != nil {
		t.Fatalf("a missing ledger: %v, %v; want empty", ps, err)
	}
	p := Proof{System: "line3", Step: "line3-0.b", Inputs: digestOf('a'), Free: []string{"a", "b"}, Tools: "Yosys", Date: "2026-12-07"}
	if err := WriteLedger(path, []Proof{p, p, {System: "line3", Step: "line3-0.d", Inputs: digestOf('b'), Tools: "Yosys"}}); err != nil {
		t.Fatal(err)
	}
	ps, err := ReadLedger(path)
	if err != nil || len(ps) != 2 || ps[0].Step != "line3-0.b" {
		t.Fatalf("read back %+v, %v; want the two steps", ps, err)
	}
	// A repeat is dropped even when another record sorts between them.
	later, other := p, p
	later.Date, other.Date, other.Free = "2026-12-09", "2026-12-08", []string{"c"}
	if err := WriteLedger(path, []Proof{later, other, p}); err != nil {
		t.Fatal(err)
	}
	if ps, err := ReadLedger(path); err != nil || len(ps) != 2 || ps[0].Date != "2026-12-07" {
		t.Fatalf("non-adjacent repeat: read back %+v, %v; want the earliest record and the other free set", ps, err)
	}
	for name, bad := range map[string]Proof{
		"short digest":  {System: "line3", Step: "line3-0.b", Inputs: "abc", Tools: "Yosys"},
		"unsorted free": {System: "line3", Step: "line3-0.b", Inputs: digestOf('a'), Free: []string{"b", "a"}, Tools: "Yosys"},
		"other system":  {System: "line3", Step: "line4-0.b", Inputs: digestOf('a'), Tools: "Yosys"},
		"no tools":      {System: "line3", Step: "line3-0.b", Inputs: digestOf('a')},
		"not hex":       {System: "line3", Step: "line3-0.b", Inputs: digestOf('z'), Tools: "Yosys"},
		"comma group":   {System: "line3", Step: "line3-0.b", Inputs: digestOf('a'), Free: []string{"a,b"}, Tools: "Yosys"},
		"repeated":      {System: "line3", Step: "line3-0.b", Inputs: digestOf('a'), Free: []string{"a", "a"}, Tools: "Yosys"},
	} {
		if err := WriteLedger(path, []Proof{bad}); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadLedger(path); err == nil || !strings.Contains(err.Error(), bad.Step) {
			t.Errorf("%s: read %v, want an error naming %s", name, err, bad.Step)
		}
	}
	if err := os.WriteFile(path, []byte(`[{"system":"line3","stepp":"x"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLedger(path); err == nil {
		t.Error("an unknown key read without error")
	}
	if _, err := ReadLedger(filepath.Join("..", "..", LedgerFile)); err != nil {
		t.Errorf("the repository's ledger: %v", err)
	}
}

// TestProofReadsOnlyWhatTheTopNeeds: a proof's files are those the top
// instantiates, so the torus router's files (never instantiated by a
// hyper-crossbar) are not read, and a change to them leaves the digests
// (and the ledger's proofs) alone.
func TestProofReadsOnlyWhatTheTopNeeds(t *testing.T) {
	s := StepSystems()[0]
	j, err := Build(stepSpec(s, nil, s.Algos[0]), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hx_top.v", "hx_tile.v", "hx_switch.v", "hx_barrier_unit.v", "hx_fifo.v", HarnessFile} {
		if !slices.Contains(j.Sources, want) || j.Files[want] == nil {
			t.Errorf("%s not among the proof's sources %v", want, j.Sources)
		}
	}
	for _, unused := range []string{"hx_router.v", "hx_router_dir.v", "hx_rtile.v", "hx_drops.v"} {
		if slices.Contains(j.Sources, unused) || j.Files[unused] != nil {
			t.Errorf("%s (not instantiated by the hyper-crossbar) is read by the proof", unused)
		}
	}
	before := j.InputsDigest()
	files := map[string][]byte{"hx_top.v": []byte("module hx_top; hx_a a (); endmodule\n"),
		"a.v": []byte("// hx_c in a comment\nmodule hx_a; hx_b b (); endmodule\n"),
		"b.v": []byte("module hx_b; endmodule\n"), "c.v": []byte("module hx_c; endmodule\n")}
	if got, err := needed(files, []string{"a.v", "b.v", "c.v", "hx_top.v"}, "hx_top.v"); err != nil || !slices.Equal(got, []string{"a.v", "b.v", "hx_top.v"}) {
		t.Errorf("needed = %v, %v; want [a.v b.v hx_top.v] (c.v is only named in a comment)", got, err)
	}
	files["hx_top.v"] = []byte("module hx_top; initial $display(\"see http://x\"); hx_c c (); endmodule\n")
	if got, err := needed(files, []string{"a.v", "b.v", "c.v", "hx_top.v"}, "hx_top.v"); err != nil || !slices.Equal(got, []string{"c.v", "hx_top.v"}) {
		t.Errorf("a // inside a string: needed = %v, %v; want [c.v hx_top.v]", got, err)
	}
	files["d.v"] = []byte("macromodule hx_c; endmodule\n")
	if _, err := needed(files, []string{"c.v", "d.v", "hx_top.v"}, "hx_top.v"); err == nil || !strings.Contains(err.Error(), "hx_c") {
		t.Errorf("a module defined twice: err = %v, want one naming hx_c", err)
	}
	files["e.v"] = []byte("`include \"x.vh\"\nmodule hx_e; endmodule\n")
	if _, err := needed(files, []string{"e.v", "hx_top.v"}, "hx_top.v"); err == nil {
		t.Error("an `include was not refused")
	}
	j2, err := Build(stepSpec(s, nil, s.Algos[0]), nil, "")
	if err != nil || j2.InputsDigest() != before {
		t.Errorf("two builds of one step differ (%v)", err)
	}
	// The class a step must end in is part of what it proves.
	if StepDigest(j, s.Algos[:1]) == StepDigest(j, s.Algos[1:2]) {
		t.Error("StepDigest ignores the class the step ends in")
	}
}
