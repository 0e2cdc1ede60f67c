package barrierunit

import (
	"fmt"

	"github.com/hxbar/hxbar/hw"
)

// Evaluate is the reference functional model: the value each rank releases
// when rank r arrives with operands[r], by dataflow without timing. Gate g+1
// folds exactly as the unit does (docs/microarchitecture.md): rx = op over
// the values of the routes from other ranks (identity if none), then
// acc = self ? op(acc, rx) : rx. For op barrier every value is 0. For a
// schedule Verify proves correct for op, every result equals op folded over
// all operands. s must pass Check.
func Evaluate(s *Schedule, op Op, operands []uint64) ([]uint64, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if int(op) >= len(hw.Ops) {
		_, err := ParseOp(op.String())
		return nil, err
	}
	if len(operands) != s.Ranks {
		return nil, &hw.FieldError{Field: "operands", Value: fmt.Sprintf("%d values", len(operands)), Allowed: fmt.Sprintf("one per rank, %d values", s.Ranks)}
	}
	R := s.Ranks
	acc := make([]uint64, R)
	if op.HasPayload() {
		copy(acc, operands)
	}
	// Routes grouped by from_gate; a generated schedule already is.
	byGate := make([]int32, s.Gates+2)
	for i := range s.Routes {
		byGate[s.Routes[i].FromGate+1]++
	}
	for g := 1; g < len(byGate); g++ {
		byGate[g] += byGate[g-1]
	}
	order := make([]int32, len(s.Routes))
	fill := make([]int32, len(byGate))
	copy(fill, byGate)
	for i := range s.Routes {
		g := s.Routes[i].FromGate
		order[fill[g]] = int32(i)
		fill[g]++
	}
	rx := make([]uint64, R)
	self := make([]bool, R)
	id := op.Identity()
	for g := 1; g <= s.Gates; g++ {
		for r := range rx {
			rx[r], self[r] = id, false
		}
		for _, i := range order[byGate[g]:byGate[g+1]] {
			rt := &s.Routes[i]
			if rt.FromRank == rt.ToRank {
				self[rt.ToRank] = true
			} else {
				rx[rt.ToRank] = op.Apply(rx[rt.ToRank], acc[rt.FromRank])
			}
		}
		for r := range acc {
			if self[r] {
				acc[r] = op.Apply(acc[r], rx[r])
			} else {
				acc[r] = rx[r]
			}
		}
	}
	return acc, nil
}
