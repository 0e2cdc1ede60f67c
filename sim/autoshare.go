package sim

import "time"

// autoShare chooses, as a traffic run goes, between its workers and one.
// Two workers win when both cores are free, but each phase waits for the
// slower one: on a machine shared with other jobs a helper the system has
// descheduled in a block stalls the cycle, and the same run takes longer
// than on one worker. So the run times trial cycles on one worker, then
// trial cycles on all, and keeps the faster for the next hold cycles,
// then tries again. Which worker evaluates an element never changes the
// result, so the choice changes the wall time only.
type autoShare struct {
	workers     int
	trial, hold int64
	state       int   // 0: timing one worker, 1: timing all, 2: holding the choice
	until       int64 // cycle the state ends at
	start       time.Time
	one         time.Duration // the last trial on one worker
}

// Trials of 256 cycles (a few milliseconds at 256 nodes, about an
// operating system's time slice) every 4,096 cycles: about 6 % of the
// cycles run in the mode that loses.
const (
	autoTrial = 256
	autoHold  = 4096
)

// tick is called before cycle t.
func (a *autoShare) tick(r *trafficRun, t int64) {
	if t < a.until {
		return
	}
	now := time.Now()
	switch a.state {
	case 0:
		if t > 0 {
			a.one = now.Sub(a.start)
			r.useWorkers(a.workers)
			a.state, a.until = 1, t+a.trial
			break
		}
		r.useWorkers(1)
		a.until = a.trial
	case 1:
		if now.Sub(a.start) > a.one {
			r.useWorkers(1)
		}
		a.state, a.until = 2, t+a.hold
	case 2:
		r.useWorkers(1)
		a.state, a.until = 0, t+a.trial
	}
	a.start = now
}
