package samplingsim

import "math"

// tally holds one receiver view's accumulated samples for one time window,
// indexed by link id (only links leaving a switch are ever sampled). A
// link's counters share one cache line.
type tally struct {
	links []linkTally
	// maxHops is the largest hop count seen (the diameter L of §5.5).
	maxHops uint16
	// packets is the number of tagged packets received.
	packets int64
}

// linkTally is what the receivers accumulated for one link.
type linkTally struct {
	// W and C are the weighted counts and weighted congested counts
	// (counts and congested counts of Algorithms 4, 7 and 9).
	W, C int64
	// Q and QC count the packets (with a hop, resp. congested, sample) for
	// which the receiver updated the link: the Q of §5.3, used by the
	// false-positive threshold of §5.5.
	Q, QC int64
	// B is the weighted byte count: W weighted by packet size.
	B int64
	// first and last are the arrival times of the first and last packet
	// that updated the link (−1 = none).
	first, last Time
}

func newTally(links int) *tally {
	t := &tally{links: make([]linkTally, links)}
	for i := range t.links {
		t.links[i].first, t.links[i].last = -1, -1
	}
	return t
}

// observe records a received tagged packet with hop count hc.
func (t *tally) observe(hc uint16) {
	t.packets++
	t.maxHops = max(t.maxHops, hc)
}

// add charges weight w (and w·bytes) to link l for a packet received at now.
func (t *tally) add(l int32, w, bytes int64, now Time) {
	x := &t.links[l]
	x.W += w
	x.B += w * bytes
	if x.first < 0 {
		x.first = now
	}
	x.last = now
}

// merge adds o into t.
func (t *tally) merge(o *tally) {
	for i := range t.links {
		x, y := &t.links[i], &o.links[i]
		x.W += y.W
		x.C += y.C
		x.Q += y.Q
		x.QC += y.QC
		x.B += y.B
		if y.first >= 0 && (x.first < 0 || y.first < x.first) {
			x.first = y.first
		}
		x.last = max(x.last, y.last)
	}
	t.maxHops = max(t.maxHops, o.maxHops)
	t.packets += o.packets
}

// LinkEstimate is what the receivers of a view estimate about one link
// direction in one window.
type LinkEstimate struct {
	// Packets estimates the number of packets that crossed the link
	// (weighted count divided by the tagging fraction; 0 when below the
	// false-positive threshold).
	Packets float64
	// Congested estimates how many of them were marked congested there.
	Congested float64
	// Fraction is the congested fraction Congested/Packets (0 when Packets
	// is 0), the quantity of the congested-fraction plots.
	Fraction float64
	// Bytes estimates the bytes that crossed the link.
	Bytes float64
	// W, C, Q and QC are the raw tallies (see Algorithms 4, 7, 9 and §5.3).
	W, C, Q, QC int64
	// First and Last are the arrival times of the first and last packet
	// that contributed (−1 = none).
	First, Last Time
	// Hidden says that the false-positive threshold zeroed the estimate.
	Hidden bool
}

// normalQuantile returns Φ⁻¹(p) for the standard normal distribution.
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// estimate turns the tally of link l into a LinkEstimate. tagFraction
// scales the counts; z > 0 applies the false-positive threshold
// W ≥ L·√Q·z of §5.5 (probabilistic schemes only).
func (t *tally) estimate(l int32, tagFraction float64, z float64) LinkEstimate {
	x := &t.links[l]
	e := LinkEstimate{W: x.W, C: x.C, Q: x.Q, QC: x.QC, First: x.first, Last: x.last}
	w, c, b := float64(e.W), float64(e.C), float64(x.B)
	if z > 0 {
		L := float64(t.maxHops)
		if w < L*math.Sqrt(float64(e.Q))*z {
			w, b, e.Hidden = 0, 0, e.W != 0
		}
		if c < L*math.Sqrt(float64(e.QC))*z {
			c = 0
		}
	}
	w, c, b = max(w, 0), max(c, 0), max(b, 0)
	if tagFraction > 0 {
		e.Packets, e.Congested, e.Bytes = w/tagFraction, c/tagFraction, b/tagFraction
	}
	if e.Packets > 0 {
		e.Fraction = min(e.Congested/e.Packets, 1)
	}
	return e
}

// Gbps estimates the bandwidth the link carried for the view: the
// estimated bytes over the time between the first and the last packet that
// contributed, by arrival time at the receivers (as in thesis §4.2). It is
// 0 with fewer than two contributing arrivals.
func (e LinkEstimate) Gbps() float64 {
	span := e.Last - e.First
	if span <= 0 {
		return 0
	}
	return e.Bytes * 8 / float64(span) * 1e3
}
