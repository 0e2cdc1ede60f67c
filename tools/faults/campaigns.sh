#!/usr/bin/env bash
# The fault campaigns of docs/reliability.md: 1000 faults per kind on 4x4
# and 8x8 hyper-crossbars, for a barrier, a sum reduction and the Hitachi
# all-gather; one markdown table row per (system, kind).
# Usage: tools/faults/campaigns.sh [HXBAR] [extra flags for every run]
set -euo pipefail
HX=${1:-./hxbar}
shift || true
N=${N:-4000}
SEED=${SEED:-1}
echo "| system | kind | runs | injected | detected | recovered | reported | silent | detection latency mean / max | rerouted | extra cycles (recovered or rerouted) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for dims in 4,4 8,8; do
  for what in "barrier:--op barrier" "sum:--op sum" "allgather:--collective allgather --op barrier"; do
    name=${what%%:*}
    flags=${what#*:}
    # shellcheck disable=SC2086
    "$HX" faults --dims "$dims" $flags --campaign "$N" --seed "$SEED" --format json "$@" |
      python3 -c '
import json, sys
d = json.load(sys.stdin)
name = sys.argv[1]
for k in ["flip", "drop", "dead", "stuck"]:
    c = d["by_kind"][k]
    rr, extra = "-", "-"
    if k == "dead":
        rr = "%d" % c.get("rerouted", 0)
        if c.get("rerouted", 0):
            extra = "%.1f" % c.get("reroute_extra_cycles", 0)
    elif c["recovered"]:
        extra = "%.1f" % c.get("recover_extra_cycles", 0)
    lat = "-"
    if c.get("detect_latency_max", 0) > 0 or c.get("detect_latency_mean", 0) > 0:
        lat = "%.1f / %d" % (c.get("detect_latency_mean", 0), c.get("detect_latency_max", 0))
    print("| %s | %s | %d | %d | %d | %d | %d | %d | %s | %s | %s |" % (name, k, c["runs"], c["injected"], c["detected"], c["recovered"], c["reported"], c["silent"], lat, rr, extra))
' "${dims/,/x} $name"
  done
done
