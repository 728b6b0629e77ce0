package samplingsim

import (
	"fmt"

	"orcs/registry"
	"orcs/rng"
)

// header is the sampling header a tagged packet carries. The sender NIC
// clears it (Algorithms 2 and 5); switches update it (Algorithms 3, 6, 8);
// the receiver NIC reads it (Algorithms 4, 7, 9).
type header struct {
	// hopCount and congCount are the b-bit saturating hop counters.
	hopCount, congCount uint16
	// hopRes and congRes are the reservoirs: a link id (−1 = empty) for the
	// reservoir scheme, the hash bit H(id, d) for the one-bit schemes.
	hopRes, congRes int32
	// congBit says whether the hop in the reservoir was congested
	// (onereservoir scheme).
	congBit uint8
}

// clear is Algorithms 2 and 5: an empty header.
func (h *header) clear() { *h = header{hopRes: -1, congRes: -1} }

// hopEnv is what a switch knows when it updates a header: the packet id, the link the
// packet leaves on, its code d, whether the port is congested, the counter
// limit 2^b−1, the hash and the switches' random stream.
type hopEnv struct {
	id        uint32 // the packet's id
	pid       int32  // the packet's slot (unique while it is in flight)
	link      int32
	code      uint32
	congested bool
	maxCount  uint16
	hash      hashKind
	r         *rng.Stream
}

// recvEnv is what a receiver knows about a tagged packet: its id, the links
// it may have crossed (with their codes) and the tally to update.
type recvEnv struct {
	id    uint32
	pid   int32 // the packet's slot
	cands []int32
	codes []uint32
	hash  hashKind
	t     *tally
	bytes int64
	now   Time
}

// scheme is one registered sampling header.
type scheme struct {
	name string
	doc  string
	// bits is the header size for 8-bit counters, for help texts.
	bits string
	// probabilistic schemes store hash bits and need candidate links at
	// the receiver.
	probabilistic bool
	// hop runs on every switch for a tagged packet.
	hop func(h *header, e *hopEnv)
	// receive runs on the receiver NIC for a tagged packet.
	receive func(h *header, e *recvEnv)
}

// schemes holds the sampling schemes by name.
var schemes = registry.New[*scheme]("sampling scheme")

// registerScheme adds a sampling scheme; called from init functions. It
// panics on a duplicate or invalid name.
func registerScheme(s *scheme) { schemes.Register(s.name, s.doc, s) }

// lookupScheme returns the scheme name or an error listing the known ones.
func lookupScheme(name string) (*scheme, error) { return schemes.Lookup(name) }

// SchemeNames describes the registered sampling schemes, sorted by name,
// for help texts.
func SchemeNames() []string {
	var out []string
	for n, s := range schemes.All() {
		out = append(out, fmt.Sprintf("%s — %s (%s)", n, s.doc, s.bits))
	}
	return out
}

// replace reports whether a reservoir of one holding count records takes
// the next one: with probability 1/(count+1) (lines 2–3 of Algorithm 3).
func replace(count uint16, r *rng.Stream) bool {
	return count == 0 || r.IntN(int(count)+1) == 0
}

// inc increments a b-bit counter with saturating arithmetic (§5.6).
func inc(count, maxCount uint16) uint16 {
	if count < maxCount {
		return count + 1
	}
	return count
}
