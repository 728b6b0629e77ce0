package lft

// LinkEntries is a read-only view of a fabric's entry routes in link or
// inner words (see PrepareWalks), for a walk that reads the routes of many
// pairs, counts their loads and takes their congestion in one loop of its
// own instead of through a RouteBatch's path. Exactly one of Words and
// Inner is not nil.
//
// Link words: the route of host s towards host d ≠ s, when At[s] ≥ 0 and
// Words[At[s]+d][0] = m > 0, is HostLink[s] followed by the links
// Words[At[s]+d][1 … m] (the last reaching d), the links AppendRoute
// gives; the places after the m-th are LinkPad (a word that is all 0
// holds no route).
//
// Inner words: the route of host s towards host d ≠ s, when At[s] ≥ 0 and
// w = Inner[At[s]+d] is not InnerNone, is HostLink[s], then the 16-bit
// links of w from its low bits up to the first LinkPad (at most four,
// the links between switches), then HostIn[d].
//
// Any other pair of distinct hosts must be walked by AppendRoute or a
// RouteBatch. The slices belong to the fabric and must not be modified.
type LinkEntries struct {
	Words    [][8]uint16
	Inner    []uint64
	At       []int32
	HostLink []int32
	HostIn   []int32
}

// InnerMissing is the link number of all four places of InnerNone; no
// link has this number either (inner words are for fabrics of fewer
// links).
const InnerMissing = 0xfffe

// InnerNone is the inner word of a pair whose route is not in the words.
const InnerNone = InnerMissing * 0x0001_0001_0001_0001

// LinkPad fills the places of a link word past its route's end: no link
// has this number (link words are for fabrics of fewer links), so a walk
// may read all seven links of a word from loads that have a zero there.
const LinkPad = 0xffff

// LinkEntries returns the fabric's entry routes as link or inner words,
// or false when it has none (PrepareWalks did not compile them, the
// fabric has 65 536 links or more, a host routes by destination or the
// LIDs are spread).
func (f *Fabric) LinkEntries() (LinkEntries, bool) {
	r := f.entry.Load()
	if r == nil || (r.links == nil && r.inner == nil) || r.hostAt == nil {
		return LinkEntries{}, false
	}
	return LinkEntries{Words: r.links, Inner: r.inner, At: r.hostAt, HostLink: f.hostTab, HostIn: r.hostIn}, true
}

// PositionEntries is the view of a fabric's entry routes in position
// words (fabrics of 65 536 links or more). The word of host s towards
// host d ≠ s, when At[s] ≥ 0, is Words[Block[At[s]+d/64]·64 + d%64]; a
// zero word means the pair must be walked by AppendRoute or a RouteBatch.
// Else, with m its low byte and p1 … p7 its next bytes, the route is
// HostLink[s] followed by the links of slots q1 … qm: q1 = Base[s]+p1,
// q2 = Next[q1]+p2, …, their links Link[q1] … Link[qm]. A slot is a
// switch's out-port: no two slots have the same link, so a walk may
// count a route's loads by its slots and never read Link. Positions past
// m are 0 and lead to the sentinel slot, the last one, whose Next is
// itself. The slices belong to the fabric and must not be modified.
type PositionEntries struct {
	Words    []uint64
	Block    []uint32
	At       []int32
	HostLink []int32
	// Base[s] is the first slot of the switch host s's link reaches, or
	// -1 when At[s] < 0.
	Base []int32
	// Next[q] is the first slot of the switch that slot q's link
	// reaches (the sentinel for a host); Link[q] is that link. Apart, so
	// that a walk through the slots reads 4 bytes a step.
	Next, Link []int32
}

// PositionEntries returns the fabric's entry routes as position words, or
// false when it has none (see LinkEntries).
func (f *Fabric) PositionEntries() (PositionEntries, bool) {
	r := f.entry.Load()
	if r == nil || r.words == nil || r.hostAt == nil {
		return PositionEntries{}, false
	}
	v := r.view.Load()
	if v == nil {
		v = &PositionEntries{Words: r.words, Block: r.wordIdx, At: r.hostAt, HostLink: f.hostTab,
			Base: make([]int32, len(r.hostAt)), Next: make([]int32, len(r.slots)), Link: make([]int32, len(r.slots))}
		for h, a := range r.hostAt {
			v.Base[h] = -1
			if a >= 0 {
				v.Base[h] = r.rowBase[a/int32(r.blocks)]
			}
		}
		for i, s := range r.slots {
			v.Next[i], v.Link[i] = s.next, s.link
		}
		r.view.Store(v)
	}
	return *v, true
}
