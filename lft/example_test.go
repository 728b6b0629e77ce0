package lft_test

import (
	"fmt"

	"orcs/lft"
)

// Build a fabric of two switches with one host each, route it, and walk
// the route from H0 to H1.
func Example() {
	b := lft.NewBuilder()
	h0, h1 := b.Node("H0", lft.Host), b.Node("H1", lft.Host)
	s0, s1 := b.Node("S0", lft.Switch), b.Node("S1", lft.Switch)

	// Every cable is two directed links; hosts send everything up.
	b.Route(b.Link(h0, s0, 1, 1), lft.AnyDest)
	b.Route(b.Link(h1, s1, 1, 1), lft.AnyDest)
	b.RouteList(b.Link(s0, h0, 1, 1), []byte("H0"))
	b.RouteList(b.Link(s1, h1, 1, 1), []byte("H1"))
	b.RouteList(b.Link(s0, s1, 2, 2), []byte("H1"))
	b.RouteList(b.Link(s1, s0, 2, 2), []byte("H0"))

	f, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	route, status := f.AppendRoute(nil, 0, 1) // host indices
	fmt.Println(status)
	for _, l := range route {
		k := f.Links[l]
		fmt.Printf("%s port %d -> %s port %d\n", f.Nodes[k.From].Name, k.FromPort, f.Nodes[k.To].Name, k.ToPort)
	}
	check := f.CheckRoutes([]int32{0, 1}, 1, 1)
	fmt.Println(check.Pairs, "pairs, all routed:", check.OK())
	// Output:
	// route ok
	// H0 port 1 -> S0 port 1
	// S0 port 2 -> S1 port 2
	// S1 port 1 -> H1 port 1
	// 2 pairs, all routed: true
}
