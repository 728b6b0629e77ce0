package buffer

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestDiasKumarRule: an input port holds at most one packet per
// destination.
func TestDiasKumarRule(t *testing.T) {
	d := newDiasKumar(2, 4)
	if !d.Admit(0, 7) {
		t.Fatal("empty buffer refuses destination 7")
	}
	d.Claim(0, 7)
	if d.Admit(0, 7) || !d.Admit(0, 8) || !d.Admit(1, 7) {
		t.Errorf("after one packet for 7 on link 0: admit 7 = %v (want false), 8 = %v, 7 on link 1 = %v (want true)",
			d.Admit(0, 7), d.Admit(0, 8), d.Admit(1, 7))
	}
	d.Claim(0, 8)
	d.Claim(0, 9)
	d.Release(0, 7)
	if !d.Admit(0, 7) || d.Admit(0, 8) || d.Admit(0, 9) {
		t.Errorf("after 7 left: admit 7, 8, 9 = %v, %v, %v; want true, false, false", d.Admit(0, 7), d.Admit(0, 8), d.Admit(0, 9))
	}
}

// TestCountingRule works the counting dampener by hand with B = 4 and
// α = 1/2: k destinations are hot spots when the k largest counts sum to at
// least B(1−α^k) = 2, 3, 3.5, 3.75 for k = 1…4.
func TestCountingRule(t *testing.T) {
	d := newCounting(1, 4, 0.5)
	admits := func(want map[int32]bool) {
		t.Helper()
		for dst, w := range want {
			if got := d.Admit(0, dst); got != w {
				t.Errorf("admit %d = %v, want %v", dst, got, w)
			}
		}
	}
	d.Claim(0, 5) // PIA [5:1]: 1 < 2, k = 0
	admits(map[int32]bool{5: true, 6: true})
	d.Claim(0, 5) // [5:2]: 2 ≥ 2, k = 1
	admits(map[int32]bool{5: false, 6: true})
	d.Claim(0, 6) // [5:2, 6:1]: k = 1 (2 ≥ 2), k = 2 (3 ≥ 3): both blocked
	admits(map[int32]bool{5: false, 6: false, 9: true})
	d.Release(0, 5) // [5:1, 6:1]: 1 < 2, 2 < 3: k = 0
	admits(map[int32]bool{5: true, 6: true})
	d.Claim(0, 6) // [6:2, 5:1]: k = 2 (3 ≥ 3)
	admits(map[int32]bool{5: false, 6: false})
	d.Release(0, 6)
	d.Release(0, 6) // [5:1]
	d.Claim(0, 7)
	d.Claim(0, 8) // [5:1, 7:1, 8:1]: sums 1, 2, 3 < 2, 3, 3.5: k = 0
	admits(map[int32]bool{5: true, 7: true, 8: true})
	d.Claim(0, 8) // [8:2, 5:1, 7:1]: k = 1 (2 ≥ 2), k = 2 (3 ≥ 3), k = 3 (4 ≥ 3.5): all three
	admits(map[int32]bool{5: false, 7: false, 8: false, 1: true})
}

// TestHashedRule: a destination may use only its j buffers and is blocked
// when they are full, whatever the other buffers hold.
func TestHashedRule(t *testing.T) {
	const B, j = 6, 2
	d := newHashed(3, 2000, B, j, 42)
	tuple := func(l, dst int32) []int32 {
		tp := make([]int32, j)
		HashedTuple(tp, 42, l, dst, B)
		return tp
	}
	t0 := tuple(0, 10)
	if t0[0] == t0[1] || t0[0] < 0 || t0[0] >= B || t0[1] < 0 || t0[1] >= B {
		t.Fatalf("tuple %v: want 2 distinct buffers of 6", t0)
	}
	// A destination sharing both buffers with 10 and one sharing none.
	var same, apart int32 = -1, -1
	for x := int32(11); x < 2000 && (same < 0 || apart < 0); x++ {
		tx := tuple(0, x)
		slices.Sort(tx)
		s0 := slices.Clone(t0)
		slices.Sort(s0)
		switch {
		case slices.Equal(tx, s0) && same < 0:
			same = x
		case !slices.Contains(s0, tx[0]) && !slices.Contains(s0, tx[1]) && apart < 0:
			apart = x
		}
	}
	if same < 0 || apart < 0 {
		t.Fatalf("no destination with the same (%d) or disjoint (%d) buffers", same, apart)
	}
	if b := d.Claim(0, 10); b != t0[0] {
		t.Errorf("first packet for 10 took buffer %d, want %d", b, t0[0])
	}
	if b := d.Claim(0, 10); b != t0[1] {
		t.Errorf("second packet for 10 took buffer %d, want %d", b, t0[1])
	}
	if d.Admit(0, 10) || d.Admit(0, same) || !d.Admit(0, apart) {
		t.Errorf("10's buffers full: admit 10 = %v, %d (same buffers) = %v, %d (other buffers) = %v; want false, false, true",
			d.Admit(0, 10), same, d.Admit(0, same), apart, d.Admit(0, apart))
	}
	if !d.Admit(1, 10) {
		t.Error("link 1's buffers are empty but 10 is blocked there")
	}
	d.Release(0, t0[1])
	if !d.Admit(0, same) {
		t.Errorf("one of 10's buffers freed, but %d (same buffers) is blocked", same)
	}
	if slices.Equal(tuple(0, 10), tuple(1, 10)) && slices.Equal(tuple(0, 10), tuple(2, 10)) {
		t.Error("destination 10 has the same buffers at every port: tuples must be drawn per port")
	}
}

// TestHashedTheorem1: with (B/j)·ln B hot spots each holding its j
// buffers, O(1) buffers stay free (Theorem 1): a buffer is free when none
// of the h tuples (random j-subsets) holds it, probability (1 − j/B)^h, so
// E[free] = B(1 − j/B)^h ≈ B·e^(−jh/B) = 1 at h = (B/j)·ln B. Measured
// over 4000 ports (independent tuples) within 4 standard errors.
func TestHashedTheorem1(t *testing.T) {
	for _, c := range []struct{ B, j int32 }{{64, 4}, {32, 2}, {16, 2}} {
		h := int(math.Round(float64(c.B) / float64(c.j) * math.Log(float64(c.B))))
		want := float64(c.B) * math.Pow(1-float64(c.j)/float64(c.B), float64(h))
		const ports = 4000
		tp := make([]int32, c.j)
		var sum, sq float64
		for l := range int32(ports) {
			used := make([]bool, c.B)
			for hot := range int32(h) {
				HashedTuple(tp, 9, l, hot*7+3, c.B)
				for _, b := range tp {
					used[b] = true
				}
			}
			free := float64(c.B - int32(len(slices.DeleteFunc(slices.Clone(used), func(u bool) bool { return !u }))))
			sum += free
			sq += free * free
		}
		mean := sum / ports
		se := math.Sqrt((sq/ports - mean*mean) / ports)
		t.Logf("B = %d, j = %d, h = %d hot spots: %.3f buffers free (theory %.3f ± %.3f)", c.B, c.j, h, mean, want, se)
		if math.Abs(mean-want) > 4*se || mean > 2 {
			t.Errorf("B = %d, j = %d, h = %d: %.3f free buffers, want %.3f (4 s.e. %.3f)", c.B, c.j, h, mean, want, 4*se)
		}
	}
}

// TestParse checks that a spec is parsed once into a Spec whose Rule is
// built for a fabric later, and that bad specs name the policy and the
// parameter.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		text string
		fifo bool
	}{{"fifo", true}, {"bypass", false}, {"dias-kumar", false}, {"counting:alpha=0.25", false}, {"hashed:j=2", false}} {
		s, err := Parse(c.text, 4)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		r := s.Rule(Env{Links: 2, Hosts: 8, Slots: 4, Seed: 1})
		if s.FIFO() != c.fifo || (r == nil) != c.fifo {
			t.Errorf("%s: FIFO %v, rule %v; want FIFO %v", c.text, s.FIFO(), r != nil, c.fifo)
		}
		if r != nil && !r.Admit(1, 7) {
			t.Errorf("%s: an empty buffer refuses a packet", c.text)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"hashed:j=5", `buffer policy "hashed:j=5": j=5 must not exceed the 4 buffers per port`},
		{"counting:alpha=1", `buffer policy "counting:alpha=1": alpha=1 must be in (0, 1)`},
		{"fifo:x=1", "x"},
		{"lifo", `unknown buffer policy "lifo"`},
	} {
		if _, err := Parse(c.text, 4); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v; want an error with %q", c.text, err, c.want)
		}
	}
}
