package sim

import (
	"fmt"
	"math"
	"strings"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/noc"
)

// watchdog is the units' watchdog (docs/reliability.md, "Detection"): a
// rank waiting at a gate whose last progress was in cycle p raises TIMEOUT
// in cycle p + W if it has made none since. next is a lower bound of the
// earliest deadline: progress only moves deadlines later, so the ranks are
// scanned only when the run reaches it.
type watchdog struct {
	w    int64
	next int64
	into map[[2]int][]int       // (rank, gate) -> ranks with a route into it
	tab  *barrierunit.FlatTable // the table into was built from (episodes change it)
	// chain is the wait chain of the run's first TIMEOUT (rank chainRank,
	// cycle chainAt), followed in that cycle: by the run's end a signal
	// then still on its way has been popped by a unit in ERROR.
	chain     string
	chainRank int
	chainAt   int64
}

func (s *System) armWatchdog() {
	if s.Sys.Watchdog <= 0 {
		return
	}
	s.Units.Progress = make([]int64, s.Table.Ranks)
	s.wd = &watchdog{w: s.Sys.Watchdog, next: math.MaxInt64}
}

// arrived tells the watchdog that a rank arrives in cycle t.
func (wd *watchdog) arrived(t int64) {
	if wd != nil {
		wd.next = min(wd.next, t+wd.w)
	}
}

// due bounds an idle jump of the run loop to the next deadline.
func (wd *watchdog) due(t int64) int64 {
	if wd == nil {
		return t
	}
	return min(t, wd.next)
}

// check runs after the units of cycle t: every waiting rank whose last
// progress is W cycles back raises TIMEOUT, naming the gate's first source
// (firstSource).
func (s *System) checkWatchdog(t int64) {
	wd := s.wd
	if wd == nil || t < wd.next {
		return
	}
	u := s.Units
	wd.next = math.MaxInt64
	first := -1 // the rank of the lowest node that timed out
	for r := range u.Progress {
		if !u.Waiting(r) {
			continue
		}
		d := u.Progress[r] + wd.w
		if d > t {
			wd.next = min(wd.next, d)
			continue
		}
		if u.Timeout(r, t, s.firstSource(r)) && (first < 0 || u.Node(r) < u.Node(first)) {
			first = r
		}
	}
	if first >= 0 && len(u.Errors) == 0 && wd.chain == "" && len(s.Sys.Faults) > 0 {
		_, hit := s.faultsHit()
		wd.chain, wd.chainRank, wd.chainAt = s.waitChain(first, hit), first, t
	}
}

// firstSource is the source TIMEOUT names for rank r (STATUS/ERRSRC,
// docs/registers.md): the lowest rank with a route into the gate r waits
// at, 0 when none has. A unit knows only how many signals a gate has
// received, not whose, nor whether a remote rank has sent, so the register
// names what the gate word can hold (its first source); for a gate with
// one route in, the butterfly's and the all-gather's, that is the missing
// rank. The run's message (faultContext, waitChain) names every missing
// rank and why, from the model's view of all ranks. In a run of
// communicators the register's 0 is rank 0 of the channel's
// communicator: the run rank its base (as the RTL's monitor prints it).
func (s *System) firstSource(r int) int32 {
	s.missing(r) // builds wd.into
	if in := s.wd.into[[2]int{r, s.Units.Gate(r) + 1}]; len(in) > 0 {
		return int32(in[0])
	}
	if s.Units.Base != nil {
		return s.Units.Base[r]
	}
	return 0
}

// missing lists the ranks with a route into the gate rank r waits at whose
// signal has not been counted (all of them when the count says so).
func (s *System) missing(r int) []int {
	wd := s.wd
	tab := s.Table
	if wd.into == nil || wd.tab != tab {
		wd.into, wd.tab = map[[2]int][]int{}, tab
		st := tab.Stride()
		for src := 0; src < tab.Ranks; src++ {
			for g := 1; g <= tab.Gates; g++ {
				for i := tab.OutStart[src*st+g]; i < tab.OutEnd[src*st+g]; i++ {
					k := [2]int{int(tab.OutDst[i]), g + 1}
					wd.into[k] = append(wd.into[k], src)
				}
			}
		}
	}
	g := s.Units.Gate(r) + 1
	var out []int
	for _, src := range wd.into[[2]int{r, g}] {
		// A source still before the gate has not sent; one past it has.
		if sg := s.Units.Gate(src); sg < g-1 || sg == g-1 && !s.Units.SendDone(src) {
			out = append(out, src)
		}
	}
	if len(out) == 0 {
		out = wd.into[[2]int{r, g}] // sent, lost on the way
	}
	return out
}

// faultContext explains a unit error of a run with faults: the faults that
// hit, and for TIMEOUT the missing ranks and the channels of their paths
// that a fault hit.
func (s *System) faultContext(e barrierunit.UnitError) string {
	if len(s.Sys.Faults) == 0 {
		return ""
	}
	parts, hit := s.faultsHit()
	if e.Code == barrierunit.ErrTimeout && e.Rank >= 0 && s.wd != nil {
		chain := s.wd.chain
		if s.wd.chainRank != int(e.Rank) || s.wd.chainAt != e.Cycle || chain == "" {
			chain = s.waitChain(int(e.Rank), hit)
		}
		parts = append([]string{chain}, parts...)
	}
	return strings.Join(parts, "; ")
}

// faultsHit lists the faults that hit so far (and the stuck ranks) and
// the channels they hit.
func (s *System) faultsHit() (parts []string, hit map[string]bool) {
	hit = map[string]bool{}
	for _, f := range s.faultResults() {
		if f.Hits > 0 {
			parts = append(parts, fmt.Sprintf("fault %s hit at cycle %d", f.Spec, f.First))
			if i := strings.Index(f.Spec, ":"); i >= 0 {
				if j := strings.LastIndex(f.Spec, "@"); j > i {
					hit[f.Spec[i+1:j]] = true
				}
			}
		} else if r, ok := strings.CutPrefix(f.Spec, "stuck:"); ok {
			parts = append(parts, fmt.Sprintf("fault %s: rank %s never arrives", f.Spec, r))
		}
	}
	return parts, hit
}

// waitChain follows who waits for whom from rank r to the root cause: a
// rank that has not arrived, or a signal sent and lost on its way (with
// the channels of its path a fault hit).
func (s *System) waitChain(r int, hit map[string]bool) string {
	u := s.Units
	var b strings.Builder
	seen := map[int]bool{r: true}
	for {
		m := s.missing(r)
		if len(m) == 0 {
			b.WriteString("no source missing")
			return b.String()
		}
		src := m[0]
		g := u.Gate(r) + 1
		fmt.Fprintf(&b, "rank %d gate %d misses rank %d", r, g, src)
		if len(m) > 1 {
			fmt.Fprintf(&b, " (and %d more)", len(m)-1)
		}
		sg := u.Gate(src)
		switch {
		case sg == 0:
			b.WriteString(", which has not arrived")
			return b.String()
		case sg == g-1 && !u.SendDone(src):
			// Past its gate, sending: it waits for nobody (at most for
			// credits), and its packet to r is being injected or queued.
			if sendingTo(u, src) == r {
				b.WriteString(", which is sending it")
			} else {
				b.WriteString(", which has not sent it yet")
			}
			return b.String()
		case (sg >= g-1 && u.SendDone(src) || sg >= g) && s.onItsWay(src, r, g):
			// Sent, and its head still in the network or its packet
			// being received: late, not lost (a fault-free run times
			// out so too when the watchdog is shorter than the wait).
			b.WriteString(", whose signal was sent and is still on its way")
			return b.String()
		case sg >= g-1 && u.SendDone(src) || sg >= g:
			// Sent: lost on the way.
			b.WriteString(", whose signal was sent and lost")
			var on []string
			if name := fmt.Sprintf("n%d.inject", u.Node(src)); hit[name] {
				on = append(on, name)
			}
			path, _ := noc.Walk(s.Fabric, u.Node(src), u.Node(r))
			for _, o := range path {
				if name := noc.ChannelName(s.Fabric, o.Switch, o.Port); hit[name] {
					on = append(on, name)
				}
			}
			if len(on) > 0 {
				b.WriteString(" on channel " + strings.Join(on, ", "))
			}
			return b.String()
		case seen[src] || u.Release[src] >= 0:
			return b.String()
		}
		seen[src] = true
		b.WriteString("; ")
		r = src
	}
}

// onItsWay reports whether the signal of rank src for rank r's gate g is
// still coming: its head is in the network, or r is receiving its packet.
func (s *System) onItsWay(src, r, g int) bool {
	if rs, rg, open := s.Units.Receiving(r); open && int(rs) == src && rg == g {
		return true
	}
	return s.Net.HeadInFlight(int32(src), uint8(g), s.Units.Node(r))
}

// sendingTo is the rank whose packet src is injecting (-1: none started).
func sendingTo(u *barrierunit.Units, src int) int {
	to, flit := u.Sending(src)
	if flit == 0 {
		return -1
	}
	return to
}
