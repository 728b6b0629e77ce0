package samplingsim

import (
	"testing"
)

// benchRun simulates a workload on a generated fabric and reports
// packet-hops and events per second of the event loop.
func benchRun(b *testing.B, topo, wl string, cfg Config) {
	benchHosts(b, topo, 0, wl, cfg)
}

// benchHosts is benchRun on the first hosts hosts (0 = all).
func benchHosts(b *testing.B, topo string, hosts int, wl string, cfg Config) {
	f := fabric(b, topo)
	if hosts == 0 {
		hosts = f.NumHosts()
	}
	p, err := BuildPlan(f, []JobSpec{{Workload: wl, Hosts: allHosts(hosts)}}, 1)
	if err != nil {
		b.Fatal(err)
	}
	var hops, events int64
	var wall, cpu float64
	b.ResetTimer()
	for range b.N {
		r, err := Run(f, cfg, p)
		if err != nil {
			b.Fatal(err)
		}
		hops += r.PacketHops
		events += r.Events
		wall += r.Wall.Seconds()
		cpu += r.CPU.Seconds()
	}
	b.ReportMetric(float64(hops)/wall, "hops/s")
	b.ReportMetric(float64(events)/wall, "events/s")
	b.ReportMetric(wall/float64(b.N), "loop-s/op")
	if cpu > 0 {
		b.ReportMetric(float64(hops)/cpu, "hops/cpu-s")
		b.ReportMetric(float64(events)/cpu, "events/cpu-s")
	}
}

// BenchmarkNaiveReduceFull is the naive reduction on 3564 hosts with 18
// per leaf switch and full bisection, like the "Full" network of the
// thesis's Table 3.1, as a two-level fat tree (see README).
func BenchmarkNaiveReduceFull(b *testing.B) {
	benchRun(b, "fattree2:leaves=198,hosts=18,up=18,spines=18", "naive-reduce", DefaultConfig())
}

// BenchmarkNaiveReduceFull3 is the same on the first 3564 hosts of a
// three-level tree of 36-port switches (kary:k=18,n=3).
func BenchmarkNaiveReduceFull3(b *testing.B) {
	benchHosts(b, "kary:k=18,n=3", 3564, "naive-reduce", DefaultConfig())
}

// BenchmarkRandom1k is uniform random traffic on a 1024-host 3-level tree.
func BenchmarkRandom1k(b *testing.B) {
	benchRun(b, "kary:k=32,n=2", "random:msgs=20,size=65536", DefaultConfig())
}

// BenchmarkRandom1kOneBit is the same with one-bit headers.
func BenchmarkRandom1kOneBit(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Scheme = "onebit"
	benchRun(b, "kary:k=32,n=2", "random:msgs=20,size=65536", cfg)
}

// BenchmarkSmall is a short run for instruction counting under valgrind.
func BenchmarkSmall(b *testing.B) {
	benchRun(b, "kary:k=8,n=3", "random:msgs=4,size=65536", DefaultConfig())
}

// BenchmarkRandom4096None is uniform random traffic on a 4096-host 3-level
// tree (kary:k=16,n=3) without sampling headers (--scheme none).
func BenchmarkRandom4096None(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Scheme = "none"
	benchRun(b, "kary:k=16,n=3", "random:msgs=4,size=65536", cfg)
}

// BenchmarkRandom10648None is the same on 10648 hosts (kary:k=22,n=3).
func BenchmarkRandom10648None(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Scheme = "none"
	benchRun(b, "kary:k=22,n=3", "random:msgs=2,size=65536", cfg)
}

// BenchmarkHotSpotFIFO is one hot spot (a host that stops receiving) on
// 512 hosts with the FIFO switches, and BenchmarkHotSpotHashed the same
// with the hashed dampener (B = 16, j = 8): the cost of per-destination
// flow control and of passing over blocked packets.
func BenchmarkHotSpotFIFO(b *testing.B) { benchHotSpot(b, "fifo") }

// BenchmarkHotSpotHashed: see BenchmarkHotSpotFIFO.
func BenchmarkHotSpotHashed(b *testing.B) { benchHotSpot(b, "hashed:j=8") }

func benchHotSpot(b *testing.B, policy string) {
	cfg := DefaultConfig()
	cfg.Scheme, cfg.Buffers, cfg.InputBuffer, cfg.MaxTime = "none", policy, 16, 200*Microsecond
	benchRun(b, "kary:k=8,n=3", "saturation:hot=1,msgs=400,gbps=40,frac=0.05", cfg)
}

// BenchmarkDiagnoseAdaptive times the diagnosis alone (route sets of
// adaptive routing, roots, delivery counts, detection power) of an
// all-to-all on 512 hosts routed adaptively: 261 632 pairs over 64 × 64
// leaf pairs, the diagnosis's worst case of route sets per message.
func BenchmarkDiagnoseAdaptive(b *testing.B) {
	f := fabric(b, "kary:k=8,n=3")
	cfg := DefaultConfig()
	cfg.Routing = "adaptive"
	p, err := BuildPlan(f, []JobSpec{{Name: "a2a", Workload: "alltoall:size=4096,iters=1", Hosts: allHosts(f.NumHosts())}}, cfg.Seed)
	if err != nil {
		b.Fatal(err)
	}
	r := mustRun(b, f, cfg, p)
	b.ResetTimer()
	for b.Loop() {
		Diagnose(r, DiagnoseOptions{View: AllJobs, Window: -1})
	}
}

// BenchmarkHotSpotCC is a hot spot that receives at line rate (ten times
// oversubscribed) on 512 hosts with InfiniBand congestion control (the
// aggressive preset: every packet through a port whose queue holds two
// marked, a BECN back for each), and BenchmarkHotSpotCCOff the same
// without: the cost of marking, the BECNs' packets and the NICs' flows.
func BenchmarkHotSpotCC(b *testing.B) { benchHotSpotCC(b, "aggressive") }

// BenchmarkHotSpotCCOff: see BenchmarkHotSpotCC.
func BenchmarkHotSpotCCOff(b *testing.B) { benchHotSpotCC(b, "off") }

func benchHotSpotCC(b *testing.B, spec string) {
	cfg := DefaultConfig()
	cfg.Scheme = "none"
	var err error
	if cfg.CC, err = ParseCC(spec); err != nil {
		b.Fatal(err)
	}
	benchRun(b, "kary:k=8,n=3", "saturation:hot=1,msgs=100,gbps=40,frac=0.05,stop=0", cfg)
}
