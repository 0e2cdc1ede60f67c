#!/usr/bin/env bash
# The fault campaigns of docs/reliability.md: N runs per fault kind and
# per number of faults in a run (K), on 4x4 and 8x8 hyper-crossbars, for a
# barrier, a sum reduction and the Hitachi all-gather; one markdown table
# row per (system, K, kind). The kinds are every kind the system can meet
# (the by_kind keys of hxbar faults' JSON: ackflip only with --link-retry).
# Each campaign's JSON (with by_kind and by_count) is kept in $OUT.
# Usage: tools/faults/campaigns.sh [HXBAR] [extra flags for every run]
# Environment: N (runs per kind and K, default 1000), PER_RUN (the Ks,
# default "1 2"), DIMS (default "4,4 8,8"), WHAT (default "barrier sum
# allgather"), SEED (default 1), OUT (a directory the script creates: it
# must not exist; default a new temporary directory). The script writes
# only into the directory it made, and never over a file (noclobber).
set -euo pipefail
HX=${1:-./hxbar}
shift || true
N=${N:-1000}
PER_RUN=${PER_RUN:-1 2}
DIMS=${DIMS:-4,4 8,8}
WHAT=${WHAT:-barrier sum allgather}
SEED=${SEED:-1}
if [ -n "${OUT:-}" ]; then
  mkdir -- "$OUT" || { echo "campaigns.sh: OUT=$OUT: must be a new directory" >&2; exit 2; }
else
  OUT=$(mktemp -d)
fi
set -o noclobber
echo "JSON in $OUT" >&2

flags_of() {
  case $1 in
    barrier) echo "--op barrier" ;;
    sum) echo "--op sum" ;;
    allgather) echo "--collective allgather --op barrier" ;;
    *) echo "unknown collective $1" >&2; return 1 ;;
  esac
}

echo "| system | K | kind | runs | injected | detected | recovered | reported | silent | detection latency mean / max | rerouted | extra cycles (recovered or rerouted) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for dims in $DIMS; do
  for name in $WHAT; do
    flags=$(flags_of "$name")
    # One run tells the kinds this system meets (by_kind's keys).
    # shellcheck disable=SC2086
    nkinds=$("$HX" faults --dims "$dims" $flags --campaign 1 --seed "$SEED" --format json "$@" |
      python3 -c 'import json, sys; print(len(json.load(sys.stdin)["by_kind"]))')
    for k in $PER_RUN; do
      json="$OUT/${dims/,/x}-$name-k$k.json"
      # shellcheck disable=SC2086
      "$HX" faults --dims "$dims" $flags --campaign $((N * nkinds)) --per-run "$k" \
        --seed "$SEED" --format json "$@" >"$json" || true
      python3 - "${dims/,/x} $name" "$k" "$json" <<'EOF'
import json, sys
name, K, path = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(path))
order = ["flip", "drop", "dead", "stuck", "ackflip", "creditdrop"]
for k in sorted(d["by_kind"], key=lambda k: (order.index(k) if k in order else len(order), k)):
    c = d["by_kind"][k]
    rr, extra = "-", "-"
    if k == "dead":
        rr = "%d" % c.get("rerouted", 0)
        if c.get("rerouted", 0):
            extra = "%.1f" % c.get("reroute_extra_cycles", 0)
    elif c["recovered"]:
        extra = "%.1f" % c.get("recover_extra_cycles", 0)
    lat = "-"
    if c.get("detect_latency_mean") is not None:  # null: no run detected after a hit
        lat = "%.1f / %d" % (c["detect_latency_mean"], c["detect_latency_max"])
    print("| %s | %s | %s | %d | %d | %d | %d | %d | %d | %s | %s | %s |" % (name, K, k, c["runs"], c["injected"], c["detected"], c["recovered"], c["reported"], c["silent"], lat, rr, extra))
EOF
    done
  done
done
