package samplingsim

func init() {
	registerScheme(&scheme{
		name:          "onereservoir",
		doc:           "Algorithms 8–9: one hash-bit reservoir and a bit saying whether that hop was congested",
		bits:          "1-bit hash + 1 congested bit + b-bit count (5–6 bits)",
		probabilistic: true,
		hop:           onereservoirHop,
		receive:       onereservoirReceive,
	})
}

// onereservoirHop is Algorithm 8.
func onereservoirHop(h *header, e *hopEnv) {
	if replace(h.hopCount, e.r) {
		h.hopRes = int32(e.hash.bit(e.id, e.code))
		h.congBit = 0
		if e.congested {
			h.congBit = 1
		}
	}
	h.hopCount = inc(h.hopCount, e.maxCount)
}

// onereservoirReceive is Algorithm 9.
func onereservoirReceive(h *header, e *recvEnv) {
	t := e.t
	t.observe(h.hopCount)
	if h.hopCount == 0 {
		return
	}
	w := int64(h.hopCount)
	cong := h.congBit == 1
	for i, d := range e.cands {
		t.links[d].Q++
		if cong {
			t.links[d].QC++
		}
		if e.hash.bit(e.id, e.codes[i]) == uint8(h.hopRes) {
			t.add(d, w, e.bytes, e.now)
			if cong {
				t.links[d].C += w
			}
		} else {
			t.add(d, -w, e.bytes, e.now)
			if cong {
				t.links[d].C -= w
			}
		}
	}
}
