package samplingsim

import (
	"fmt"
	"math"
)

// LinkTruth is the ground truth of one link direction in one time window.
type LinkTruth struct {
	// Packets and Bytes count the packets and bytes that started crossing
	// the link in the window.
	Packets, Bytes int64
	// Congested counts the packets marked congested at the link's output
	// port (by the marking policy, whether or not they carry a header).
	Congested int64
	// Busy is the time the link spent transmitting.
	Busy Time
	// Stalled is the time the output port had a packet to send and an idle
	// link but no credits.
	Stalled Time
	// QueueArea is the output queue length integrated over time
	// (packets·ps); divided by the window length it is the mean occupancy.
	QueueArea int64
	// BufferArea is the occupancy of the downstream input buffer (the
	// credits in use) integrated over time (packets·ps).
	BufferArea int64
	// QueueMax is the longest output queue seen.
	QueueMax int32
}

// Fraction returns the true congested fraction Congested/Packets (0 when no
// packet crossed).
func (t LinkTruth) Fraction() float64 {
	if t.Packets == 0 {
		return 0
	}
	return float64(t.Congested) / float64(t.Packets)
}

// add accumulates o into t.
func (t *LinkTruth) add(o *LinkTruth) {
	t.Packets += o.Packets
	t.Bytes += o.Bytes
	t.Congested += o.Congested
	t.Busy += o.Busy
	t.Stalled += o.Stalled
	t.QueueArea += o.QueueArea
	t.BufferArea += o.BufferArea
	t.QueueMax = max(t.QueueMax, o.QueueMax)
}

// truthWindow returns the truth of window w, allocating windows up to w.
func (s *network) truthWindow(w int) []LinkTruth {
	for len(s.truth) <= w {
		s.truth = append(s.truth, make([]LinkTruth, len(s.ch)))
	}
	return s.truth[w]
}

// MaxWindowCells bounds what a run keeps per window: windows × links
// (the ground truth and every job's tallies of each link in each window).
// A run whose windows would exceed it stops with an error that asks for a
// longer window, instead of growing without bound.
const MaxWindowCells = 1 << 21

// window returns the window index of time t. Past the last window the run
// may keep, it records the error that stops the run and returns that last
// window.
func (s *network) window(t Time) int {
	if s.cfg.Window <= 0 {
		return 0
	}
	w := t / s.cfg.Window
	if w > Time(s.maxWindow) {
		if s.windowErr == nil {
			s.windowErr = fmt.Errorf("window %s: the run reached %s, more than %d windows of %d links each would have to be kept (at most %d link-windows); give a longer --window",
				FormatTime(s.cfg.Window), FormatTime(t), s.maxWindow+1, len(s.f.Links), MaxWindowCells)
		}
		return s.maxWindow
	}
	return int(w)
}

// tick makes the window of now the current one (curTruth), if it is not
// yet: what the channels accumulate from then on belongs to it.
func (s *network) tick() {
	if s.now >= s.curEnd { // curEnd is 0 until the first call
		s.enterWindow()
	}
}

// enterWindow makes the window of now the current one. Kept out of line,
// so that tick inlines.
//
//go:noinline
func (s *network) enterWindow() {
	s.flushWindow()
	w := s.window(s.now)
	s.curTruth = s.truthWindow(w)
	s.curEnd = math.MaxInt64
	if s.cfg.Window > 0 {
		s.curEnd = Time(w+1) * s.cfg.Window
	}
}

// flushWindow adds what the channels hold for the current window (see
// channel: the buffer areas, the full-size packets sent, the longest
// queues, the congested marks) into its truth.
func (s *network) flushWindow() {
	if s.curTruth == nil {
		return // no window yet: nothing was accounted
	}
	mtu := int64(s.cfg.MTU)
	for l := range s.ch {
		c := &s.ch[l]
		if c.bufArea == 0 && c.qArea == 0 && c.sent == 0 && c.qMax == 0 && c.cong == 0 {
			continue
		}
		t := &s.curTruth[l]
		n := int64(c.sent)
		t.Packets += n
		t.Bytes += n * mtu
		t.Busy += Time(n) * s.linkMTUTime[l]
		t.Congested += int64(c.cong)
		t.QueueMax = max(t.QueueMax, int32(c.qMax))
		t.BufferArea += c.bufArea
		t.QueueArea += c.qArea
		c.bufArea, c.qArea, c.sent, c.qMax, c.cong = 0, 0, 0, 0, 0
	}
}

// spread calls f(window truth, length) for every window that the interval
// [from, to) overlaps, with the length of the overlap.
func (s *network) spread(l int32, from, to Time, f func(t *LinkTruth, d Time)) {
	if to <= from {
		return
	}
	W := s.cfg.Window
	if W <= 0 {
		f(&s.truthWindow(0)[l], to-from)
		return
	}
	for w := int(from / W); from < to; w++ {
		end := min(to, Time(w+1)*W)
		f(&s.truthWindow(w)[l], end-from)
		from = end
	}
}

func addBusy(t *LinkTruth, d Time)    { t.Busy += d }
func addStalled(t *LinkTruth, d Time) { t.Stalled += d }

// areaKind selects one of the occupancy integrals of a LinkTruth.
type areaKind uint8

const (
	queueArea  areaKind = iota // LinkTruth.QueueArea: the output queue
	bufferArea                 // LinkTruth.BufferArea: the downstream input buffer
)

// area returns the integral k of t.
func (t *LinkTruth) area(k areaKind) *int64 {
	if k == queueArea {
		return &t.QueueArea
	}
	return &t.BufferArea
}

// occupancy accounts the output queue or the input buffer (k) of link l,
// which held n packets from *since to now, in the integral k of the truth
// of the windows in between, and restarts the interval at now.
func (s *network) occupancy(l int32, k areaKind, n int32, since *Time) {
	if from := *since; n > 0 {
		if W := s.cfg.Window; W <= 0 || from/W == s.now/W {
			s.tick()
			if k == bufferArea {
				s.ch[l].bufArea += int64(n) * (s.now - from)
			} else {
				s.ch[l].qArea += int64(n) * (s.now - from)
			}
		} else {
			s.spread(l, from, s.now, func(t *LinkTruth, d Time) { *t.area(k) += int64(n) * d })
		}
	}
	*since = s.now
}
