package hw

import "fmt"

// OpCode is an op's number: the barrier unit's CTRL.OP field
// (docs/registers.md) and the model's barrierunit.Op. opNames ties each
// code to its name, once.
type OpCode uint8

// The op codes, in the order of Ops.
const (
	OpCodeBarrier OpCode = iota // no payload; value is always 0
	OpCodeSum                   // wrapping add
	OpCodeMax                   // unsigned
	OpCodeMin                   // unsigned
	OpCodeAnd
	OpCodeOr
	OpCodeXor
	numOpCodes
)

// opNames is the one table of op codes and names; Ops lists it.
var opNames = [numOpCodes]OpName{
	OpCodeBarrier: OpBarrier,
	OpCodeSum:     OpSum,
	OpCodeMax:     OpMax,
	OpCodeMin:     OpMin,
	OpCodeAnd:     OpAnd,
	OpCodeOr:      OpOr,
	OpCodeXor:     OpXor,
}

// Name is the op's name (the op field's value); "" for a code that names
// no op.
func (o OpCode) Name() OpName {
	if o < numOpCodes {
		return opNames[o]
	}
	return ""
}

// String is the op's name, or Op(n) for a code that names no op.
func (o OpCode) String() string {
	if o < numOpCodes {
		return string(opNames[o])
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Code is the op's number; false for a name that is no op.
func (n OpName) Code() (OpCode, bool) {
	for c, m := range opNames {
		if m == n {
			return OpCode(c), true
		}
	}
	return 0, false
}

// Idempotent reports whether op(x, x) == x, the condition for schedules
// that may deliver an operand more than once (dissemination).
func (o OpCode) Idempotent() bool {
	switch o {
	case OpCodeBarrier, OpCodeMax, OpCodeMin, OpCodeAnd, OpCodeOr:
		return true
	}
	return false
}

// HasPayload reports whether packets of this op carry a 64-bit value.
func (o OpCode) HasPayload() bool { return o != OpCodeBarrier }

// Identity is the value x with op(x, v) == v for all v.
func (o OpCode) Identity() uint64 {
	switch o {
	case OpCodeMin, OpCodeAnd:
		return ^uint64(0)
	}
	return 0
}

// Apply combines two values (the unit's ALU, verilog/rtl/hx_alu.v).
func (o OpCode) Apply(a, b uint64) uint64 {
	switch o {
	case OpCodeSum:
		return a + b
	case OpCodeMax:
		return max(a, b)
	case OpCodeMin:
		return min(a, b)
	case OpCodeAnd:
		return a & b
	case OpCodeOr:
		return a | b
	case OpCodeXor:
		return a ^ b
	}
	return 0
}
