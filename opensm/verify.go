package opensm

import (
	"fmt"
	"strings"

	"orcs/ib"
)

// CompareRoutings checks that two dumps of the same fabric hold the same
// forwarding tables: the same switches, and for each the same routed LIDs
// with the same out ports. want is normally opensm-lfts.dump (what OpenSM
// set) and got the output of dump_fts (what the switches hold). A table of
// got may lack its top LID when that is a multiple of 64, which dump_fts of
// infiniband-diags 44.0 skips; such tables are returned in skipped (by
// switch description) and are otherwise equal.
func CompareRoutings(want, got *ib.Routing) (skipped []string, err error) {
	type table struct {
		lft  *ib.LFT
		port map[uint16]uint8
	}
	index := func(r *ib.Routing) (map[uint64]table, error) {
		m := make(map[uint64]table, len(r.Switches))
		for i := range r.Switches {
			t := &r.Switches[i]
			if _, dup := m[t.GUID]; dup {
				return nil, fmt.Errorf("%s:%d: second table for switch 0x%016x", r.File, t.Line, t.GUID)
			}
			ports := make(map[uint16]uint8, len(t.Entries))
			for _, e := range t.Entries {
				ports[e.LID] = e.Port
			}
			m[t.GUID] = table{t, ports}
		}
		return m, nil
	}
	w, err := index(want)
	if err != nil {
		return nil, err
	}
	g, err := index(got)
	if err != nil {
		return nil, err
	}
	var problems []string
	report := func(format string, args ...any) {
		if len(problems) < 10 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	for i := range want.Switches {
		wt := w[want.Switches[i].GUID]
		gt, ok := g[wt.lft.GUID]
		if !ok {
			report("switch 0x%016x (%s) is not in %s", wt.lft.GUID, wt.lft.Desc, got.File)
			continue
		}
		skippedTop := false
		for _, e := range wt.lft.Entries {
			p, ok := gt.port[e.LID]
			switch {
			case !ok && int(e.LID) == wt.lft.Top && wt.lft.Top%64 == 0:
				skippedTop = true
			case !ok:
				report("%s: switch %s: LID 0x%04x routed to port %d, but %s has no entry", want.File, wt.lft.Desc, e.LID, e.Port, got.File)
			case p != e.Port:
				report("%s: switch %s: LID 0x%04x goes to port %d, but to port %d in %s", want.File, wt.lft.Desc, e.LID, e.Port, p, got.File)
			}
		}
		for _, e := range gt.lft.Entries {
			if _, ok := wt.port[e.LID]; !ok {
				report("%s:%d: switch %s: LID 0x%04x routed to port %d, but %s has no entry", got.File, e.Line, gt.lft.Desc, e.LID, e.Port, want.File)
			}
		}
		if skippedTop {
			skipped = append(skipped, wt.lft.Desc)
		}
	}
	for i := range got.Switches {
		if _, ok := w[got.Switches[i].GUID]; !ok {
			report("%s:%d: switch 0x%016x (%s) is not in %s", got.File, got.Switches[i].Line, got.Switches[i].GUID, got.Switches[i].Desc, want.File)
		}
	}
	if len(problems) > 0 {
		return skipped, fmt.Errorf("the tables differ:\n  %s", strings.Join(problems, "\n  "))
	}
	return skipped, nil
}

// Verify compares the tables OpenSM dumped with those dump_fts read back
// from the switches (Options.DumpFTS) and says in one line what it found.
func (r *Result) Verify() (string, error) {
	skipped, err := CompareRoutings(r.LFTs, r.FTS)
	if err != nil {
		return "", fmt.Errorf("opensm-lfts.dump and dump_fts disagree: %w", err)
	}
	note := "verified: the switches hold the tables OpenSM dumped"
	if len(skipped) > 0 {
		note += fmt.Sprintf(" (dump_fts skipped the top LID of %d switches, a known infiniband-diags quirk)", len(skipped))
	}
	return note, nil
}
