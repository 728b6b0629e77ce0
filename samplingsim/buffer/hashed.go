package buffer

import (
	"math/bits"

	"orcs/registry"
)

func init() {
	register(&policy{
		name: "hashed",
		doc: "hashed dampener: every destination is hashed to a j-tuple of distinct buffers of the B of each input port and may use only those; " +
			"it is blocked when all of them are full",
		params: []registry.Param{{Key: "j", Default: "2", Doc: "buffers per destination (1 ≤ j ≤ B ≤ 64)"}},
		parse: func(r *registry.Reader, slots int32) (func(Env) *Rule, error) {
			j := r.IntAtLeast("j", 1)
			if j > int(slots) {
				r.Failf("j=%d must not exceed the %d buffers per port (--buffer)", j, slots)
			}
			if slots > 64 {
				r.Failf("at most 64 buffers per port (--buffer %d): the buffers of a port are one 64-bit mask", slots)
			}
			if err := r.Err(); err != nil {
				return nil, err
			}
			return func(env Env) *Rule { return newHashed(env.Links, env.Hosts, env.Slots, int32(j), env.Seed) }, nil
		},
	})
}

// hashedMask returns the j distinct buffers of destination dst at the
// input port of link l as a bit mask: the first j distinct values of a
// seeded hash of (l, dst, i) mod B for i = 0, 1, … (a random j-subset of
// the B ≤ 64 buffers, drawn independently for every port).
func hashedMask(seed uint64, l, dst, slots, j int32) uint64 {
	var m uint64
	for i, got := uint64(0), int32(0); got < j; i++ {
		x := mix64(seed ^ uint64(l)*0x9e3779b97f4a7c15 ^ uint64(dst)*0xc2b2ae3d27d4eb4f ^ i*0x165667b19e3779f9)
		if bit := uint64(1) << (x % uint64(slots)); m&bit == 0 {
			m |= bit
			got++
		}
	}
	return m
}

// HashedTuple writes into t the len(t) buffers of destination dst at the
// input port of link l with slots buffers, under the run's seed: the
// buffers the hashed policy lets dst use there (hashedMask), in ascending
// order.
func HashedTuple(t []int32, seed uint64, l, dst, slots int32) {
	m := hashedMask(seed, l, dst, slots, int32(len(t)))
	for i := range t {
		t[i] = int32(bits.TrailingZeros64(m))
		m &= m - 1
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

// hashedMemo bounds the table of buffer masks that newHashed keeps (one
// uint64 per link and destination, filled as they are first needed): up to
// 4 M entries, 32 MiB; larger fabrics hash every time.
const hashedMemo = 4 << 20

// newHashed returns the hashed dampener. The mirror of link l is the mask
// of its taken buffers, used[l]; a packet's tag is the buffer it takes, the
// lowest free one of its destination's.
func newHashed(links, hosts int, slots, j int32, seed uint64) *Rule {
	used := make([]uint64, links)
	var memo []uint64 // [l·hosts+dst], 0 = not yet computed
	if links*hosts <= hashedMemo {
		memo = make([]uint64, links*hosts)
	}
	mask := func(l, dst int32) uint64 {
		if memo == nil {
			return hashedMask(seed, l, dst, slots, j)
		}
		i := int(l)*hosts + int(dst)
		if memo[i] == 0 {
			memo[i] = hashedMask(seed, l, dst, slots, j)
		}
		return memo[i]
	}
	return &Rule{
		Admit: func(l, dst int32) bool { return mask(l, dst)&^used[l] != 0 },
		Claim: func(l, dst int32) int32 {
			b := int32(bits.TrailingZeros64(mask(l, dst) &^ used[l]))
			used[l] |= 1 << b
			return b
		},
		Release: func(l, b int32) { used[l] &^= 1 << b },
	}
}
