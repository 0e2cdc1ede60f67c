#!/bin/bash
# tools/slurm/test.sh: 'hxbar sweep --slurm' on a real, single-node SLURM
# cluster started here and stopped again (make slurm, part of make test).
#
#   tools/slurm/test.sh [HXBAR] [SPEC]   (defaults: ./hxbar, examples/sweeps/small.yaml)
#
# It starts a private munged (its own key and socket), then slurmctld and
# slurmd with a minimal slurm.conf, all in a temporary directory; submits
# the sweep as an array job of 4 tasks with 'hxbar sweep --slurm'; waits
# for it; collects the shards; and checks the merge against a local run of
# the same spec: equal with the wall_ms column removed, and byte for byte
# equal to a local run that reuses the shards' records (docs/sweeps.md).
# The daemons it started are stopped by their pid files on every exit.
#
# It needs root (slurmd runs the jobs as their user): without root it
# skips, unless CI is set, where it runs the daemons with sudo. The
# packages (slurm-wlm, munge) are installed by 'make deps-slurm'.
set -euo pipefail

HXBAR=$(realpath "${1:-./hxbar}")
SPEC=$(realpath "${2:-examples/sweeps/small.yaml}")
TASKS=4
TIMEOUT=50 # seconds for the array job

SUDO=""
if [ "$(id -u)" != 0 ]; then
	if [ -z "${CI:-}" ]; then
		echo "slurm test: SKIPPED (needs root to run slurmd; run as root, or set CI=1 to use sudo)"
		exit 0
	fi
	SUDO="sudo -n"
fi
for c in munged mungekey slurmctld slurmd sbatch squeue; do
	if ! command -v "$c" >/dev/null; then
		echo "slurm test: $c not found (make deps-slurm installs slurm-wlm and munge)" >&2
		exit 1
	fi
done

T=$(mktemp -d /tmp/hxbar-slurm.XXXXXX)
chmod 755 "$T"
started=$(date +%s)

stop() { # SIGTERM to every daemon started, then wait for each (SIGKILL after 5 s)
	local f pids=""
	for f in "$T/slurmd.pid" "$T/slurmctld.pid" "$T/munge/munged.pid"; do
		[ -s "$f" ] && pids="$pids $(cat "$f")"
	done
	[ -n "$pids" ] || return 0
	$SUDO kill $pids 2>/dev/null || true
	for pid in $pids; do
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		$SUDO kill -9 "$pid" 2>/dev/null || true
	done
}
fail() {
	echo "slurm test: FAILED: $*" >&2
	for l in "$T/slurmctld.log" "$T/slurmd.log" "$T"/out/logs/*.out; do
		[ -f "$l" ] && { echo "--- $l (last lines)" >&2; tail -n 15 "$l" >&2; }
	done
	exit 1
}
cleanup() {
	local rc=$?
	stop
	if [ "$rc" = 0 ] && [ -z "${KEEP:-}" ]; then
		$SUDO rm -rf "$T"
	else
		echo "slurm test: files kept in $T" >&2
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# munge: a private daemon with its own key and socket.
mkdir -m 700 "$T/munge"
$SUDO mungekey -c -k "$T/munge/munge.key" 2>/dev/null || $SUDO dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
$SUDO chmod 400 "$T/munge/munge.key"
$SUDO munged -f --key-file="$T/munge/munge.key" --socket="$T/munge/munge.sock" \
	--pid-file="$T/munge/munged.pid" --log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed" ||
	fail "munged did not start"

# A free pair of ports for slurmctld and slurmd (another SLURM may run here).
port=$((20000 + RANDOM % 20000))
cpus=$(nproc)
mem=$(free -m | awk '/^Mem:/ { m = $2 - 512; if (m < 256) m = 256; print m }')
mkdir -p "$T/state" "$T/spool"
cat >"$T/slurm.conf" <<EOF
ClusterName=hxbartest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=sched_min_interval=0,sched_interval=1
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$T/slurm.conf"

$SUDO env SLURM_CONF="$SLURM_CONF" slurmctld -f "$SLURM_CONF" -i || fail "slurmctld did not start"
$SUDO env SLURM_CONF="$SLURM_CONF" slurmd -f "$SLURM_CONF" -N localhost || fail "slurmd did not start"
for _ in $(seq 100); do
	state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
	case "$state" in idle*|mix*|alloc*) break ;; esac
	sleep 0.2
done
case "$state" in idle*|mix*|alloc*) ;; *) fail "the node did not come up (state '$state')" ;; esac
echo "slurm test: single-node cluster up in $(( $(date +%s) - started )) s ($cpus CPUs, $mem MiB, port $port)"

# The sweep: submitted as an array job, waited for, collected.
out=$("$HXBAR" sweep "$SPEC" --out "$T/out" --slurm --tasks "$TASKS" --partition debug --time 5) || fail "hxbar sweep --slurm: $out"
echo "$out" | sed 's/^/  /'
job=$(echo "$out" | sed -n 's/^submitted: job \([0-9]*\).*/\1/p')
[ -n "$job" ] || fail "no job id in: $out"
submitted=$(date +%s.%N)
deadline=$(( $(date +%s) + TIMEOUT ))
while [ -n "$(squeue -h -j "$job" -o %i 2>/dev/null)" ]; do
	[ "$(date +%s)" -lt "$deadline" ] || { scancel "$job" || true; fail "job $job not done after $TIMEOUT s: $(squeue -h -j "$job" -o '%i %T %r')"; }
	sleep 0.3
done
echo "slurm test: job $job done in $(awk -v a="$submitted" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
for i in $(seq 0 $((TASKS - 1))); do
	[ -f "$T/out/logs/task-$i.out" ] || fail "task $i wrote no output (did it run?)"
done
"$HXBAR" sweep --collect "$T/out" || fail "hxbar sweep --collect"

# The merge against a local run.
"$HXBAR" sweep "$SPEC" --out "$T/local" --workers "$cpus" >/dev/null || fail "local run"
nowall_csv() { # drop the wall_ms column (its values are the only run-dependent cells)
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_ms") c = i }
		{ s = ""; for (i = 1; i <= NF; i++) if (i != c) s = s (s == "" ? "" : ",") $i; print s }' "$1"
}
nowall_jsonl() { sed -E 's/"wall_ms":[0-9.]+,//' "$1"; }
cmp -s <(nowall_csv "$T/local/results.csv") <(nowall_csv "$T/out/results.csv") ||
	fail "results.csv of the SLURM run differs from the local run (wall_ms aside): $(diff <(nowall_csv "$T/local/results.csv") <(nowall_csv "$T/out/results.csv") | head -5)"
cmp -s <(nowall_jsonl "$T/local/results.jsonl") <(nowall_jsonl "$T/out/results.jsonl") ||
	fail "results.jsonl of the SLURM run differs from the local run (wall_ms aside)"
# Byte for byte: a local run in the collected directory finds every point in
# the merged log (0 run) and must write exactly the collected files.
cp "$T/out/results.csv" "$T/collected.csv"
cp "$T/out/results.jsonl" "$T/collected.jsonl"
again=$("$HXBAR" sweep "$SPEC" --out "$T/out") || fail "local re-run in the collected directory"
case "$again" in *" 0 run, "*) ;; *) fail "the re-run ran points again: $again" ;; esac
cmp "$T/collected.csv" "$T/out/results.csv" || fail "collected results.csv is not byte for byte a local run's"
cmp "$T/collected.jsonl" "$T/out/results.jsonl" || fail "collected results.jsonl is not byte for byte a local run's"
rows=$(($(wc -l <"$T/out/results.csv") - 1))
echo "slurm test: passed: $rows points in $TASKS array tasks, merged = local run; $(( $(date +%s) - started )) s in all"
