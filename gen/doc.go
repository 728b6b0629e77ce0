// Package gen generates fabrics of standard topologies together with their
// routing, ready to be simulated or written as ORCS dot with dot.Write.
//
// A topology is chosen by a spec string:
//
//	NAME[:KEY=VALUE[,KEY=VALUE...]]
//
// for example "kary:k=4,n=3", "fattree2:leaves=8,hosts=8,up=4",
// "torus:dims=4x4x4,hosts=2" or "mesh:dims=8x8", in the syntax of
// registry.Parse: white space may stand for the colon and the commas, so
// "kary k=4 n=3" is the same spec (a command line can join its arguments
// with blanks). Values are decimal integers; dims is a list of sizes joined
// by "x" (first size = x dimension). Each parameter may be given once;
// parameters with a default may be left out. Spec.String gives the
// canonical form with every parameter spelled out.
//
// The built-in topologies (see Topologies for their parameters):
//
//   - kary: the k-ary n-tree of Petrini and Vanneschi with d-mod-k routing.
//   - fattree2: a two-level fat tree (leaves and spines) with an optional
//     taper, with d-mod-k-like routing.
//   - torus and mesh: any number of dimensions, h hosts per switch,
//     dimension-order routing.
//   - fattree3: a three-level fat tree (pods of leaves and middle switches
//     under spines) with tapers at two levels, d-mod-k-like routing.
//   - dragonfly: groups of all-to-all connected routers joined by global
//     links, Dragonfly minimal routing (at most one global link per route).
//   - rail, superpod-h100, superpod-a100: rail-optimized GPU fabrics, one
//     leaf per (scalable unit, rail), spines (and cores) above, d-mod-k-like
//     routing; the hosts are named after node and HCA (H-dgx001_mlx5_0).
//
// Every generator writes exactly one routing entry per (switch, destination
// host) and one "*" entry per host (except rail with railonly=1, which has
// no route between rails), so the tables are complete and every
// route is minimal (a Dragonfly's routes are minimal among the routes with
// at most one global link, as Dragonfly routing defines it; a route through
// a third group can have fewer hops). Node and link order is stable: hosts H0, H1, … first (in
// host index order), then the switches, then the links, each cable as a
// pair of directed links (forward, reverse) with its real port numbers.
// Ports are numbered from 1 on every node.
//
// Adding a topology is adding one file whose init function calls register.
package gen
