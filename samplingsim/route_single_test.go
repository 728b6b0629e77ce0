package samplingsim

import (
	"testing"

	"orcs/rng"
)

// TestSingleAllowedLinks: on a Dragonfly the one-link tables (min1, grp1)
// hold exactly the sets of the full tables that have one link, and most
// sets do (else they would not pay).
func TestSingleAllowedLinks(t *testing.T) {
	n := genNetwork(t, "dragonfly:a=4,h=2,p=1")
	a, err := newAdaptive(n.Fabric, n.Groups, rng.New(1, streamRoute))
	if err != nil {
		t.Fatal(err)
	}
	if a.min1 == nil || a.grp1 == nil {
		t.Fatal("no one-link tables on a Dragonfly")
	}
	ones := 0
	check := func(what string, set []int32, one int32) {
		switch {
		case len(set) == 1 && one != set[0]:
			t.Errorf("%s: one-link table says %d, the set is %v", what, one, set)
		case len(set) != 1 && one != -1:
			t.Errorf("%s: one-link table says %d, the set is %v", what, one, set)
		case len(set) == 1:
			ones++
		}
	}
	for x := range int32(a.nsw) {
		for y := range int32(a.nsw) {
			check("minimal", a.minimal(nil, x, y), a.min1[int(x)*a.nsw+int(y)])
		}
		for g := range int32(a.ng) {
			check("toward group", a.towardGroup(nil, x, g), a.grp1[int(x)*a.ng+int(g)])
		}
	}
	if total := a.nsw * (a.nsw + a.ng); ones < total/2 {
		t.Errorf("only %d of %d sets have one link", ones, total)
	}
}
