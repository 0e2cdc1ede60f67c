package barrierunit

import (
	"fmt"

	"github.com/hxbar/hxbar/hw"
)

// Op is a reduction operation on 64-bit unsigned values: hw's op code,
// whose numbering and names are defined once, in hw (hw.OpCode).
type Op = hw.OpCode

// The ops, by their hw codes.
const (
	OpBarrier = hw.OpCodeBarrier
	OpSum     = hw.OpCodeSum
	OpMax     = hw.OpCodeMax
	OpMin     = hw.OpCodeMin
	OpAnd     = hw.OpCodeAnd
	OpOr      = hw.OpCodeOr
	OpXor     = hw.OpCodeXor
)

// ParseOp turns a name ("sum", ...) into an Op.
func ParseOp(s string) (Op, error) {
	if o, ok := hw.OpName(s).Code(); ok {
		return o, nil
	}
	return 0, fmt.Errorf("invalid op: %q (allowed: %s)", s, hw.Join(hw.Ops))
}
