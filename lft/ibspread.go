package lft

import "fmt"

// LMCSpread reports whether f routes by source over the LIDs of LMC ranges
// (built with IBOptions.LMCSpread from a fabric with some LMC > 0). Then
// AppendRoute from host src to host dst uses the switch tables of LID
// offset src mod 2^LMC(dst), and the per-destination tables that NextHop,
// CheckRoutes and WriteDot use are those of the base LIDs.
func (f *Fabric) LMCSpread() bool { return f.spread != nil }

// SpreadTable returns the switch table of routes from host src to host dst:
// entry s*NumHosts()+dst is the link switch index s uses. Without LMC
// spread it is the one base-LID table. The slice must not be modified.
func (f *Fabric) SpreadTable(src, dst int32) []int32 {
	if f.spread == nil {
		return f.swTab
	}
	return f.spread[src&f.spreadMask[dst]]
}

// NextHopFrom is NextHop on the route from host src: with LMC spread a
// switch's choice depends on the source's LID offset.
func (f *Fabric) NextHopFrom(src, v, dst int32) int32 {
	if s := f.switchOf[v]; s >= 0 {
		return f.SpreadTable(src, dst)[int(s)*len(f.hosts)+int(dst)]
	}
	return f.NextHop(v, dst)
}

// checkSpread checks the routes that LMC spread adds: every pair whose
// source uses a LID offset other than 0 (offset 0 is the base table, which
// CheckRoutes checks).
func (f *Fabric) checkSpread() error {
	H := len(f.hosts)
	var bad int64
	first := [2]int32{-1, -1}
	var path []int32
	for dst := int32(0); dst < int32(H); dst++ {
		m := f.spreadMask[dst]
		for k := int32(1); k <= m; k++ {
			for src := k; src < int32(H); src += m + 1 {
				if src == dst {
					continue
				}
				var st RouteStatus
				path, st = f.AppendRoute(path[:0], src, dst)
				if st != RouteOK {
					bad++
					if first[0] < 0 {
						first = [2]int32{src, dst}
					}
				}
			}
		}
	}
	if bad > 0 {
		src, dst := first[0], first[1]
		n := f.Nodes[f.hosts[dst]]
		lid := int(n.LID) + int(src&f.spreadMask[dst])
		return fmt.Errorf("LMC spread: %d host pairs do not route over the LID of their source's offset; first: %s to %s over LID %d (use the base LIDs: leave LMC spread off)",
			bad, f.HostName(int(src)), f.HostName(int(dst)), lid)
	}
	return nil
}
