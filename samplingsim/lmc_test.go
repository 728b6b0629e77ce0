package samplingsim

import (
	"path/filepath"
	"slices"
	"testing"

	"orcs/ib"
	"orcs/lft"
)

// lmcFixture is an OpenSM minhop routing of a 16-host two-level fat tree
// with LMC 1: every host owns two LIDs, and minhop sends them over
// different up-links (see testdata/ib/README.md).
var lmcFixture = filepath.Join("..", "testdata", "ib", "ft16", "minhop-lmc1")

// readLMCFabric reads the LMC 1 fixture with or without LMC spread.
func readLMCFabric(t *testing.T, spread bool) *lft.Fabric {
	t.Helper()
	f, err := ib.ReadFiles(filepath.Join(lmcFixture, "ibnetdiscover.txt"),
		filepath.Join(lmcFixture, "opensm-lfts.dump"), ib.Options{LMCSpread: spread, Names: ib.NamesDesc})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestLMCSpreadForwarding runs traffic from sources of LID offset 1 on a
// fabric read with LMC spread. Packets must cross the links of the
// source-aware routes (AppendRoute), and the receivers, which credit the
// links of those routes, must credit only links that packets crossed.
//
// The traffic is chosen so that it tells the two rules apart: some links
// of its spread routes lie on none of its base-LID routes, so a switch
// that forwarded by the base-LID table would leave them idle while the
// receivers credit them.
func TestLMCSpreadForwarding(t *testing.T) {
	f := readLMCFabric(t, true)
	base := readLMCFabric(t, false)
	if !f.LMCSpread() || f.NumHosts() != 16 || len(f.Links) != len(base.Links) {
		t.Fatalf("fixture: spread %v, %d hosts, %d and %d links", f.LMCSpread(), f.NumHosts(), len(f.Links), len(base.Links))
	}
	for l := range f.Links {
		if f.LinkName(int32(l)) != base.LinkName(int32(l)) {
			t.Fatalf("link %d is %s with spread, %s without", l, f.LinkName(int32(l)), base.LinkName(int32(l)))
		}
	}

	// Every odd host (LID offset 1 towards every host: all have LMC 1)
	// sends to every even host.
	var msgs []Message
	for s := int32(1); s < 16; s += 2 {
		for d := int32(0); d < 16; d += 2 {
			msgs = append(msgs, Message{Src: s, Dst: d, Bytes: 3 * 4096})
		}
	}
	want := make([]int64, len(f.Links)) // packets per link on the spread routes
	onBase := make([]bool, len(f.Links))
	changed := 0
	var route, baseRoute []int32
	for _, m := range msgs {
		var st lft.RouteStatus
		route, st = f.AppendRoute(route[:0], m.Src, m.Dst)
		if st != lft.RouteOK {
			t.Fatalf("%s to %s: %v", f.HostName(int(m.Src)), f.HostName(int(m.Dst)), st)
		}
		baseRoute, _ = base.AppendRoute(baseRoute[:0], m.Src, m.Dst)
		if !slices.Equal(route, baseRoute) {
			changed++
		}
		for _, l := range route {
			want[l] += 3
		}
		for _, l := range baseRoute {
			onBase[l] = true
		}
	}
	var spreadOnly []string
	for l, n := range want {
		if n > 0 && !onBase[l] {
			spreadOnly = append(spreadOnly, f.LinkName(int32(l)))
		}
	}
	t.Logf("%d of %d pairs route differently from their base LIDs; links only on spread routes: %v", changed, len(msgs), spreadOnly)
	if changed == 0 || len(spreadOnly) == 0 {
		t.Fatalf("the fixture does not spread this traffic: %d changed routes, %d links only on spread routes", changed, len(spreadOnly))
	}

	for _, scheme := range []string{"reservoir", "onebit", "onereservoir"} {
		cfg := DefaultConfig()
		cfg.Scheme = scheme
		cfg.FalsePositiveConfidence = 0
		r := mustRun(t, f, cfg, planOf(f, msgs...))
		est := r.Estimates(AllJobs, -1)
		for l := range f.Links {
			tr := r.TruthOf(-1, int32(l))
			name := f.LinkName(int32(l))
			if tr.Packets != want[l] {
				t.Errorf("%s: link %s carried %d packets, its source-aware routes %d", scheme, name, tr.Packets, want[l])
			}
			e := est[l]
			if (e.W != 0 || e.Q != 0 || e.C != 0) && tr.Packets == 0 {
				t.Errorf("%s: receivers credit link %s (W=%d, Q=%d, C=%d), which no packet crossed", scheme, name, e.W, e.Q, e.C)
			}
			// With the route restriction every received packet updates
			// each switch link of its route once: Q counts the packets.
			if scheme != "reservoir" && r.Sampled(int32(l)) && e.Q != tr.Packets {
				t.Errorf("%s: receivers updated link %s for %d packets, %d crossed it", scheme, name, e.Q, tr.Packets)
			}
		}
	}
}
