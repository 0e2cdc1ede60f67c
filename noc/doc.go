// Package noc models the hyper-crossbar network of the Hitachi SR2201 /
// CP-PACS kind: nodes on a 1- to 4-dimensional grid, an exchanger (a switch
// with a local port and one port per dimension) at every node, and a crossbar
// per dimension line joining the exchangers on that line. It generates the
// routing tables (the exact tables the Verilog generator writes), proves them
// with gonum (every path reaches its destination, the channel dependency graph
// is acyclic), and runs the switches cycle by cycle as specified in
// docs/microarchitecture.md.
//
// The same cycle model also runs two model-only fabrics, a torus with two
// virtual channels per link direction (dateline routing) and a k-ary n-tree
// fat tree, through the Fabric interface (NewFabric, NewFabricNetwork,
// CheckFabric); docs/networks.md describes them.
package noc
