package samplingsim

func init() {
	registerScheme(&scheme{
		name:          "onebit",
		doc:           "Algorithms 5–7: one hash bit per reservoir instead of (switch, port)",
		bits:          "2×(1-bit hash + b-bit count)",
		probabilistic: true,
		hop:           onebitHop,
		receive:       onebitReceive,
	})
}

// onebitHop is Algorithm 6.
func onebitHop(h *header, e *hopEnv) {
	if replace(h.hopCount, e.r) {
		h.hopRes = int32(e.hash.bit(e.id, e.code))
	}
	h.hopCount = inc(h.hopCount, e.maxCount)
	if e.congested {
		if replace(h.congCount, e.r) {
			h.congRes = int32(e.hash.bit(e.id, e.code))
		}
		h.congCount = inc(h.congCount, e.maxCount)
	}
}

// onebitReceive is Algorithm 7: every candidate link gains the weight when
// its hash matches the stored bit and loses it otherwise.
func onebitReceive(h *header, e *recvEnv) {
	t := e.t
	t.observe(h.hopCount)
	if h.hopCount > 0 {
		w := int64(h.hopCount)
		for i, d := range e.cands {
			t.links[d].Q++
			if e.hash.bit(e.id, e.codes[i]) == uint8(h.hopRes) {
				t.add(d, w, e.bytes, e.now)
			} else {
				t.add(d, -w, e.bytes, e.now)
			}
		}
	}
	if h.congCount > 0 {
		w := int64(h.congCount)
		for i, d := range e.cands {
			t.links[d].QC++
			if e.hash.bit(e.id, e.codes[i]) == uint8(h.congRes) {
				t.links[d].C += w
			} else {
				t.links[d].C -= w
			}
		}
	}
}
