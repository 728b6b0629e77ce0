// Package mapping places the ranks of a job onto the hosts of its
// allocation so that the job's communication congests the fabric as little
// as possible under the fabric's static routing.
//
// The job's communication is a Comm: messages between ranks in levels (an
// ORCS pattern, a pattern file) or one level of weighted messages (a traffic
// matrix, see ParseTraffic). A placement is scored by walking every route
// through the fabric's compiled forwarding tables, exactly as the analyzer
// does (see Score): per level, a cable's load is the summed weight of the
// level's routes that use it; the objective is first the congestion (the
// largest load of each level, summed over levels, ORCS's sum_max_cong) and
// then the sum of squared loads (see Objective).
//
// Strategies live in a registry by name (Strategies, Lookup), one file
// each: linear, random, greedy, rcm, bisect, tile and search. search is a
// simulated annealing over swaps of two hosts' ranks that re-scores a swap
// incrementally (only the routes of the two ranks change), so that it
// evaluates hundreds of thousands of candidates; it starts from the best of
// the constructive strategies and is deterministic for a seed.
package mapping
