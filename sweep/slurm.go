package sweep

import (
	"fmt"
	"regexp"
	"strings"
)

// SbatchName is the SLURM batch script --slurm writes into the directory.
const SbatchName = "sweep.sbatch"

// LogsDir holds the array tasks' standard output and error.
const LogsDir = "logs"

// Slurm describes the array job of a sharded sweep.
type Slurm struct {
	Hxbar     string // absolute path of the hxbar binary the tasks run
	Spec      string // absolute path of the spec
	Dir       string // absolute path of the sweep directory
	Tasks     int    // array tasks: task i runs shard i of Tasks
	Partition string // "" : the cluster's default partition
	Time      string // "" : the partition's default time limit
	Workers   int    // points each task runs at once (its --cpus-per-task); 0: 1
	JobName   string
}

var (
	partitionRE = regexp.MustCompile(`^[A-Za-z0-9_.,-]+$`)
	timeRE      = regexp.MustCompile(`^([0-9]+-)?[0-9]+(:[0-9]+){0,2}$`)
)

// partitionAllowed and timeAllowed say what Partition (--partition) and
// Time (--time) accept.
const (
	partitionAllowed = "a partition name (letters, digits, _ . -), or a comma-separated list"
	timeAllowed      = "a SLURM time limit: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS"
)

func checkPartition(p string) bool { return p == "" || partitionRE.MatchString(p) }
func checkTime(t string) bool      { return t == "" || timeRE.MatchString(t) }

// Check refuses a job Script cannot write safely: a partition or time limit
// sbatch would not read (each goes on an #SBATCH line as it is), a string
// holding a control character (a newline would end the #SBATCH directives
// and become a command of every task), a task count out of range.
func (s *Slurm) Check() error {
	if !checkPartition(s.Partition) {
		return fmt.Errorf("invalid --partition: %q (allowed: %s)", s.Partition, partitionAllowed)
	}
	if !checkTime(s.Time) {
		return fmt.Errorf("invalid --time: %q (allowed: %s)", s.Time, timeAllowed)
	}
	for _, f := range []struct{ name, v string }{{"the hxbar binary's path", s.Hxbar}, {"the spec's path", s.Spec},
		{"--out", s.Dir}, {"the job name (from the spec's file name)", s.JobName}} {
		if i := strings.IndexFunc(f.v, isControl); i >= 0 {
			return fmt.Errorf("%s %q holds a control character (%U at byte %d): a batch script cannot hold it; rename it", f.name, f.v, f.v[i], i)
		}
	}
	if s.Tasks < 1 || s.Tasks > MaxShards {
		return fmt.Errorf("invalid --tasks: %d (allowed: 1..%d, the shard limit)", s.Tasks, MaxShards)
	}
	return nil
}

func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029
}

// jobName is a job name fit for an #SBATCH line: sbatch reads the line up
// to a blank, so anything but letters, digits and _ . - becomes _.
func jobName(n string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '_' || r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, n)
}

// Script is the batch script (Check it first): an array job 0..Tasks-1 whose task i runs
// 'hxbar sweep SPEC --out DIR --shard i/Tasks'.
func (s *Slurm) Script() string {
	var b strings.Builder
	q := shellQuote
	workers := max(s.Workers, 1)
	b.WriteString("#!/bin/sh\n")
	b.WriteString("# Written by 'hxbar sweep --slurm': an array job, task i runs shard i of the\n")
	fmt.Fprintf(&b, "# sweep's points into %s/%s/i. When every task is done, merge them with\n", q(s.Dir), ShardsDir)
	fmt.Fprintf(&b, "#   %s sweep --collect %s\n", q(s.Hxbar), q(s.Dir))
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", jobName(s.JobName))
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", s.Tasks-1)
	b.WriteString("#SBATCH --ntasks=1\n")
	fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", workers)
	if s.Partition != "" {
		fmt.Fprintf(&b, "#SBATCH --partition=%s\n", s.Partition)
	}
	if s.Time != "" {
		fmt.Fprintf(&b, "#SBATCH --time=%s\n", s.Time)
	}
	fmt.Fprintf(&b, "#SBATCH --output=%s/%s/task-%%a.out\n", s.Dir, LogsDir)
	b.WriteString("set -eu\n")
	fmt.Fprintf(&b, "exec %s sweep %s --out %s --shard \"$SLURM_ARRAY_TASK_ID/%d\" --workers %d\n",
		q(s.Hxbar), q(s.Spec), q(s.Dir), s.Tasks, workers)
	return b.String()
}

// shellQuote quotes a word for sh.
func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+=:@,") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
