#!/usr/bin/env python3
"""Write ibsim net files of rail-optimized GPU fabrics.

Usage: python3 gen_rail.py NODES RAILS SPINES > rail.net

One leaf switch per rail ("S-rail<r>"): rail r's HCA of every node on
its ports 1..NODES, then SPINES uplinks, one to each spine ("S-spine<s>",
port r+1), so a leaf has as many cables up as NODES when SPINES = NODES
(non-blocking) and fewer when tapered. Hosts are 1-port HCAs with ibsim
ids "H-n<i>-<r>" and node descriptions "node<ii> mlx5_<r>", as a DGX
node's HCAs are described; records: switches, then hosts node by node.
"""

import sys


def main():
    nodes, rails, spines = (int(a) for a in sys.argv[1:4])
    out = ["# rail-optimized: %d nodes x %d rails, one leaf per rail, %d spines" % (nodes, rails, spines),
           "# written by gen_rail.py %d %d %d" % (nodes, rails, spines), ""]
    for r in range(rails):
        out.append('Switch %d "S-rail%d"' % (nodes + spines, r))
        for i in range(nodes):
            out.append('[%d] "H-n%d-%d"[1]' % (i + 1, i + 1, r))
        for s in range(spines):
            out.append('[%d] "S-spine%d"[%d]' % (nodes + 1 + s, s, r + 1))
        out.append("")
    for s in range(spines):
        out.append('Switch %d "S-spine%d"' % (rails, s))
        for r in range(rails):
            out.append('[%d] "S-rail%d"[%d]' % (r + 1, r, nodes + 1 + s))
        out.append("")
    for i in range(nodes):
        for r in range(rails):
            out.append('Hca 1 "H-n%d-%d" # "node%02d mlx5_%d"' % (i + 1, r, i + 1, r))
            out.append('[1] "S-rail%d"[%d]' % (r, i + 1))
            out.append("")
    sys.stdout.write("\n".join(out))


main()
