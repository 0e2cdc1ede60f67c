package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hxbar/hxbar/collective"
	"github.com/olekukonko/tablewriter"
)

// collectiveOpts are the flags a schedule family reads.
type collectiveOpts struct {
	nodes, items, root int
	order              string
	nearFirst          bool
}

// collectiveFamily is one --algo of 'hxbar collective': its name, the
// flags it reads besides --nodes, and its generator. The list is the one
// place the names, the help, the allowed values and the flag rules come
// from.
type collectiveFamily struct {
	name  string
	uses  []string
	build func(o collectiveOpts) (*collective.Schedule, error)
}

var collectiveFamilies = []collectiveFamily{
	{collective.AlgoHitachi, []string{"items"}, func(o collectiveOpts) (*collective.Schedule, error) {
		return collective.Hitachi(o.nodes, o.items, nil)
	}},
	{collective.AlgoOrder, []string{"items", "order"}, func(o collectiveOpts) (*collective.Schedule, error) {
		return collective.Order(o.nodes, o.items, nil, o.order)
	}},
	// Both directions of recursive doubling under one name; --near-first picks.
	{"recursive-doubling", []string{"near-first"}, func(o collectiveOpts) (*collective.Schedule, error) {
		return collective.RecursiveDoubling(o.nodes, !o.nearFirst)
	}},
	{collective.AlgoBroadcast, []string{"root"}, func(o collectiveOpts) (*collective.Schedule, error) {
		return collective.Broadcast(o.nodes, o.root)
	}},
	{collective.AlgoGeneral, []string{"items"}, func(o collectiveOpts) (*collective.Schedule, error) {
		return collective.General(o.nodes, o.items, nil)
	}},
}

// collectiveFamilyNames is "hitachi, order, ..." in list order.
func collectiveFamilyNames() string {
	var n []string
	for _, f := range collectiveFamilies {
		n = append(n, f.name)
	}
	return strings.Join(n, ", ")
}

func findCollectiveFamily(name string) *collectiveFamily {
	for i := range collectiveFamilies {
		if collectiveFamilies[i].name == name {
			return &collectiveFamilies[i]
		}
	}
	return nil
}

// runCollective prints a data-collective schedule (the Hitachi seed's
// one-sided/mutual all-gather, any step order, recursive doubling,
// broadcast, general all-gather) with the verifier's verdict and the seed's
// cost model, or compares every order of one-sided and mutual steps.
// collectiveFlags are the flags whose values the collective package checks.
var collectiveFlags = []string{"nodes", "items", "root", "order"}

func runCollective(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("collective", stderr)
	algo := fs.String("algo", collective.AlgoHitachi, "schedule: "+collectiveFamilyNames())
	nodes := fs.Int("nodes", 16, "number of nodes M")
	items := fs.Int("items", 4, "number of items D (hitachi, order, general)")
	order := fs.String("order", "", "step order for --algo order, e.g. OOMM")
	nearFirst := fs.Bool("near-first", false, "recursive doubling: shortest distance first (default: near-last)")
	root := fs.Int("root", 0, "broadcast: the node holding the item")
	compare := fs.Bool("compare", false, "compare every order of one-sided and mutual steps (the seed's table)")
	format := fs.String("format", "table", "output format: table or json")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if err := collectiveFlagsApply(fs.FlagSet, *compare, *algo); err != nil {
		return err
	}
	if *compare {
		costs, err := collective.CompareOrders(*nodes, *items, nil)
		if err != nil {
			return usageError{flagSpelled(err, collectiveFlags...)}
		}
		if *format == "json" {
			return json.NewEncoder(stdout).Encode(costs)
		}
		fmt.Fprintf(stdout, "all-gather of %d items on %d nodes: cost of every order (one unit per item sent; a step costs its largest transfer)\n", *items, *nodes)
		tw := tablewriter.NewWriter(stdout)
		tw.Header("order", "step costs", "cost", "vs cheapest")
		best := costs[0].Cost
		for _, c := range costs {
			best = min(best, c.Cost)
		}
		for _, c := range costs {
			tw.Append(c.Order, fmt.Sprint(c.StepCosts), c.Cost, fmt.Sprintf("%.2f", float64(c.Cost)/float64(best)))
		}
		return tw.Render()
	}
	fam := findCollectiveFamily(*algo)
	if fam == nil {
		return usagef("invalid --algo: %q (allowed: %s)", *algo, collectiveFamilyNames())
	}
	s, err := fam.build(collectiveOpts{nodes: *nodes, items: *items, root: *root, order: *order, nearFirst: *nearFirst})
	if err != nil {
		return usageError{flagSpelled(err, collectiveFlags...)}
	}
	rep := collective.Verify(s)
	if *format == "json" {
		return json.NewEncoder(stdout).Encode(struct {
			Schedule *collective.Schedule `json:"schedule"`
			Report   collective.Report    `json:"report"`
		}{s, rep})
	}
	fmt.Fprintf(stdout, "%s: %d nodes, %d items, %d steps, order %s (transfers as src->dst:[items])\n", s.Algo, s.Nodes, s.Items, len(s.Steps), s.Order)
	tw := tablewriter.NewWriter(stdout)
	tw.Header("step", "kind", "transfers", "cost")
	costs := collective.StepCosts(s)
	for i, st := range s.Steps {
		var tr []string
		for _, t := range st.Transfers {
			tr = append(tr, fmt.Sprintf("%d->%d:%v", t.Src, t.Dst, t.Items))
		}
		desc := strings.Join(tr, " ")
		if len(desc) > 120 {
			desc = desc[:117] + "..."
		}
		tw.Append(i+1, st.Kind, desc, costs[i])
	}
	if err := tw.Render(); err != nil {
		return err
	}
	if !rep.OK {
		return failure{"verifier: " + rep.Message}
	}
	fmt.Fprintf(stdout, "verifier: every item reaches every node; cost %d\n", rep.Cost)
	return nil
}

// collectiveFlagsApply refuses the flags --compare or the chosen --algo
// ignore.
func collectiveFlagsApply(fs *flag.FlagSet, compare bool, algo string) error {
	if compare {
		return refuseFlags(fs, "collective --compare", notApplicable{[]string{"algo", "order", "near-first", "root"},
			"it compares every order of the Hitachi all-gather of --items items on --nodes nodes"})
	}
	fam := findCollectiveFamily(algo)
	if fam == nil {
		return nil // an unknown --algo is refused by name below
	}
	uses := fam.uses
	var ignored []string
	for _, f := range []string{"items", "order", "near-first", "root"} {
		if !slices.Contains(uses, f) {
			ignored = append(ignored, f)
		}
	}
	why := "it reads --nodes"
	for _, f := range uses {
		why += ", --" + f
	}
	return refuseFlags(fs, "collective --algo "+algo, notApplicable{ignored, why})
}
