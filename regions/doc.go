// Package regions finds congestion regions in per-cable stall values, after
// Monet (Jha et al., NSDI 2020, §4 and appendix D): connected sets of
// cables with similar stall values, found per time window by a four-stage
// segmentation over a graph whose vertices are the directed cables of a
// fabric, classified by severity, and followed across windows.
//
// The inputs are the packet simulator's ground truth (time stalled for
// credits per window), the analyzer's cable loads mapped to stall-like
// percentages, port counters of a real fabric (perfquery -x snapshots:
// PortXmitWait over PortXmitData + PortXmitWait per port and interval),
// and a documented CSV. Monet's synthetic benchmark (random cuboids of
// congestion on a 24×24×24 torus, Gaussian noise) scores the method.
package regions
