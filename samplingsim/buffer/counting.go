package buffer

import (
	"math"

	"orcs/registry"
)

func init() {
	register(&policy{
		name: "counting",
		doc: "counting dampener: the processor impact array (packets per destination, largest first) gives the hotspot counter " +
			"k = the largest k whose first k entries sum to at least B(1−alpha^k); those k destinations are blocked",
		params: []registry.Param{{Key: "alpha", Default: "0.5", Doc: "dampening factor α in (0, 1): k hot spots leave about B·α^k buffers unclaimed"}},
		parse: func(r *registry.Reader, _ int32) (func(Env) *Rule, error) {
			alpha := r.Float("alpha")
			if !(alpha > 0 && alpha < 1) {
				r.Failf("alpha=%g must be in (0, 1)", alpha)
			}
			if err := r.Err(); err != nil {
				return nil, err
			}
			return func(env Env) *Rule { return newCounting(env.Links, env.Slots, alpha) }, nil
		},
	})
}

// newCounting returns the counting dampener. The mirror of link l is its
// processor impact array: dst[l·B+i], cnt[l·B+i] for i < n[l], sorted by
// count, largest first (ties by destination), and k[l], its hotspot
// counter. need[k] = B(1−α^k) is the claim at which k destinations are
// hot spots.
func newCounting(links int, slots int32, alpha float64) *Rule {
	size := links * int(slots)
	dst, cnt := make([]int32, size), make([]int32, size)
	n, k := make([]int32, links), make([]int32, links)
	need := make([]float64, slots+1)
	for i := range need {
		need[i] = float64(slots) * (1 - math.Pow(alpha, float64(i)))
	}
	before := func(i, j int32) bool { // entry i sorts before entry j
		return cnt[i] > cnt[j] || (cnt[i] == cnt[j] && dst[i] < dst[j])
	}
	swap := func(i, j int32) {
		dst[i], dst[j] = dst[j], dst[i]
		cnt[i], cnt[j] = cnt[j], cnt[i]
	}
	// counter recomputes the hotspot counter of link l.
	counter := func(l int32) {
		base, sum := l*slots, int32(0)
		k[l] = 0
		for i := range n[l] {
			sum += cnt[base+i]
			if float64(sum) >= need[i+1] {
				k[l] = i + 1
			}
		}
	}
	find := func(l, d int32) int32 {
		base := l * slots
		for i := base; i < base+n[l]; i++ {
			if dst[i] == d {
				return i
			}
		}
		return -1
	}
	return &Rule{
		Admit: func(l, d int32) bool {
			base := l * slots
			for i := base; i < base+k[l]; i++ {
				if dst[i] == d {
					return false
				}
			}
			return true
		},
		Claim: func(l, d int32) int32 {
			base := l * slots
			i := find(l, d)
			if i < 0 {
				i = base + n[l]
				dst[i], cnt[i] = d, 0
				n[l]++
			}
			cnt[i]++
			for ; i > base && before(i, i-1); i-- {
				swap(i, i-1)
			}
			counter(l)
			return d
		},
		Release: func(l, d int32) {
			base := l * slots
			i := find(l, d)
			cnt[i]--
			for ; i+1 < base+n[l] && before(i+1, i); i++ {
				swap(i, i+1)
			}
			if cnt[base+n[l]-1] == 0 {
				n[l]--
			}
			counter(l)
		},
	}
}
