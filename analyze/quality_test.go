package analyze_test

import (
	"bytes"
	"errors"
	"testing"

	"orcs/analyze"
	"orcs/dot"
	"orcs/lft"
)

// twoSwitches is two switches with two hosts each and one cable between
// them.
const twoSwitches = `digraph two {
  "HA1" -> "SA" [comment="*"];
  "HA2" -> "SA" [comment="*"];
  "HB1" -> "SB" [comment="*"];
  "HB2" -> "SB" [comment="*"];
  "SA" -> "HA1" [comment="HA1"];
  "SA" -> "HA2" [comment="HA2"];
  "SA" -> "SB" [comment="HB1,HB2"];
  "SB" -> "HB1" [comment="HB1"];
  "SB" -> "HB2" [comment="HB2"];
  "SB" -> "SA" [comment="HA1,HA2"];
}
`

// TestRouteQualityByHand checks --routequal against counts on paper.
//
// All 12 ordered pairs of the 4 hosts send at once. Every host's up-link
// carries its 3 routes, every switch-to-host link the 3 routes to its
// host; SA→SB carries HA1,HA2 → HB1,HB2 (4 routes), SB→SA the reverse 4.
// So all 10 links are used, the max load is 4, the mean (8·3 + 2·4)/10 =
// 3.2. A route inside one switch sees loads 3 and 3 (congestion 3: the 4
// routes HA1↔HA2, HB1↔HB2); a route across sees 3, 4, 3 (congestion 4: 8
// routes). Bandwidth = (4·1/3 + 8·1/4)/12 = 0.277778.
func TestRouteQualityByHand(t *testing.T) {
	f, err := dot.Read([]byte(twoSwitches), "two.dot", dot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := analyze.RouteQuality(f, []int32{0, 1, 2, 3}, 2)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := q.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := `Route quality of 12 routes between 4 hosts
links used: 10 of 10; max link load: 4; mean load of used links: 3.200000
weight 3: 4 of the 12 connections (33.33%)
weight 4: 8 of the 12 connections (66.67%)

BW: 0.277778
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// Two hosts under one switch: 2 routes, each link load 1.
	q, err = analyze.RouteQuality(f, []int32{0, 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if q.Routes != 2 || q.LinksUsed != 4 || q.MaxLoad != 1 || q.MeanLoad != 1 {
		t.Errorf("two hosts: %+v", q)
	}
}

// TestRouteQualityUnroutable checks that a missing entry is an error that
// names the pair.
func TestRouteQualityUnroutable(t *testing.T) {
	broken := []byte(`digraph b {
  "H1" -> "S" [comment="*"];
  "H2" -> "S" [comment="*"];
  "S" -> "H1" [comment="H1"];
  "S" -> "H2" [comment=""];
}
`)
	f, err := dot.Read(broken, "b.dot", dot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = analyze.RouteQuality(f, []int32{0, 1}, 1)
	var re *lft.RouteError
	if !errors.As(err, &re) || re.Status != lft.Unroutable || err.Error() != "1 of 2 host pairs do not route (1 unroutable, 0 routing loops); first: no route from H1 to H2: node S has no table entry for H2" {
		t.Errorf("error %v", err)
	}
}
