// Package collective holds data-collective schedules for a hyper-crossbar whose
// node ports send and receive at once: the Hitachi seed's (JP3703304B2)
// optimal all-gather of "one-sided then mutual" transfers, every other order
// of the same steps, recursive doubling, the binomial broadcast and a
// Bruck-style all-gather for any node and item count; the verifier that proves
// a schedule by simulating which node holds which item; and the seed's cost
// model.
//
// A schedule moves D items of equal size among M nodes 0..M-1. Item i starts
// on node Placement[i] (distinct nodes). The schedule is a list of steps; a
// step is a set of transfers (src, dst, items) that run at the same time. A
// node's port has one out path and one in path (the seed's FIG. 14), so in one
// step a node sends at most one message and receives at most one. A step is
// one-sided ("O") when no two nodes send to each other in it, mutual ("M")
// when every transfer is answered by one in the opposite direction (pairs of
// nodes swap). At the end every item must be on every node.
//
// The pieces:
//
//   - Hitachi, Order, RecursiveDoubling, Broadcast and General generate
//     schedules; SeedPlacement, Orders and SeedOrders give their inputs.
//   - Schedule.Check and ReadSchedule validate a user's schedule.
//   - Verify proves a schedule (item sets step by step) or names the first
//     violation by step, node and item.
//   - StepCosts, Cost, CostModel and CompareOrders are the seed's cost model
//     ("one unit of time per item sent"; a step costs its largest transfer);
//     MinCost is the least cost any minimum-step all-gather can have.
//
// Node and item numbers are 0-based: the seed's memory M(k) is node k-1 and
// its data D(k) is item k-1. docs/collectives.md describes the schedules, the
// cost model, the seed's worked comparison as this package computes it, and
// what the seed leaves ambiguous.
package collective
