package samplingsim

import (
	"testing"

	"orcs/lft"
)

// Scenario tests of the thesis's case studies (chapter 4) on small
// generated fat trees.

func runJobs(t *testing.T, f *lft.Fabric, cfg Config, jobs ...JobSpec) *Result {
	t.Helper()
	p, err := BuildPlan(f, jobs, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return mustRun(t, f, cfg, p)
}

// TestNaiveVersusBinomialReduce: the naive reduction (every rank sends 50
// arrays of 4 KiB to rank 0) congests the link into rank 0 (congested
// fraction > 0.99, thesis §4.3: > 0.998) and is diagnosed as endpoint
// congestion; the binomial-tree reduce moves the same data many times
// faster without endpoint congestion.
func TestNaiveVersusBinomialReduce(t *testing.T) {
	for _, topo := range []string{"kary:k=4,n=3", "fattree2:leaves=8,hosts=16,up=16,spines=8"} {
		f := fabric(t, topo)
		H := f.NumHosts()
		cfg := DefaultConfig()
		naive := runJobs(t, f, cfg, JobSpec{Name: "naive", Workload: "naive-reduce", Hosts: allHosts(H)})
		tree := runJobs(t, f, cfg, JobSpec{Name: "tree", Workload: "binomial-reduce", Hosts: allHosts(H)})
		into0 := f.NextHop(0, f.Links[f.NextHop(0, f.HostNode(0), 1)].To, 0)
		est := naive.Estimates(AllJobs, -1)[into0]
		truth := naive.TruthOf(-1, into0)
		if est.Fraction <= 0.99 || truth.Fraction() <= 0.99 {
			t.Errorf("%s: link into rank 0: congested fraction %.4f estimated, %.4f true; want > 0.99", topo, est.Fraction, truth.Fraction())
		}
		d := Diagnose(naive, DiagnoseOptions{View: AllJobs, Window: -1})
		if d.Cause != Endpoint || d.Roots[0].Link != into0 {
			t.Errorf("%s: naive reduce diagnosed %q with roots %+v, want endpoint congestion at %s", topo, d.Cause, d.Roots, f.LinkName(into0))
		} else if d.Roots[0].Gbps < 90 {
			t.Errorf("%s: the root carries %.1f Gb/s of sampled traffic, want about the line rate", topo, d.Roots[0].Gbps)
		}
		_, tn := naive.JobFinish(0)
		_, tt := tree.JobFinish(0)
		if speedup := float64(tn) / float64(tt); speedup < 5 {
			t.Errorf("%s: binomial reduce only %.1f× faster (%s vs %s)", topo, speedup, FormatTime(tt), FormatTime(tn))
		} else {
			t.Logf("%s: naive %s, binomial %s: %.1f× faster", topo, FormatTime(tn), FormatTime(tt), speedup)
		}
		dt := Diagnose(tree, DiagnoseOptions{View: AllJobs, Window: -1})
		for _, r := range dt.Roots {
			if r.Cause == Endpoint {
				t.Errorf("%s: binomial reduce has endpoint congestion at %s", topo, r.Name)
			}
		}
		// Moving the root of the naive reduction moves the tree but keeps
		// the verdict (Theorem 4.1).
		moved := runJobs(t, f, cfg, JobSpec{Name: "naive", Workload: "naive-reduce:root=37", Hosts: allHosts(H)})
		if dm := Diagnose(moved, DiagnoseOptions{View: AllJobs, Window: -1}); dm.Cause != Endpoint ||
			f.HostIndex(f.Links[dm.Roots[0].Link].To) != 37 {
			t.Errorf("%s: naive reduce to rank 37 diagnosed %q %+v", topo, dm.Cause, dm.Roots)
		}
		if _, tm := moved.JobFinish(0); float64(tm) < 0.95*float64(tn) {
			t.Errorf("%s: moving the root sped the naive reduce up from %s to %s", topo, FormatTime(tn), FormatTime(tm))
		}
	}
}

// TestTreeSaturation: a hot spot grows a congestion tree: the number of
// congested links grows over successive windows (tree saturation) and a
// flow that never crosses the hot link, but shares a link of the tree
// with the hot traffic, is delayed by head-of-line blocking.
func TestTreeSaturation(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	hot := f.NextHop(0, f.Links[f.NextHop(0, f.HostNode(0), 1)].To, 0)
	// Victim: H4 → H16 climbs through the same first up-link as the hot
	// traffic from H4's leaf (d-mod-k: both destinations have digit 0),
	// then parts from it.
	const vs, vd = 4, 16
	route, _ := f.AppendRoute(nil, vs, vd)
	hotRoute, _ := f.AppendRoute(nil, 5, 0)
	shared := false
	for _, l := range route {
		if l == hot {
			t.Fatal("the victim crosses the hot link")
		}
		for _, h := range hotRoute {
			shared = shared || h == l && f.HostIndex(f.Links[l].From) < 0
		}
	}
	if !shared {
		t.Fatal("the victim shares no switch link with the hot traffic")
	}
	var senders []int32
	for h := range int32(64) {
		if h != vs && h != vd {
			senders = append(senders, h)
		}
	}
	victim := JobSpec{Name: "victim", Workload: "flow:msgs=1,size=262144", Hosts: []int32{vs, vd}, Start: 20 * Microsecond}
	hotJob := JobSpec{Name: "hot", Workload: "naive-reduce:arrays=50", Hosts: senders}
	cfg := DefaultConfig()
	cfg.Window = 4 * Microsecond
	alone := runJobs(t, f, cfg, victim)
	both := runJobs(t, f, cfg, hotJob, victim)
	_, ta := alone.JobFinish(0)
	_, tb := both.JobFinish(1)
	if float64(tb-victim.Start) < 2*float64(ta-victim.Start) {
		t.Errorf("victim took %s next to the hot spot, %s alone; want at least 2× slower",
			FormatTime(tb-victim.Start), FormatTime(ta-victim.Start))
	} else {
		t.Logf("victim took %s next to the hot spot, %s alone", FormatTime(tb-victim.Start), FormatTime(ta-victim.Start))
	}
}

// TestTreeGrowth: a hot spot whose offered load only slightly exceeds what
// the hot host can take (8 senders in all pods at 13.5 Gb/s each, 108 Gb/s
// for a 100 Gb/s link) fills the buffers hop by hop, so the congestion tree
// grows over successive 50 µs windows (tree saturation), in the truth and in
// the hot job's own estimates.
func TestTreeGrowth(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	cfg := DefaultConfig()
	cfg.Window = 50 * Microsecond
	hosts := []int32{0, 4, 20, 36, 52, 8, 24, 40, 56} // rank 0 = H0 is hot
	r := runJobs(t, f, cfg, JobSpec{Name: "hot", Workload: "hotspot:msgs=800,gbps=13.5", Hosts: hosts})
	const W = 10
	var truth, est []int
	for w := range W {
		n, m := 0, 0
		e := r.Estimates(0, w)
		for l := range f.Links {
			if !r.Sampled(int32(l)) {
				continue
			}
			x := r.TruthOf(w, int32(l))
			n += btoi(x.Packets > 0 && x.Fraction() >= 0.5)
			m += btoi(e[l].Packets >= 8 && e[l].Fraction >= 0.5)
		}
		truth = append(truth, n)
		est = append(est, m)
	}
	t.Logf("congested links per 50 µs window: truth %v, estimate %v", truth, est)
	for i := 1; i < W; i++ {
		if truth[i] < truth[i-1] {
			t.Errorf("the true tree shrank from %d to %d links in window %d", truth[i-1], truth[i], i)
		}
	}
	if truth[W-1] < 4*truth[0] || truth[W-1] < 8 {
		t.Errorf("the true tree grew from %d to %d links only", truth[0], truth[W-1])
	}
	late := 0
	for _, m := range est[W/2:] {
		late += m
	}
	if float64(late)/float64(W-W/2) < 3*float64(max(est[0], 1)) {
		t.Errorf("estimated tree sizes %v: the second half does not average 3× the first window", est)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestRingAndBackground is the case study of thesis §4.4: a ring exchange
// alone causes no congestion; next to uniform random background traffic on
// the other hosts (the thesis's bit-parity allocation) it slows down, its
// own samples show congestion trees whose roots carry far less than the
// line rate of its traffic, and the diagnosis blames background traffic;
// with every receiver's samples (an administrator's view) the roots are
// endpoint congestion at background hosts.
func TestRingAndBackground(t *testing.T) {
	for _, topo := range []string{"kary:k=4,n=3", "fattree2:leaves=8,hosts=16,up=8"} {
		f := fabric(t, topo)
		parts, err := Allocate("parity", allHosts(f.NumHosts()), 2)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		ring := JobSpec{Name: "ring", Workload: "ring:iters=4", Hosts: parts[0]}
		bg := JobSpec{Name: "background", Workload: "random:msgs=12", Hosts: parts[1]}

		// The ring alone, on all hosts and on its own hosts: no congestion.
		for _, hosts := range [][]int32{allHosts(f.NumHosts()), parts[0]} {
			ring.Hosts = hosts
			alone := runJobs(t, f, cfg, ring)
			if d := Diagnose(alone, DiagnoseOptions{View: AllJobs, Window: -1}); d.Cause != NoCongestion {
				t.Errorf("%s: ring alone on %d hosts: %s %+v", topo, len(hosts), d.Cause, d.Roots)
			}
			var pk, cg int64
			for l := range f.Links {
				if alone.Sampled(int32(l)) {
					tr := alone.TruthOf(-1, int32(l))
					pk, cg = pk+tr.Packets, cg+tr.Congested
				}
			}
			if float64(cg) > 0.01*float64(pk) {
				t.Errorf("%s: ring alone: %d of %d packet-hops congested", topo, cg, pk)
			}
		}
		ring.Hosts = parts[0]
		alone := runJobs(t, f, cfg, ring)
		both := runJobs(t, f, cfg, ring, bg)
		_, ta := alone.JobFinish(0)
		_, tb := both.JobFinish(0)
		if float64(tb) < 1.3*float64(ta) {
			t.Errorf("%s: ring took %s with background, %s alone; want it slowed down", topo, FormatTime(tb), FormatTime(ta))
		}
		d := Diagnose(both, DiagnoseOptions{View: 0, Window: -1})
		if d.Cause != Background {
			t.Errorf("%s: ring's view diagnosed %q, want background traffic; roots %+v", topo, d.Cause, d.Roots)
		} else {
			t.Logf("%s: ring %s alone, %s with background; root %s %.1f Gb/s", topo, FormatTime(ta), FormatTime(tb), d.Roots[0].Name, d.Roots[0].Gbps)
		}
		// With every receiver's samples (thesis Figure 4.17) the unseen
		// traffic shows: every root the ring sees carries far more packets
		// than the ring's own (other traffic shares it), and links the
		// ring never uses are congested.
		admin := Diagnose(both, DiagnoseOptions{View: AllJobs, Window: -1})
		if admin.Cause == Background || admin.Cause == NoCongestion {
			t.Errorf("%s: administrator's view diagnosed %q", topo, admin.Cause)
		}
		all, own := both.Estimates(AllJobs, -1), both.Estimates(0, -1)
		for _, rt := range d.Roots {
			if all[rt.Link].Packets < 1.5*own[rt.Link].Packets {
				t.Errorf("%s: root %s: %.0f packets in all samples, %.0f in the ring's", topo, rt.Name, all[rt.Link].Packets, own[rt.Link].Packets)
			}
		}
		hidden := 0
		for l, e := range all {
			if e.Packets >= 8 && e.Fraction >= 0.5 && own[l].Packets == 0 {
				hidden++
			}
		}
		if hidden == 0 {
			t.Errorf("%s: no congested link outside the ring's routes", topo)
		}
	}
}

// TestStencilMapping is the case of thesis §4.2 in small: a 2-D stencil
// mapped row major onto a tapered fat tree oversubscribes the leaf
// up-links (internal congestion: roots inside the network, saturated),
// while a tiled mapping (one 4×2 tile of the grid per leaf switch) removes
// the congestion and finishes sooner. With static d-mod-k routing a packet
// leaves its leaf on up-link (destination mod 4), so inside a tile the
// ranks are placed such that the ranks along each side of a tile sit on
// distinct slots mod 4 and never share an up-link.
func TestStencilMapping(t *testing.T) {
	// 16 leaves of 8 hosts, 4 up-links each (2:1 taper); a 16×8 grid.
	f := fabric(t, "fattree2:leaves=16,hosts=8,up=4")
	cfg := DefaultConfig()
	wl := "stencil:x=16,y=8,size=262144"
	rowMajor := runJobs(t, f, cfg, JobSpec{Name: "stencil", Workload: wl, Hosts: allHosts(128)})
	// Tiles of 4×2 ranks per leaf: rank (i, j) → leaf (i/4) + 4·(j/2); the
	// tile's top row on slots 0 1 2 3, its bottom row on 5 6 7 4.
	tiled := make([]int32, 128)
	slots := [2][4]int{{0, 1, 2, 3}, {5, 6, 7, 4}}
	for r := range 128 {
		i, j := r%16, r/16
		leaf := i/4 + 4*(j/2)
		tiled[r] = int32(leaf*8 + slots[j%2][i%4])
	}
	tiledRun := runJobs(t, f, cfg, JobSpec{Name: "stencil", Workload: wl, Hosts: tiled})
	d := Diagnose(rowMajor, DiagnoseOptions{View: AllJobs, Window: -1})
	if d.Cause != Internal {
		t.Errorf("row-major stencil diagnosed %q, want internal congestion; roots %+v", d.Cause, d.Roots)
	}
	dt := Diagnose(tiledRun, DiagnoseOptions{View: AllJobs, Window: -1})
	_, tr := rowMajor.JobFinish(0)
	_, tt := tiledRun.JobFinish(0)
	if dt.Cause != NoCongestion || tt >= tr {
		t.Errorf("tiled stencil: %d congested links and %s, row major: %d and %s; want fewer and faster",
			dt.Congested, FormatTime(tt), d.Congested, FormatTime(tr))
	} else {
		t.Logf("row major: %s, %d congested links (%s); tiled: %s, %d congested links", FormatTime(tr), d.Congested, d.Cause, FormatTime(tt), dt.Congested)
	}
}
