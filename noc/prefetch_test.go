package noc

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPrefetchChangesNothing: a switch's prefetch stages, run before every
// evaluation, read in range on every kind of network and change nothing:
// the same packets arrive in the same cycles, every channel carries the
// same flits (PrefetchSwitch's contract).
func TestPrefetchChangesNothing(t *testing.T) {
	fabrics := []Fabric{mustFabric(t, "hyperxbar", 4, 3), mustFabric(t, "torus", 4, 3), mustFabric(t, "fattree", 4, 4)}
	for _, f := range fabrics {
		pkts := randomPackets(rand.New(rand.NewPCG(3, 4)), f.NumNodes(), 300, 5)
		var res [2]driveResult
		var sent [2][]uint32
		for i, prefetch := range []bool{false, true} {
			n, err := NewFabricNetwork(f, Config{BufferDepth: 2, LinkLatency: 2})
			if err != nil {
				t.Fatal(err)
			}
			res[i] = driveWith(t, n, pkts, 100_000, prefetch)
			for o := range n.out {
				sent[i] = append(sent[i], n.sentBy(int32(o)))
			}
		}
		if !res[0].drained || res[1] != res[0] || !slices.Equal(sent[1], sent[0]) {
			t.Fatalf("%s: with prefetch %+v, without %+v (per-output flits equal: %v)", fabricName(f), res[1], res[0], slices.Equal(sent[1], sent[0]))
		}
	}
}
