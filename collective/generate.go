package collective

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/hxbar/hxbar/hw"
)

// SeedOrders are the seed's six orders of two one-sided (O) and two mutual
// (M) steps for 16 nodes and 4 items, in its numbering: set 1 (the
// invention) to set 6 ([0037]).
var SeedOrders = []string{"OOMM", "OMOM", "OMMO", "MMOO", "MOMO", "MOOM"}

// SeedPlacement is the default placement: item i on node max(0, M-2D)+i.
// It is the one rule that reproduces both of the seed's worked examples: 16
// nodes and 4 items on nodes 8..11 (the seed's memories M(9)..M(12), [0026])
// and 16 nodes and 8 items on nodes 0..7 (M(1)..M(8), [0086]). It returns
// nil unless 1 <= D <= M.
func SeedPlacement(M, D int) []int {
	if D < 1 || D > M {
		return nil
	}
	base := max(0, M-2*D)
	p := make([]int, D)
	for i := range p {
		p[i] = base + i
	}
	return p
}

func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

func log2(n int) int { return bits.Len(uint(n)) - 1 }

// divisorList lists the powers of two d with lo <= d <= hi that divide M.
func divisorList(M, lo, hi int) string {
	var ds []string
	for d := 1; d <= M; d *= 2 {
		if d >= lo && d <= hi {
			ds = append(ds, itoa(d))
		}
	}
	return strings.Join(ds, ", ")
}

func checkPow2Nodes(M, lo int, why string) error {
	if !isPow2(M) || M < lo || M > hw.MaxCollectiveRanks {
		return &hw.FieldError{Field: "nodes", Value: M, Allowed: fmt.Sprintf("a power of two in %d..%d%s", lo, hw.MaxCollectiveRanks, why)}
	}
	return nil
}

// checkOrderArgs validates nodes and items of Order (strict: Hitachi's 1 < D < M).
func checkOrderArgs(M, D int, strict bool) error {
	if strict {
		if err := checkPow2Nodes(M, 4, " (the seed's M, with a divisor D and 1 < D < M)"); err != nil {
			return err
		}
		if D <= 1 || D >= M || M%D != 0 {
			return &hw.FieldError{Field: "items", Value: D, Allowed: fmt.Sprintf("a divisor of nodes=%d with 1 < items < %d: %s", M, M, divisorList(M, 2, M/2))}
		}
		return nil
	}
	if err := checkPow2Nodes(M, 1, ""); err != nil {
		return err
	}
	if D < 1 || D > M || M%D != 0 {
		return &hw.FieldError{Field: "items", Value: D, Allowed: fmt.Sprintf("a divisor of nodes=%d: %s", M, divisorList(M, 1, M))}
	}
	return nil
}

// orderAllowed is the allowed-values text of the order field.
func orderAllowed(M, D int) string {
	return fmt.Sprintf("%d O and %d M in any order for %d nodes and %d items", log2(M/D), log2(D), M, D)
}

// Orders lists every order of log2(M/D) one-sided and log2(D) mutual steps,
// in lexicographic order with O before M (so the Hitachi order comes first).
// M must be a power of two and D a divisor of M.
func Orders(M, D int) ([]string, error) {
	if err := checkOrderArgs(M, D, false); err != nil {
		return nil, err
	}
	a, b := log2(M/D), log2(D)
	var out []string
	buf := make([]byte, 0, a+b)
	var rec func(a, b int)
	rec = func(a, b int) {
		if a == 0 && b == 0 {
			out = append(out, string(buf))
			return
		}
		if a > 0 {
			buf = append(buf, 'O')
			rec(a-1, b)
			buf = buf[:len(buf)-1]
		}
		if b > 0 {
			buf = append(buf, 'M')
			rec(a, b-1)
			buf = buf[:len(buf)-1]
		}
	}
	rec(a, b)
	return out, nil
}

// Hitachi generates the seed's optimal all-gather (claim 1): M nodes (a power
// of two), D items (1 < D < M, D divides M) on the distinct nodes place (nil:
// SeedPlacement), log2(M/D) one-sided steps and then log2(D) mutual steps,
// log2(M) steps in all. It is Order with the order "O...OM...M"; with the
// seed's placements the transfers are exactly those of the seed's FIG. 20-26
// (16 nodes, 4 items) and FIG. 74-80 (16 nodes, 8 items).
func Hitachi(M, D int, place []int) (*Schedule, error) {
	if err := checkOrderArgs(M, D, true); err != nil {
		return nil, err
	}
	s, err := Order(M, D, place, strings.Repeat(KindOneSided, log2(M/D))+strings.Repeat(KindMutual, log2(D)))
	if err != nil {
		return nil, err
	}
	s.Algo = AlgoHitachi
	return s, nil
}

// Order generates the all-gather of D items among M nodes (M a power of two,
// D a divisor of M, 1 <= D <= M) whose steps have the kinds of order: a string
// of exactly log2(M/D) 'O' and log2(D) 'M' in any arrangement ("OOMM",
// "MOOM", ...). place (nil: SeedPlacement) holds D distinct nodes.
//
// Partners, for the canonical placement (the D items on the aligned block of
// nodes bD..bD+D-1, one per node): the k-th one-sided step pairs node h with
// h XOR M/2^k (distances M/2, M/4, ..., D), the k-th mutual step pairs h with
// h XOR 2^(k-1) (distances 1, 2, ..., D/2). In every step each node that holds
// items sends all of them to its partner: in an O step the partner holds
// nothing yet, in an M step it holds as many other items and sends them back.
// This reproduces all six of the seed's 16-node, 4-item figures (FIG. 20-71)
// transfer for transfer. A step's transfers carry 2^(mutual steps before it)
// items, which is the cost model of CompareOrders.
//
// Any other placement is a relabelling of nodes (on a hyper-crossbar every
// pair of nodes is the same distance apart): the aligned block holding the
// most items is the canonical one, items already in it keep their nodes, the
// others take its free nodes in item order, and the permutation swaps the
// remaining nodes as little as possible (nodes outside both sets stay put).
// Costs and step kinds do not change.
func Order(M, D int, place []int, order string) (*Schedule, error) {
	if err := checkOrderArgs(M, D, false); err != nil {
		return nil, err
	}
	def := SeedPlacement(M, D)
	if place == nil {
		place = def
	} else if err := checkPlacement(M, D, place, def); err != nil {
		return nil, err
	}
	a, b := log2(M/D), log2(D)
	if len(order) != a+b || strings.Count(order, KindOneSided) != a || strings.Count(order, KindMutual) != b {
		return nil, &hw.FieldError{Field: "order", Value: strconv.Quote(order), Allowed: orderAllowed(M, D)}
	}
	canon := canonicalBlock(M, D, place)
	perm := relabel(M, canon, place)
	plan := make([]pstep, 0, len(order))
	dO, dM := M/2, 1
	for _, c := range order {
		var d int
		kind := string(c)
		if kind == KindOneSided {
			d, dO = dO, dO/2
		} else {
			d, dM = dM, dM*2
		}
		plan = append(plan, pstep{kind: kind, partner: func(v int) int { return v ^ d }})
	}
	return build(AlgoOrder, M, D, place, canon, perm, plan)
}

// RecursiveDoubling generates the all-gather with one item per node (D = M,
// item r on node r): log2(M) mutual steps, each pairing node r with r XOR
// 2^k. nearLast orders the distances M/2, ..., 2, 1 (the Fujitsu seed's
// near-last order: the longest exchange first, the 1-hop exchange last, when
// the data is smallest); otherwise 1, 2, ..., M/2. Both cost M-1.
func RecursiveDoubling(M int, nearLast bool) (*Schedule, error) {
	if err := checkPow2Nodes(M, 1, ""); err != nil {
		return nil, err
	}
	place := make([]int, M)
	for i := range place {
		place[i] = i
	}
	algo := AlgoRecursiveDoublingNearFirst
	if nearLast {
		algo = AlgoRecursiveDoublingNearLast
	}
	var plan []pstep
	for k := range log2(M) {
		d := 1 << k
		if nearLast {
			d = M >> (k + 1)
		}
		plan = append(plan, pstep{kind: KindMutual, partner: func(v int) int { return v ^ d }})
	}
	return build(algo, M, M, place, place, place, plan)
}

// Broadcast generates the binomial-tree broadcast of one item from node root
// (the seed's "Recursive Broadcast Algorithm", FIG. 4-8): ceil(log2 M)
// one-sided steps (log2 M when M is a power of two); in step k+1 the nodes
// root+v (mod M) with v < 2^k send to root+v+2^k, so distances run 1, 2, 4,
// ... as in the seed's figures.
func Broadcast(M, root int) (*Schedule, error) {
	if M < 1 || M > hw.MaxCollectiveRanks {
		return nil, &hw.FieldError{Field: "nodes", Value: M, Allowed: "1.." + itoa(hw.MaxCollectiveRanks)}
	}
	if root < 0 || root >= M {
		return nil, &hw.FieldError{Field: "root", Value: root, Allowed: nodeRange(M)}
	}
	perm := make([]int, M)
	for v := range perm {
		perm[v] = (root + v) % M
	}
	var plan []pstep
	for k := range bits.Len(uint(M - 1)) {
		s := 1 << k
		plan = append(plan, pstep{kind: KindOneSided, partner: func(v int) int {
			if v < s && v+s < M {
				return v + s
			}
			return -1
		}})
	}
	return build(AlgoBroadcast, M, 1, []int{root}, []int{0}, perm, plan)
}

// General generates an all-gather for any M (1..hw.MaxCollectiveRanks) and D (1..M) on the
// distinct nodes place (nil: SeedPlacement), beyond the seed's conditions: a
// Bruck-style schedule of ceil(log2 M) steps, the minimum. The nodes are
// relabelled onto a virtual ring on which the items sit evenly spread
// (item i at floor(i*M/D)); in step k+1 ring position v sends to v+2^k
// (mod M) the items it holds that the receiver lacks. Such a shift step is
// one-sided (a node sends to one partner and receives from another); only
// when M is a power of two and D >= 2 is the last step (shift M/2) mutual,
// since each pair then swaps complementary halves (the even spread makes
// every pair's halves non-empty).
func General(M, D int, place []int) (*Schedule, error) {
	if M < 1 || M > hw.MaxCollectiveRanks {
		return nil, &hw.FieldError{Field: "nodes", Value: M, Allowed: "1.." + itoa(hw.MaxCollectiveRanks)}
	}
	if D < 1 || D > M {
		return nil, &hw.FieldError{Field: "items", Value: D, Allowed: fmt.Sprintf("1..%d (at most one item starts on each node)", M)}
	}
	def := SeedPlacement(M, D)
	if place == nil {
		place = def
	} else if err := checkPlacement(M, D, place, def); err != nil {
		return nil, err
	}
	canon := make([]int, D)
	for i := range canon {
		canon[i] = i * M / D
	}
	perm := relabel(M, canon, place)
	var plan []pstep
	for k := range bits.Len(uint(M - 1)) {
		s := 1 << k
		plan = append(plan, pstep{partner: func(v int) int { return (v + s) % M }})
	}
	return build(AlgoGeneral, M, D, place, canon, perm, plan)
}

// MinCost is the least cost (CompareOrders' units) of any all-gather of D
// items on distinct nodes among M nodes (M a power of two, D a divisor) that
// uses the minimum number of steps, log2(M): every item's holders must double
// in every step, so step s moves at least D*2^(s-1) item copies over at most M
// transfers, and the step costs at least ceil(D*2^(s-1)/M). The sum is
// log2(M/D) + D - 1, which the Hitachi order reaches.
func MinCost(M, D int) (int, error) {
	if err := checkOrderArgs(M, D, false); err != nil {
		return 0, err
	}
	c := 0
	for s := 1; s <= log2(M); s++ {
		c += (D<<(s-1) + M - 1) / M
	}
	return c, nil
}

// canonicalBlock chooses the aligned block of D nodes for Order's canonical
// schedule (the one holding the most items; ties go to SeedPlacement's block,
// then to the lowest) and returns each item's canonical node.
func canonicalBlock(M, D int, place []int) []int {
	count := make([]int, M/D)
	for _, p := range place {
		count[p/D]++
	}
	best := max(0, M-2*D) / D
	for k := range count {
		if count[k] > count[best] {
			best = k
		}
	}
	used := make([]bool, D)
	canon := make([]int, D)
	for i, p := range place {
		canon[i] = -1
		if p/D == best {
			canon[i] = p
			used[p%D] = true
		}
	}
	r := 0
	for i := range canon {
		if canon[i] < 0 {
			for used[r] {
				r++
			}
			canon[i] = best*D + r
			used[r] = true
		}
	}
	return canon
}

// relabel returns perm, a permutation of 0..M-1 with perm[canon[i]] =
// place[i], that fixes every node in neither set and maps the canonical
// nodes not holding items in place onto the placement nodes not holding
// items canonically, in ascending order.
func relabel(M int, canon, place []int) []int {
	perm := make([]int, M)
	inC := make([]bool, M)
	inP := make([]bool, M)
	for v := range perm {
		perm[v] = -1
	}
	for i, c := range canon {
		perm[c] = place[i]
		inC[c] = true
		inP[place[i]] = true
	}
	var cp []int
	for v := range M {
		if inC[v] && !inP[v] {
			cp = append(cp, v)
		}
	}
	k := 0
	for v := range M {
		switch {
		case inP[v] && !inC[v]:
			perm[v] = cp[k]
			k++
		case perm[v] < 0:
			perm[v] = v
		}
	}
	return perm
}

// pstep is one step of a plan in canonical node numbers: kind "" lets build
// classify it; partner returns the node v sends to, or -1.
type pstep struct {
	kind    string
	partner func(v int) int
}

// build runs a plan over item sets: in each step every canonical node v with
// a partner p sends the items it holds at the start of the step that p
// lacks (nothing when there are none). Transfers are written in physical
// nodes (perm) and sorted by sender; steps without transfers are dropped.
func build(algo string, M, D int, place, canon, perm []int, plan []pstep) (*Schedule, error) {
	W := (D + 63) / 64
	held := make([]uint64, M*W)
	for i, c := range canon {
		held[c*W+i/64] |= 1 << (i % 64)
	}
	s := &Schedule{Algo: algo, Nodes: M, Items: D, Placement: slices.Clone(place), Steps: []Step{}}
	type move struct{ v, p int }
	var order strings.Builder
	mask := make([]uint64, W)
	for _, ps := range plan {
		var ts []Transfer
		var moves []move
		var masks []uint64
		for v := range M {
			p := ps.partner(v)
			if p < 0 {
				continue
			}
			n := 0
			for w := range W {
				mask[w] = held[v*W+w] &^ held[p*W+w]
				n += bits.OnesCount64(mask[w])
			}
			if n == 0 {
				continue
			}
			items := make([]int, 0, n)
			for w := range W {
				for m := mask[w]; m != 0; m &= m - 1 {
					items = append(items, w*64+bits.TrailingZeros64(m))
				}
			}
			ts = append(ts, Transfer{Src: perm[v], Dst: perm[p], Items: items})
			moves = append(moves, move{v, p})
			masks = append(masks, mask...)
		}
		if len(ts) == 0 {
			continue
		}
		for k, mv := range moves {
			for w := range W {
				held[mv.p*W+w] |= masks[k*W+w]
			}
		}
		slices.SortFunc(ts, func(a, b Transfer) int { return a.Src - b.Src })
		kind := ps.kind
		if kind == "" {
			var err error
			if kind, err = classify(ts); err != nil {
				return nil, fmt.Errorf("collective: %s, %d nodes, %d items, step %d: %w", algo, M, D, len(s.Steps)+1, err)
			}
		}
		order.WriteString(kind)
		s.Steps = append(s.Steps, Step{Kind: kind, Transfers: ts})
	}
	s.Order = order.String()
	return s, nil
}

// classify names the kind of a step whose transfers are sorted by sender:
// mutual when every transfer is answered, one-sided when none is.
func classify(ts []Transfer) (string, error) {
	answered := 0
	for _, t := range ts {
		i, ok := slices.BinarySearchFunc(ts, t.Dst, func(x Transfer, n int) int { return x.Src - n })
		if ok && ts[i].Dst == t.Src {
			answered++
		}
	}
	switch answered {
	case 0:
		return KindOneSided, nil
	case len(ts):
		return KindMutual, nil
	}
	return "", fmt.Errorf("internal error: %d of %d transfers are answered, so the step is neither one-sided nor mutual", answered, len(ts))
}
