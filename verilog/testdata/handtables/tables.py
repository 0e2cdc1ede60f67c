#!/usr/bin/env python3
"""Hand tables: a second, independent writer of the .hex table files.

Written from docs/tables.md, docs/transfers.md ("Data table file"),
docs/microarchitecture.md (topology, node addresses, routing tables) and
docs/schedules.md (the butterfly), not from the Go code. It writes, for a
few small systems, every table the Verilog generator writes, into
verilog/testdata/handtables/<system>/. verilog/handtables_test.go compares
them word for word (comment lines aside) with what verilog.Generate writes
for the same systems and decodes them field by field.

Run from this directory:  python3 tables.py   (the output is committed)
"""

import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
M64 = (1 << 64) - 1
MAGIC = {"HXRT": 0x48585254, "HXGT": 0x48584754, "HXDT": 0x48584454}
PASS = 0xFF


def rotl1(c):
    return ((c << 1) | (c >> 63)) & M64


def checksum(body):
    c = 0
    for w in body:
        c = rotl1(c) ^ w
    return c


def write(path, magic, body, title, notes):
    """One word per line, 16 lower-case hex digits, a comment on each."""
    lines = ["// " + title]
    lines.append("%016x // header: magic %s, %d body words" % (MAGIC[magic] << 32 | len(body), magic, len(body)))
    lines.append("%016x // checksum" % checksum(body))
    for i, (w, n) in enumerate(zip(body, notes)):
        lines.append("%016x // body[%d]: %s" % (w, i, n))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


class System:
    def __init__(self, name, dims, ranks):
        self.name, self.dims, self.ranks = name, dims, ranks
        self.nodes = math.prod(dims)
        # address field widths: b_i = max(1, ceil(log2 K_i))
        self.bits = [max(1, math.ceil(math.log2(k))) for k in dims]

    def coords(self, node):  # dimension 0 fastest
        c = []
        for k in self.dims:
            c.append(node % k)
            node //= k
        return c

    def addr(self, node):
        a, shift = 0, 0
        for c, b in zip(self.coords(node), self.bits):
            a |= c << shift
            shift += b
        return a

    def switches(self):
        """(id, kind, k, line): exchangers 0..N-1, then the crossbars of
        dimension 0, line by line, then dimension 1, ..."""
        out = [(n, "exchanger", None, None) for n in range(self.nodes)]
        sid = self.nodes
        for k, K in enumerate(self.dims):
            for line in range(self.nodes // K):
                out.append((sid, "crossbar", k, line))
                sid += 1
        return out

    def routing_tables(self, d):
        for sid, kind, k, line in self.switches():
            if kind == "exchanger":
                x = self.coords(sid)
                body, notes = [], []
                for kk, K in enumerate(self.dims):
                    for c in range(K):
                        e = PASS if c == x[kk] else kk + 1
                        body.append(e)
                        notes.append("dim %d coord %d: %s" % (kk, c, "PASS" if e == PASS else "port %d" % e))
                title = "switch %d: exchanger of node %d %s" % (sid, sid, tuple(x))
            else:
                body = list(range(self.dims[k]))
                notes = ["entry %d = port %d" % (c, c) for c in body]
                title = "switch %d: crossbar of dimension %d, line %d" % (sid, k, line)
            write(os.path.join(d, "rt_s%d.hex" % sid), "HXRT", body, title, notes)


def butterfly(R):
    """docs/schedules.md, R = 2^n: G = n; at gate g rank r exchanges with
    r XOR 2^(G-g); every rank has a self route at every gate."""
    G = R.bit_length() - 1
    return G, {(r, g): [r ^ (1 << (G - g))] for r in range(R) for g in range(1, G + 1)}


def gate_tables(s, d, G, out, self_routes, need):
    """docs/tables.md, gate table; rank r on node r (default placement)."""
    for node in range(s.nodes):
        path = os.path.join(d, "gt_n%d.hex" % node)
        if node >= s.ranks:
            write(path, "HXGT", [0], "gate table of node %d: no rank" % node, ["no rank"])
            continue
        r = node
        body = [1 << 63 | G << 32 | r]
        notes = ["valid, G=%d, rank=%d" % (G, r)]
        routes, start = [], 0
        for g in range(1, G + 2):
            dst = out.get((r, g), [])
            sf = 1 if self_routes and 2 <= g else 0
            nd = need(r, g)
            body.append(sf << 40 | nd << 32 | len(dst) << 16 | start)
            notes.append("gate %d: self=%d need=%d routes %d from %d" % (g, sf, nd, len(dst), start))
            routes += dst
            start += len(dst)
        for j, t in enumerate(routes):
            body.append(t << 32 | s.addr(t))
            notes.append("route %d: to rank %d at address 0x%x" % (j, t, s.addr(t)))
        write(path, "HXGT", body, "gate table of node %d: rank %d" % (node, r), notes)
    return


def barrier_system(name, dims, ranks):
    s = System(name, dims, ranks)
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    G, out = butterfly(ranks)
    # need[g]: one route from the partner at every gate 2..G+1
    gate_tables(s, d, G, out, True, lambda r, g: 1 if g >= 2 else 0)
    s.routing_tables(d)


def allgather2(name, F):
    """docs/transfers.md: 2 ranks, 2 items (item i starts on rank i), one
    mutual step: rank r sends item r to rank 1-r. Step 1 is gate 1, its
    route goes to the partner's gate 2; no self routes; need[2] = 1."""
    s = System(name, [2], 2)
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    out = {(r, 1): [1 - r] for r in range(2)}
    gate_tables(s, d, 1, out, False, lambda r, g: 1 if g == 2 else 0)
    s.routing_tables(d)
    for r in range(2):
        p = 1 - r
        items = [(r, r), (p, p)]  # send list (route 0), then gate 2's expected list
        body = [F << 32 | len(items),
                p << 48 | 1 << 24 | 0,   # route 0: to rank p, 1 item from word 0
                p << 48 | 1 << 24 | 1]   # gate 2: from rank p, 1 item from word 1
        notes = ["F=%d flits per item, L=%d item-list words" % (F, len(items)),
                 "route 0: to rank %d, 1 item from item-list word 0" % p,
                 "gate 2: expects rank %d, 1 item from item-list word 1" % p]
        for n, (o, i) in enumerate(items):
            body.append(o << 48 | i << 32)
            notes.append("item-list word %d: item %d, origin rank %d" % (n, i, o))
        write(os.path.join(d, "dt_n%d.hex" % r), "HXDT", body, "data table of node %d: rank %d" % (r, r), notes)


if __name__ == "__main__":
    barrier_system("bfly2", [2], 2)
    barrier_system("line4", [4], 4)
    barrier_system("grid3x2-r4", [3, 2], 4)
    allgather2("ag2-f2", 2)
