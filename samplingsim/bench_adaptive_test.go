package samplingsim

import "testing"

// benchAdaptive is benchRun with the routing spec and the fabric's
// Dragonfly groups.
func benchAdaptive(b *testing.B, topo, wl, routing string) {
	n := genNetwork(b, topo)
	f := n.Fabric
	p, err := BuildPlan(f, []JobSpec{{Workload: wl, Hosts: allHosts(f.NumHosts())}}, 1)
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Routing, cfg.Groups = routing, n.Groups
	var hops int64
	var cpu float64
	b.ResetTimer()
	for range b.N {
		r, err := Run(f, cfg, p)
		if err != nil {
			b.Fatal(err)
		}
		hops += r.PacketHops
		cpu += r.CPU.Seconds()
	}
	if cpu > 0 {
		b.ReportMetric(float64(hops)/cpu, "hops/cpu-s")
	}
}

// BenchmarkAdaptiveSmall is BenchmarkSmall (512 hosts, kary:k=8,n=3) with
// InfiniBand-style adaptive routing.
func BenchmarkAdaptiveSmall(b *testing.B) {
	benchAdaptive(b, "kary:k=8,n=3", "random:msgs=4,size=65536", "adaptive")
}

// BenchmarkAdaptiveDragonfly is random traffic on a 528-host Dragonfly
// with UGAL (minimal or Valiant) routing on three lanes.
func BenchmarkAdaptiveDragonfly(b *testing.B) {
	benchAdaptive(b, "dragonfly:a=8,h=4,p=2", "random:msgs=4,size=65536", "adaptive")
}
