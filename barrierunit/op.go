package barrierunit

import (
	"fmt"

	"github.com/hxbar/hxbar/hw"
)

// Op is a reduction operation on 64-bit unsigned values.
type Op uint8

const (
	OpBarrier Op = iota // no payload; value is always 0
	OpSum               // wrapping add
	OpMax               // unsigned
	OpMin               // unsigned
	OpAnd
	OpOr
	OpXor
)

// An Op is the index of its name in hw.Ops (TestOpNames checks the two
// lists agree).
func (o Op) String() string {
	if int(o) < len(hw.Ops) {
		return string(hw.Ops[o])
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// ParseOp turns a name ("sum", ...) into an Op.
func ParseOp(s string) (Op, error) {
	for i, n := range hw.Ops {
		if s == string(n) {
			return Op(i), nil
		}
	}
	return 0, fmt.Errorf("invalid op: %q (allowed: %s)", s, hw.Join(hw.Ops))
}

// Idempotent reports whether op(x, x) == x, the condition for schedules that
// may deliver an operand more than once (dissemination).
func (o Op) Idempotent() bool {
	switch o {
	case OpBarrier, OpMax, OpMin, OpAnd, OpOr:
		return true
	}
	return false
}

// HasPayload reports whether packets of this op carry a 64-bit value.
func (o Op) HasPayload() bool { return o != OpBarrier }

// Identity is the value x with op(x, v) == v for all v.
func (o Op) Identity() uint64 {
	switch o {
	case OpMin, OpAnd:
		return ^uint64(0)
	}
	return 0
}

// Apply combines two values.
func (o Op) Apply(a, b uint64) uint64 {
	switch o {
	case OpSum:
		return a + b
	case OpMax:
		return max(a, b)
	case OpMin:
		return min(a, b)
	case OpAnd:
		return a & b
	case OpOr:
		return a | b
	case OpXor:
		return a ^ b
	}
	return 0
}
