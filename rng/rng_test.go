package rng

import (
	"math"
	"math/bits"
	"slices"
	"testing"
)

func TestStreamsAreReproducible(t *testing.T) {
	a, b := New(42, 7), New(42, 7)
	for i := 0; i < 1000; i++ {
		if x, y := a.Uint64(), b.Uint64(); x != y {
			t.Fatalf("draw %d: %d != %d", i, x, y)
		}
	}
}

func TestStreamsDiffer(t *testing.T) {
	seen := map[uint64]uint64{}
	for idx := uint64(0); idx < 1000; idx++ {
		v := New(1, idx).Uint64()
		if prev, ok := seen[v]; ok {
			t.Fatalf("streams %d and %d start with the same value", prev, idx)
		}
		seen[v] = idx
	}
}

// TestIntNUniform checks a chi-square statistic of 60000 draws over 6 cells
// against the 0.999 quantile of chi2(5) = 20.52.
func TestIntNUniform(t *testing.T) {
	r := New(3, 0)
	const cells, draws = 6, 60000
	var count [cells]int
	for i := 0; i < draws; i++ {
		count[r.IntN(cells)]++
	}
	chi := 0.0
	exp := float64(draws) / cells
	for _, c := range count {
		chi += (float64(c) - exp) * (float64(c) - exp) / exp
	}
	if chi > 20.52 {
		t.Fatalf("chi-square %.2f over 0.999 quantile; counts %v", chi, count)
	}
}

// TestShuffleUniform checks that all 24 permutations of 4 elements appear
// with equal frequency (chi-square, 23 dof, 0.999 quantile = 49.73).
func TestShuffleUniform(t *testing.T) {
	r := New(9, 1)
	const draws = 48000
	count := map[[4]int32]int{}
	for i := 0; i < draws; i++ {
		p := []int32{0, 1, 2, 3}
		r.ShuffleInt32(p)
		count[[4]int32(p)]++
	}
	if len(count) != 24 {
		t.Fatalf("saw %d permutations, want 24", len(count))
	}
	exp := float64(draws) / 24
	chi := 0.0
	for _, c := range count {
		chi += (float64(c) - exp) * (float64(c) - exp) / exp
	}
	if chi > 49.73 {
		t.Fatalf("chi-square %.2f over 0.999 quantile", chi)
	}
}

func TestFloat64Range(t *testing.T) {
	r := New(5, 5)
	sum := 0.0
	for i := 0; i < 100000; i++ {
		f := r.Float64()
		if f < 0 || f >= 1 {
			t.Fatalf("Float64 = %v out of [0,1)", f)
		}
		sum += f
	}
	if m := sum / 100000; math.Abs(m-0.5) > 0.005 {
		t.Fatalf("mean %v, want 0.5 ± 0.005", m)
	}
}

// TestKnownValues pins the first outputs of two streams: a change of
// algorithm would silently change every seeded result, so it must fail here.
func TestKnownValues(t *testing.T) {
	r := New(0, 0)
	want := []uint64{0xfb5405f7bd79c540, 0x780c98e26cea5883, 0x2a146e0980febc66}
	for i, w := range want {
		if g := r.Uint64(); g != w {
			t.Fatalf("draw %d = %#x, want %#x", i, g, w)
		}
	}
	r = New(42, 7)
	if a, b := r.IntN(1000), r.IntN(1000); a != 384 || b != 915 {
		t.Fatalf("IntN draws = %d, %d, want 384, 915", a, b)
	}
}

// TestShuffleInt32DrawsAsShuffle checks that ShuffleInt32 gives the
// permutation and leaves the stream where Shuffle does (the outputs of
// every seeded run depend on it), over odd and even lengths (two draws a
// turn of its loop). A draw is rejected with probability below n/2⁶⁴, so
// none is here: TestIntNRejects covers the redraw.
func TestShuffleInt32DrawsAsShuffle(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 512, 1000, 1 << 16, 1<<16 + 1} {
		for seed := uint64(0); seed < 20; seed++ {
			a, b := New(seed, uint64(n)), New(seed, uint64(n))
			p, q := make([]int32, n), make([]int32, n)
			for i := range p {
				p[i], q[i] = int32(i), int32(i)
			}
			a.ShuffleInt32(p)
			b.Shuffle(n, func(i, j int) { q[i], q[j] = q[j], q[i] })
			for i := range p {
				if p[i] != q[i] {
					t.Fatalf("n %d seed %d: element %d is %d, Shuffle gives %d", n, seed, i, p[i], q[i])
				}
			}
			if x, y := a.Uint64(), b.Uint64(); x != y {
				t.Fatalf("n %d seed %d: next draw %d, after Shuffle %d", n, seed, x, y)
			}
		}
	}
}

// TestIntNRejects checks IntN against Lemire's method written out here,
// with bounds whose draws are rejected often (up to a quarter of them), and
// that rejections happened.
func TestIntNRejects(t *testing.T) {
	rejected := 0
	for _, bound := range []uint64{1<<62 + 1, 3 << 61, 5<<60 + 3, 1e18 + 7} {
		a, b := New(9, bound), New(9, bound)
		for range 2000 {
			hi, lo := bits.Mul64(b.Uint64(), bound)
			for lo < -bound%bound {
				rejected++
				hi, lo = bits.Mul64(b.Uint64(), bound)
			}
			if g := a.IntN(int(bound)); uint64(g) != hi {
				t.Fatalf("bound %d: IntN %d, Lemire's method %d", bound, g, hi)
			}
		}
	}
	if rejected < 500 {
		t.Fatalf("%d draws rejected, want at least 500", rejected)
	}
}

// TestShuffleInt32Redraws checks ShuffleInt32 against Shuffle from states
// whose draw for a bound of 3 is rejected: xoshiro256** draws 0 from a
// state whose second word is 0, and 0·3 mod 2⁶⁴ = 0 is below 2⁶⁴ mod 3 = 1.
// With three elements that is the first draw of a turn of its loop, with
// four the second (the first step leaves s0 ^ s1 ^ s2 = 0 as the second
// word).
func TestShuffleInt32Redraws(t *testing.T) {
	for _, c := range []struct {
		n     int
		state [4]uint64
	}{{3, [4]uint64{5, 0, 7, 9}}, {4, [4]uint64{1, 2, 3, 4}}, {4, [4]uint64{6, 0x10, 0x16, 1}}} {
		a, b := &Stream{s: c.state}, &Stream{s: c.state}
		p, q := make([]int32, c.n), make([]int32, c.n)
		for i := range p {
			p[i], q[i] = int32(i), int32(i)
		}
		a.ShuffleInt32(p)
		draws := 0
		b.Shuffle(c.n, func(i, j int) { q[i], q[j] = q[j], q[i]; draws++ })
		if !slices.Equal(p, q) || a.s != b.s {
			t.Fatalf("n %d from %x: %v and state %x, Shuffle gives %v and %x", c.n, c.state, p, a.s, q, b.s)
		}
		// One draw more than the swaps: the rejected one.
		d := &Stream{s: c.state}
		for range draws + 1 {
			d.Uint64()
		}
		if d.s != a.s {
			t.Fatalf("n %d from %x: no draw was rejected", c.n, c.state)
		}
	}
}

// BenchmarkShuffleInt32 shuffles the 512 hosts of a run, as every run of
// a 512-host simulation does.
func BenchmarkShuffleInt32(b *testing.B) {
	s := make([]int32, 512)
	r := New(1, 1)
	for b.Loop() {
		r.ShuffleInt32(s)
	}
}
