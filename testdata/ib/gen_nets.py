#!/usr/bin/env python3
"""Write the ibsim net files of the InfiniBand parser fixtures.

Usage: python3 gen_nets.py [FABRIC...]   (default: all of them)

Each fabric is written to <fabric>/<fabric>.net next to this script (the
torus also gets its torus-2QoS seed file, torus/torus-2QoS.conf). The
files are committed; this generator only documents and reproduces them.
regen.sh reads the .net files and does not need Python.

Conventions: node ids are explicit ("S-leaf0", "H-0", ...), no GUID
directives, so ibsim assigns GUIDs in file order (CAs from 0x100000,
advancing by nports+1; switches from 0x200000, advancing by 1). Every
link is written at both of its ends. Records appear in this order:
switches first, then hosts in index order.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Fabric:
    def __init__(self, name, header):
        self.name = name
        self.header = header
        self.nodes = []  # (kind, nports, nodeid) in file order
        self.ports = {}  # nodeid -> {port: (remote nodeid, remote port)}
        self.desc = {}   # nodeid -> node description, when not the id
        self.pre = {}    # nodeid -> directive lines before its record
        self.extra = {}  # other file name -> text, written beside the .net

    def node(self, kind, nports, nodeid, desc=None, pre=()):
        assert nodeid not in self.ports, nodeid
        self.nodes.append((kind, nports, nodeid))
        self.ports[nodeid] = {}
        if desc is not None:
            self.desc[nodeid] = desc
        self.pre[nodeid] = list(pre)

    def link(self, a, pa, b, pb):
        for n, p in ((a, pa), (b, pb)):
            nports = next(k[1] for k in self.nodes if k[2] == n)
            assert 1 <= p <= nports, (n, p)
            assert p not in self.ports[n], ("port used twice", n, p)
        self.ports[a][pa] = (b, pb)
        self.ports[b][pb] = (a, pa)

    def text(self):
        out = [self.header.rstrip("\n"), ""]
        for kind, nports, nodeid in self.nodes:
            out.extend(self.pre[nodeid])
            if nodeid in self.desc:
                out.append('%s %d "%s" # "%s"' % (kind, nports, nodeid, self.desc[nodeid]))
            else:
                out.append('%s %d "%s"' % (kind, nports, nodeid))
            for p in sorted(self.ports[nodeid]):
                r, rp = self.ports[nodeid][p]
                out.append('[%d] "%s"[%d]' % (p, r, rp))
            out.append("")
        return "\n".join(out)


def ft16():
    f = Fabric("ft16", """\
# ft16: 16-host 2-level fat tree, switch radix 8.
# 4 leaf switches S-leaf0..3: ports 1-4 go down to hosts H-(4*l)..H-(4*l+3),
# port 5+s goes up to spine S-spine<s> port 1+l.
# 4 spine switches S-spine0..3: ports 1-4 go down to the leaves, ports 5-8
# are unconnected.
""")
    for l in range(4):
        f.node("Switch", 8, "S-leaf%d" % l)
    for s in range(4):
        f.node("Switch", 8, "S-spine%d" % s)
    for h in range(16):
        f.node("Hca", 1, "H-%d" % h)
    for l in range(4):
        for p in range(4):
            f.link("S-leaf%d" % l, 1 + p, "H-%d" % (4 * l + p), 1)
        for s in range(4):
            f.link("S-leaf%d" % l, 5 + s, "S-spine%d" % s, 1 + l)
    return f


def ft64():
    f = Fabric("ft64", """\
# ft64: 64-host 3-level fat tree, a 4-ary 3-tree of 8-port switches.
# Pods q = 0..3; within a pod, leaf j = 0..3 and middle m = 0..3.
# Leaf S-leaf<4q+j>: ports 1-4 go down to hosts H-(16q+4j)..H-(16q+4j+3),
#   port 5+m goes up to middle S-mid<4q+m> port 1+j.
# Middle S-mid<4q+m>: ports 1-4 go down to the 4 leaves of pod q,
#   port 5+t goes up to top S-top<4m+t> port 1+q.
# Top S-top<4m+t>: ports 1-4 go down to middle switch m of each pod
#   (port 1+q <-> S-mid<4q+m>); ports 5-8 are unconnected.
# So two hosts in one leaf are 2 hops apart (via the leaf), in one pod 4
# (via a middle switch), in different pods 6 (via a top switch).
""")
    for i in range(16):
        f.node("Switch", 8, "S-leaf%d" % i)
    for i in range(16):
        f.node("Switch", 8, "S-mid%d" % i)
    for i in range(16):
        f.node("Switch", 8, "S-top%d" % i)
    for h in range(64):
        f.node("Hca", 1, "H-%d" % h)
    for q in range(4):
        for j in range(4):
            leaf = "S-leaf%d" % (4 * q + j)
            for p in range(4):
                f.link(leaf, 1 + p, "H-%d" % (16 * q + 4 * j + p), 1)
            for m in range(4):
                f.link(leaf, 5 + m, "S-mid%d" % (4 * q + m), 1 + j)
        for m in range(4):
            for t in range(4):
                f.link("S-mid%d" % (4 * q + m), 5 + t,
                       "S-top%d" % (4 * m + t), 1 + q)
    return f


def dualport():
    f = Fabric("dualport", """\
# dualport: 2 switches, 6 hosts, two of them with dual-port HCAs.
# S-0 (6 ports, all used): ports 1-2 -> H-0, H-1; port 3 -> H-4 port 1;
#   port 4 -> H-5 port 2; ports 5-6 -> S-1 ports 7-8 (two parallel links).
# S-1 (8 ports): ports 1-2 -> H-2, H-3; port 3 -> H-4 port 2;
#   port 4 -> H-5 port 1; ports 5-6 unconnected; ports 7-8 -> S-0.
# H-4 and H-5 are 2-port HCAs with each port on a different switch (H-5
# crossed: its port 1 is on S-1). Each HCA port gets its own LID.
""")
    f.node("Switch", 6, "S-0")
    f.node("Switch", 8, "S-1")
    for h in range(6):
        f.node("Hca", 2 if h >= 4 else 1, "H-%d" % h)
    f.link("S-0", 1, "H-0", 1)
    f.link("S-0", 2, "H-1", 1)
    f.link("S-0", 3, "H-4", 1)
    f.link("S-0", 4, "H-5", 2)
    f.link("S-1", 1, "H-2", 1)
    f.link("S-1", 2, "H-3", 1)
    f.link("S-1", 3, "H-4", 2)
    f.link("S-1", 4, "H-5", 1)
    f.link("S-0", 5, "S-1", 7)
    f.link("S-0", 6, "S-1", 8)
    return f


def torus():
    n = 4
    f = Fabric("torus", """\
# torus: 4x4 2-D torus of 8-port switches, one host per switch.
# Switch S-<x>-<y> (x, y = 0..3): port 1 = x+ (to S-<x+1>-<y> port 2),
#   port 2 = x-, port 3 = y+ (to S-<x>-<y+1> port 4), port 4 = y-
#   (indices mod 4), port 5 -> host H-<4y+x>; ports 6-8 unconnected.
# Switches are listed y-major (S-0-0, S-1-0, ..., S-3-3), so S-<x>-<y>
# gets node GUID 0x200000 + 4y + x.
""")
    for y in range(n):
        for x in range(n):
            f.node("Switch", 8, "S-%d-%d" % (x, y))
    for h in range(n * n):
        f.node("Hca", 1, "H-%d" % h)
    for y in range(n):
        for x in range(n):
            s = "S-%d-%d" % (x, y)
            f.link(s, 1, "S-%d-%d" % ((x + 1) % n, y), 2)
            f.link(s, 3, "S-%d-%d" % (x, (y + 1) % n), 4)
            f.link(s, 5, "H-%d" % (n * y + x), 1)
    f.extra["torus-2QoS.conf"] = TORUS_SEED
    return f


def mesh():
    n = 4
    f = Fabric("mesh", """\
# mesh: 4x4 2-D mesh (no wrap-around links) of 8-port switches, one host
# per switch, cabled like torus.net without the wrap-around cables.
# Switch S-<x>-<y> (x, y = 0..3): port 1 = x+ (to S-<x+1>-<y> port 2),
#   port 2 = x-, port 3 = y+ (to S-<x>-<y+1> port 4), port 4 = y-,
#   port 5 -> host H-<4y+x>; ports at the border and 6-8 unconnected.
# Switches are listed y-major, so S-<x>-<y> gets node GUID 0x200000 + 4y + x.
""")
    for y in range(n):
        for x in range(n):
            f.node("Switch", 8, "S-%d-%d" % (x, y))
    for h in range(n * n):
        f.node("Hca", 1, "H-%d" % h)
    for y in range(n):
        for x in range(n):
            s = "S-%d-%d" % (x, y)
            if x + 1 < n:
                f.link(s, 1, "S-%d-%d" % (x + 1, y), 2)
            if y + 1 < n:
                f.link(s, 3, "S-%d-%d" % (x, y + 1), 4)
            f.link(s, 5, "H-%d" % (n * y + x), 1)
    return f


def sw_guid(i):
    """Node GUID ibsim gives the i-th switch of a file (no GUID directives)."""
    return "0x%x" % (0x200000 + i)


TORUS_SEED = """\
# torus-2QoS seed for torus.net (see torus-2QoS.conf(5)): a 4 x 4 torus in
# x and y (z radix 1). Radix-4 dimensions need both the + and - links.
# S-<x>-<y> has node GUID 0x200000 + 4y + x; the seed switch is S-0-0.
torus 4 4 1
xp_link %s %s  # S-0-0 -> S-1-0
xm_link %s %s  # S-0-0 -> S-3-0
yp_link %s %s  # S-0-0 -> S-0-1
ym_link %s %s  # S-0-0 -> S-0-3
""" % (sw_guid(0), sw_guid(1), sw_guid(0), sw_guid(3),
       sw_guid(0), sw_guid(4), sw_guid(0), sw_guid(12))


def lid64():
    f = Fabric("lid64", """\
# lid64: one 64-port switch S-0 with 63 hosts H-0..H-62 (port 1+h -> H-h);
# port 64 is unconnected. With LMC 0 the subnet has exactly 64 LIDs, so
# every switch's LinearFDBTop is 64 (0x40), a multiple of 64: the case in
# which dump_fts/ibroute (infiniband-diags 44.0) leave out the last LID.
""")
    f.node("Switch", 64, "S-0")
    for h in range(63):
        f.node("Hca", 1, "H-%d" % h)
    for h in range(63):
        f.link("S-0", 1 + h, "H-%d" % h, 1)
    return f


def cluster():
    f = Fabric("cluster", """\
# cluster: a small fabric as production clusters have them: node
# descriptions that carry host names, a director switch whose ASICs share
# one system image GUID, and SHARP aggregation nodes in the edge switches.
# Director "ibcore01" (Mellanox IS4 ASICs: vendid 0x2c9, devid 0xbd36,
# sysimgguid 0x2c90300abc000, descriptions MF0;ibcore01:IS5100/<slot>/U1,
# which ibnetdiscover -g groups into a chassis with external port numbers):
#   line ASICs S-core-L1, S-core-L2 (8 ports): ports 1-2 -> S-leaf01,
#   S-leaf02; port 7 -> S-core-S1, port 8 -> S-core-S2.
#   spine ASICs S-core-S1, S-core-S2 (8 ports): port 1 -> L1, port 2 -> L2.
# Edge switches S-leaf01, S-leaf02 (MQM8700, 8 ports): ports 1-4 hosts,
#   port 5 -> L1, port 6 -> L2, port 7 unconnected, port 8 -> the
#   aggregation node H-an01/H-an02 ("Mellanox Technologies Aggregation Node").
# Hosts: H-0 node001, H-1 node002, H-2 and H-3 the two HCAs of node003
#   (mlx5_0 on leaf01, mlx5_1 on leaf02), H-4 node004, H-5 login01 with a
#   2-port HCA (port 1 on leaf01, port 2 on leaf02), H-6 Hydra (a host name
#   that starts with H).
""")
    mlx = ["vendid=0x2c9"]
    core = mlx + ["devid=0xbd36", "sysimgguid=0x2c90300abc000"]
    for slot in ("L1", "L2", "S1", "S2"):
        f.node("Switch", 8, "S-core-" + slot,
               "MF0;ibcore01:IS5100/%s0%s/U1" % (slot[0], slot[1]), core)
    for leaf in ("01", "02"):
        f.node("Switch", 8, "S-leaf" + leaf, "MF0;leaf%s:MQM8700/U1" % leaf,
               mlx + ["devid=0xcf08"])
    hosts = [("H-0", 1, "node001 mlx5_0"), ("H-1", 1, "node002 mlx5_0"),
             ("H-2", 1, "node003 mlx5_0"), ("H-3", 1, "node003 mlx5_1"),
             ("H-4", 1, "node004 mlx5_0"), ("H-5", 2, "login01 mlx4_0"),
             ("H-6", 1, "Hydra mlx5_0")]
    for i, (h, nports, desc) in enumerate(hosts):
        f.node("Hca", nports, h, desc, mlx + ["devid=0x101b"] if i == 0 else mlx)
    for an in ("H-an01", "H-an02"):
        f.node("Hca", 1, an, "Mellanox Technologies Aggregation Node", mlx)
    for l, line in enumerate(("S-core-L1", "S-core-L2")):
        f.link(line, 1, "S-leaf01", 5 + l)
        f.link(line, 2, "S-leaf02", 5 + l)
        f.link(line, 7, "S-core-S1", 1 + l)
        f.link(line, 8, "S-core-S2", 1 + l)
    for p, h in enumerate(("H-0", "H-1", "H-2")):
        f.link("S-leaf01", 1 + p, h, 1)
    f.link("S-leaf01", 4, "H-5", 1)
    for p, h in enumerate(("H-3", "H-4")):
        f.link("S-leaf02", 1 + p, h, 1)
    f.link("S-leaf02", 3, "H-5", 2)
    f.link("S-leaf02", 4, "H-6", 1)
    f.link("S-leaf01", 8, "H-an01", 1)
    f.link("S-leaf02", 8, "H-an02", 1)
    return f


AGG = "Mellanox Technologies Aggregation Node"


def sharp_tree(name, leaves, hosts, spines):
    """A 2-level fat tree with a SHARP aggregation node in every switch."""
    f = Fabric(name, """\
# %s: a 2-level fat tree with a SHARP aggregation node in every switch, as
# HDR fabrics with SHARP have them. %d leaves S-leaf<i>: ports 1-%d hosts,
# ports %d-%d -> spine 0-%d (port i+1 of each spine), port %d -> the
# leaf's aggregation node H-an-leaf<i>. %d spines S-spine<j>: ports 1-%d
# leaves, port %d -> H-an-spine<j>. Aggregation nodes are 1-port CAs
# described "%s".
# CA records: the spines' aggregation nodes, then per leaf its
# aggregation node and its hosts, so that ibsim gives the aggregation
# nodes GUIDs among the hosts' (as in a real fabric, where their GUIDs
# are those of their switches' ASICs).
""" % (name, leaves, hosts, hosts + 1, hosts + spines, spines - 1,
       hosts + spines + 1, spines, leaves, leaves + 1, AGG))
    for i in range(leaves):
        f.node("Switch", hosts + spines + 1, "S-leaf%d" % i)
    for j in range(spines):
        f.node("Switch", leaves + 1, "S-spine%d" % j)
    for j in range(spines):
        f.node("Hca", 1, "H-an-spine%d" % j, AGG)
    h = 0
    for i in range(leaves):
        f.node("Hca", 1, "H-an-leaf%d" % i, AGG)
        for p in range(hosts):
            f.node("Hca", 1, "H-%d" % h)
            f.link("S-leaf%d" % i, 1 + p, "H-%d" % h, 1)
            h += 1
        for j in range(spines):
            f.link("S-leaf%d" % i, hosts + 1 + j, "S-spine%d" % j, 1 + i)
        f.link("S-leaf%d" % i, hosts + spines + 1, "H-an-leaf%d" % i, 1)
    for j in range(spines):
        f.link("S-spine%d" % j, leaves + 1, "H-an-spine%d" % j, 1)
    return f


def sharp():
    return sharp_tree("sharp", 8, 8, 4)


def sharp576():
    return sharp_tree("sharp576", 32, 18, 16)


def loopback():
    f = Fabric("loopback", """\
# loopback: two leaves S-leaf0, S-leaf1 (8 ports: 1-3 hosts, 4-5 -> spine
# 0-1) and two spines S-spine0, S-spine1 (8 ports: 1-2 leaves), with
# loopback cables as real HDR fabrics have them (a port cabled to another
# port of the same switch): S-leaf0 port 7 <-> port 8, S-spine1 port
# 5 <-> port 6. Hosts H-0..H-5, three per leaf.
""")
    for i in range(2):
        f.node("Switch", 8, "S-leaf%d" % i)
    for j in range(2):
        f.node("Switch", 8, "S-spine%d" % j)
    for h in range(6):
        f.node("Hca", 1, "H-%d" % h)
        f.link("S-leaf%d" % (h // 3), 1 + h % 3, "H-%d" % h, 1)
    for i in range(2):
        for j in range(2):
            f.link("S-leaf%d" % i, 4 + j, "S-spine%d" % j, 1 + i)
    f.link("S-leaf0", 7, "S-leaf0", 8)
    f.link("S-spine1", 5, "S-spine1", 6)
    return f


def port2():
    f = Fabric("port2", """\
# port2: one switch S-0 (8 ports) and four hosts; H-p2 is a 2-port HCA
# cabled on port 2 only (port 1 unconnected, as in the example of the
# ibnetdiscover man page). It is the first CA record, so it has the lowest
# CA GUID (0x100000); H-0..H-2 are 1-port HCAs on S-0 ports 2-4.
""")
    f.node("Switch", 8, "S-0")
    f.node("Hca", 2, "H-p2")
    f.link("S-0", 1, "H-p2", 2)
    for h in range(3):
        f.node("Hca", 1, "H-%d" % h)
        f.link("S-0", 2 + h, "H-%d" % h, 1)
    return f


FABRICS = {"ft16": ft16, "ft64": ft64, "dualport": dualport, "torus": torus,
           "lid64": lid64, "cluster": cluster, "mesh": mesh,
           "sharp": sharp, "sharp576": sharp576, "loopback": loopback, "port2": port2}


def main(argv):
    names = argv[1:] or list(FABRICS)
    for name in names:
        if name not in FABRICS:
            sys.exit("gen_nets.py: unknown fabric %r (known: %s)"
                     % (name, " ".join(FABRICS)))
        f = FABRICS[name]()
        d = os.path.join(HERE, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name + ".net"), "w") as fh:
            fh.write(f.text())
        print("wrote %s/%s.net" % (name, name))
        for fname, text in sorted(f.extra.items()):
            with open(os.path.join(d, fname), "w") as fh:
                fh.write(text)
            print("wrote %s/%s" % (name, fname))


if __name__ == "__main__":
    main(sys.argv)
