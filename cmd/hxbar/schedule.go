package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/hxbar/hxbar/barrierunit"
	"github.com/hxbar/hxbar/hw"
	"github.com/hxbar/hxbar/internal/inputfile"
	"github.com/olekukonko/tablewriter"
)

// maxTableRanks bounds the schedules printed as a table (a route a row).
const maxTableRanks = 4096

func runSchedule(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("schedule", stderr)
	ranks := fs.Int("ranks", 16, fmt.Sprintf("number of ranks R: 1..%d for --format table; with --format json up to %d (butterfly, butterfly-near-first) or %d (dissemination)",
		maxTableRanks, barrierunit.MaxRanksFor(hw.AlgoButterfly), barrierunit.MaxRanksFor(hw.AlgoDissemination)))
	algo := fs.String("algo", string(hw.AlgoButterfly), "schedule: "+hw.Join(hw.Algorithms))
	format := fs.String("format", "table", "output format: table or json")
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if hi := barrierunit.MaxRanksFor(hw.Algorithm(*algo)); hi > 0 {
		// The range the command accepts, stated once: what Generate builds
		// for this algo, and for a table what a terminal can show.
		allowed := fmt.Sprintf("1..%d for --algo %s, the largest route list (%d routes); sim builds larger systems' gate tables without one", hi, *algo, barrierunit.MaxRoutes)
		if *format == "table" && hi > maxTableRanks {
			hi, allowed = maxTableRanks, fmt.Sprintf("1..%d for --format table; use --format json for larger schedules", maxTableRanks)
		}
		if *ranks < 1 || *ranks > hi {
			return usagef("invalid --ranks: %d (allowed: %s)", *ranks, allowed)
		}
	}
	if *format == "json" {
		return writeGeneratedScheduleJSON(stdout, hw.Algorithm(*algo), *ranks)
	}
	s, err := barrierunit.Generate(hw.Algorithm(*algo), *ranks)
	if err != nil {
		return usageError{flagSpelled(err, "algo", "ranks")}
	}
	fmt.Fprintf(stdout, "%s schedule for %d ranks: gates 1..%d, end gate %d, %d routes (distance 0 = within the node)\n",
		s.Algo, s.Ranks, s.Gates, s.Gates+1, len(s.Routes))
	tw := tablewriter.NewWriter(stdout)
	tw.Header("from rank", "from gate", "to rank", "to gate", "distance")
	for _, r := range s.Routes {
		tw.Append(r.FromRank, r.FromGate, r.ToRank, r.ToGate, r.Distance)
	}
	if err := tw.Render(); err != nil {
		return err
	}
	rep := barrierunit.Verify(s, barrierunit.OpSum)
	if s.Algo == string(hw.AlgoDissemination) {
		rep = barrierunit.Verify(s, barrierunit.OpMax)
	}
	fmt.Fprintf(stdout, "verifier: %s\n", rep)
	return nil
}

func runVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("verify", stderr)
	fs.forms = []string{"[flags] FILE    FILE: a gate schedule (the JSON of 'hxbar schedule --format json')"}
	opName := fs.String("op", "", "op to prove the schedule for (default: sum, falling back to barrier)")
	format := fs.String("format", "table", "output format: table or json")
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	args = fs.args
	if len(args) != 1 {
		return usagef("verify needs one schedule FILE (the JSON of 'hxbar schedule --format json')")
	}
	s, err := readVerifyFile(args[0])
	if err != nil {
		return usageError{err}
	}
	var rep barrierunit.Report
	note := ""
	if *opName != "" {
		op, err := barrierunit.ParseOp(*opName)
		if err != nil {
			return usageError{err}
		}
		rep = barrierunit.Verify(s, op)
	} else if rep = barrierunit.Verify(s, barrierunit.OpSum); !rep.OK {
		sum := rep
		if rep = barrierunit.Verify(s, barrierunit.OpBarrier); rep.OK {
			note = " (not a sum reduction: " + sum.Message + ")"
		}
	}
	if *format == "json" {
		if err := json.NewEncoder(stdout).Encode(rep); err != nil {
			return err
		}
	} else if rep.OK {
		fmt.Fprintf(stdout, "%s: %s%s\n", rep.Kind, rep.Message, note)
	}
	if !rep.OK {
		return failure{rep.String()}
	}
	return nil
}

// readVerifyFile reads a schedule to prove or refute: any schedule the
// verifier can execute, so that one which deadlocks is reported as a
// deadlock (exit 1), not refused as input (readScheduleFile, for runs).
func readVerifyFile(name string) (*barrierunit.Schedule, error) {
	data, err := inputfile.ReadInput(name)
	if err != nil {
		return nil, err
	}
	s, err := barrierunit.ReadExecutable(bytes.NewReader(data))
	if err != nil {
		if bytes.Contains(data, []byte(`"transfers"`)) {
			return nil, fmt.Errorf("%s: %w (this looks like a data schedule: verify proves gate schedules; 'hxbar sim --collective allgather --schedule FILE' verifies a data schedule before it runs)", name, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}
