package samplingsim

import (
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
