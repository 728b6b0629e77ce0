package samplingsim

// StallPercent returns, for window w, the share of the window that each
// link's output port stalled for credits (a packet to send, the link idle,
// no credit: LinkTruth.Stalled), in percent of the window's length: the
// credit-stall ratio of Monet's congestion regions. The result has one
// value per link of the fabric.
func (r *Result) StallPercent(w int) []float64 {
	from, to := r.WindowSpan(w)
	span := float64(max(to-from, 1))
	out := make([]float64, len(r.Fabric.Links))
	for l := range out {
		out[l] = 100 * float64(r.TruthOf(w, int32(l)).Stalled) / span
	}
	return out
}
