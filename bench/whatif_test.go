package bench

import (
	"context"
	"testing"

	"orcs/gen"
	"orcs/lft"
	"orcs/opensm"
	"orcs/whatif"
)

// benchWhatifRoute routes single leaf up-link failures of the 64-host fat
// tree (kary k=4 n=3) with minhop, one set per iteration (two sets in
// turn, so that every iteration changes cables): cold (a fresh ibsim and
// OpenSM) or on a running OpenSM (opensm.Session, as orcs whatif does).
// The wall time per routing depends on the machine's load: write it down
// with the load average.
func benchWhatifRoute(b *testing.B, warm bool) {
	tl, err := opensm.FindTools()
	if err != nil {
		b.Skipf("OpenSM tools: %v", err)
	}
	n, err := gen.Build("kary:k=4,n=3")
	if err != nil {
		b.Fatal(err)
	}
	plan, err := whatif.NewPlan(n.Fabric, true)
	if err != nil {
		b.Fatal(err)
	}
	sets, err := plan.Sets([]string{"link:S0_0/6", "link:S0_1/7"}, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	var gs []*lft.Fabric
	for _, s := range sets {
		g, _, err := plan.Apply(s)
		if err != nil {
			b.Fatal(err)
		}
		gs = append(gs, g)
	}
	opt := opensm.Options{Engine: "minhop", KeepPorts: true, AllowFallback: true, Tools: tl}
	ctx := context.Background()
	var s *opensm.Session
	if warm {
		if s, _, err = opensm.StartSession(ctx, plan.Fabric, opt); err != nil {
			b.Fatal(err)
		}
		defer s.Close()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g := gs[i%len(gs)]
		if warm {
			_, err = s.Route(ctx, g)
		} else {
			_, err = opensm.Route(ctx, g, opt)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWhatifRouteCold64 routes a failure set with a fresh ibsim and
// OpenSM.
func BenchmarkWhatifRouteCold64(b *testing.B) { benchWhatifRoute(b, false) }

// BenchmarkWhatifRouteWarm64 routes a failure set on a running OpenSM.
func BenchmarkWhatifRouteWarm64(b *testing.B) { benchWhatifRoute(b, true) }
