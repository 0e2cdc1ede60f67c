package sim_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/hxbar/hxbar/sim"
)

// TestCommunicatorsVCD: a run of communicators has a scope per channel of
// a node (n<node>_ch<c>), each driven by its own rank: the scopes are
// distinct and every rank's released rises (two scopes named n0 shared
// one set of signals, and the first never moved).
func TestCommunicatorsVCD(t *testing.T) {
	sys := rowsCols(2)
	s, err := sim.Build(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var vcd bytes.Buffer
	res, err := s.Run(sim.Options{VCD: &vcd})
	if err != nil || !res.Complete {
		t.Fatalf("run: %v", err)
	}
	scopes := map[string]bool{}
	released := map[string]string{} // scope -> id of its released
	scope := ""
	for _, l := range strings.Split(vcd.String(), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 3 && f[0] == "$scope" && f[2] != "hxbar":
			scope = f[2]
			if scopes[scope] {
				t.Fatalf("scope %s twice", scope)
			}
			scopes[scope] = true
		case len(f) >= 5 && f[0] == "$var" && f[4] == "released":
			released[scope] = f[3]
		}
	}
	if len(scopes) != len(res.Nodes) {
		t.Fatalf("%d scopes for %d ranks", len(scopes), len(res.Nodes))
	}
	for _, n := range res.Nodes {
		want := "n" + strconv.Itoa(n.Node) + "_ch" + strconv.Itoa(*n.Channel)
		id, ok := released[want]
		if !ok {
			t.Fatalf("no scope %s for rank %d (%s)", want, n.Rank, n.Communicator)
		}
		if !strings.Contains(vcd.String(), "\n1"+id+"\n") {
			t.Errorf("%s (rank %d, %s): released never rises", want, n.Rank, n.Communicator)
		}
	}
}
