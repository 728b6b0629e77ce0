package regions

import (
	"testing"
)

// seg makes a segmentation of n cables from regions given as cable lists
// with one value each.
func seg(n int, regs map[float64][]int32) Segment {
	label := make([]int32, n)
	vals := make([]float64, n)
	for i := range label {
		label[i] = -1
	}
	var rs []Region
	for v, cs := range regs {
		for _, c := range cs {
			label[c] = int32(len(rs))
			vals[c] = v
		}
		rs = append(rs, Region{})
	}
	return buildSegment(label, rs, vals)
}

func span(a, b int32) []int32 {
	var out []int32
	for c := a; c < b; c++ {
		out = append(out, c)
	}
	return out
}

// A region that grows, splits and fades, followed by hand.
func TestTracker(t *testing.T) {
	tr := NewTracker(100)
	// t0: A = 0–9 at 10 % (low)
	w0 := tr.Add(0, seg(100, map[float64][]int32{10: span(0, 10)}))
	// t1: A grows to 0–19 at 20 % (medium); B = 50–54 appears (high)
	w1 := tr.Add(1, seg(100, map[float64][]int32{20: span(0, 20), 30: span(50, 55)}))
	// t2: A splits: 0–4 (high) and 5–19 (medium, the larger overlap keeps
	// the track); B is gone
	w2 := tr.Add(2, seg(100, map[float64][]int32{26: span(0, 5), 18: span(5, 20)}))
	// t3: nothing
	w3 := tr.Add(3, seg(100, nil))
	if w0.Track[0] != 1 || w0.Growth[0] != 0 {
		t.Errorf("t0: track %v growth %v", w0.Track, w0.Growth)
	}
	// regions are ordered by size: A (20) then B (5)
	if w1.Track[0] != 1 || w1.Growth[0] != 10 || w1.Track[1] != 2 || w1.Growth[1] != 0 {
		t.Errorf("t1: tracks %v growth %v, want [1 2] [10 0]", w1.Track, w1.Growth)
	}
	if w2.Track[0] != 1 || w2.Growth[0] != -5 || w2.Track[1] != 3 {
		t.Errorf("t2: tracks %v growth %v, want [1 3] [-5 …]", w2.Track, w2.Growth)
	}
	if len(w3.Regions) != 0 {
		t.Errorf("t3: %d regions", len(w3.Regions))
	}
	want := []Track{
		{ID: 1, FirstTime: 0, LastTime: 2, Windows: 3, FirstSize: 10, LastSize: 15, MaxSize: 20, Peak: Medium, PeakSeverity: "medium"},
		{ID: 2, FirstTime: 1, LastTime: 1, Windows: 1, FirstSize: 5, LastSize: 5, MaxSize: 5, Peak: High, PeakSeverity: "high"},
		{ID: 3, FirstTime: 2, LastTime: 2, Windows: 1, FirstSize: 5, LastSize: 5, MaxSize: 5, Peak: High, PeakSeverity: "high"},
	}
	got := tr.Tracks()
	if len(got) != len(want) {
		t.Fatalf("tracks %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("track %d: %+v, want %+v", i+1, got[i], want[i])
		}
	}
	// Transitions: t0→t1 A low→medium, B new (negligible→high); t1→t2 A
	// medium→medium, B ends (high→negligible), A's split part new
	// (negligible→high); t2→t3 both end (medium→negligible, high→negligible).
	var wantT [4][4]int
	wantT[Low][Medium] = 1
	wantT[Negligible][High] = 2
	wantT[Medium][Medium] = 1
	wantT[High][Negligible] = 2
	wantT[Medium][Negligible] = 1
	if tr.Transitions() != wantT {
		t.Errorf("transitions %v, want %v", tr.Transitions(), wantT)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		mean float64
		want Severity
	}{{-1, Negligible}, {0, Negligible}, {4.99, Negligible}, {5, Low}, {14.99, Low}, {15, Medium}, {25, Medium}, {25.01, High}, {100, High}} {
		if got := Classify(tc.mean); got != tc.want {
			t.Errorf("Classify(%v) = %v, want %v", tc.mean, got, tc.want)
		}
	}
}
