package samplingsim

import (
	"fmt"
	"math"
	"testing"
)

// onebitPathBias runs one connection H0 → H63 of kary:k=4,n=3 (a 5-hop
// path: leaf → middle → top → middle → leaf → host) carrying n packets with
// one-bit headers, for seeds 1…trials, and returns for every link of the
// path the mean estimate over the trials divided by n, and its standard
// error.
var testRestrict = "route"

func onebitPathBias(t *testing.T, ids string, n, trials int) (ratio, se []float64) {
	f := fabric(t, "kary:k=4,n=3")
	route, _ := f.AppendRoute(nil, 0, 63)
	route = route[1:] // the link out of the NIC is never sampled
	if len(route) != 5 {
		t.Fatalf("route H0 → H63 has %d switch links, want 5", len(route))
	}
	sum := make([]float64, len(route))
	sq := make([]float64, len(route))
	for seed := 1; seed <= trials; seed++ {
		cfg := DefaultConfig()
		cfg.Scheme, cfg.PacketIDs, cfg.Seed, cfg.MTU = "onebit", ids, uint64(seed), 256
		cfg.Restrict = testRestrict
		r := mustRun(t, f, cfg, planOf(f, Message{Src: 0, Dst: 63, Bytes: int64(n) * 256}))
		est := r.Estimates(AllJobs, -1)
		for i, l := range route {
			if got := r.TruthOf(-1, l).Packets; got != int64(n) {
				t.Fatalf("link %d carried %d packets, want %d", l, got, n)
			}
			sum[i] += est[l].Packets
			sq[i] += est[l].Packets * est[l].Packets
		}
	}
	for i := range route {
		mean := sum[i] / float64(trials)
		v := (sq[i]/float64(trials) - mean*mean) * float64(trials) / float64(trials-1)
		ratio = append(ratio, mean/float64(n))
		se = append(se, math.Sqrt(v/float64(trials))/float64(n))
	}
	return ratio, se
}

// TestOneBitUnbiasedPerConnectionIDs: the one-bit estimate of a link
// agrees with the hop that the packet stored with probability 1/2 only if
// H_mult'(id, ·) behaves like a fair coin over the ids the link sees. With
// per-connection sequence numbers from a seeded random start (InfiniBand
// PSNs) the ids of a connection are a random window of 2^24, so over seeds
// every link of a 5-hop path is estimated without bias: mean estimate
// within 2 % of the true count (and within 4 standard errors). With the
// global counter from 1 every run gives the path the ids 1…n, and the
// correlated hash bits of those small ids bias the links of the path by
// several percent in the same direction in every run.
func TestOneBitUnbiasedPerConnectionIDs(t *testing.T) {
	const n, trials = 2000, 200
	ratio, se := onebitPathBias(t, "connection", n, trials)
	for i := range ratio {
		if math.Abs(ratio[i]-1) > 0.02 || math.Abs(ratio[i]-1) > 4*se[i] {
			t.Errorf("connection ids: hop %d estimated %.4f × the truth (s.e. %.4f), want 1 within 2 %%", i+1, ratio[i], se[i])
		}
	}
	t.Logf("connection ids: %s", fmtRatios(ratio, se))
	g, gse := onebitPathBias(t, "global", n, trials)
	t.Logf("global ids:     %s", fmtRatios(g, gse))
}

func fmtRatios(r, se []float64) string {
	s := ""
	for i := range r {
		s += fmt.Sprintf(" %.4f±%.4f", r[i], se[i])
	}
	return s
}

// TestFalsePositivesThesisSetup runs the setup of §5.5 (the naive reduction
// of §4.3 to rank 0 from 1024 hosts of the Full system of Table 3.1, one-bit
// headers updating every switch link, the false-positive threshold at
// 99.5 %), with 10 arrays per rank instead of 50 to keep the test short.
// For an idle link the weighted count W_d is a sum of Q_d steps ±l with a
// fair coin, so W_d/(L·√Q_d) is at most a standard normal in spread: the
// threshold shows at most 0.5 % of the idle links (plus 4 binomial standard
// deviations), and none of them beyond 5 standard deviations (over 17 758
// idle links a fair coin exceeds that with probability 3·10⁻⁴). With the
// global counter from 1 the small, correlated ids push one idle link to
// 12.6 standard deviations (6 384 packets where the threshold is 1 303).
func TestFalsePositivesThesisSetup(t *testing.T) {
	f := fabric(t, "fattree3:pods=11,leaves=18,hosts=18,rep=3")
	jobs, err := Jobs(f, JobsOptions{Workload: "naive-reduce:arrays=10", Hosts: 1024})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Scheme, cfg.Restrict, cfg.FalsePositiveConfidence = "onebit", "all", 0.995
	p, err := BuildPlan(f, jobs, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, f, cfg, p)
	const L = 5 // the longest path among the first 1024 hosts, in switch hops
	idle, shown, worst := 0, 0, 0.0
	for l, e := range r.Estimates(AllJobs, -1) {
		if !r.Sampled(int32(l)) || r.TruthOf(-1, int32(l)).Packets > 0 {
			continue
		}
		idle++
		z := float64(e.W) / (L * math.Sqrt(float64(e.Q)))
		worst = max(worst, z)
		if e.Packets > 0 {
			shown++
		}
	}
	allowed := 0.005*float64(idle) + 4*math.Sqrt(0.005*float64(idle))
	t.Logf("%d idle links, %d shown (allowed %.0f), largest W/(L√Q) %.2f", idle, shown, allowed, worst)
	if idle < 17000 {
		t.Fatalf("only %d idle links: the setup changed", idle)
	}
	if float64(shown) > allowed || worst > 5 {
		t.Errorf("%d idle links shown (allowed %.0f), largest W/(L√Q) = %.2f (want ≤ 5): the hash does not behave like a fair coin over the packet ids",
			shown, allowed, worst)
	}
}

// TestPacketIDs: per-connection ids count up by one from a starting PSN
// that the seed decides, modulo 2^24, each connection on its own; the
// global counter numbers every packet from 1.
func TestPacketIDs(t *testing.T) {
	f := fabric(t, "kary:k=2,n=2")
	p := planOf(f, Message{Src: 0, Dst: 1, Bytes: 1}, Message{Src: 0, Dst: 2, Bytes: 1}, Message{Src: 0, Dst: 1, Bytes: 1})
	start := func(seed uint64, ids string) *network {
		cfg := DefaultConfig()
		cfg.Seed, cfg.PacketIDs, cfg.Scheme = seed, ids, "onebit"
		s, err := setUp(f, cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := start(7, "connection")
	if len(s.connPSN) != 2 || s.msgConn[0] != s.msgConn[2] || s.msgConn[0] == s.msgConn[1] {
		t.Fatalf("connections %v of messages, %d PSNs: want messages 0 and 2 on one connection, 1 on another", s.msgConn, len(s.connPSN))
	}
	s.connPSN[0] = 1<<PSNBits - 2 // near the wrap
	a, b, c, d := s.nextPacketID(0), s.nextPacketID(2), s.nextPacketID(0), s.nextPacketID(1)
	if a != 1<<PSNBits-2 || b != 1<<PSNBits-1 || c != 0 {
		t.Errorf("ids of connection 0: %d, %d, %d; want %d, %d, 0 (PSNs wrap at 2^24)", a, b, c, 1<<PSNBits-2, 1<<PSNBits-1)
	}
	if d >= 1<<PSNBits || d == 0 {
		t.Errorf("first id of connection 1 is %d, want a random 24-bit PSN", d)
	}
	s1, s2, s3 := start(7, "connection"), start(7, "connection"), start(8, "connection")
	if s1.connPSN[0] != s2.connPSN[0] || s1.connPSN[1] != s2.connPSN[1] {
		t.Errorf("same seed, different starting PSNs %v and %v", s1.connPSN, s2.connPSN)
	}
	if s1.connPSN[0] == s3.connPSN[0] && s1.connPSN[1] == s3.connPSN[1] {
		t.Errorf("seeds 7 and 8 give the same starting PSNs %v", s1.connPSN)
	}
	g := start(7, "global")
	if x, y, z := g.nextPacketID(1), g.nextPacketID(0), g.nextPacketID(1); x != 1 || y != 2 || z != 3 {
		t.Errorf("global ids %d, %d, %d; want 1, 2, 3", x, y, z)
	}
}
