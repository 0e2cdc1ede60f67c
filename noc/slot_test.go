package noc

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/hxbar/hxbar/hw"
)

// TestFlitPacking: a flit packed into a slot (12-byte body, payload apart)
// unpacks to the same flit, on every fabric and for every kind of flit the
// model moves: heads with their packed destination (on fabrics with
// addresses), payload flits with their node id and data, sources up to
// 24 bits, any gate, check code and marks.
func TestFlitPacking(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		topo := rapid.SampledFrom(hw.Topologies).Draw(rt, "topology")
		nd := rapid.IntRange(1, hw.MaxDims).Draw(rt, "dims")
		dims := make([]int, nd)
		nodes := 1
		for k := range dims {
			dims[k] = rapid.IntRange(2, 6).Draw(rt, "dim")
			nodes *= dims[k]
		}
		if nodes > 4096 {
			rt.Skip("too large for a packing test")
		}
		f, err := NewFabric(topo, dims)
		if err != nil {
			rt.Skip(err.Error())
		}
		n, err := NewFabricNetwork(f, Config{BufferDepth: 2, LinkLatency: 1})
		if err != nil {
			rt.Fatal(err)
		}
		n.KeepCodes()
		for range 20 {
			head := rapid.Bool().Draw(rt, "head")
			fl := hw.Flit{
				Dst:   int32(rapid.IntRange(0, f.NumNodes()-1).Draw(rt, "dst")),
				Src:   int32(rapid.IntRange(0, maxSrc-1).Draw(rt, "src")),
				Gate:  rapid.Uint8().Draw(rt, "gate"),
				CRC:   rapid.Uint32().Draw(rt, "crc"),
				Flags: hw.FlitFlags(head, rapid.Bool().Draw(rt, "tail")),
			}
			if rapid.Bool().Draw(rt, "data") {
				fl.Data = rapid.Uint64().Draw(rt, "value")
			}
			if head && n.addr != nil {
				fl.SetDstAddr(n.addr[fl.Dst])
			}
			i := uint32(rapid.IntRange(0, len(n.slots)-1).Draw(rt, "slot"))
			b, data, code := n.packFlit(&fl)
			n.slots[i].body = b
			if b.flags&bodyData != 0 {
				n.data[i] = data
			}
			if b.flags&bodyCode != 0 {
				n.codes[i] = code
			}
			if got := n.unpackFlit(i); got != fl {
				rt.Fatalf("%s %v: packed %+v, unpacked %+v", topo, dims, fl, got)
			}
		}
	})
}
