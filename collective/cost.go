package collective

// StepCost is the seed's cost of one step ([0073]-[0079]): one unit of time
// per item sent, the ports of all nodes working in parallel and a mutual
// transfer moving both directions at once, so a step takes as long as its
// largest transfer: the most items any single transfer carries.
func StepCost(st Step) int {
	c := 0
	for _, t := range st.Transfers {
		c = max(c, len(t.Items))
	}
	return c
}

// StepCosts returns StepCost of every step of s, in order.
func StepCosts(s *Schedule) []int {
	cs := make([]int, len(s.Steps))
	for i, st := range s.Steps {
		cs[i] = StepCost(st)
	}
	return cs
}

// Cost is the sum of the step costs of s: the seed's total "seconds" with one
// second per item ([0074]: OOMM costs 5 for 16 nodes and 4 items).
func Cost(s *Schedule) int {
	c := 0
	for _, st := range s.Steps {
		c += StepCost(st)
	}
	return c
}

// CostModel generalises the seed's model ([0073], [0080]): every step pays
// Setup (the seed's "preparation time", the same for every order of the same
// number of steps), and then StepCost times OneSided or Mutual, the time per
// item of a one-sided or a mutual step. UnitCost is the seed's worked
// comparison.
type CostModel struct {
	Setup    float64 `json:"setup"`
	OneSided float64 `json:"one_sided"`
	Mutual   float64 `json:"mutual"`
}

// UnitCost is the model of the seed's worked comparison: no setup, one unit
// per item in either kind of step. UnitCost.Time(s) == float64(Cost(s)).
var UnitCost = CostModel{Setup: 0, OneSided: 1, Mutual: 1}

// Time is the duration of schedule s under the model.
func (m CostModel) Time(s *Schedule) float64 {
	t := 0.0
	for _, st := range s.Steps {
		per := m.OneSided
		if st.Kind == KindMutual {
			per = m.Mutual
		}
		t += m.Setup + per*float64(StepCost(st))
	}
	return t
}

// OrderCost is the cost of one order of one-sided and mutual steps.
type OrderCost struct {
	Order     string `json:"order"`
	StepCosts []int  `json:"step_costs"`
	Cost      int    `json:"cost"`
}

// CompareOrders generates the schedule of every order (Orders) for M nodes, D
// items and placement place (nil: SeedPlacement) and returns their costs in
// the order of Orders. For M = 16 and D = 4 these are the seed's six sets.
func CompareOrders(M, D int, place []int) ([]OrderCost, error) {
	orders, err := Orders(M, D)
	if err != nil {
		return nil, err
	}
	out := make([]OrderCost, 0, len(orders))
	for _, o := range orders {
		s, err := Order(M, D, place, o)
		if err != nil {
			return nil, err
		}
		out = append(out, OrderCost{Order: o, StepCosts: StepCosts(s), Cost: Cost(s)})
	}
	return out, nil
}
