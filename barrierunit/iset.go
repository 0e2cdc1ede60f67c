package barrierunit

// Sets of ranks for the verifier.
//
// A set is a rotation of a base set: rset{id, sh} is {(x + sh) mod R : x in
// base(id)}. Bases are hash-consed in a canonical form up to rotation (a
// sorted list of half-open intervals whose first interval starts at 0 and
// whose gap sequence is the least rotation), and sh is reduced modulo the
// base's period, so equal sets have equal rsets and are compared as values.
//
// This is what makes the verifier scale to 65536 ranks and beyond: every set
// a butterfly or a dissemination schedule produces at one stage is a rotation
// of one base (a butterfly's are cosets of multiples of 2^k or aligned
// blocks, a dissemination's are strided runs), so a stage costs one union of
// two bases plus O(1) per rank, where bitsets would cost R bits per (rank,
// gate) and plain interval lists up to R intervals per rank.
type rset struct {
	id int32  // base; 0 is the empty set
	sh uint32 // rotation, reduced modulo the base's period
}

type setOp uint8

const (
	opUnion setOp = iota
	opInter
)

type memoKey struct {
	a, b int32
	d    uint32 // rotation of b relative to a
	op   setOp
}

const recentSize = 256

type recent struct {
	k  memoKey
	v  rset
	ok bool
}

type isets struct {
	r     uint32
	arena []uint32 // bounds of all bases: lo, hi, lo, hi, ...
	off   []uint32 // base id -> start in arena
	size  []uint32 // base id -> number of bounds (2 per interval)
	per   []uint32 // base id -> period: the least p > 0 with base + p = base
	next  []int32  // base id -> next id with the same hash, -1 at the end
	index map[uint64]int32
	memo  map[memoKey]rset
	// recent is a direct-mapped cache in front of memo: a structured
	// schedule asks for the same few pairs rank after rank.
	recent [recentSize]recent
	full   rset
	one    rset // {0}
	bufA   []uint32
	bufB   []uint32
	cyc    []uint32
	seq    []uint64
	fail   []int32
	over   bool // maxArena reached: results are meaningless
}

func newIsets(ranks int) *isets {
	t := &isets{
		r:   uint32(ranks),
		off: []uint32{0}, size: []uint32{0}, per: []uint32{1}, next: []int32{-1}, // id 0: empty
		index: make(map[uint64]int32),
		memo:  make(map[memoKey]rset),
	}
	t.full = t.canon([]uint32{0, t.r})
	t.one = t.canon([]uint32{0, 1})
	return t
}

func (t *isets) get(id int32) []uint32 {
	o := t.off[id]
	return t.arena[o : o+t.size[id]]
}

func (t *isets) singleton(r int) rset {
	return rset{t.one.id, uint32(r) % t.per[t.one.id]}
}

// union returns x ∪ y.
func (t *isets) union(x, y rset) rset {
	switch {
	case x == y || y.id == 0 || x == t.full:
		return x
	case x.id == 0 || y == t.full:
		return y
	}
	return t.apply(opUnion, x, y)
}

// inter returns x ∩ y.
func (t *isets) inter(x, y rset) rset {
	switch {
	case x == y || y == t.full:
		return x
	case x.id == 0 || y.id == 0:
		return rset{}
	case x == t.full:
		return y
	}
	return t.apply(opInter, x, y)
}

// apply computes rot(base(a) op rot(base(b), d), x.sh) with d = y.sh - x.sh,
// memoised on (a, b, d): only the relative rotation matters.
func (t *isets) apply(op setOp, x, y rset) rset {
	if x.id > y.id { // both ops commute: memoise one order
		x, y = y, x
	}
	d := y.sh - x.sh // mod R, without a division: both are < R
	if y.sh < x.sh {
		d += t.r
	}
	if p := t.per[y.id]; d >= p {
		d %= p
	}
	k := memoKey{x.id, y.id, d, op}
	var res rset
	c := &t.recent[(uint32(x.id)*0x9E3779B1^uint32(y.id)*0x85EBCA77^d*0xC2B2AE3D^uint32(op))%recentSize]
	if c.ok && c.k == k {
		res = c.v
	} else if v, ok := t.memo[k]; ok {
		res = v
	} else {
		t.bufB = rotate(t.bufB[:0], t.get(y.id), d, t.r)
		if op == opUnion {
			t.bufA = unionBounds(t.bufA[:0], t.get(x.id), t.bufB)
		} else {
			t.bufA = interBounds(t.bufA[:0], t.get(x.id), t.bufB)
		}
		res = t.canon(t.bufA)
		t.memo[k] = res
	}
	*c = recent{k, res, true}
	if res.id == 0 {
		return res
	}
	sh := uint64(res.sh) + uint64(x.sh)
	if p := uint64(t.per[res.id]); sh >= p {
		sh %= p
	}
	return rset{res.id, uint32(sh)}
}

// canon interns the set with sorted bounds v (which it does not keep).
func (t *isets) canon(v []uint32) rset {
	v = normalize(v)
	if len(v) == 0 {
		return rset{}
	}
	R := t.r
	if len(v) == 2 && v[0] == 0 && v[1] == R {
		if len(t.off) > 1 { // after newIsets made it
			return t.full
		}
		return rset{t.intern(v, 1), 0}
	}
	// The intervals in cyclic order as (start, end) with end <= start+R; an
	// interval that wraps from R-1 to 0 is one, kept last.
	n := len(v) / 2
	t.cyc = t.cyc[:0]
	if n >= 2 && v[0] == 0 && v[2*n-1] == R {
		t.cyc = append(t.cyc, v[2:2*n-2]...)
		t.cyc = append(t.cyc, v[2*n-2], v[1]+R)
	} else {
		t.cyc = append(t.cyc, v...)
	}
	c := t.cyc
	m := len(c) / 2
	t.seq = t.seq[:0]
	for i := 0; i < m; i++ {
		next := c[0] + R
		if i+1 < m {
			next = c[2*i+2]
		}
		t.seq = append(t.seq, uint64(c[2*i+1]-c[2*i])<<32|uint64(next-c[2*i+1]))
	}
	i0 := leastRotation(t.seq)
	p := t.period(i0)
	// The canonical base starts with interval i0 at 0.
	t.bufB = t.bufB[:0]
	var pos, perLen uint32
	for k := 0; k < m; k++ {
		pg := t.seq[(i0+k)%m]
		l, g := uint32(pg>>32), uint32(pg)
		t.bufB = append(t.bufB, pos, pos+l)
		pos += l + g
		if k < p {
			perLen += l + g
		}
	}
	sh := c[2*i0]
	id := t.intern(t.bufB, perLen)
	return rset{id, sh % perLen}
}

// period returns the least p with seq rotated by p equal to itself, for the
// rotation starting at i0 (prefix function of the rotated sequence).
func (t *isets) period(i0 int) int {
	m := len(t.seq)
	at := func(k int) uint64 { return t.seq[(i0+k)%m] }
	if cap(t.fail) < m {
		t.fail = make([]int32, m)
	}
	f := t.fail[:m]
	f[0] = 0
	for q := 1; q < m; q++ {
		k := int(f[q-1])
		for k > 0 && at(q) != at(k) {
			k = int(f[k-1])
		}
		if at(q) == at(k) {
			k++
		}
		f[q] = int32(k)
	}
	p := m - int(f[m-1])
	if m%p != 0 {
		p = m
	}
	return p
}

// leastRotation returns the start of the lexicographically least rotation
// of v (the classic two-pointer minimum-expression algorithm, O(len(v))).
func leastRotation(v []uint64) int {
	m := len(v)
	i, j, k := 0, 1, 0
	for i < m && j < m && k < m {
		a, b := v[(i+k)%m], v[(j+k)%m]
		if a == b {
			k++
			continue
		}
		if a > b {
			i += k + 1
		} else {
			j += k + 1
		}
		if i == j {
			j++
		}
		k = 0
	}
	return min(i, j)
}

func hashBounds(v []uint32) uint64 {
	h := uint64(len(v)) * 0x9E3779B97F4A7C15
	for _, x := range v {
		h ^= uint64(x)
		h *= 0xff51afd7ed558ccd
		h ^= h >> 32
	}
	return h
}

// maxArena bounds the bounds stored (4 bytes each). Sets without structure
// (say, a dissemination over a random permutation of many ranks) need up to
// R/2 intervals per rank; past the bound the store stops growing, answers
// the empty set, and sets over, so that Verify can say so instead of
// exhausting memory.
var maxArena = 1 << 27

// intern returns the id of base v, adding it (a copy) if new.
func (t *isets) intern(v []uint32, period uint32) int32 {
	if len(t.arena)+len(v) > maxArena {
		t.over = true
		return 0
	}
	h := hashBounds(v)
	head, ok := t.index[h]
	if ok {
		for id := head; id >= 0; id = t.next[id] {
			if equalBounds(t.get(id), v) {
				return id
			}
		}
	} else {
		head = -1
	}
	id := int32(len(t.off))
	t.off = append(t.off, uint32(len(t.arena)))
	t.size = append(t.size, uint32(len(v)))
	t.per = append(t.per, period)
	t.next = append(t.next, head)
	t.arena = append(t.arena, v...)
	t.index[h] = id
	return id
}

func equalBounds(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// normalize merges touching intervals of a sorted, disjoint list in place.
func normalize(v []uint32) []uint32 {
	w := 0
	for i := 0; i < len(v); i += 2 {
		if w > 0 && v[i] <= v[w-1] {
			v[w-1] = max(v[w-1], v[i+1])
			continue
		}
		v[w], v[w+1] = v[i], v[i+1]
		w += 2
	}
	return v[:w]
}

// rotate appends {(x + d) mod R : x in v} to dst, sorted.
func rotate(dst, v []uint32, d, R uint32) []uint32 {
	if d == 0 {
		return append(dst, v...)
	}
	k := 0 // first interval that wraps completely
	for k < len(v) && v[k]+d < R {
		k += 2
	}
	straddle := k > 0 && v[k-1]+d > R
	if straddle {
		dst = append(dst, 0, v[k-1]+d-R)
	}
	for i := k; i < len(v); i += 2 {
		dst = append(dst, v[i]+d-R, v[i+1]+d-R)
	}
	end := k
	if straddle {
		end = k - 2
	}
	for i := 0; i < end; i += 2 {
		dst = append(dst, v[i]+d, v[i+1]+d)
	}
	if straddle {
		dst = append(dst, v[k-2]+d, R)
	}
	return dst
}

func unionBounds(dst, a, b []uint32) []uint32 {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var lo, hi uint32
		if j >= len(b) || (i < len(a) && a[i] <= b[j]) {
			lo, hi = a[i], a[i+1]
			i += 2
		} else {
			lo, hi = b[j], b[j+1]
			j += 2
		}
		if n := len(dst); n > 0 && lo <= dst[n-1] { // overlaps or touches the last: merge
			dst[n-1] = max(dst[n-1], hi)
			continue
		}
		dst = append(dst, lo, hi)
	}
	return dst
}

func interBounds(dst, a, b []uint32) []uint32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		lo, hi := max(a[i], b[j]), min(a[i+1], b[j+1])
		if lo < hi {
			dst = append(dst, lo, hi)
		}
		if a[i+1] < b[j+1] {
			i += 2
		} else {
			j += 2
		}
	}
	return dst
}

// bounds returns the sorted bounds of x (in a scratch buffer).
func (t *isets) bounds(x rset) []uint32 {
	t.bufA = rotate(t.bufA[:0], t.get(x.id), x.sh, t.r)
	return normalize(t.bufA)
}

// firstMissing returns the lowest rank not in x, or -1 if x is full.
func (t *isets) firstMissing(x rset) int {
	if x == t.full {
		return -1
	}
	v := t.bounds(x)
	if len(v) == 0 || v[0] > 0 {
		return 0
	}
	return int(v[1])
}

// first returns the lowest rank in x, or -1 if x is empty.
func (t *isets) first(x rset) int {
	if x.id == 0 {
		return -1
	}
	return int(t.bounds(x)[0])
}
