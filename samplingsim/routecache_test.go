package samplingsim

import (
	"reflect"
	"testing"

	"orcs/lft"
)

// TestRouteCacheSameRun: packets that carry their message's route make the
// same run as packets that read it from the route cache and as packets
// forwarded by the tables hop by hop — same
// ground truth per window and link, same message times — on a fat tree
// and on a fabric read with LMC spread (source-aware routes).
func TestRouteCacheSameRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    *lft.Fabric
	}{
		{"kary:k=4,n=3", fabric(t, "kary:k=4,n=3")},
		{"ft16 minhop LMC 1, spread", readLMCFabric(t, true)},
	} {
		p, err := BuildPlan(tc.f, []JobSpec{{Workload: "random:msgs=6,size=20000", Hosts: allHosts(tc.f.NumHosts())}}, 3)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.Window = 2 * Microsecond
		cached, err := Run(tc.f, cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		oldInline := maxInline
		maxInline = 0 // no route in the packets: every hop reads the cache
		fromCache, err := Run(tc.f, cfg, p)
		maxInline = oldInline
		if err != nil {
			t.Fatal(err)
		}
		old := maxCachedLinks
		maxCachedLinks = 0 // nothing cached: every hop reads the tables
		tables, err := Run(tc.f, cfg, p)
		maxCachedLinks = old
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []struct {
			name string
			r    *Result
		}{{"by the tables", tables}, {"with routes read from the cache", fromCache}} {
			if cached.PacketHops != o.r.PacketHops || !reflect.DeepEqual(cached.Truth, o.r.Truth) ||
				!reflect.DeepEqual(cached.MsgFinish, o.r.MsgFinish) {
				t.Errorf("%s: the run with routes in the packets differs from the run %s (%d and %d packet-hops)",
					tc.name, o.name, cached.PacketHops, o.r.PacketHops)
			}
		}
		if cached.PacketHops == 0 {
			t.Errorf("%s: no traffic", tc.name)
		}
	}
}
