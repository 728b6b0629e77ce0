package samplingsim

import (
	"math"
	"strings"
	"testing"
)

// TestRandomRate: with gbps > 0 every rank's messages become ready as a
// Poisson process: increasing start times whose gaps have the mean
// size·8/gbps (here 4096·8/8 = 4096 ns) and, being exponential, a
// coefficient of variation of 1 (constant pacing would give 0); the
// destinations are those of the same seed without a rate, all ready at
// once; a negative rate is refused.
func TestRandomRate(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	build := func(wl string) *Plan {
		t.Helper()
		p, err := BuildPlan(f, []JobSpec{{Workload: wl, Hosts: allHosts(3), Start: 5 * Microsecond}}, 7)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	const msgs = 2000
	burst, paced := build("random:msgs=2000,size=4096"), build("random:msgs=2000,size=4096,gbps=8")
	if len(burst.Msgs) != 3*msgs || len(paced.Msgs) != 3*msgs {
		t.Fatalf("%d and %d messages, want %d", len(burst.Msgs), len(paced.Msgs), 3*msgs)
	}
	var gaps []float64
	for i := range burst.Msgs {
		b, p := burst.Msgs[i], paced.Msgs[i]
		if b.Src != p.Src || b.Dst != p.Dst || b.Bytes != p.Bytes {
			t.Fatalf("message %d: %d→%d with a rate, %d→%d without", i, p.Src, p.Dst, b.Src, b.Dst)
		}
		if b.Start != 5*Microsecond {
			t.Fatalf("without a rate message %d starts at %d, want the job's start", i, b.Start)
		}
		prev := 5 * Microsecond
		if i%msgs > 0 {
			prev = paced.Msgs[i-1].Start
		}
		if p.Start <= prev {
			t.Fatalf("message %d starts at %d, not after %d", i, p.Start, prev)
		}
		gaps = append(gaps, float64(p.Start-prev))
	}
	var mean, sq float64
	for _, g := range gaps {
		mean += g / float64(len(gaps))
	}
	for _, g := range gaps {
		sq += (g - mean) * (g - mean) / float64(len(gaps)-1)
	}
	want := 4096.0 * 8 / 8 * 1e3 // ps
	// 6000 exponential gaps: the mean's standard error is 1.3 %.
	if math.Abs(mean/want-1) > 0.05 {
		t.Errorf("mean gap %.0f ps, want %.0f", mean, want)
	}
	if cv := math.Sqrt(sq) / mean; math.Abs(cv-1) > 0.1 {
		t.Errorf("coefficient of variation of the gaps %.3f, want 1 (exponential)", cv)
	}
	for _, c := range []struct{ wl, want string }{
		{"random:gbps=-1", "gbps=-1 must be a non-negative number"},
		{"random:gbps=NaN", "gbps=NaN must be"},
		{"random:gbps=1e-300", "gbps=1e-300: rank 0's message 1 would become ready after"},
	} {
		if _, err := BuildPlan(f, []JobSpec{{Workload: c.wl, Hosts: allHosts(3)}}, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.wl, err, c.want)
		}
	}
}

// smallPingPong runs 300 round trips of the 8-byte ping-pong between the
// first and the last rank of a job on every other host of the fabric spec
// (on the 72-host Dragonfly dragonfly:a=4,h=2,p=2 two hosts in different
// groups; global links 300 ns) beside a noisy neighbour on the other hosts
// (routed Adaptive) that sends random 64 KiB messages; it returns the
// ping-pong's statistics under Adaptive and under High bias.
func smallPingPong(t *testing.T, spec, background string, seed uint64) (ad, hi NoiseStats) {
	t.Helper()
	st := smallRuns(t, spec, background, seed, "adaptive", "adaptive:mode=high")
	return st[0], st[1]
}

// smallRuns is smallPingPong with the ping-pong's routings given.
func smallRuns(t *testing.T, spec, background string, seed uint64, routings ...string) []NoiseStats {
	t.Helper()
	n := genNetwork(t, spec)
	f := n.Fabric
	jobs, err := Allocate("interleaved", allHosts(f.NumHosts()), 2)
	if err != nil {
		t.Fatal(err)
	}
	p, err := BuildPlan(f, []JobSpec{{Workload: "pingpong:size=8,iters=300", Hosts: jobs[0]},
		{Workload: background, Hosts: jobs[1]}}, seed)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Seed, cfg.Groups = seed, n.Groups
	if n.Groups != nil {
		cfg.GlobalLatency = 300 * Nanosecond
	}
	cfg.BackgroundRouting, cfg.Scheme = "adaptive", "none"
	rows, err := CompareRouting(f, cfg, p, routings)
	if err != nil {
		t.Fatal(err)
	}
	var out []NoiseStats
	for _, r := range rows {
		out = append(out, r.Stats)
	}
	return out
}

// TestSmallMessageHighBias: De Sensi et al. (SC'19, §4.1, §5.1, Figs. 7–8)
// find the small-message ping-pong faster and less variable with High bias
// than with Adaptive under the steady noise of a production system,
// because Adaptive sends packets on longer non-minimal paths when the
// minimal port merely has packets in flight (phantom congestion). With a
// steady noisy neighbour (40 Gb/s offered per host, lasting the whole
// ping-pong) this holds in every seed: High bias has the lower median
// round trip, the lower mean packet latency and the lower latency QCD,
// and sends (almost) nothing on Valiant paths while Adaptive detours
// more than 5 % of the packets. With the same messages all ready at once
// (a burst that is over before most round trips) no iteration of the
// last two hundred sees any noise.
func TestSmallMessageHighBias(t *testing.T) {
	if testing.Short() {
		t.Skip("three seeds of two runs")
	}
	for seed := uint64(1); seed <= 3; seed++ {
		ad, hi := smallPingPong(t, "dragonfly:a=4,h=2,p=2", "random:msgs=60,size=65536,gbps=40", seed)
		if ad.Quiet+hi.Quiet > 0 {
			t.Fatalf("seed %d: %d and %d iterations after the noise ended", seed, ad.Quiet, hi.Quiet)
		}
		if !(hi.Median < ad.Median) || !(hi.Latency < ad.Latency) || !(hi.LatencyQCD < ad.LatencyQCD) {
			t.Errorf("seed %d: median %.0f vs %.0f ps, latency %.0f vs %.0f ps, latency QCD %.4f vs %.4f (High vs Adaptive): want High lower in all",
				seed, hi.Median, ad.Median, hi.Latency, ad.Latency, hi.LatencyQCD, ad.LatencyQCD)
		}
		t.Logf("seed %d: median %.0f vs %.0f ps, latency %.0f vs %.0f ps, latency QCD %.4f vs %.4f, detours %.3f vs %.3f (High vs Adaptive)",
			seed, hi.Median, ad.Median, hi.Latency, ad.Latency, hi.LatencyQCD, ad.LatencyQCD, hi.Detour, ad.Detour)
		if hi.Detour > 0.01 || ad.Detour < 0.05 {
			t.Errorf("seed %d: detours High %.3f, Adaptive %.3f", seed, hi.Detour, ad.Detour)
		}
	}
	ad, hi := smallPingPong(t, "dragonfly:a=4,h=2,p=2", "random:msgs=60,size=65536", 1)
	if ad.Quiet < 200 || hi.Quiet < 200 {
		t.Errorf("burst noise: %d and %d of 300 iterations after it ended, want ≥ 200", ad.Quiet, hi.Quiet)
	}
	if ad.Median != hi.Median {
		t.Errorf("burst noise: medians %.0f and %.0f ps, want both the idle round trip", ad.Median, hi.Median)
	}
	t.Logf("burst noise: medians %.0f / %.0f ps, quiet %d / %d", ad.Median, hi.Median, ad.Quiet, hi.Quiet)
}

// TestQuietIterations: an iteration counts as quiet when it starts at or
// after the other jobs' last delivery (made-up result: job b's messages
// are delivered at 5 and 60; job a's iterations start at 0, 60 and 100),
// never when a message of another job was not delivered at all, and a job
// alone has none.
func TestQuietIterations(t *testing.T) {
	p := &Plan{Jobs: []Job{{Name: "a"}, {Name: "b"}}}
	for i := range 8 {
		p.Add(Message{Src: 0, Dst: 1, Bytes: 8, Job: int32(i / 6), Wait: -1})
	}
	p.Iters = []IterSpan{{Job: 0, First: 0, End: 2}, {Job: 0, First: 2, End: 4}, {Job: 0, First: 4, End: 6}}
	r := &Result{Config: DefaultConfig(), Plan: p,
		MsgReady:   []Time{0, 10, 60, 70, 100, 100, 0, 0},
		MsgFinish:  []Time{50, 40, 90, 95, 130, 300, 5, 60},
		MsgLatency: make([]Time, 8), MsgStall: make([]Time, 8), MsgMode: make([]RouteMode, 8), MsgDetour: make([]int32, 8),
	}
	if st := r.Noise(0); st.Quiet != 2 {
		t.Errorf("quiet iterations %d, want 2 (those starting at 60 and 100)", st.Quiet)
	}
	// Iterations 50, 35, 200: quartiles 42.5, 50, 125; QCD 82.5/167.5.
	var sum strings.Builder
	r.writeNoise(&sum, "a")
	if !strings.Contains(sum.String(), "3 iterations, median 50 ps (Q1 42 ps, Q3 125 ps, QCD 0.4925), 2 after the other jobs ended\n") {
		t.Errorf("summary without the quiet iterations:\n%s", sum.String())
	}
	r.MsgFinish[7] = 99
	if st := r.Noise(0); st.Quiet != 1 {
		t.Errorf("background until 99: quiet iterations %d, want 1", st.Quiet)
	}
	r.MsgFinish[6] = -1
	if st := r.Noise(0); st.Quiet != 0 {
		t.Errorf("an undelivered background message: quiet iterations %d, want 0", st.Quiet)
	}
	alone := &Plan{Jobs: []Job{{Name: "a"}}, Msgs: p.Msgs[:6], Iters: p.Iters}
	r.Plan = alone
	if st := r.Noise(0); st.Quiet != 0 {
		t.Errorf("one job: quiet iterations %d, want 0", st.Quiet)
	}
	var b strings.Builder
	rows := []RoutingRow{{Routing: "adaptive:mode=high", Stats: NoiseStats{Iterations: []Time{1, 2, 3}, Quiet: 2}}}
	if err := WriteRoutingTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nmode=high: 2 of 3 iterations started after the background's last delivery") {
		t.Errorf("table without the note on quiet iterations:\n%s", b.String())
	}
}

// TestSmallMessageFatTree: the same experiment on the 64-host fat tree
// kary:k=4,n=3 with InfiniBand-style adaptive routing, where every allowed
// port lies on a shortest path, so leaving the table's port costs no hop
// and the paper's reason for High bias (longer non-minimal paths) does not
// exist: Adaptive, which takes the least loaded up-port instead of
// queueing behind the neighbour's 4 KiB packets, has the lower median and
// the lower latency QCD in every seed (medians −13 to −15 %).
func TestSmallMessageFatTree(t *testing.T) {
	if testing.Short() {
		t.Skip("three seeds of two runs")
	}
	for seed := uint64(1); seed <= 3; seed++ {
		ad, hi := smallPingPong(t, "kary:k=4,n=3", "random:msgs=60,size=65536,gbps=40", seed)
		t.Logf("seed %d: median %.0f vs %.0f ps, latency QCD %.4f vs %.4f, detours %.3f vs %.3f (Adaptive vs High)",
			seed, ad.Median, hi.Median, ad.LatencyQCD, hi.LatencyQCD, ad.Detour, hi.Detour)
		if ad.Quiet+hi.Quiet > 0 {
			t.Fatalf("seed %d: %d and %d iterations after the noise ended", seed, ad.Quiet, hi.Quiet)
		}
		if !(ad.Median < 0.95*hi.Median) || !(ad.LatencyQCD < hi.LatencyQCD) {
			t.Errorf("seed %d: median %.0f vs %.0f ps, latency QCD %.4f vs %.4f (Adaptive vs High): want Adaptive lower in both",
				seed, ad.Median, hi.Median, ad.LatencyQCD, hi.LatencyQCD)
		}
	}
}

// TestPhantomCongestion: the cause of High bias's advantage on the
// Dragonfly is phantom congestion (De Sensi §2.2, §4.1). When only the
// ping-pong's packets estimate ports from their output queues
// (estimate=queue: credits in flight on a link no longer count; the
// neighbour keeps the switches' estimate), Adaptive leaves the minimal
// path at least 5 times less often (here 0.8–2 % of the packets instead
// of 15–19 %), and its mean latency and latency QCD fall below Adaptive's
// towards High bias's.
func TestPhantomCongestion(t *testing.T) {
	if testing.Short() {
		t.Skip("three seeds of three runs")
	}
	rt, err := ParseRouting("adaptive:estimate=queue")
	if err != nil || !rt.QueueOnly || rt.Mode != ModeAdaptive {
		t.Fatalf("estimate=queue: %+v, %v", rt, err)
	}
	if rt, err := ParseRouting("adaptive:mode=high"); err != nil || rt.QueueOnly {
		t.Fatalf("default estimate: %+v, %v", rt, err)
	}
	if _, err := ParseRouting("adaptive:estimate=flits"); err == nil || !strings.Contains(err.Error(), `estimate="flits"`) {
		t.Errorf("estimate=flits: %v", err)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		st := smallRuns(t, "dragonfly:a=4,h=2,p=2", "random:msgs=60,size=65536,gbps=40", seed,
			"adaptive", "adaptive:estimate=queue", "adaptive:mode=high")
		ad, q, hi := st[0], st[1], st[2]
		t.Logf("seed %d: detours %.3f / %.3f / %.3f, latency %.0f / %.0f / %.0f ps, latency QCD %.4f / %.4f / %.4f (Adaptive / queue only / High)",
			seed, ad.Detour, q.Detour, hi.Detour, ad.Latency, q.Latency, hi.Latency, ad.LatencyQCD, q.LatencyQCD, hi.LatencyQCD)
		if !(ad.Detour > 0.1) || !(q.Detour < ad.Detour/5) {
			t.Errorf("seed %d: detours %.3f with credits, %.3f without: want > 0.1 and 5 times fewer", seed, ad.Detour, q.Detour)
		}
		if !(q.Latency < ad.Latency) || !(q.LatencyQCD < ad.LatencyQCD) {
			t.Errorf("seed %d: queue-only latency %.0f ps (QCD %.4f), Adaptive %.0f ps (QCD %.4f): want both lower",
				seed, q.Latency, q.LatencyQCD, ad.Latency, ad.LatencyQCD)
		}
	}
}
