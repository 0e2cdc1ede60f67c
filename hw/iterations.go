package hw

import "fmt"

// A loop runs one barrier Iterations times back to back with no quiet
// point between iterations (docs/microarchitecture.md, "Iterations"): rank
// r, released from iteration i in cycle t, arrives at iteration i+1 in
// cycle t + 1 + Compute + its jitter.

// MaxIterations bounds iterations: a loop's results keep a few numbers per
// iteration (never per rank and iteration), so the bound is the run's
// length, not its memory.
const MaxIterations = 1 << 20

// IterationCount is Iterations, with 0 (a System literal that does not set
// it) read as 1.
func (s *System) IterationCount() int { return max(s.Iterations, 1) }

// Looping reports whether the run is a loop of more than one iteration.
func (s *System) Looping() bool { return s.IterationCount() > 1 }

// IterationDraw returns rank r's jitter (0..Jitter extra cycles before its
// arrival at iteration i, i >= 2) and its operand there. Both come from a
// hash of (Seed, r, i), not from a stream, so that any order of evaluation
// (the model's workers, the RTL testbench's table) draws the same values.
// Iteration 1's arrivals and operands are Arrivals'.
func (s *System) IterationDraw(r, i int) (jitter int64, operand uint64) {
	// The seed is mixed before the rank and iteration join it, so that no
	// two seeds share draws (seed s, rank r and seed s^1, rank r^1 did).
	x := splitmix64(splitmix64(s.Seed^iterationStream) ^ uint64(i)<<32 ^ uint64(r))
	return int64(x % (uint64(s.Jitter) + 1)), splitmix64(x)
}

// iterationStream keeps the loop's draws apart from other uses of Seed.
const iterationStream = 0x243f6a8885a308d3

// loopBits is the head bits a loop adds above the header: the iteration
// bit (the sender's receive bank), data bit HeaderBits of a head flit.
func (s *System) loopBits() int {
	if s.Looping() {
		return 1
	}
	return 0
}

// splitmix64 is the finaliser of SplitMix64 (Steele, Lea and Flood): a
// bijection of 64-bit words whose output bits all depend on every input bit.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// validateLoop checks iterations, compute and jitter: a loop runs one
// barrier-type collective (its every release depends on every arrival,
// which is what bounds how far ahead a rank can run) as the run's only
// episode.
func (s *System) validateLoop() error {
	if s.Iterations != 0 {
		if err := inRange("iterations", s.Iterations, 1, MaxIterations); err != nil {
			return err
		}
	}
	if err := inRange("compute", s.Compute, 0, MaxSkew); err != nil {
		return err
	}
	if err := inRange("jitter", s.Jitter, 0, MaxSkew); err != nil {
		return err
	}
	if !s.Looping() {
		// compute and jitter shape a loop's next arrivals: without a loop
		// they would change nothing, which is a mistake to report, not to
		// run (a run of communicators checks each entry's own).
		if s.HasCommunicators() && s.someCommLoops() {
			return nil // the defaults of the communicators that loop
		}
		why := "give iterations above 1"
		if s.HasCommunicators() {
			why = "no communicator loops: give one iterations above 1"
		}
		if s.Compute > 0 {
			return &FieldError{Field: "compute", Value: s.Compute, Allowed: "0 with iterations 1 (compute is the work between a loop's iterations: " + why + ")"}
		}
		if s.Jitter > 0 {
			return &FieldError{Field: "jitter", Value: s.Jitter, Allowed: "0 with iterations 1 (jitter varies the arrivals of a loop's next iterations: " + why + ")"}
		}
		return nil
	}
	if s.Collective != CollBarrier {
		return &FieldError{Field: "iterations", Value: s.Iterations,
			Allowed: fmt.Sprintf("1 with collective %s (a loop runs collective barrier, with any op: a data collective's ranks may run more than one iteration apart)", s.Collective)}
	}
	if s.MultiEpisode() {
		return &FieldError{Field: "iterations", Value: s.Iterations,
			Allowed: fmt.Sprintf("1 with repeat or episodes (a run is a loop of one barrier or a list of %d episodes, not both)", s.NumEpisodes())}
	}
	return nil
}

// someCommLoops reports whether a communicator of the list runs more than
// one iteration (its own iterations, or the system's when it sets none).
func (s *System) someCommLoops() bool {
	for i := range s.Communicators {
		if it := s.Communicators[i].Iterations; it != nil && *it > 1 || it == nil && s.Looping() {
			return true
		}
	}
	return false
}
