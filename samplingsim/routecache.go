package samplingsim

// Static routing sends every packet of a message along the same route, so
// the route is walked once, by the plan's check before the run (which walks
// every pair's route anyway), and kept in the route cache; the packets
// follow it: each packet carries the links of a route of up to inlineHops
// switches in its own cache line (copied while the NIC forms it), longer
// routes are read from the cache hop by hop. Either replaces a
// forwarding-table lookup per packet and hop (the table of a 10 648-host
// fabric does not fit the caches), and the event loop walks no table.
// Adaptive routing decides per packet and does not use it.

import (
	"fmt"

	"orcs/lft"
)

// routeCache holds the routes of a plan's messages: of[m] is where message
// m's route starts in links (the number of its links, then the links; the
// messages of one pair share it), or routeUncached.
type routeCache struct {
	of, links []int32
}

// maxCachedLinks bounds the links the route cache holds (64 MiB); the
// messages past it are forwarded by the tables, hop by hop. A variable for
// tests.
var maxCachedLinks = 16 << 20

// maxCachedRoute is the longest route cached: a packet's hop count (uint8)
// indexes it.
const maxCachedRoute = 255

// maxInline is the longest route (in switch hops) a packet carries in its
// own line: inlineHops; a variable so that tests can send every packet
// through the cache.
var maxInline int32 = inlineHops

// Marks of a message whose route is not cached, and of a packet that
// carries its route (packet.rt).
const (
	routeUncached = -2
	routeInline   = -3
)

// add keeps route in the cache and returns where it starts, or
// routeUncached when it is too long or the cache is full.
func (c *routeCache) add(route []int32) int32 {
	at := int32(len(c.links))
	if len(route) > maxCachedRoute || len(c.links)+1+len(route) > maxCachedLinks {
		return routeUncached
	}
	c.links = append(append(c.links, int32(len(route))), route...)
	return at
}

// routeOf returns where message m's route starts in the cache, or a
// negative mark when it is not there (routeUncached, or no cache).
func (s *network) routeOf(m int32) int32 {
	if s.routes.of == nil {
		return routeUncached
	}
	return s.routes.of[m]
}

// setRoute gives packet pk of message m, being formed at its NIC, its
// route: the links after the first, in the packet when they fit, else
// where the message's route starts in the cache (or routeUncached: the
// tables).
func (s *network) setRoute(pk *packet, m int32) {
	at := s.routes.of[m]
	if at < 0 {
		pk.rt = at
		return
	}
	n := s.routes.links[at]
	if n-1 <= maxInline {
		copy(pk.route[:], s.routes.links[at+2:at+1+n])
		pk.rt = routeInline
		return
	}
	pk.rt = at + 1
}

// nextLink returns the link packet pid leaves the switch at the end of
// link l on, under static routing.
func (s *network) nextLink(l, pid int32) int32 {
	pk := &s.packets[pid]
	switch rt := pk.rt; {
	case rt == routeInline:
		pk.hops++
		return pk.route[pk.hops-1]
	case rt >= 0:
		pk.hops++
		return s.routes.links[rt+int32(pk.hops)]
	}
	return s.f.Forward(pk.src, s.phys(l), pk.dst)
}

// checkPlan validates plan p against fabric f (Plan.Check) and walks the
// route of every pair of hosts it sends between: an unroutable pair is
// an error. With a non-nil rc it keeps the routes in the route cache rc
// for the messages of a statically routed run.
func checkPlan(p *Plan, f *lft.Fabric, rc *routeCache) error {
	type pair struct{ s, d int32 }
	seen := map[pair]int32{} // where the pair's route is in rc
	if rc != nil {
		rc.of = make([]int32, len(p.Msgs))
	}
	var route []int32
	return p.Check(f, func(i int, m Message) error {
		k := pair{m.Src, m.Dst}
		if at, ok := seen[k]; ok {
			if rc != nil {
				rc.of[i] = at
			}
			return nil
		}
		var st lft.RouteStatus
		route, st = f.AppendRoute(route[:0], m.Src, m.Dst)
		if st != lft.RouteOK {
			if e := f.Explain(m.Src, m.Dst); e != nil {
				return fmt.Errorf("unroutable pair: %s", e)
			}
			return fmt.Errorf("unroutable pair %s → %s", f.HostName(int(m.Src)), f.HostName(int(m.Dst)))
		}
		seen[k] = routeUncached
		if rc != nil {
			seen[k] = rc.add(route)
			rc.of[i] = seen[k]
		}
		return nil
	})
}
