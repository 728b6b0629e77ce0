package samplingsim

import "orcs/registry"

func init() {
	registerBuffers(&bufferPolicy{
		name: "hashed",
		doc: "hashed dampener: every destination is hashed to a j-tuple of distinct buffers of the B of each input port and may use only those; " +
			"it is blocked when all of them are full",
		params: []registry.Param{{Key: "j", Default: "2", Doc: "buffers per destination (1 ≤ j ≤ B)"}},
		build: func(r *registry.Reader, links int, slots int32, seed uint64) (*dampener, error) {
			j := atLeast(r, "j", 1)
			if j > int(slots) {
				r.Failf("j=%d must not exceed the %d buffers per port (--buffer)", j, slots)
			}
			if err := r.Err(); err != nil {
				return nil, err
			}
			return newHashed(links, slots, int32(j), seed), nil
		},
	})
}

// hashedTuple writes into t the j distinct buffers of destination dst at
// the input port of link l: the first j distinct values of a seeded hash
// of (l, dst, i) mod B for i = 0, 1, … (a random j-subset of the B
// buffers, drawn independently for every port).
func hashedTuple(t []int32, seed uint64, l, dst, slots int32) {
	got := 0
	for i := uint64(0); got < len(t); i++ {
		x := mix64(seed ^ uint64(l)*0x9e3779b97f4a7c15 ^ uint64(dst)*0xc2b2ae3d27d4eb4f ^ i*0x165667b19e3779f9)
		b := int32(x % uint64(slots))
		dup := false
		for _, v := range t[:got] {
			dup = dup || v == b
		}
		if !dup {
			t[got] = b
			got++
		}
	}
}

// mix64 is the finaliser of SplitMix64: a bijection of 64-bit integers
// whose outputs look independent for nearby inputs.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// newHashed returns the hashed dampener. The mirror of link l is the owner
// of each of its B buffers, owner[l·B+b] (−1 = free); a packet's tag is the
// buffer it takes.
func newHashed(links int, slots, j int32, seed uint64) *dampener {
	owner := make([]int32, links*int(slots))
	for i := range owner {
		owner[i] = -1
	}
	t := make([]int32, j)
	// free returns a free buffer of dst's tuple at link l, or −1.
	free := func(l, dst int32) int32 {
		hashedTuple(t, seed, l, dst, slots)
		for _, b := range t {
			if owner[l*slots+b] < 0 {
				return b
			}
		}
		return -1
	}
	return &dampener{
		admit: func(l, dst int32) bool { return free(l, dst) >= 0 },
		claim: func(l, dst int32) int32 {
			b := free(l, dst)
			owner[l*slots+b] = dst
			return b
		},
		release: func(l, b int32) { owner[l*slots+b] = -1 },
	}
}
