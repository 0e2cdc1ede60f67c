package sim

import (
	"fmt"

	"github.com/hxbar/hxbar/noc"
)

// MaxLoadBuckets bounds the time buckets of a ChannelLoad: when a run
// outgrows them, the bucket width doubles and neighbouring buckets merge.
const MaxLoadBuckets = 96

// MaxLoadRows bounds the rows of a ChannelLoad: a network with more
// channels puts consecutive channels (in the order of Channels) into one row.
const MaxLoadRows = 256

// ChannelLoad is what Options.Load asks a run to record: the flits each
// network channel carried in each time bucket. Channels are the ones the
// statistics count (switch to switch; on a torus one entry per virtual
// channel), named as the statistics, --fault and --avoid name them
// (noc.ChannelName: "n5.d1.up", "n2.d0+.vc0"); they are counted when they send a flit, as flit_hops is.
//
// Recording reads the channels' flit counters when the run crosses a bucket
// boundary, outside the cycle evaluation, so it costs nothing per cycle and
// nothing at all when Options.Load is nil.
type ChannelLoad struct {
	// Rows name the rows: one channel each, or for a network of more than
	// MaxLoadRows channels a range "first .. last" of PerRow channels
	// (the last row may hold fewer).
	Rows   []string
	PerRow int
	// Bucket is the width in cycles of a column; column j covers cycles
	// [j*Bucket, (j+1)*Bucket). Flits[row][j] is the flits the row's
	// channels sent in it. Cycles is the run's cycles (Result.Cycles).
	Bucket int64
	Flits  [][]uint32
	Cycles int64

	channels int
}

// loadRec fills a ChannelLoad during a run.
type loadRec struct {
	out   *ChannelLoad
	net   []chanRef // the channels, in row order
	prev  []uint32  // their flit counts at the last snapshot
	start int64     // the stepped cycles since the last snapshot are >= start
	next  int64     // the next bucket boundary after start
}

type chanRef struct{ sw, port int32 }

func newLoadRec(s *System, out *ChannelLoad) *loadRec {
	r := &loadRec{out: out}
	var name func(i int) string
	if t := s.Topo; t != nil {
		// The order and names of BusiestChannel: per node and dimension,
		// the exchanger's port toward the crossbar, then back.
		for v := 0; v < t.Nodes; v++ {
			for k := range t.Dims {
				xs, xp := t.Crossbar(v, k)
				r.net = append(r.net, chanRef{int32(v), int32(k + 1)}, chanRef{int32(xs), int32(xp)})
			}
		}
		D := len(t.Dims)
		name = func(i int) string {
			dir := "up"
			if i%2 == 1 {
				dir = "down"
			}
			return fmt.Sprintf("n%d.d%d.%s", i/(2*D), i/2%D, dir)
		}
	} else {
		for sw := 0; sw < s.switches; sw++ {
			for p := 0; p < s.Fabric.Ports(sw); p++ {
				if s.Fabric.IsChannel(sw, p) {
					r.net = append(r.net, chanRef{int32(sw), int32(p)})
				}
			}
		}
		name = func(i int) string { return noc.ChannelName(s.Fabric, int(r.net[i].sw), int(r.net[i].port)) }
	}
	n := len(r.net)
	per := max(1, (n+MaxLoadRows-1)/MaxLoadRows)
	*out = ChannelLoad{PerRow: per, Bucket: 1, channels: n}
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		if per == 1 {
			out.Rows = append(out.Rows, name(lo))
		} else {
			out.Rows = append(out.Rows, name(lo)+" .. "+name(hi-1))
		}
	}
	out.Flits = make([][]uint32, len(out.Rows))
	r.prev = make([]uint32, n)
	for i, c := range r.net {
		r.prev[i] = s.Net.OutputFlits(int(c.sw), int(c.port))
	}
	r.next = 1
	return r
}

// before is called before cycle t is evaluated: when t is past the bucket
// of the last snapshot, the flits sent since (all in that bucket, since
// no later cycle was evaluated) are added to it.
func (r *loadRec) before(s *System, t int64) {
	if t >= r.next {
		r.snapshot(s, t)
	}
}

func (r *loadRec) snapshot(s *System, t int64) {
	o := r.out
	for r.start/o.Bucket >= MaxLoadBuckets {
		o.Bucket *= 2
		for i, row := range o.Flits {
			for j := 0; j < len(row); j += 2 {
				v := row[j]
				if j+1 < len(row) {
					v += row[j+1]
				}
				row[j/2] = v
			}
			o.Flits[i] = row[:(len(row)+1)/2]
		}
	}
	col := int(r.start / o.Bucket)
	for i, c := range r.net {
		f := s.Net.OutputFlits(int(c.sw), int(c.port))
		d := f - r.prev[i]
		r.prev[i] = f
		if d == 0 {
			continue
		}
		row := &o.Flits[i/o.PerRow]
		for len(*row) <= col {
			*row = append(*row, 0)
		}
		(*row)[col] += d
	}
	r.start = t
	r.next = (t/o.Bucket + 1) * o.Bucket
}

// finish takes the last snapshot and pads every row to the run's buckets.
func (r *loadRec) finish(s *System, cycles int64) {
	r.snapshot(s, max(cycles, r.start))
	o := r.out
	for o.Bucket*MaxLoadBuckets < cycles {
		r.start = cycles - 1 // merge until the last cycle fits
		r.snapshot(s, cycles)
	}
	o.Cycles = cycles
	cols := int((max(cycles, 1) + o.Bucket - 1) / o.Bucket)
	for i := range o.Flits {
		for len(o.Flits[i]) < cols {
			o.Flits[i] = append(o.Flits[i], 0)
		}
	}
}

// Channels is the number of channels the rows hold.
func (l *ChannelLoad) Channels() int { return l.channels }
