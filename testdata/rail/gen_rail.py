#!/usr/bin/env python3
"""Write ibsim net files of rail-optimized GPU fabrics.

Usage: python3 gen_rail.py NODES RAILS SPINES [UNITS] > rail.net

UNITS scalable units (default 1) of NODES nodes each. One leaf switch per
unit and rail ("S-rail<r>", or "S-u<k>-rail<r>" with several units):
rail r's HCA of every node of the unit on its ports 1..NODES, then SPINES
uplinks, one to each spine ("S-spine<s>"), so a leaf has as many cables
up as NODES when SPINES = NODES (non-blocking) and fewer when tapered;
every spine has one cable to every leaf. Hosts are 1-port HCAs with ibsim
ids "H-n<i>-<r>" and node descriptions "node<ii> mlx5_<r>", as a DGX
node's HCAs are described; records: switches, then hosts node by node.
"""

import sys


def main():
    nodes, rails, spines = (int(a) for a in sys.argv[1:4])
    units = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    args = " ".join(sys.argv[1:])
    if units == 1:
        out = ["# rail-optimized: %d nodes x %d rails, one leaf per rail, %d spines" % (nodes, rails, spines),
               "# written by gen_rail.py %s" % args, ""]
    else:
        out = ["# rail-optimized: %d units of %d nodes x %d rails, one leaf per unit and rail, %d spines"
               % (units, nodes, rails, spines), "# written by gen_rail.py %s" % args, ""]

    def leaf(k, r):
        return "S-rail%d" % r if units == 1 else "S-u%d-rail%d" % (k, r)

    for k in range(units):
        for r in range(rails):
            out.append('Switch %d "%s"' % (nodes + spines, leaf(k, r)))
            for i in range(nodes):
                out.append('[%d] "H-n%d-%d"[1]' % (i + 1, k * nodes + i + 1, r))
            for s in range(spines):
                out.append('[%d] "S-spine%d"[%d]' % (nodes + 1 + s, s, k * rails + r + 1))
            out.append("")
    for s in range(spines):
        out.append('Switch %d "S-spine%d"' % (rails * units, s))
        for k in range(units):
            for r in range(rails):
                out.append('[%d] "%s"[%d]' % (k * rails + r + 1, leaf(k, r), nodes + 1 + s))
        out.append("")
    for n in range(nodes * units):
        for r in range(rails):
            out.append('Hca 1 "H-n%d-%d" # "node%02d mlx5_%d"' % (n + 1, r, n + 1, r))
            out.append('[1] "%s"[%d]' % (leaf(n // nodes, r), n % nodes + 1))
            out.append("")
    sys.stdout.write("\n".join(out))


main()
