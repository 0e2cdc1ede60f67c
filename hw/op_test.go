package hw

import "testing"

// TestOpCodes: every code has a name, every name of Ops its code back,
// and the codes are the op field's documented order (the unit's CTRL.OP
// values of docs/registers.md: barrier 0 ... xor 6).
func TestOpCodes(t *testing.T) {
	want := []OpName{"barrier", "sum", "max", "min", "and", "or", "xor"}
	if len(Ops) != len(want) {
		t.Fatalf("Ops = %v, want %v", Ops, want)
	}
	for i, n := range want {
		c, ok := n.Code()
		if !ok || c != OpCode(i) || c.Name() != n || Ops[i] != n {
			t.Errorf("%s: code %d %v, name %q, Ops[%d] %q", n, c, ok, c.Name(), i, Ops[i])
		}
	}
	if _, ok := OpName("mul").Code(); ok {
		t.Error(`"mul" has a code`)
	}
	if OpCode(7).Name() != "" || OpCode(7).String() != "Op(7)" {
		t.Errorf("OpCode(7): %q %q", OpCode(7).Name(), OpCode(7).String())
	}
	// The ALU, against values worked by hand.
	for _, c := range []struct {
		o    OpCode
		a, b uint64
		want uint64
	}{
		{OpCodeSum, ^uint64(0), 2, 1}, {OpCodeMax, 3, 9, 9}, {OpCodeMin, 3, 9, 3},
		{OpCodeAnd, 0xc, 0xa, 0x8}, {OpCodeOr, 0xc, 0xa, 0xe}, {OpCodeXor, 0xc, 0xa, 0x6}, {OpCodeBarrier, 5, 6, 0},
	} {
		if got := c.o.Apply(c.a, c.b); got != c.want {
			t.Errorf("%s(%#x, %#x) = %#x, want %#x", c.o, c.a, c.b, got, c.want)
		}
		if id := c.o.Identity(); c.o != OpCodeBarrier && c.o.Apply(id, c.b) != c.b {
			t.Errorf("%s: identity %#x is not neutral", c.o, id)
		}
	}
}
