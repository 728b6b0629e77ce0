package samplingsim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEventQueueOrder: events scheduled through the FIFO classes and the
// heap, interleaved with pops as the event loop does, come out in (time,
// scheduling order), the order of a stable sort by time.
func TestEventQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	delays := []Time{327, 427, 527}
	var q eventQueue
	for _, d := range delays {
		q.addClass(d)
	}
	type rec struct {
		t   Time
		ord int
	}
	var want, got []rec
	now, ord := Time(0), 0
	schedule := func() {
		var t Time
		switch r.IntN(4) {
		case 0: // an arbitrary delay: the heap
			t = now + Time(r.IntN(1000))
			q.push(t, evWake, int32(ord), 0)
		default: // a class delay, or a delay of no class
			d := delays[r.IntN(len(delays))]
			if r.IntN(5) == 0 {
				d = Time(r.IntN(600))
			}
			t = now + d
			q.after(now, d, evArrive, int32(ord), 0)
		}
		want = append(want, rec{t, ord})
		ord++
	}
	for range 20000 {
		for range r.IntN(3) {
			schedule()
		}
		if q.len() > 0 && r.IntN(3) > 0 {
			e := q.pop()
			if e.t < now {
				t.Fatalf("event at %d popped at %d", e.t, now)
			}
			now = e.t
			got = append(got, rec{e.t, int(e.a)})
		}
	}
	for q.len() > 0 {
		e := q.pop()
		got = append(got, rec{e.t, int(e.a)})
	}
	slices.SortStableFunc(want, func(a, b rec) int { return int(a.t - b.t) })
	if !slices.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("event %d: got (t %d, #%d), want (t %d, #%d)", i, got[i].t, got[i].ord, want[i].t, want[i].ord)
			}
		}
	}
	if len(got) != ord {
		t.Errorf("%d events popped of %d", len(got), ord)
	}
}
