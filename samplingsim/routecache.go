package samplingsim

import "orcs/lft"

// Static routing sends every packet of a message along the same route, so
// the route is walked once, when the message's first packet reaches a
// switch, and each later hop of its packets reads the next link from it:
// one load from a short array the message's packets share, instead of a
// forwarding-table lookup per packet and hop (the table of a 10 648-host
// fabric does not fit the caches). Adaptive routing decides per packet and
// does not use it.

// maxCachedLinks bounds the links the route cache holds (64 MiB); the
// messages past it are forwarded by the tables, hop by hop. A variable for
// tests.
var maxCachedLinks = 16 << 20

// maxCachedRoute is the longest route cached: a packet's hop count (uint8)
// indexes it.
const maxCachedRoute = 255

// Marks of a message whose route is not cached: not yet walked, or not
// to be cached.
const (
	routeUnknown  = -1
	routeUncached = -2
)

// nextLink returns the link packet pid leaves the switch at the end of
// link l on, under static routing.
func (s *sim) nextLink(l, pid int32) int32 {
	pk := &s.pk[pid]
	at := s.routeOf[pk.msg]
	if at == routeUnknown {
		at = s.cacheRoute(pk.msg, pk.src, pk.dst)
	}
	if at == routeUncached {
		return s.f.Forward(pk.src, s.phys(l), pk.dst)
	}
	pk.hops++
	return s.routeLinks[at+int32(pk.hops)]
}

// cacheRoute walks message m's route into the cache and returns where it
// starts there, or routeUncached.
func (s *sim) cacheRoute(m, src, dst int32) int32 {
	at := int32(len(s.routeLinks))
	links, st := s.f.AppendRoute(s.routeLinks, src, dst)
	n := len(links) - int(at)
	if st != lft.RouteOK || n > maxCachedRoute || len(links) > maxCachedLinks {
		s.routeLinks = links[:at]
		s.routeOf[m] = routeUncached
		return routeUncached
	}
	s.routeLinks = links
	s.routeOf[m] = at
	return at
}
