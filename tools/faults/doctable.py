#!/usr/bin/env python3
"""Condense the JSON campaigns.sh keeps (OUT directories) into one
markdown table of docs/reliability.md: a row per (system, kind), per K
the counts detected / recovered / reported / silent, and the K = 1
detection latency, reroutes and extra cycles.
Usage: doctable.py DIR... (a later DIR's campaign replaces an earlier's)."""
import glob, json, os, re, sys

ORDER = ["flip", "drop", "dead", "stuck", "ackflip", "creditdrop"]
camps = {}  # (dims, what) -> {K: json}
for d in sys.argv[1:]:
    for path in glob.glob(os.path.join(d, "*.json")):
        m = re.match(r"(\d+x\d+)-(\w+)-k(\d)\.json$", os.path.basename(path))
        try:
            d = json.load(open(path))
        except ValueError:  # a campaign still running
            print("skipped %s" % path, file=sys.stderr)
            continue
        camps.setdefault((m[1], m[2]), {})[int(m[3])] = d
ks = sorted({k for c in camps.values() for k in c})
whats = ["barrier", "sum", "allgather"]
head = ["system", "kind", "runs per K"] + ["K = %d: det / rec / rep / **silent**" % k for k in ks]
head += ["K = 1: detection latency mean / max", "K = 1: rerouted", "K = 1: extra cycles"]
print("| " + " | ".join(head) + " |")
print("|" + " --- |" * len(head))
for dims, what in sorted(camps, key=lambda c: (int(c[0].split("x")[0]), whats.index(c[1]))):
    c = camps[(dims, what)]
    kinds = sorted(c[min(c)]["by_kind"], key=ORDER.index)
    for kind in kinds:
        row = ["%s %s" % (dims, what), kind, ", ".join(str(c[k]["by_kind"][kind]["runs"]) for k in ks if k in c)]
        for k in ks:
            if k not in c:
                row.append("-")
                continue
            x = c[k]["by_kind"][kind]
            row.append("%d / %d / %d / **%d**" % (x["detected"], x["recovered"], x["reported"], x["silent"]))
        x = c[1]["by_kind"][kind] if 1 in c else {}
        lat = "-"
        if x.get("detect_latency_mean") is not None:  # null: no run detected after a hit
            lat = "%.1f / %d" % (x["detect_latency_mean"], x["detect_latency_max"])
        rr, extra = "-", "-"
        if kind == "dead":
            rr = str(x.get("rerouted", 0))
            if x.get("rerouted", 0):
                extra = "%.1f" % x.get("reroute_extra_cycles", 0)
        elif x.get("recovered", 0):
            extra = "%.1f" % x.get("recover_extra_cycles", 0)
        print("| " + " | ".join(row + [lat, rr, extra]) + " |")

# The by_count totals per K over every system and collective.
print()
print("| K | runs | detected | recovered | reported | silent |")
print("| --- | --- | --- | --- | --- | --- |")
for k in ks:
    tot = {f: 0 for f in ["runs", "detected", "recovered", "reported", "silent"]}
    for c in camps.values():
        if k in c:
            for f in tot:
                tot[f] += c[k]["by_count"][str(k)][f]
    print("| %d | %d | %d | %d | %d | **%d** |" % (k, tot["runs"], tot["detected"], tot["recovered"], tot["reported"], tot["silent"]))
