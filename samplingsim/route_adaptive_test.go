package samplingsim

import (
	"math"
	"slices"
	"strings"
	"testing"

	"orcs/gen"
	"orcs/lft"
)

func genNetwork(t testing.TB, spec string) *gen.Network {
	t.Helper()
	n, err := gen.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// linkNames names links "A->B" for comparisons.
func linkNames(f *lft.Fabric, ls []int32) []string {
	var out []string
	for _, l := range ls {
		out = append(out, f.Nodes[f.Links[l].From].Name+"->"+f.Nodes[f.Links[l].To].Name)
	}
	slices.Sort(out)
	return out
}

func sw(t *testing.T, f *lft.Fabric, name string) int32 {
	v, ok := f.NodeByName(name)
	if !ok {
		t.Fatalf("no node %s", name)
	}
	return f.SwitchIndex(v)
}

// TestAllowedPortsFatTree: on the 4-ary 2-tree (16 hosts, leaves S0_0 …
// S0_3 with hosts 4w … 4w+3, spines S1_0 … S1_3), every up-port of a leaf
// leads towards a host of another leaf, only the one down-port towards a
// host below, and a spine has the one down-port to the host's leaf.
func TestAllowedPortsFatTree(t *testing.T) {
	n := genNetwork(t, "kary:k=4,n=2")
	f := n.Fabric
	a, err := newAdaptive(f, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at, to string
		want   []string
	}{
		{"S0_0", "S0_1", []string{"S0_0->S1_0", "S0_0->S1_1", "S0_0->S1_2", "S0_0->S1_3"}},
		{"S0_2", "S0_0", []string{"S0_2->S1_0", "S0_2->S1_1", "S0_2->S1_2", "S0_2->S1_3"}},
		{"S1_1", "S0_3", []string{"S1_1->S0_3"}},
		{"S0_1", "S0_1", nil},
	} {
		got := linkNames(f, a.minimal(nil, sw(t, f, c.at), sw(t, f, c.to)))
		if !slices.Equal(got, c.want) {
			t.Errorf("at %s towards %s: %v, want %v", c.at, c.to, got, c.want)
		}
	}
}

// TestAllowedPortsDragonfly: dragonfly:a=3,h=1,p=1 has 4 groups of 3
// routers, one global link per router (group G's global link k, on router
// k, goes to group G+k+1 and lands on the far group's link 2−k, so S0_0's
// lands on S1_2). From S0_0 to any router of group 1 the first hop is that
// global link (then a local hop unless the target is S1_2). Towards group 2
// the global link is S0_1's: the minimal first hop is the local S0_0->S0_1,
// never S0_0's own global link to group 1 (that path has two global hops).
func TestAllowedPortsDragonfly(t *testing.T) {
	n := genNetwork(t, "dragonfly:a=3,h=1,p=1")
	f := n.Fabric
	a, err := newAdaptive(f, n.Groups, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.lanes != 3 || a.ng != 4 {
		t.Fatalf("lanes %d, groups %d; want 3 and 4", a.lanes, a.ng)
	}
	for _, c := range []struct {
		at, to string
		want   []string
	}{
		{"S0_0", "S1_0", []string{"S0_0->S1_2"}},
		{"S0_0", "S1_1", []string{"S0_0->S1_2"}},
		{"S0_0", "S1_2", []string{"S0_0->S1_2"}},
		{"S0_0", "S2_0", []string{"S0_0->S0_1"}},
		{"S0_0", "S0_2", []string{"S0_0->S0_2"}},
		{"S1_0", "S1_2", []string{"S1_0->S1_2"}},
	} {
		got := linkNames(f, a.minimal(nil, sw(t, f, c.at), sw(t, f, c.to)))
		if !slices.Equal(got, c.want) {
			t.Errorf("minimal at %s towards %s: %v, want %v", c.at, c.to, got, c.want)
		}
	}
	// Valiant: towards group 3 from S0_0 the global link is S0_2's.
	got := linkNames(f, a.towardGroup(nil, sw(t, f, "S0_0"), 3))
	if want := []string{"S0_0->S0_2"}; !slices.Equal(got, want) {
		t.Errorf("towards group 3 from S0_0: %v, want %v", got, want)
	}
	got = linkNames(f, a.towardGroup(nil, sw(t, f, "S0_2"), 3))
	if len(got) != 1 || got[0] == "S0_2->S0_0" || got[0] == "S0_2->S0_1" {
		t.Errorf("towards group 3 from S0_2: %v, want its global link", got)
	}
}

// cdg builds the channel dependency graph of adaptive routing on a
// Dragonfly: every (link, lane) → (link, lane) step a packet can take, for
// every destination, every phase and every intermediate group, with lanes
// as routeAdaptive assigns them (lanes = number of global hops taken, or
// all on lane 0 when oneLane). It reports whether the graph has a cycle.
func cdgHasCycle(t *testing.T, n *gen.Network, oneLane bool) bool {
	f := n.Fabric
	a, err := newAdaptive(f, n.Groups, nil)
	if err != nil {
		t.Fatal(err)
	}
	L := int32(len(f.Links))
	edges := map[int32]map[int32]bool{}
	type st struct {
		in, lane, phase, via int32 // in: incoming channel
	}
	add := func(from, to int32) {
		if edges[from] == nil {
			edges[from] = map[int32]bool{}
		}
		edges[from][to] = true
	}
	isGlobal := func(l int32) bool {
		x, y := f.SwitchIndex(f.Links[l].From), f.SwitchIndex(f.Links[l].To)
		return x >= 0 && y >= 0 && n.Groups[x] != n.Groups[y]
	}
	chanOf := func(l, lane int32) int32 {
		if oneLane {
			return l
		}
		return l + lane*L
	}
	for dst := range int32(f.NumHosts()) {
		target := a.leaf[dst]
		for src := range int32(f.NumHosts()) {
			if src == dst {
				continue
			}
			srcSw := a.leaf[src]
			// Depth-first over states (switch, lane, phase, via, hops>0).
			type key struct{ sw, lane, phase, via, moved int32 }
			seen := map[key]bool{}
			var walk func(swi, in, lane, phase, via, moved int32)
			walk = func(swi, in, lane, phase, via, moved int32) {
				k := key{swi, lane, phase, via, moved}
				if seen[k] {
					return
				}
				seen[k] = true
				if swi == target {
					return // the host link: consumed
				}
				var outs [][2]int32 // link, new phase/via encoded
				type opt struct{ l, phase, via int32 }
				var opts []opt
				if phase == int32(phaseValiant) && n.Groups[swi] == via {
					phase = int32(phaseFinal)
				}
				if phase == int32(phaseValiant) {
					for _, l := range a.towardGroup(nil, swi, via) {
						opts = append(opts, opt{l, phase, via})
					}
				} else {
					for _, l := range a.minimal(nil, swi, target) {
						opts = append(opts, opt{l, phase, via})
					}
					srcG, dstG := n.Groups[srcSw], n.Groups[target]
					if phase == int32(phaseMin) && n.Groups[swi] == srcG {
						for g := range int32(a.ng) {
							if g == srcG || g == dstG || (moved > 0 && a.gdist[int(swi)*a.ng+int(g)] != 1) {
								continue
							}
							for _, l := range a.towardGroup(nil, swi, g) {
								opts = append(opts, opt{l, int32(phaseValiant), g})
							}
						}
					}
				}
				_ = outs
				for _, o := range opts {
					c := chanOf(o.l, lane)
					if in >= 0 {
						add(in, c)
					}
					nl := lane
					if isGlobal(o.l) {
						nl++
					}
					walk(f.SwitchIndex(f.Links[o.l].To), c, nl, o.phase, o.via, 1)
				}
			}
			walk(srcSw, -1, 0, int32(phaseMin), -1, 0)
		}
	}
	// Cycle search (colours).
	colour := map[int32]int{}
	var visit func(v int32) bool
	visit = func(v int32) bool {
		colour[v] = 1
		for u := range edges[v] {
			if colour[u] == 1 || colour[u] == 0 && visit(u) {
				return true
			}
		}
		colour[v] = 2
		return false
	}
	for v := range edges {
		if colour[v] == 0 && visit(v) {
			return true
		}
	}
	return false
}

// TestLanesDeadlockFree: the channel dependency graph of minimal and
// Valiant routes on a Dragonfly is acyclic with a lane per global hop, and
// has a cycle when every hop is on one lane (so the lanes are what makes
// non-minimal routing deadlock-free).
func TestLanesDeadlockFree(t *testing.T) {
	for _, spec := range []string{"dragonfly:a=3,h=1,p=1", "dragonfly:a=4,h=2,p=1"} {
		n := genNetwork(t, spec)
		if cdgHasCycle(t, n, false) {
			t.Errorf("%s: credit loop with lanes", spec)
		}
		if !cdgHasCycle(t, n, true) {
			t.Errorf("%s: no credit loop on one lane; the test cannot see what lanes prevent", spec)
		}
	}
}

// TestAdaptiveNoDeadlockUnderLoad runs a group-adversarial shift (every
// host sends to the host one group over) with Adaptive routing on a
// Dragonfly, where most packets go non-minimal, and checks that every
// message arrives, that packets did take Valiant paths, and that the run
// is deterministic.
func TestAdaptiveNoDeadlockUnderLoad(t *testing.T) {
	n := genNetwork(t, "dragonfly:a=4,h=2,p=2")
	f := n.Fabric
	p, err := BuildPlan(f, []JobSpec{{Workload: "ring:shift=8,size=65536,iters=3", Hosts: allHosts(f.NumHosts())}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Routing, cfg.Groups, cfg.InputBuffer = "adaptive", n.Groups, 1
	r, err := Run(f, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	st := r.Noise(0)
	if st.Detour < 0.1 {
		t.Errorf("non-minimal share %.3f: Valiant paths were hardly used", st.Detour)
	}
	r2, err := Run(f, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if r.End != r2.End || r.PacketHops != r2.PacketHops {
		t.Errorf("not deterministic: %d/%d vs %d/%d", r.End, r.PacketHops, r2.End, r2.PacketHops)
	}
	// Truth conserves packets: hops = Σ links' packets.
	var sum int64
	for l := range f.Links {
		sum += r.TruthOf(-1, int32(l)).Packets
	}
	if sum != r.PacketHops {
		t.Errorf("truth counts %d packet-hops, run %d", sum, r.PacketHops)
	}
}

// TestBiasRules: the bias each mode adds to the alternatives' estimate.
func TestBiasRules(t *testing.T) {
	for _, c := range []struct {
		spec string
		hops uint8
		want int32
	}{
		{"adaptive", 0, 0}, {"adaptive", 3, 0},
		{"adaptive:mode=imb", 0, 0}, {"adaptive:mode=imb", 1, 2}, {"adaptive:mode=imb", 3, 6},
		{"adaptive:mode=imb,bias=5", 2, 10},
		{"adaptive:mode=low", 0, 2}, {"adaptive:mode=low,bias=3", 4, 3},
		{"adaptive:mode=high", 0, 6}, {"adaptive:mode=high,bias=7", 1, 7},
	} {
		rt, err := ParseRouting(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := biasOf(&rt, rt.Mode, c.hops); got != c.want {
			t.Errorf("%s after %d hops: bias %d, want %d", c.spec, c.hops, got, c.want)
		}
	}
	for _, bad := range []string{"adaptive:mode=fast", "adaptive:bias=-2", "adaptive:age=0", "adaptive:lambda=0", "dynamic"} {
		if _, err := ParseRouting(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestBiasDecision: on the 4-ary 2-tree a packet from H0 to H4 at leaf
// S0_0 has the table's port and three other up-ports. With the table's
// port holding 5 packets (queue 1 + 4 credits in use) and the others 2,
// Adaptive takes another port (2 < 5), Low bias too (2+2 < 5), High bias
// keeps the table's port (2+6 ≥ 5).
func TestBiasDecision(t *testing.T) {
	n := genNetwork(t, "kary:k=4,n=2")
	f := n.Fabric
	p, err := BuildPlan(f, []JobSpec{{Workload: "flow:src=0,dst=4", Hosts: allHosts(f.NumHosts())}}, 1)
	if err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		spec    string
		stayDef bool
	}{{"adaptive", false}, {"adaptive:mode=low", false}, {"adaptive:mode=high", true}, {"adaptive:mode=imb", false}} {
		cfg := DefaultConfig()
		cfg.Routing = c.spec
		s, err := setUp(f, cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		leaf, _ := f.NodeByName("S0_0")
		def := f.NextHop(0, leaf, 4)
		for _, l := range f.OutLinks(leaf) {
			if f.SwitchIndex(f.Links[l].To) < 0 {
				continue
			}
			s.ch[l].credits = s.bufferCap - 2
			if l == def {
				s.ch[l].credits = 0
				s.ch[l].queue.n = 1
			}
		}
		pid := s.newPacket()
		s.packets[pid] = packet{src: 0, dst: 4, mode: s.routing.Mode}
		got := s.routeAdaptive(leaf, pid)
		if (got == def) != c.stayDef {
			t.Errorf("%s: chose %s, table port %s", c.spec, f.LinkName(got), f.LinkName(def))
		}
	}
}

// TestQCD by hand: 1, 2, …, 9: Q1 = 3, Q3 = 7 (h = 2 and 6), QCD = 4/10.
// 1, 2, 3, 4: Q1 = 1.75, median 2.5, Q3 = 3.25, QCD = 1.5/5 = 0.3.
func TestQCD(t *testing.T) {
	q1, m, q3 := Quartiles([]float64{9, 1, 8, 2, 7, 3, 6, 4, 5})
	if q1 != 3 || m != 5 || q3 != 7 {
		t.Errorf("quartiles %g %g %g, want 3 5 7", q1, m, q3)
	}
	if got := QCD([]float64{9, 1, 8, 2, 7, 3, 6, 4, 5}); math.Abs(got-0.4) > 1e-12 {
		t.Errorf("QCD %g, want 0.4", got)
	}
	q1, m, q3 = Quartiles([]float64{4, 3, 2, 1})
	if q1 != 1.75 || m != 2.5 || q3 != 3.25 {
		t.Errorf("quartiles %g %g %g, want 1.75 2.5 3.25", q1, m, q3)
	}
	if got := QCD([]float64{1, 2, 3, 4}); math.Abs(got-0.3) > 1e-12 {
		t.Errorf("QCD %g, want 0.3", got)
	}
	if got := QCD([]float64{5, 5, 5}); got != 0 {
		t.Errorf("constant QCD %g", got)
	}
}

// TestAppAware: Algorithm 1 step by step.
func TestAppAware(t *testing.T) {
	par := AppParams{Threshold: 4096, Lambda: 0.5, Sigma: 2, MaxAge: 3}
	var st appNIC
	// Below the threshold: High bias, whatever the counters say.
	if m := appDecide(&st, &par, ModeAdaptive, 1000, 1); m != ModeHigh {
		t.Fatalf("small message: %v, want high", m)
	}
	if st.cur != ModeAdaptive || st.cum != 1000 {
		t.Fatalf("state %+v: starts in adaptive with the bytes counted", st)
	}
	// Cumulative 1000+3096 reaches 4096: decide. Nothing measured: stay.
	if m := appDecide(&st, &par, ModeAdaptive, 3096, 1); m != ModeAdaptive || st.cum != 0 {
		t.Fatalf("no counters: %v (cum %d), want adaptive and the count reset", m, st.cum)
	}
	// Adaptive measured L = 1000, s = 10 per packet; High bias derived:
	// L = 500, s = 20. For p packets: High iff 500+20p < 1000+10p, p < 50.
	for range 4 {
		appCount(&st, ModeAdaptive, 1000)
		appStall(&st, ModeAdaptive, 10)
	}
	if m := appDecide(&st, &par, ModeAdaptive, 8192, 2); m != ModeHigh {
		t.Errorf("2 packets: %v, want high (500+40 < 1000+20)", m)
	}
	// Now High is current; measured: L = 900, s = 0. Adaptive's values
	// (1000, 10) are one decision old, so still used: 900 < 1000+10p.
	appCount(&st, ModeHigh, 900)
	appStall(&st, ModeHigh, 0)
	if m := appDecide(&st, &par, ModeAdaptive, 1<<20, 256); m != ModeHigh {
		t.Errorf("after high measured cheaper: %v, want high", m)
	}
	// High measured with large stalls: L = 400, s = 100: for 256 packets
	// 400+25600 > 1000+2560: back to adaptive; for an alltoall job IMB.
	appCount(&st, ModeHigh, 400)
	appStall(&st, ModeHigh, 100)
	if m := appDecide(&st, &par, ModeIMB, 1<<20, 256); m != ModeIMB {
		t.Errorf("high with stalls: %v, want imb", m)
	}
	// Adaptive's measurement (age 3 ≥ MaxAge) is stale: derived from
	// High's last (400/0.5 = 800, 100/2 = 50): 1 packet: 400+100 < 800+50.
	st.age[1] = par.MaxAge
	st.cur = ModeHigh
	if m := appDecide(&st, &par, ModeIMB, 1<<20, 1); m != ModeHigh {
		t.Errorf("stale adaptive, 1 packet: %v, want high", m)
	}
	if st.l[1] != 800 || st.s[1] != 50 {
		t.Errorf("derived adaptive L %g s %g, want 800 50", st.l[1], st.s[1])
	}
}

// TestNoiseWorkloads checks message counts and iteration spans.
func TestNoiseWorkloads(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	for _, c := range []struct {
		wl          string
		msgs, iters int
	}{
		{"pingpong:iters=5", 10, 5},
		{"barrier:iters=3", 3 * 4 * 16, 3},      // 16 ranks, 4 rounds
		{"allreduce:iters=2", 2 * 4 * 16, 2},    // 16 = 2^4
		{"alltoall:size=8,iters=2", 2 * 240, 2}, // 16·15
		{"halo3d:x=4,y=2,z=2,iters=3", 3 * 16 * 6, 3},
	} {
		p, err := BuildPlan(f, []JobSpec{{Workload: c.wl, Hosts: allHosts(16)}}, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.wl, err)
		}
		if len(p.Msgs) != c.msgs || len(p.Iters) != c.iters {
			t.Errorf("%s: %d messages, %d iterations; want %d, %d", c.wl, len(p.Msgs), len(p.Iters), c.msgs, c.iters)
		}
		cfg := DefaultConfig()
		cfg.Routing = "adaptive"
		r, err := Run(f, cfg, p)
		if err != nil {
			t.Fatalf("%s: %v", c.wl, err)
		}
		st := r.Noise(0)
		if len(st.Iterations) != c.iters || st.Median <= 0 {
			t.Errorf("%s: %d iteration times, median %g", c.wl, len(st.Iterations), st.Median)
		}
	}
	// allreduce on 12 ranks folds 4 extra ranks in and out: 4 + 3·8 + 4.
	p, err := BuildPlan(f, []JobSpec{{Workload: "allreduce:iters=1", Hosts: allHosts(12)}}, 1)
	if err != nil || len(p.Msgs) != 32 {
		t.Errorf("allreduce on 12 ranks: %v messages, err %v; want 32", len(p.Msgs), err)
	}
}

// TestPairQCD: pair 0→1 has latencies 1…9 (QCD 0.4), pair 1→0 has 1…4
// (QCD 0.3), pair 2→3 only three packets (left out): mean 0.35. The QCD
// of all 16 latencies together would differ (it mixes the pairs).
func TestPairQCD(t *testing.T) {
	var ps []PacketLatency
	for i := 9; i >= 1; i-- {
		ps = append(ps, PacketLatency{Src: 0, Dst: 1, Latency: Time(i)})
	}
	for i := 1; i <= 4; i++ {
		ps = append(ps, PacketLatency{Src: 1, Dst: 0, Latency: Time(i)})
	}
	ps = append(ps, PacketLatency{Src: 2, Dst: 3, Latency: 100}, PacketLatency{Src: 2, Dst: 3, Latency: 1}, PacketLatency{Src: 2, Dst: 3, Latency: 50})
	got, ok := pairQCD(ps)
	if !ok || math.Abs(got-0.35) > 1e-12 {
		t.Errorf("pair QCD %g (%v), want 0.35", got, ok)
	}
	if _, ok := pairQCD(ps[13:]); ok {
		t.Errorf("three packets of one pair gave a pair QCD")
	}
}

// TestAppRatios: λ and σ from the Adaptive and High rows.
func TestAppRatios(t *testing.T) {
	rows := []RoutingRow{
		{Routing: "static", Stats: NoiseStats{Latency: 1, Stall: 1}},
		{Routing: "adaptive", Stats: NoiseStats{Latency: 1000, Stall: 20}},
		{Routing: "adaptive:mode=high", Stats: NoiseStats{Latency: 800, Stall: 30}},
	}
	l, s, ok := AppRatios(rows)
	if !ok || l != 0.8 || s != 1.5 {
		t.Errorf("λ %g σ %g (%v), want 0.8 1.5", l, s, ok)
	}
	if _, _, ok := AppRatios(rows[:2]); ok {
		t.Errorf("ratios without a high-bias row")
	}
	rt, err := ParseRouting("adaptive:mode=app,p=message")
	if err != nil || rt.App.Backlog {
		t.Errorf("p=message: %+v %v", rt.App, err)
	}
	if rt, _ := ParseRouting("adaptive:mode=app"); !rt.App.Backlog {
		t.Errorf("default p is not backlog")
	}
	if _, err := ParseRouting("adaptive:mode=app,p=flits"); err == nil {
		t.Errorf("p=flits accepted")
	}
}

// TestAdaptiveRouteSet: the links one-bit receivers update for a packet
// (its adaptive route set, --restrict route) include every link its flow
// actually crossed. The flow H0 → H(last) runs beside group-adversarial
// traffic, so many of its packets go non-minimal; the reservoir headers of
// its job sample links the packets crossed, and every sampled link must be
// in the set. On a fat tree the set is the minimal paths only.
func TestAdaptiveRouteSet(t *testing.T) {
	for _, c := range []struct {
		spec, bg string
	}{
		{"dragonfly:a=4,h=2,p=2", "ring:shift=4,size=65536,iters=4"},
		{"kary:k=4,n=3", "ring:shift=16,size=65536,iters=4"},
	} {
		n := genNetwork(t, c.spec)
		f := n.Fabric
		H := f.NumHosts()
		var others []int32
		for h := 1; h < H-1; h++ {
			others = append(others, int32(h))
		}
		p, err := BuildPlan(f, []JobSpec{
			{Workload: "flow:msgs=20,size=65536", Hosts: []int32{0, int32(H - 1)}},
			{Workload: c.bg, Hosts: others},
		}, 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.Routing, cfg.Groups = "adaptive", n.Groups
		r, err := Run(f, cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		if d := r.Noise(0).Detour; d == 0 {
			t.Errorf("%s: the flow never left its preferred ports", c.spec)
		}
		s, err := setUp(f, cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		set, _ := s.adaptiveCandidates(0, int32(H-1))
		in := map[int32]bool{}
		for _, l := range set {
			in[l] = true
		}
		sampled := 0
		for l, e := range r.Estimates(0, -1) {
			if e.Packets > 0 {
				sampled++
				if !in[int32(l)] {
					t.Errorf("%s: link %s sampled but not in the route set", c.spec, f.LinkName(int32(l)))
				}
			}
		}
		if sampled < 4 {
			t.Errorf("%s: only %d links sampled", c.spec, sampled)
		}
		// kary:k=4,n=3, H0 → H63: the leaf's 4 up-links, 4 middle switches
		// × 4 up-links, 16 top switches × 1 link down, 4 middle switches ×
		// 1 link down to H63's leaf, and the link into H63: 41.
		if n.Groups == nil && len(set) != 41 {
			t.Errorf("%s: %d links in the route set, want 41", c.spec, len(set))
		}
		t.Logf("%s: %d links in the route set, %d sampled", c.spec, len(set), sampled)
	}
}

// FuzzParseRouting: any spec either parses into a known mode with sane
// parameters or gives an error; never a panic.
func FuzzParseRouting(f *testing.F) {
	for _, s := range []string{"static", "adaptive", "adaptive:mode=imb", "adaptive:mode=high,bias=7",
		"adaptive:mode=app,threshold=0,lambda=0.5,sigma=2,age=1,p=message", "adaptive:mode=", "adaptive:bias=x", ":", "adaptive:mode=app,p=backlog,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rt, err := ParseRouting(s)
		if err != nil {
			return
		}
		if rt.Mode > ModeApp || rt.Bias < 0 || rt.Mode != ModeStatic && (rt.App.Lambda <= 0 || rt.App.Sigma <= 0 || rt.App.MaxAge < 1 || rt.App.Threshold < 0) {
			t.Errorf("%q parsed into %+v", s, rt)
		}
	})
}

// TestLanesTakeTurns: when two lanes of a link both have a packet and a
// credit, the lane after the last sender goes first.
func TestLanesTakeTurns(t *testing.T) {
	n := genNetwork(t, "dragonfly:a=3,h=1,p=1")
	f := n.Fabric
	p, err := BuildPlan(f, []JobSpec{{Workload: "pingpong:iters=1", Hosts: allHosts(f.NumHosts())}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Routing, cfg.Groups = "adaptive", n.Groups
	s, err := setUp(f, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if s.lanes != 3 {
		t.Fatalf("%d lanes, want 3", s.lanes)
	}
	l := s.ad.links[0]
	l1, l2 := l+s.physLinks, l+2*s.physLinks
	s.ch[l].queue.n, s.ch[l1].queue.n, s.ch[l2].queue.n = 1, 1, 0
	if got := s.laneTurn(l1); got != l {
		t.Errorf("first turn: channel %d, want lane 0's %d", got, l)
	}
	s.ch[l].busyUntil = 1000
	s.laneBusy(l) // lane 0 sent: lane 1's turn
	if got := s.laneTurn(l); got != l1 {
		t.Errorf("after lane 0 sent: channel %d, want lane 1's %d", got, l1)
	}
	if s.ch[l1].busyUntil != 1000 || s.ch[l2].busyUntil != 1000 {
		t.Errorf("the other lanes are not busy with the link")
	}
	s.ch[l1].credits = 0
	if got := s.laneTurn(l); got != l {
		t.Errorf("lane 1 without credits: channel %d, want lane 0's %d", got, l)
	}
}

// TestNoiseSummary: the summary adds the routing and noise lines for an
// iterated workload only.
func TestNoiseSummary(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	for _, c := range []struct {
		wl, routing string
		want        bool
	}{{"barrier:iters=4", "adaptive:mode=high", true}, {"ring:iters=2", "adaptive", false}, {"pingpong:iters=3", "static", true}} {
		p, err := BuildPlan(f, []JobSpec{{Workload: c.wl, Hosts: allHosts(16)}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.Routing = c.routing
		r, err := Run(f, cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		r.WriteSummary(&b, "x")
		got := strings.Contains(b.String(), "  routing "+c.routing+": ")
		if got != c.want || got && !strings.Contains(b.String(), "  packets: latency ") {
			t.Errorf("%s with %s: noise lines %v, want %v:\n%s", c.wl, c.routing, got, c.want, b.String())
		}
	}
}

// TestJSONRouting: the JSON configuration names an adaptive routing and
// says nothing of a static one (whose JSON stays as it was).
func TestJSONRouting(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	p, err := BuildPlan(f, []JobSpec{{Workload: "pingpong:iters=2", Hosts: allHosts(16)}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range []string{"static", "adaptive:mode=low"} {
		cfg := DefaultConfig()
		cfg.Routing = rt
		r, err := Run(f, cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := r.WriteJSON(&b, AllJobs, nil); err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(b.String(), `"routing": "adaptive:mode=low"`)
		if has != (rt != "static") || strings.Contains(b.String(), `"routing": "static"`) {
			t.Errorf("%s: JSON routing field %v:\n%.400s", rt, has, b.String())
		}
	}
}

// TestNoiseByHand: iteration times, quartiles, latency, stall and detour
// shares of a made-up result.
func TestNoiseByHand(t *testing.T) {
	p := &Plan{Jobs: []Job{{Name: "a"}, {Name: "b"}}}
	for i := range 6 {
		p.Add(Message{Src: 0, Dst: 1, Bytes: 8192, Job: int32(i / 4), Wait: -1}) // 2 packets of 4 KiB
	}
	p.Iters = []IterSpan{{Job: 0, First: 0, End: 2}, {Job: 0, First: 2, End: 4}}
	r := &Result{Config: DefaultConfig(), Plan: p,
		MsgReady:   []Time{0, 10, 100, 100, 0, 0},
		MsgFinish:  []Time{50, 40, 130, 300, 5, 5},
		MsgLatency: []Time{20, 20, 40, 120, 0, 0},
		MsgStall:   []Time{0, 4, 0, 4, 0, 0},
		MsgMode:    []RouteMode{ModeHigh, ModeAdaptive, ModeAdaptive, ModeAdaptive, 0, 0},
		MsgDetour:  []int32{0, 1, 2, 1, 0, 0},
	}
	st := r.Noise(0)
	// Iterations: 50−0 = 50 and 300−100 = 200; quartiles of {50, 200}:
	// 87.5, 125, 162.5; QCD 75/250.
	if !slices.Equal(st.Iterations, []Time{50, 200}) || st.Q1 != 87.5 || st.Median != 125 || st.Q3 != 162.5 || math.Abs(st.QCD-0.3) > 1e-12 {
		t.Errorf("iterations %v, quartiles %g %g %g, QCD %g", st.Iterations, st.Q1, st.Median, st.Q3, st.QCD)
	}
	// 8 packets, latency 200/8, stall 8/8, detour 4/8, adaptive 6/8.
	if st.Packets != 8 || st.Latency != 25 || st.Stall != 1 || st.Detour != 0.5 || st.AdaptiveShare != 0.75 {
		t.Errorf("packets %d, latency %g, stall %g, detour %g, adaptive %g", st.Packets, st.Latency, st.Stall, st.Detour, st.AdaptiveShare)
	}
	// Job b has no spans: one iteration from 0 to 5.
	if st := r.Noise(1); !slices.Equal(st.Iterations, []Time{5}) {
		t.Errorf("job b: iterations %v, want [5]", st.Iterations)
	}
	// An unfinished message makes its iteration unfinished.
	r.MsgFinish[3] = -1
	if st := r.Noise(0); st.Unfinished != 1 || len(st.Iterations) != 1 {
		t.Errorf("unfinished: %d, iterations %v", st.Unfinished, st.Iterations)
	}
}
