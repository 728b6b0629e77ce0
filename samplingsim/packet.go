package samplingsim

// packet is one MTU-sized (or shorter, last) segment of a message in flight:
// what a hop reads, in one 64-byte cache line. Packets live in a slab and
// are named by their index there; what only sampled packets need (the id
// and the header) lives beside it in tagSlab, so that a hop of an untagged
// packet touches this line alone.
type packet struct {
	// sent is the time the NIC formed the packet; when latencies are
	// measured (noise.go), from then on the time it started leaving the
	// NIC.
	sent Time
	// msg is the message the packet belongs to.
	msg int32
	// src and dst are host indices.
	src, dst int32
	// bytes is the payload size.
	bytes int32
	// out is the link the packet leaves its current switch on.
	out int32
	// rt says where the next links of a statically routed packet come
	// from: routeInline (route below), the start of its message's route in
	// the route cache, or routeUncached (the tables).
	rt int32
	// tagged says whether the packet carries a sampling header.
	tagged bool
	// Adaptive routing (route_adaptive.go): the routing mode, the virtual
	// lane, the phase of its route, the switches it has crossed and its
	// intermediate group (phaseValiant). Under static routing hops counts
	// the switches too: it indexes the packet's route.
	mode              RouteMode
	lane, phase, hops uint8
	// detour says the packet left its preferred ports once (noise.go).
	detour bool
	via    int16
	// route holds the links a statically routed packet leaves its switches
	// on (route[i] after i+1 switches) when they fit (rt = routeInline):
	// copied from the route cache as the NIC forms the packet, while the
	// message's route is in the cache, so that a hop reads no other line.
	route [inlineHops]int32
}

// inlineHops is the number of switch hops a packet carries in its own
// cache line: the 5 of a three-level fat tree, and one more.
const inlineHops = 6

// packetTag is what a tagged packet carries besides: its id (the record id
// of the hash, §5.2) and the sampling header. Only runs that sample have
// this slab.
type packetTag struct {
	id  uint32
	hdr header
}

// dampState is what a packet needs under a dampening buffer policy
// (buffers.go), kept beside the packet slab so that the FIFO switch's
// packets stay small.
type dampState struct {
	// at is the link into the input buffer the packet waits in, nextWait
	// the next packet waiting for the same output queue (−1 = none) and tag
	// what its credit carries back (its buffer or destination).
	at, nextWait, tag int32
}

// newPacket returns the index of a free packet slot.
func (s *network) newPacket() int32 {
	if n := len(s.freeSlots); n > 0 {
		p := s.freeSlots[n-1]
		s.freeSlots = s.freeSlots[:n-1]
		return p
	}
	s.packets = append(s.packets, packet{})
	if s.sampling {
		s.headers = append(s.headers, packetTag{})
	}
	if s.bufRule != nil {
		s.dampStates = append(s.dampStates, dampState{})
	}
	if s.cc != nil {
		s.cc.pk = append(s.cc.pk, ccPacket{})
	}
	return int32(len(s.packets) - 1)
}

// freePacket releases packet p.
func (s *network) freePacket(p int32) { s.freeSlots = append(s.freeSlots, p) }
