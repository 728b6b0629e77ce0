package samplingsim

import "orcs/lft"

// Static routing sends every packet of a message along the same route, so
// the route is walked once, when the message's first packet is formed, and
// its packets follow it: each packet carries the links of a route of up to
// inlineHops switches in its own cache line (copied while the NIC forms
// it, when the message's route is at hand), longer routes are read from
// the cache hop by hop. Either replaces a forwarding-table lookup per
// packet and hop (the table of a 10 648-host fabric does not fit the
// caches). Adaptive routing decides per packet and does not use it.

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

// Marks of a message whose route is not cached (not yet walked, or not
// to be cached), and of a packet that carries its route (packet.rt).
const (
	routeUnknown  = -1
	routeUncached = -2
	routeInline   = -3
)

// setRoute gives packet pk of message m, being formed at its NIC, its
// route: the links after the first, in the packet when they fit, else
// where the message's route starts in the cache (or routeUncached: the
// tables).
func (s *sim) setRoute(pk *packet, m int32) {
	at := s.routeOf[m]
	if at == routeUnknown {
		at = s.cacheRoute(m, pk.src, pk.dst)
	}
	if at < 0 {
		pk.rt = at
		return
	}
	n := s.routeLinks[at]
	if n-1 <= maxInline {
		copy(pk.route[:], s.routeLinks[at+2:at+1+n])
		pk.rt = routeInline
		return
	}
	pk.rt = at + 1
}

// nextLink returns the link packet pid leaves the switch at the end of
// link l on, under static routing.
func (s *sim) nextLink(l, pid int32) int32 {
	pk := &s.pk[pid]
	switch rt := pk.rt; {
	case rt == routeInline:
		pk.hops++
		return pk.route[pk.hops-1]
	case rt >= 0:
		pk.hops++
		return s.routeLinks[rt+int32(pk.hops)]
	}
	return s.f.Forward(pk.src, s.phys(l), pk.dst)
}

// cacheRoute walks message m's route into the cache and returns where it
// starts there (the number of its links, then the links), or
// routeUncached.
func (s *sim) cacheRoute(m, src, dst int32) int32 {
	at := int32(len(s.routeLinks))
	links, st := s.f.AppendRoute(append(s.routeLinks, 0), src, dst)
	n := len(links) - int(at) - 1
	if st != lft.RouteOK || n > maxCachedRoute || len(links) > maxCachedLinks {
		s.routeLinks = links[:at]
		s.routeOf[m] = routeUncached
		return routeUncached
	}
	links[at] = int32(n)
	s.routeLinks = links
	s.routeOf[m] = at
	return at
}
