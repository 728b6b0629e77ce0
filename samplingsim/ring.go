package samplingsim

import "orcs/internal/hugemem"

// ring is the state of one fixed-capacity FIFO ring of at most maxRing
// items: the slot of its first item and the number of items. The items
// live in a ringSlab with the rings of all other links.
type ring struct {
	head, n uint16
}

// maxRing is the largest ring: an output queue or input buffer holds at
// most 65 535 packets (Config.Validate).
const maxRing = 1<<16 - 1

// len returns the number of items of r.
func (r *ring) len() int32 { return int32(r.n) }

// ringSlab holds one ring of size slots per link, side by side: the slots
// of link l's ring are buf[l*size : (l+1)*size]. The output queues and the
// input buffers (packet ids) and the credits on their way back (arrival
// times) are ringSlabs; their ring states sit in the link's channel, next
// to the other fields the event loop touches.
type ringSlab[T any] struct {
	buf  []T
	size int32
}

// newRingSlab returns a slab of rings of size slots for links links, in
// arena a.
func newRingSlab[T any](a *hugemem.Arena, links int, size int32) ringSlab[T] {
	n := links * int(size)
	return ringSlab[T]{buf: hugemem.Make[T](a, n, n), size: size}
}

// push appends v to ring r of link l, which must not be full.
func (s *ringSlab[T]) push(r *ring, l int32, v T) {
	i := int32(r.head) + int32(r.n)
	if i >= s.size {
		i -= s.size
	}
	s.buf[l*s.size+i] = v
	r.n++
}

// front returns the first item of ring r of link l, which must not be
// empty.
func (s *ringSlab[T]) front(r *ring, l int32) T { return s.buf[l*s.size+int32(r.head)] }

// pop removes and returns the first item of ring r of link l, which must
// not be empty.
func (s *ringSlab[T]) pop(r *ring, l int32) T {
	v := s.buf[l*s.size+int32(r.head)]
	s.drop(r)
	return v
}

// drop removes the first item of ring r, which must not be empty.
func (s *ringSlab[T]) drop(r *ring) {
	r.head++
	if int32(r.head) == s.size {
		r.head = 0
	}
	r.n--
}

// removeFromRing takes v out of ring r of link l in slab s, wherever it
// is, keeping the order of the items behind it; v must be in the ring.
func removeFromRing[T comparable](s *ringSlab[T], r *ring, l int32, v T) {
	base, head, n := l*s.size, int32(r.head), r.len()
	i := int32(0)
	for ; i < n; i++ {
		if s.buf[base+(head+i)%s.size] == v {
			break
		}
	}
	for ; i+1 < n; i++ {
		s.buf[base+(head+i)%s.size] = s.buf[base+(head+i+1)%s.size]
	}
	r.n--
}
