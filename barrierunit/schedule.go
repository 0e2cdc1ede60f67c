package barrierunit

// Route joins gate FromGate of rank FromRank to gate ToGate = FromGate+1 of
// rank ToRank. A route with FromRank == ToRank stays within the node.
// The JSON keys are the contract of `hxbar schedule --format json`.
type Route struct {
	FromRank int `json:"from_rank"`
	FromGate int `json:"from_gate"`
	ToRank   int `json:"to_rank"`
	ToGate   int `json:"to_gate"`
	Distance int `json:"distance"` // |FromRank - ToRank|
}

// Schedule is a complete gate schedule: ranks 0..Ranks-1, gates 1..Gates and
// the end gate Gates+1.
type Schedule struct {
	Ranks  int     `json:"ranks"`
	Algo   string  `json:"algo"`
	Gates  int     `json:"gates"`
	Routes []Route `json:"routes"`
}

// RankGates is one rank's compiled gate table (see docs/microarchitecture.md).
// Index g of Self, Need and Out is gate g; entries 0 (and 1 for Self/Need)
// are unused. len(Self) == len(Need) == Gates+2, len(Out) == Gates+1.
type RankGates struct {
	Self []bool  // Self[g]: route (r, g-1) -> (r, g) exists
	Need []int   // Need[g]: routes from other ranks arriving at (r, g)
	Out  [][]int // Out[g]: destination ranks of routes (r, g) -> (s, g+1), s != r, in schedule order
}

// Table is a schedule compiled into one gate table per rank.
type Table struct {
	Gates int
	Ranks []RankGates
}
