package samplingsim

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"orcs/rng"
)

// Statistical tests of the sampling headers (thesis §3.3, §5.3, §5.6, §5.4).
// Every test uses a fixed seed. Unless stated otherwise a mean is checked to
// lie within 4 standard errors of its expectation (a correct implementation
// fails with probability < 1e-4 per check) and a variance within ±15% of the
// formula, which is more than 4 standard errors of a sample variance of
// 2000 trials (relative standard error √(2/(T−1)) ≈ 3.2%).

// pathWalk sends packets through paths of switch links and feeds the
// receiver, like the simulator does, without a network around them.
type pathWalk struct {
	sc       *scheme
	maxCount uint16
	hash     hashKind
	r        *rng.Stream
	t        *tally
	codes    []uint32
}

func newPathWalk(t testing.TB, name string, links int, seed uint64) *pathWalk {
	sc, err := lookupScheme(name)
	if err != nil {
		t.Fatal(err)
	}
	w := &pathWalk{sc: sc, maxCount: 255, hash: hashMult, r: rng.New(seed, 0), t: newTally(links), codes: make([]uint32, links)}
	for l := range w.codes {
		w.codes[l] = LinkCode(uint32(l/8), uint32(l%8+1), 6)
	}
	return w
}

// send runs one packet with id over path (cong[i]: congested at hop i) and
// receives it with candidate links cands (nil = its path).
func (w *pathWalk) send(id uint32, path []int32, cong []bool, cands []int32) {
	var h header
	h.clear()
	for i, l := range path {
		env := hopEnv{id: id, link: l, code: w.codes[l], congested: cong != nil && cong[i], maxCount: w.maxCount, hash: w.hash, r: w.r}
		w.sc.hop(&h, &env)
	}
	if cands == nil {
		cands = path
	}
	codes := make([]uint32, len(cands))
	for i, l := range cands {
		codes[i] = w.codes[l]
	}
	w.sc.receive(&h, &recvEnv{id: id, cands: cands, codes: codes, hash: w.hash, t: w.t, bytes: 1})
}

func (w *pathWalk) reset() { w.t = newTally(len(w.codes)) }

// moments returns the mean and sample variance of xs.
func moments(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1)
}

// checkMoments checks a sample of T trials against an expected mean and
// variance: the mean within 4 standard errors, the variance within ±15%.
func checkMoments(t *testing.T, what string, xs []float64, wantMean, wantVar float64) {
	t.Helper()
	mean, v := moments(xs)
	se := math.Sqrt(wantVar / float64(len(xs)))
	if math.Abs(mean-wantMean) > 4*se {
		t.Errorf("%s: mean %.3f, want %.3f ± %.3f (4 standard errors)", what, mean, wantMean, 4*se)
	}
	if math.Abs(v-wantVar) > 0.15*wantVar {
		t.Errorf("%s: variance %.1f, want %.1f ± 15%%", what, v, wantVar)
	}
	t.Logf("%s: mean %.3f (want %.3f), variance %.1f (want %.1f)", what, mean, wantMean, v, wantVar)
}

// TestReservoirSinglePath: N packets on one path of length l give every link
// a weighted count W with E[W] = N and Var[W] = N(l−1) (§3.3).
func TestReservoirSinglePath(t *testing.T) {
	const N, T = 1000, 2000
	for _, l := range []int{2, 5} {
		path := make([]int32, l)
		for i := range path {
			path[i] = int32(i)
		}
		w := newPathWalk(t, "reservoir", l, 11)
		ws := make([][]float64, l)
		for range T {
			w.reset()
			for p := range N {
				w.send(uint32(p+1), path, nil, nil)
			}
			for i := range l {
				ws[i] = append(ws[i], float64(w.t.links[i].W))
			}
		}
		for i := range l {
			checkMoments(t, "W of hop "+string(rune('1'+i))+" of "+string(rune('0'+l)), ws[i], N, N*float64(l-1))
		}
	}
}

// TestReservoirMixedPaths: flows of lengths 2, 3 and 5 through a common last
// link; its weighted count sums them without bias, with variance
// Σ N_i(l_i−1) (§3.3).
func TestReservoirMixedPaths(t *testing.T) {
	const T = 2000
	flows := []struct {
		n    int
		path []int32
	}{
		{300, []int32{1, 0}},
		{500, []int32{2, 3, 0}},
		{200, []int32{4, 5, 6, 7, 0}},
	}
	w := newPathWalk(t, "reservoir", 8, 12)
	var xs []float64
	var wantVar float64
	for _, f := range flows {
		wantVar += float64(f.n * (len(f.path) - 1))
	}
	for range T {
		w.reset()
		id := uint32(1)
		for _, f := range flows {
			for range f.n {
				w.send(id, f.path, nil, nil)
				id++
			}
		}
		xs = append(xs, float64(w.t.links[0].W))
	}
	checkMoments(t, "W of the shared link", xs, 1000, wantVar)
}

// TestCongestedFraction: M of N packets congested on g of l hops, link e
// among them; F = Ŵ/W has E[F] ≈ M/N + M(l−1)/N² − M(l−1)(l−2)/N³ and
// Var[F] ≈ (M/N)²((g−1)/M + (l−1)/N) (§3.3, Taylor expansions).
func TestCongestedFraction(t *testing.T) {
	const N, M, l, g, T = 2000, 600, 5, 3, 1000
	path := []int32{0, 1, 2, 3, 4}
	congAt := []bool{false, true, true, true, false} // g = 3 congested hops
	none := make([]bool, l)
	w := newPathWalk(t, "reservoir", l, 13)
	var fs []float64
	for range T {
		w.reset()
		for p := range N {
			c := none
			if p < M {
				c = congAt
			}
			w.send(uint32(p+1), path, c, nil)
		}
		fs = append(fs, float64(w.t.links[2].C)/float64(w.t.links[2].W))
	}
	n, m := float64(N), float64(M)
	wantMean := m/n + m*(l-1)/(n*n) - m*(l-1)*(l-2)/(n*n*n)
	wantVar := (m * m / (n * n)) * ((g-1)/m + (l-1)/n)
	mean, v := moments(fs)
	se := math.Sqrt(wantVar / T)
	if math.Abs(mean-wantMean) > 4*se {
		t.Errorf("E[F] = %.5f, want %.5f ± %.5f", mean, wantMean, 4*se)
	}
	// The variance formula is a second-order approximation; allow ±20%
	// (the sample variance of 1000 trials has a relative error of 4.5%).
	if math.Abs(v-wantVar) > 0.2*wantVar {
		t.Errorf("Var[F] = %.3g, want %.3g ± 20%%", v, wantVar)
	}
	t.Logf("E[F] %.5f (M/N = %.5f, Taylor %.5f), Var[F] %.3g (want %.3g)", mean, m/n, wantMean, v, wantVar)
}

// TestProbabilisticSinglePath: with one hash bit instead of the link (§5.3),
// N packets crossing link d and Q−N more that might have crossed it give
// E[W_d] = N and Var[W_d] = Q·l² − N. Packet ids are random 32-bit numbers,
// so that H_mult'(id, ·) behaves like the fair independent coin the
// analysis assumes.
func TestProbabilisticSinglePath(t *testing.T) {
	const N, Q, l, T = 400, 1200, 3, 2000
	on := []int32{0, 1, 2}  // crosses d = 1
	off := []int32{3, 4, 5} // might have crossed d = 1 as far as the receiver knows
	offCands := []int32{3, 4, 5, 1}
	for _, name := range []string{"onebit", "onereservoir"} {
		w := newPathWalk(t, name, 6, 14)
		ids := rng.New(14, 1)
		var xs []float64
		for range T {
			w.reset()
			for p := range Q {
				id := uint32(ids.Uint64()) | 1
				if p < N {
					w.send(id, on, nil, nil)
				} else {
					w.send(id, off, nil, offCands)
				}
			}
			xs = append(xs, float64(w.t.links[1].W))
		}
		checkMoments(t, name+" W_d", xs, N, Q*l*l-N)
	}
}

// TestCongestedCounts checks the congested counts C_d of every scheme
// against their means and variances. N = 600 packets take the path 0, 1, 2
// (l = 3): 200 are congested at hops 1 and 2 (g = 2), 100 at hop 0 only
// (g = 1), 300 nowhere; so M_0 = 100 and M_1 = M_2 = 200 packets are
// congested at the links. Every scheme is unbiased, E[C_d] = M_d, and per
// packet (m = 1 if congested at d; see varianceProbe in estimate_test.go):
//
//	reservoir:    g·Bernoulli(1/g) for packets congested at d:
//	              Var[C_d] = Σ_{congested at d} (g − 1) = 0, 200, 200
//	onebit:       ±g for every packet with g > 0:
//	              Var[C_d] = Σ g² − M_d = 900 − M_d = 800, 700, 700
//	onereservoir: ±l when the sampled hop was congested (probability g/l):
//	              Var[C_d] = Σ l·g − M_d = 1500 − M_d = 1400, 1300, 1300
//
// The one-bit analogue of §5.3's Var[W_d] = Q·l² − N with the congested
// reservoir's count g in place of l. Means within 4 standard errors of the
// formula's (so a count that is always 0 fails by far), variances within
// ±15% (an exact count, variance 0, must never vary).
func TestCongestedCounts(t *testing.T) {
	const N, T = 600, 2000
	path := []int32{0, 1, 2}
	twoHops := []bool{false, true, true}
	firstHop := []bool{true, false, false}
	M := []float64{100, 200, 200}
	want := map[string][]float64{
		"reservoir":    {0, 200, 200},
		"onebit":       {900 - M[0], 900 - M[1], 900 - M[2]},
		"onereservoir": {1500 - M[0], 1500 - M[1], 1500 - M[2]},
	}
	for _, name := range []string{"reservoir", "onebit", "onereservoir"} {
		w := newPathWalk(t, name, 3, 15)
		ids := rng.New(15, 1)
		cs := make([][]float64, len(path))
		for range T {
			w.reset()
			for p := range N {
				var c []bool
				switch {
				case p < 200:
					c = twoHops
				case p < 300:
					c = firstHop
				}
				w.send(uint32(ids.Uint64())|1, path, c, nil)
			}
			for d := range path {
				cs[d] = append(cs[d], float64(w.t.links[d].C))
			}
		}
		for d := range path {
			checkMoments(t, fmt.Sprintf("%s C_%d", name, d), cs[d], M[d], want[name][d])
		}
	}
}

// TestSaturatingCounter: with b = 2 the counter stops at 3, so on a 5-hop
// path the expected weighted counts are 9/16, 9/16, 9/16, 9/16, 12/16 of
// the packets instead of 1 each (§5.6). With 10^5 packets the standard
// error of each is below 0.004; the bound is 0.016 (4 standard errors).
func TestSaturatingCounter(t *testing.T) {
	const N = 100000
	path := []int32{0, 1, 2, 3, 4}
	w := newPathWalk(t, "reservoir", 5, 16)
	w.maxCount = 3
	for p := range N {
		w.send(uint32(p+1), path, nil, nil)
	}
	want := []float64{9. / 16, 9. / 16, 9. / 16, 9. / 16, 12. / 16}
	for i, x := range want {
		got := float64(w.t.links[i].W) / N
		if math.Abs(got-x) > 0.016 {
			t.Errorf("hop %d: weighted count %.4f per packet, want %.4f", i+1, got, x)
		}
	}
	// With b = 3 the same path is counted correctly.
	w = newPathWalk(t, "reservoir", 5, 16)
	w.maxCount = 7
	for p := range N {
		w.send(uint32(p+1), path, nil, nil)
	}
	for i := range path {
		if got := float64(w.t.links[i].W) / N; math.Abs(got-1) > 0.025 {
			t.Errorf("b=3, hop %d: weighted count %.4f per packet, want 1", i+1, got)
		}
	}
}

// TestHashMultExhaustive enumerates all 2^32 values of d: H_mult'(id, d) is
// 1 for exactly half of them for a fixed id (Theorem 5.1; id 44 974 351 is
// the thesis's example), while ids 2 and 6 agree on 2/3 of them instead of
// 1/2 (the counterexample to Theorem 5.2).
func TestHashMultExhaustive(t *testing.T) {
	if testing.Short() {
		t.Skip("enumerates 2^32 values")
	}
	const parts = 2
	var mu sync.Mutex
	var ones, agree uint64
	var wg sync.WaitGroup
	for p := range uint64(parts) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var o, a uint64
			for d := p << 31; d < (p+1)<<31; d++ {
				x := uint32(d)
				o += uint64(HashMult(44974351, x))
				a += uint64(1 ^ HashMult(2, x) ^ HashMult(6, x))
			}
			mu.Lock()
			ones += o
			agree += a
			mu.Unlock()
		}()
	}
	wg.Wait()
	if ones != 1<<31 {
		t.Errorf("H_mult'(44974351, d) = 1 for %d values of d, want exactly 2^31", ones)
	}
	if frac := float64(agree) / (1 << 32); math.Abs(frac-2.0/3) > 1e-8 {
		t.Errorf("H_mult'(2, d) = H_mult'(6, d) for a fraction %.10f of d, want 2/3", frac)
	}
}

// TestHashBalance checks both hashes on the link codes of a real fabric:
// for a fixed id each is 1 for about half of the links, and over random ids
// two distinct links agree about half of the time.
func TestHashBalance(t *testing.T) {
	f := fabric(t, "kary:k=4,n=3")
	var codes []uint32
	for _, l := range f.Links {
		if sw := f.SwitchIndex(l.From); sw >= 0 {
			codes = append(codes, LinkCode(uint32(sw), uint32(l.FromPort), 6))
		}
	}
	r := rng.New(17, 0)
	for _, k := range []hashKind{hashMult, hashCRC} {
		// Fixed id, all d: the ones are Binomial(n, 1/2) under the ideal
		// hash; 5 standard deviations.
		for range 20 {
			id := uint32(r.Uint64()) | 1
			ones := 0
			for _, d := range codes {
				ones += int(k.bit(id, d))
			}
			n := float64(len(codes))
			if math.Abs(float64(ones)-n/2) > 5*math.Sqrt(n)/2 {
				t.Errorf("hash %d, id %d: %d of %d link codes hash to 1", k, id, ones, len(codes))
			}
		}
		// Pairs of links over 4000 random ids: the agreement rate has a
		// standard error of 0.008; over all pairs allow 0.06.
		const ids = 4000
		bits := make([][]uint8, len(codes))
		idv := make([]uint32, ids)
		for i := range idv {
			idv[i] = uint32(r.Uint64()) | 1
		}
		for j, d := range codes {
			bits[j] = make([]uint8, ids)
			for i, id := range idv {
				bits[j][i] = k.bit(id, d)
			}
		}
		worst := 0.0
		for a := range codes {
			for b := a + 1; b < len(codes); b++ {
				same := 0
				for i := range ids {
					same += int(1 ^ bits[a][i] ^ bits[b][i])
				}
				worst = max(worst, math.Abs(float64(same)/ids-0.5))
			}
		}
		t.Logf("hash %d: worst pair agreement deviates %.4f from 1/2 over %d link codes", k, worst, len(codes))
		if worst > 0.06 {
			t.Errorf("hash %d: two link codes agree %.3f away from half of the time", k, worst)
		}
	}
}

// TestFalsePositiveThreshold: links no packet crossed but that every
// receiver must consider (restriction "all") are hidden by the threshold
// W ≥ L·√Q·Φ⁻¹(0.99) at least 99% of the time, while a link that every
// packet crossed is shown (§5.5).
func TestFalsePositiveThreshold(t *testing.T) {
	const links, N, T = 40, 2000, 50
	path := []int32{0, 1, 2, 3}
	all := make([]int32, links)
	for i := range all {
		all[i] = int32(i)
	}
	z := normalQuantile(0.99)
	if math.Abs(z-2.3263) > 1e-3 {
		t.Fatalf("Φ⁻¹(0.99) = %g", z)
	}
	w := newPathWalk(t, "onebit", links, 18)
	ids := rng.New(18, 1)
	shown, zero := 0, 0
	for range T {
		w.reset()
		for range N {
			w.send(uint32(ids.Uint64())|1, path, nil, all)
		}
		for l := range int32(links) {
			e := w.t.estimate(l, 1, z)
			if l < 4 {
				if e.Packets == 0 {
					t.Errorf("link %d with %d packets hidden (W = %d)", l, N, e.W)
				}
				continue
			}
			zero++
			if e.Packets > 0 {
				shown++
			}
		}
	}
	// Expected rate ≤ 1%; binomial with n = 1800: allow 2%.
	if rate := float64(shown) / float64(zero); rate > 0.02 {
		t.Errorf("%.2f%% of idle links shown, want ≤ 1%% (+ margin)", 100*rate)
	} else {
		t.Logf("%d of %d idle link estimates shown", shown, zero)
	}
}
