package samplingsim

func init() {
	registerScheme(&scheme{
		name:    "reservoir",
		doc:     "Algorithms 2–4: a hop reservoir and a congested reservoir of (switch, port)",
		bits:    "2×(16-bit switch + 8-bit port + 8-bit count) = 64 bits",
		hop:     reservoirHop,
		receive: reservoirReceive,
	})
}

// reservoirHop is Algorithm 3.
func reservoirHop(h *header, e *hopEnv) {
	if replace(h.hopCount, e.r) {
		h.hopRes = e.link
	}
	h.hopCount = inc(h.hopCount, e.maxCount)
	if e.congested {
		if replace(h.congCount, e.r) {
			h.congRes = e.link
		}
		h.congCount = inc(h.congCount, e.maxCount)
	}
}

// reservoirReceive is Algorithm 4: the sampled links are charged the whole
// path (weighted counts).
func reservoirReceive(h *header, e *recvEnv) {
	t := e.t
	t.observe(h.hopCount)
	if h.hopCount > 0 {
		t.add(h.hopRes, int64(h.hopCount), e.bytes, e.now)
	}
	if h.congCount > 0 {
		t.links[h.congRes].C += int64(h.congCount)
	}
}
