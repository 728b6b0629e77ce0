package samplingsim

import (
	"fmt"

	"orcs/rng"
)

// PSNBits is the width of an InfiniBand packet sequence number: packet ids
// of the "connection" kind count modulo 2^24, as a queue pair's PSN does.
const PSNBits = 24

// idKind says how packets get their ids (the record ids of the one-bit
// hash, thesis §5.2).
type idKind uint8

const (
	// idsConnection: every connection (source, destination) numbers its
	// packets 0, 1, 2, … from its own random starting PSN, modulo 2^24, as
	// an InfiniBand queue pair does. Different connections use unrelated
	// ids, so the hash sees no correlation between them.
	idsConnection idKind = iota
	// idsGlobal: one counter for the whole fabric from 1 (the simulator's
	// first model; small, correlated ids bias H_mult', see §5.4).
	idsGlobal
)

// idNames are the command-line names of the id kinds.
var idNames = []string{idsConnection: "connection", idsGlobal: "global"}

func parseIDs(s string) (idKind, error) {
	for i, n := range idNames {
		if s == n {
			return idKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown packet id kind %q (known: connection, global)", s)
}

// setupIDs numbers the connections of the plan in the order of their first
// message and draws each one's starting PSN from the seeded stream
// streamIDs, so ids depend on the seed and the plan only.
func (s *network) setupIDs(ids idKind) {
	s.ids = ids
	s.hashIDs = s.sampling && s.scheme.probabilistic
	if s.ids != idsConnection || !s.hashIDs {
		return
	}
	r := rng.New(s.cfg.Seed, streamIDs)
	s.msgConn = make([]int32, len(s.plan.Msgs))
	conns := make(map[[2]int32]int32)
	for i, m := range s.plan.Msgs {
		k := [2]int32{m.Src, m.Dst}
		c, ok := conns[k]
		if !ok {
			c = int32(len(s.connPSN))
			conns[k] = c
			s.connPSN = append(s.connPSN, uint32(r.Uint64())&(1<<PSNBits-1))
		}
		s.msgConn[i] = c
	}
}

// nextPacketID returns the id of the next packet of message m. Only the
// one-bit hash reads ids, so without it every packet gets 0.
func (s *network) nextPacketID(m int32) uint32 {
	if !s.hashIDs {
		return 0
	}
	if s.ids == idsGlobal {
		s.nextID++
		return s.nextID
	}
	c := s.msgConn[m]
	id := s.connPSN[c]
	s.connPSN[c] = (id + 1) & (1<<PSNBits - 1)
	return id
}
