package lft

import "fmt"

// LMCSpread reports whether f routes by source over the LIDs of LMC ranges
// (see Builder.SetLMCSpread). Then the route from host src to host dst
// follows the switch tables of LID offset src mod 2^LMC(dst).
func (f *Fabric) LMCSpread() bool { return f.spreadMask != nil }

// SetLMCSpread makes the fabric route by source over LMC ranges, as
// multi-path MPI libraries spread connections over the LIDs of a port:
// host src reaches host dst over LID offset k = src & mask[dst] (mask[dst]
// is 2^LMC−1 of dst's port, or 0), and tables[k] (k ≥ 1) holds the switch
// rows of offset k in switch order, NumSwitches() × NumHosts() entries, the
// link a switch takes towards each host (-1: none). Offset 0 is the base
// table that Route entries build. Build checks every route the spread adds.
func (b *Builder) SetLMCSpread(mask []int32, tables [][]int32) {
	b.spreadMask, b.spreadTables = mask, tables
}

// installSpread checks the spread tables against the built fabric and
// makes them part of it.
func (f *Fabric) installSpread(mask []int32, tables [][]int32) error {
	H, S := len(f.hosts), len(f.switches)
	if len(mask) != H {
		return fmt.Errorf("LMC spread: %d masks for %d hosts", len(mask), H)
	}
	for k := 1; k < len(tables); k++ {
		if len(tables[k]) != S*H {
			return fmt.Errorf("LMC spread: table of offset %d has %d entries, want %d switches × %d hosts", k, len(tables[k]), S, H)
		}
	}
	for h, m := range mask {
		if m < 0 || int(m) >= len(tables) {
			return fmt.Errorf("LMC spread: host %s: mask %d needs %d tables, have %d", f.HostName(h), m, m+1, len(tables))
		}
	}
	all := newTables(len(tables)*S, H, f.maxRadix())
	if all.narrow != nil {
		copy(all.narrow, f.tab.narrow)
	} else {
		copy(all.wide, f.tab.wide)
	}
	f.tab = all
	for k := 1; k < len(tables); k++ {
		for i, l := range tables[k] {
			s, d := int32(i/H), int32(i%H)
			if err := f.setSwitchLink(k, s, d, l); err != nil {
				return fmt.Errorf("LMC spread: table of offset %d, entry towards %s: %w", k, f.HostName(int(d)), err)
			}
		}
	}
	f.spreadMask = mask
	return f.checkSpread()
}

// checkSpread checks the routes that LMC spread adds: every pair whose
// source uses a LID offset other than 0 (offset 0 is the base table).
func (f *Fabric) checkSpread() error {
	H := len(f.hosts)
	var bad int64
	first := [2]int32{-1, -1}
	var path []int32
	for dst := int32(0); dst < int32(H); dst++ {
		m := f.spreadMask[dst]
		for k := int32(1); k <= m; k++ {
			for src := k; src < int32(H); src += m + 1 {
				if src == dst || src&m != k {
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

// LIDOffset returns the LID offset over which host src reaches host dst:
// src mod 2^LMC of dst's port with LMC spread, else 0. Routes towards dst
// over the same offset follow the same switch tables, so the next hop from
// a node towards dst is a function of the offset alone.
func (f *Fabric) LIDOffset(src, dst int32) int32 {
	if f.spreadMask == nil {
		return 0
	}
	return src & f.spreadMask[dst]
}
