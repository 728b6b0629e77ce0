package lft_test

import (
	"fmt"
	"testing"

	"orcs/lft"
)

// TestHops: on a line H0 – S0 – … – S4 – H1 the distance from H0 grows by
// one a switch, several sources take the nearest, and a node apart from
// the line is not reached; the levels are the distances from the nearer
// host.
func TestHops(t *testing.T) {
	b := lft.NewBuilder()
	h0, h1 := b.Node("H0", lft.Host), b.Node("H1", lft.Host)
	prev := h0
	var sw []int32
	for i := range 5 {
		s := b.Node(fmt.Sprintf("S%d", i), lft.Switch)
		cable(b, prev, s)
		sw = append(sw, s)
		prev = s
	}
	cable(b, prev, h1)
	alone := b.Node("S9", lft.Switch)
	f := mustBuild(t, b)
	want := map[int32][3]int32{ // from H0, from S1 and S4, level
		h0: {0, 2, 0}, sw[0]: {1, 1, 1}, sw[1]: {2, 0, 2}, sw[2]: {3, 1, 3},
		sw[3]: {4, 1, 2}, sw[4]: {5, 0, 1}, h1: {6, 1, 0}, alone: {-1, -1, -1},
	}
	fromH0 := f.Hops(nil, h0)
	fromTwo := f.Hops(make([]int32, 2), sw[1], sw[4], sw[4])
	level := f.Levels()
	for v, w := range want {
		if got := [3]int32{fromH0[v], fromTwo[v], level[v]}; got != w {
			t.Errorf("%s: hops from H0, from S1 and S4, level %v, want %v", f.Nodes[v].Name, got, w)
		}
	}
}
