package regions

import (
	"fmt"
	"slices"
)

// Severity is Monet's severity class of a region by its mean stall.
type Severity int

// The classes of Monet §4.1: negligible below 5 %, low from 5 % to below
// 15 %, medium from 15 % to 25 %, high above 25 %.
const (
	Negligible Severity = iota
	Low
	Medium
	High
	numClasses
)

// Classes names the severity classes in order, as in the JSON output.
var Classes = [numClasses]string{"negligible", "low", "medium", "high"}

// String returns the class's name.
func (s Severity) String() string {
	if s < 0 || s >= numClasses {
		return fmt.Sprintf("Severity(%d)", int(s))
	}
	return Classes[s]
}

// ParseSeverity returns the class named name.
func ParseSeverity(name string) (Severity, error) {
	for i, c := range Classes {
		if c == name {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q: want negligible, low, medium or high", name)
}

// Classify returns the severity class of a mean stall in percent.
func Classify(mean float64) Severity {
	switch {
	case mean < 5:
		return Negligible
	case mean < 15:
		return Low
	case mean <= 25:
		return Medium
	}
	return High
}

// WindowRegions are the regions of one time window with their tracks.
type WindowRegions struct {
	// Time is the window's time as the input gives it.
	Time float64
	// Regions are the window's regions (Segment order).
	Regions []Region
	// Track is, per region, the id of the track it belongs to.
	Track []int
	// Growth is, per region, its size minus the size of its track in the
	// previous window (0 for a new track).
	Growth []int
	// Dropped and DroppedStall are the cables in no region and their
	// stall (Segment).
	Dropped      []int32
	DroppedStall []float64
}

// Track follows one region across windows.
type Track struct {
	// ID numbers tracks from 1 in order of appearance.
	ID int `json:"id"`
	// FirstTime and LastTime are the times of its first and last windows.
	FirstTime float64 `json:"first_time"`
	LastTime  float64 `json:"last_time"`
	// Windows is the number of windows it lasted.
	Windows int `json:"windows"`
	// FirstSize, LastSize and MaxSize are its sizes in cables.
	FirstSize int `json:"first_size"`
	LastSize  int `json:"last_size"`
	MaxSize   int `json:"max_size"`
	// Peak is its highest severity.
	Peak Severity `json:"-"`
	// PeakSeverity names Peak.
	PeakSeverity string `json:"peak_severity"`
}

// Tracker links the regions of successive windows. A region of window t+1
// continues the track of a region of window t it overlaps (shares cables
// with); when several overlap, the pairs are matched greedily by the
// number of shared cables (then the older track, then the larger region),
// each track and region at most once, so a split keeps the track on the
// larger overlap and a merge keeps the track that overlapped most. A region
// matched to no track starts a new one.
type Tracker struct {
	n      int
	prev   []int32 // cable → region index in the previous window, or -1
	prevTr []int   // previous window's region → track id
	prevSz []int
	prevSv []Severity
	first  bool
	tracks []Track
	trans  [numClasses][numClasses]int
	cnt    []int32
	touch  []int32
}

// NewTracker returns a tracker for windows over n cables.
func NewTracker(n int) *Tracker {
	t := &Tracker{n: n, prev: make([]int32, n), first: true}
	for i := range t.prev {
		t.prev[i] = -1
	}
	return t
}

// Add takes the next window's segmentation and returns it with its
// tracks.
func (t *Tracker) Add(time float64, seg Segment) WindowRegions {
	type cand struct{ overlap, track, region, size int }
	var cands []cand
	for i, r := range seg.Regions {
		t.touch = t.touch[:0]
		if len(t.cnt) < len(t.prevTr) {
			t.cnt = make([]int32, len(t.prevTr)+16)
		}
		for _, c := range r.Cables {
			if p := t.prev[c]; p >= 0 {
				if t.cnt[p] == 0 {
					t.touch = append(t.touch, p)
				}
				t.cnt[p]++
			}
		}
		for _, p := range t.touch {
			cands = append(cands, cand{int(t.cnt[p]), t.prevTr[p], i, len(r.Cables)})
			t.cnt[p] = 0
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.overlap != b.overlap {
			return b.overlap - a.overlap
		}
		if a.track != b.track {
			return a.track - b.track
		}
		if a.size != b.size {
			return b.size - a.size
		}
		return a.region - b.region
	})
	w := WindowRegions{Time: time, Regions: seg.Regions, Track: make([]int, len(seg.Regions)), Growth: make([]int, len(seg.Regions)),
		Dropped: seg.Dropped, DroppedStall: seg.DroppedStall}
	taken := make(map[int]bool, len(cands))
	prevOf := make(map[int]int, len(t.prevTr)) // track → previous region
	for i, tr := range t.prevTr {
		prevOf[tr] = i
	}
	for _, c := range cands {
		if w.Track[c.region] != 0 || taken[c.track] {
			continue
		}
		taken[c.track] = true
		w.Track[c.region] = c.track
	}
	// Transitions: continued tracks from their severity to the new one; a
	// track that ends goes to negligible, a new one (after the first
	// window) comes from negligible.
	for i := range seg.Regions {
		sev := seg.Regions[i].Severity()
		size := len(seg.Regions[i].Cables)
		if id := w.Track[i]; id != 0 {
			p := prevOf[id]
			t.trans[t.prevSv[p]][sev]++
			w.Growth[i] = size - t.prevSz[p]
			tr := &t.tracks[id-1]
			tr.LastTime, tr.LastSize = time, size
			tr.Windows++
			tr.MaxSize = max(tr.MaxSize, size)
			if sev > tr.Peak {
				tr.Peak = sev
			}
			continue
		}
		id := len(t.tracks) + 1
		w.Track[i] = id
		t.tracks = append(t.tracks, Track{ID: id, FirstTime: time, LastTime: time, Windows: 1,
			FirstSize: size, LastSize: size, MaxSize: size, Peak: sev})
		if !t.first {
			t.trans[Negligible][sev]++
		}
	}
	for i, id := range t.prevTr {
		if !taken[id] {
			t.trans[t.prevSv[i]][Negligible]++
		}
	}
	// The new window becomes the previous one.
	for i := range t.prev {
		t.prev[i] = -1
	}
	t.prevTr = t.prevTr[:0]
	t.prevSz = t.prevSz[:0]
	t.prevSv = t.prevSv[:0]
	for i, r := range seg.Regions {
		for _, c := range r.Cables {
			t.prev[c] = int32(i)
		}
		t.prevTr = append(t.prevTr, w.Track[i])
		t.prevSz = append(t.prevSz, len(r.Cables))
		t.prevSv = append(t.prevSv, r.Severity())
	}
	t.first = false
	return w
}

// Tracks returns every track so far, in order of id, with PeakSeverity
// filled.
func (t *Tracker) Tracks() []Track {
	out := slices.Clone(t.tracks)
	for i := range out {
		out[i].PeakSeverity = out[i].Peak.String()
	}
	return out
}

// Transitions returns the severity transition counts so far:
// [from][to], over the classes in order. A track that continues counts
// from its severity in one window to that in the next; a track that ends
// counts towards negligible, and a track that starts after the first
// window counts from negligible.
func (t *Tracker) Transitions() [4][4]int { return t.trans }
