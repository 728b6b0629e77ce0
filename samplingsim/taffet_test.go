package samplingsim

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"orcs/lft"
)

// tilePlacement maps the ranks of an x×y stencil (rank = i + x·j) onto
// hosts with one w×h tile per leaf switch of w·h hosts (leaf l holding
// hosts l·w·h …), tiles in row-major order, the rank at (i, j) inside tile
// t on slot(i, j, t) of its leaf — bench/taffet-tiles.awk at any scale.
func tilePlacement(x, y, w, h int, slot func(i, j, t int) int) []int32 {
	pl := make([]int32, x*y)
	for r := range pl {
		gx, gy := r%x, r/x
		t := gx/w + (x/w)*(gy/h)
		pl[r] = int32(t*w*h + slot(gx%w, gy%h, t))
	}
	return pl
}

// switchLevel is the level of a fattree3 switch from its name (S0_… leaf,
// S1_… middle, S2_… spine), −1 for a host.
func switchLevel(f *lft.Fabric, v int32) int {
	name := f.Nodes[v].Name
	if len(name) < 3 || name[0] != 'S' || name[2] != '_' {
		return -1
	}
	return int(name[1] - '0')
}

// congestedLeafUp counts the leaf → middle links whose true congested
// fraction over the run is at least one half.
func congestedLeafUp(f *lft.Fabric, res *Result) int {
	n := 0
	for l := range f.Links {
		ln := f.Links[l]
		if switchLevel(f, ln.From) == 0 && switchLevel(f, ln.To) == 1 && res.TruthOf(-1, int32(l)).Fraction() >= 0.5 {
			n++
		}
	}
	return n
}

// TestTaffetTilingAdaptive is §4.2 of Taffet's thesis on a scaled copy of
// the tapered Table 3.1 network (fattree3 with 2:1 taper at the leaves:
// 2 pods × 8 leaves × 16 hosts, 8 up-links per leaf; a 16×16 stencil with
// 128 KiB boundaries, a 4×4 tile per leaf instead of the thesis's 8×4 of
// 32). With adaptive routing, as the thesis's networks had, row major
// congests leaf → middle links (internal congestion, every root a leaf
// up-link: a row's ±y traffic is 16 flows onto 8 up-links), the tiling has
// no congestion and is faster (thesis −28 %; measured −25 %), and the
// order of the ranks inside a tile does not matter (within 5 %). With
// static d-mod-k routing the same tilings collide on the leaves' up-links
// and are slower than row major: the tiling's gain is adaptive routing's.
func TestTaffetTilingAdaptive(t *testing.T) {
	f := fabric(t, "fattree3:pods=2,leaves=8,hosts=16,up=8")
	const X, Y, W, H = 16, 16, 4, 4
	wl := "stencil:x=16,y=16,size=131072"
	orders := []struct {
		name string
		slot func(i, j, t int) int
	}{
		{"row", func(i, j, _ int) int { return i + W*j }},
		{"col", func(i, j, _ int) int { return j + H*i }},
		{"scramble", func(i, j, t int) int { return (13*(i+W*j) + 7*t) % (W * H) }},
	}
	run := func(routing string, hosts []int32) (*Result, Time, *Diagnosis) {
		cfg := DefaultConfig()
		cfg.Routing = routing
		res := runJobs(t, f, cfg, JobSpec{Name: "stencil", Workload: wl, Hosts: hosts})
		_, end := res.JobFinish(0)
		return res, end, Diagnose(res, DiagnoseOptions{View: AllJobs, Window: -1})
	}

	rowRes, rowT, rowD := run("adaptive", allHosts(X*Y))
	if rowD.Cause != Internal || len(rowD.Roots) == 0 {
		t.Fatalf("adaptive, row major: diagnosed %q with %d roots, want internal congestion", rowD.Cause, len(rowD.Roots))
	}
	for _, r := range rowD.Roots {
		ln := f.Links[r.Link]
		if switchLevel(f, ln.From) != 0 || switchLevel(f, ln.To) != 1 {
			t.Errorf("adaptive, row major: root %s is not a leaf → middle link", r.Name)
		}
	}
	rowUp := congestedLeafUp(f, rowRes)
	if rowUp == 0 {
		t.Errorf("adaptive, row major: no leaf → middle link congested")
	}
	var lo, hi Time
	for _, o := range orders {
		name := o.name
		res, tm, d := run("adaptive", tilePlacement(X, Y, W, H, o.slot))
		up := congestedLeafUp(f, res)
		t.Logf("adaptive: %s-order tiles %s (%+.1f %% vs row major %s), %d congested leaf up-links (row major %d), %s",
			name, FormatTime(tm), 100*(float64(tm)/float64(rowT)-1), FormatTime(rowT), up, rowUp, d.Cause)
		if d.Cause != NoCongestion || up != 0 {
			t.Errorf("adaptive, %s-order tiles: %q, %d congested leaf up-links; want no congestion", name, d.Cause, up)
		}
		if float64(tm) > 0.85*float64(rowT) {
			t.Errorf("adaptive, %s-order tiles: %s, row major %s; want at least 15 %% faster", name, FormatTime(tm), FormatTime(rowT))
		}
		if lo == 0 || tm < lo {
			lo = tm
		}
		hi = max(hi, tm)
	}
	if float64(hi) > 1.05*float64(lo) {
		t.Errorf("adaptive: the orders inside a tile span %s to %s; want within 5 %%", FormatTime(lo), FormatTime(hi))
	}

	// Static routing: the row-order tiling (orcs map --strategy tile) puts
	// a tile's ±x receivers, a side column, on slots 0, 4, 8, 12 of their
	// leaf, which d-mod-k reaches over up-links 0 and 4 only: it loses to
	// row major.
	_, sRowT, _ := run("static", allHosts(X*Y))
	sRes, sTileT, _ := run("static", tilePlacement(X, Y, W, H, orders[0].slot))
	sUp := congestedLeafUp(f, sRes)
	t.Logf("static: row major %s, row-order tiles %s with %d congested leaf up-links", FormatTime(sRowT), FormatTime(sTileT), sUp)
	if sTileT <= sRowT || sUp == 0 {
		t.Errorf("static: row-order tiles %s with %d congested leaf up-links, row major %s; want slower, congested",
			FormatTime(sTileT), sUp, FormatTime(sRowT))
	}
}

// TestTaffetReduceAdaptive is §4.3 with adaptive routing on a small
// full-bisection fattree3 (128 hosts): the naive reduction congests the
// link into the root (congested fraction > 0.99 estimated and true; thesis
// > 0.998) and is diagnosed endpoint congestion; moving the root to rank 37
// changes its time by less than 0.01 % (thesis: < 0.01 %); the binomial
// tree is many times faster (thesis 86.9× on 1024 hosts).
func TestTaffetReduceAdaptive(t *testing.T) {
	f := fabric(t, "fattree3:pods=2,leaves=8,hosts=8")
	cfg := DefaultConfig()
	cfg.Routing = "adaptive"
	H := f.NumHosts()
	finish := func(wl string) (*Result, Time) {
		res := runJobs(t, f, cfg, JobSpec{Name: "reduce", Workload: wl, Hosts: allHosts(H)})
		_, end := res.JobFinish(0)
		return res, end
	}
	naive, tn := finish("naive-reduce")
	_, t37 := finish("naive-reduce:root=37")
	_, tb := finish("binomial-reduce")
	into0 := f.NextHop(0, f.Links[f.NextHop(0, f.HostNode(0), 1)].To, 0)
	est, truth := naive.Estimates(AllJobs, -1)[into0], naive.TruthOf(-1, into0)
	d := Diagnose(naive, DiagnoseOptions{View: AllJobs, Window: -1})
	t.Logf("naive %s (root 37: %s), binomial %s (%.1f×); link into rank 0: F %.4f estimated, %.4f true; %s",
		FormatTime(tn), FormatTime(t37), FormatTime(tb), float64(tn)/float64(tb), est.Fraction, truth.Fraction(), d.Cause)
	if est.Fraction <= 0.99 || truth.Fraction() <= 0.99 {
		t.Errorf("link into rank 0: congested fraction %.4f estimated, %.4f true; want > 0.99", est.Fraction, truth.Fraction())
	}
	if d.Cause != Endpoint || d.Roots[0].Link != into0 {
		t.Errorf("diagnosis %q, first root %+v; want endpoint congestion at the link into rank 0", d.Cause, d.Roots)
	}
	if diff := float64(t37-tn) / float64(tn); diff > 1e-4 || diff < -1e-4 {
		t.Errorf("root 37: %s, root 0: %s; want within 0.01 %%", FormatTime(t37), FormatTime(tn))
	}
	if float64(tn) < 10*float64(tb) {
		t.Errorf("binomial %s, naive %s; want at least 10× faster", FormatTime(tb), FormatTime(tn))
	}
}

// codesNetwork sets cfg to the CODES fat-tree parameters of the thesis's
// networks (modelnet-synthetic-fattree-summit-k36-n3564.conf): 512-byte
// packets, 64 KiB of buffer per port, 60 ns router delay and no separate
// link latency.
func codesNetwork(cfg *Config) {
	cfg.MTU, cfg.InputBuffer, cfg.RouterDelay, cfg.Latency = 512, 128, 60*Nanosecond, 0
}

// TestClosedLoop: with closed=true a rank sends one message at a time,
// each an exponential think time (mean gap) after its previous one was
// received, the first one the same kind of time after the start — the loop
// of the thesis's CODES traffic generator. Checked for random (its
// destinations drawn as in the open loop) and for the ring (every message to
// rank i−1): no rank ever has two messages in flight, and the mean think
// time over 512 gaps is within 15 % (3.4 standard errors) of the mean asked
// for. The open loop hands every message to the NIC at the start.
func TestClosedLoop(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	H := f.NumHosts()
	for _, tc := range []struct {
		wl  string
		gap Time
	}{
		{"random:msgs=8,size=8192,closed=true", Microsecond},
		{"ring:iters=8,size=8192,closed=true,gap=3us", 3 * Microsecond},
	} {
		r := runJobs(t, f, DefaultConfig(), JobSpec{Workload: tc.wl, Hosts: allHosts(H)})
		last := make([]int32, H) // the previous message of each rank
		for i := range last {
			last[i] = -1
		}
		var sum Time
		n := 0
		for i, m := range r.Plan.Msgs {
			if strings.HasPrefix(tc.wl, "ring") && m.Dst != (m.Src+int32(H)-1)%int32(H) {
				t.Fatalf("%s: message %d goes %d → %d, want to rank %d", tc.wl, i, m.Src, m.Dst, (m.Src+int32(H)-1)%int32(H))
			}
			prev := Time(0)
			if p := last[m.Src]; p >= 0 {
				prev = r.MsgFinish[p]
			}
			if r.MsgReady[i] < prev {
				t.Fatalf("%s: message %d of host %d starts at %s, before its previous one was received (%s)",
					tc.wl, i, m.Src, FormatTime(r.MsgReady[i]), FormatTime(prev))
			}
			sum += r.MsgReady[i] - prev
			n++
			last[m.Src] = int32(i)
		}
		mean := float64(sum) / float64(n)
		t.Logf("%s: %d think times, mean %.3f µs", tc.wl, n, mean/float64(Microsecond))
		if n != 8*H || math.Abs(mean/float64(tc.gap)-1) > 0.15 {
			t.Errorf("%s: %d think times of mean %.3f µs, want %d of mean %s ± 15 %%", tc.wl, n, mean/float64(Microsecond), 8*H, FormatTime(tc.gap))
		}
	}
	open := runJobs(t, f, DefaultConfig(), JobSpec{Workload: "random:msgs=8,size=8192", Hosts: allHosts(H)})
	for i, st := range open.MsgReady {
		if st != 0 {
			t.Fatalf("open loop: message %d ready at %s, want every message at the start", i, FormatTime(st))
		}
	}
}

// TestTaffetBackgroundClosedLoop is §4.4 on a scaled copy of Tapered
// (fattree3 2 pods × 8 leaves × 16 hosts, 2:1 taper, the bit-parity
// allocation of the thesis: 121 ring hosts, 135 background hosts) as the
// thesis ran it: both jobs in the closed loop of its CODES generator, 2
// messages of 128 KiB per rank, the CODES network parameters, adaptive
// routing. The ring alone has no congestion; beside the background it is
// slower, and its own samples blame background traffic: every congested
// root carries less than 30 Gb/s of the ring's sampled traffic (thesis:
// "no port exceeds 30 Gbps"). Measured (seed 1): 26.46 → 98.93 µs, 3
// roots, the largest at 5.3 Gb/s.
func TestTaffetBackgroundClosedLoop(t *testing.T) {
	f := fabric(t, "fattree3:pods=2,leaves=8,hosts=16,up=8")
	parts, err := Allocate("parity", allHosts(f.NumHosts()), 2)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Routing = "adaptive"
	codesNetwork(&cfg)
	ring := JobSpec{Name: "ring", Workload: "ring:iters=2,closed=true", Hosts: parts[0]}
	bg := JobSpec{Name: "background", Workload: "random:msgs=2,closed=true", Hosts: parts[1]}
	alone := runJobs(t, f, cfg, ring)
	_, ta := alone.JobFinish(0)
	da := Diagnose(alone, DiagnoseOptions{View: 0, Window: -1})
	both := runJobs(t, f, cfg, ring, bg)
	_, tb := both.JobFinish(0)
	d := Diagnose(both, DiagnoseOptions{View: 0, Window: -1})
	var roots []string
	for _, r := range d.Roots {
		roots = append(roots, fmt.Sprintf("%.1f", r.Gbps))
	}
	t.Logf("ring alone %s (%s), beside the background %s (%+.0f %%): %s, roots at %s Gb/s",
		FormatTime(ta), da.Cause, FormatTime(tb), 100*(float64(tb)/float64(ta)-1), d.Cause, strings.Join(roots, ", "))
	if da.Cause != NoCongestion {
		t.Errorf("ring alone: %s, want no congestion", da.Cause)
	}
	if float64(tb) < 1.2*float64(ta) {
		t.Errorf("ring beside the background %s, alone %s: want it at least 20 %% slower", FormatTime(tb), FormatTime(ta))
	}
	if d.Cause != Background || len(d.Roots) == 0 {
		t.Fatalf("ring view: %s, want background traffic", d.Cause)
	}
	for _, r := range d.Roots {
		if r.Gbps >= 30 {
			t.Errorf("root %s carries %.1f Gb/s of the ring's sampled traffic, want < 30 (thesis §4.4)", f.LinkName(r.Link), r.Gbps)
		}
	}
}

// TestOneBitRouteSetThesisSetup is the setup of the thesis's Figs. 5.4–5.5:
// the naive reduction to rank 0 from 1024 hosts of Full with adaptive
// routing, one-bit headers whose receivers update only the links the packet
// might have passed through (§5.2's optimisation: here the adaptive route
// set, --restrict route) and the false-positive threshold at 99.5 %
// (§5.5). Nearly every link of the route sets is one the reduction's
// adaptive routes use (here 1 of 2323 updated links is idle), so idle links
// are rare and the threshold hides them: no false positive, let alone one
// above 1 000 packets. The threshold is applied (with 10 arrays per rank it
// hides most of the links, as the thesis says of the links "through which
// fewer packets traveled"), and the link into rank 0 is shown within 2 % of
// its true count.
func TestOneBitRouteSetThesisSetup(t *testing.T) {
	f := fabric(t, "fattree3:pods=11,leaves=18,hosts=18,rep=3")
	jobs, err := Jobs(f, JobsOptions{Workload: "naive-reduce:arrays=10", Hosts: 1024})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Routing, cfg.Scheme, cfg.Restrict, cfg.FalsePositiveConfidence = "adaptive", "onebit", "route", 0.995
	p, err := BuildPlan(f, jobs, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, f, cfg, p)
	cands, idle, shown, hidden, largest := 0, 0, 0, 0, 0.0
	for l, e := range r.Estimates(AllJobs, -1) {
		if e.Q == 0 {
			continue // no receiver updated the link
		}
		cands++
		if e.Hidden {
			hidden++
		}
		if r.TruthOf(-1, int32(l)).Packets > 0 {
			continue
		}
		idle++
		if e.Packets > 0 {
			shown++
			largest = max(largest, e.Packets)
		}
	}
	into0 := f.NextHop(0, f.Links[f.NextHop(0, f.HostNode(0), 1)].To, 0)
	root, truth := r.Estimates(AllJobs, -1)[into0], r.TruthOf(-1, into0)
	t.Logf("%d links updated, %d of them idle, %d shown (largest %.0f packets); %d hidden by the threshold; link into rank 0: %.0f of %d packets",
		cands, idle, shown, largest, hidden, root.Packets, truth.Packets)
	if cands < 2000 {
		t.Fatalf("only %d links updated: the adaptive route set is not used", cands)
	}
	if shown > 0 || largest > 1000 {
		t.Errorf("%d idle links shown, the largest at %.0f packets; want none", shown, largest)
	}
	if hidden == 0 {
		t.Errorf("the false-positive threshold hides nothing: it is not applied to the adaptive route set")
	}
	if math.Abs(root.Packets/float64(truth.Packets)-1) > 0.02 {
		t.Errorf("link into rank 0: %.0f packets estimated, %d true; want within 2 %%", root.Packets, truth.Packets)
	}
}
