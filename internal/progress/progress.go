// Package progress shows a progress bar on a terminal once a long job has
// run for a second; short jobs print nothing.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar is a progress bar that appears after a second. A nil *Bar does
// nothing, so callers need not check whether one was started. Its time
// left ("about 12s left") shows only once a unit has finished: before
// that there is no rate to predict from, and a "0s" would mislead.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	what  string
	bar   *progressbar.ProgressBar
	total int64
	start time.Time
	after time.Duration
	done  chan struct{}
	last  int64
}

// Start starts a bar for total units of what (e.g. "runs") on w.
func Start(w io.Writer, what string, total int64) *Bar {
	return start(w, what, total, time.Second)
}

// start starts a bar that appears after the delay after.
func start(w io.Writer, what string, total int64, after time.Duration) *Bar {
	p := &Bar{w: w, what: what, total: total, start: time.Now(), after: after, done: make(chan struct{})}
	go p.loop()
	return p
}

func (p *Bar) loop() {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			p.mu.Lock()
			if p.bar == nil && time.Since(p.start) >= p.after {
				p.bar = progressbar.NewOptions64(p.total, progressbar.OptionSetWriter(p.w),
					progressbar.OptionSetDescription(p.what), progressbar.OptionShowCount(),
					progressbar.OptionSetPredictTime(false), progressbar.OptionClearOnFinish())
			}
			if p.bar != nil {
				p.bar.Describe(p.what + Left(time.Since(p.start), p.last, p.total))
				p.bar.Set64(p.last)
			}
			p.mu.Unlock()
		}
	}
}

// Left returns the time left after done of total units took elapsed, as
// " (about 12s left)" rounded to the second (to the minute past an hour),
// or "" while no unit has finished (no rate yet) or when all have.
func Left(elapsed time.Duration, done, total int64) string {
	if done <= 0 || done >= total {
		return ""
	}
	left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
	if left >= time.Hour {
		left = left.Round(time.Minute)
	} else {
		left = left.Round(time.Second)
	}
	return fmt.Sprintf(" (about %v left)", max(left, time.Second))
}

// Set records that done units are finished; it may be called from several
// goroutines, and a smaller value than before is ignored.
func (p *Bar) Set(done int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.last = max(p.last, done)
	p.mu.Unlock()
}

// Stop ends the bar and clears it.
func (p *Bar) Stop() {
	if p == nil {
		return
	}
	close(p.done)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
	}
}

// Line shows on w, when w is a terminal, the line that status returns,
// refreshed every second from the first second on, and clears it when the
// returned stop function is called. On anything but a terminal it does
// nothing.
func Line(w *os.File, status func() string) (stop func()) {
	if !term.IsTerminal(int(w.Fd())) {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every())
		defer t.Stop()
		shown := false
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-t.C:
				fmt.Fprintf(w, "\r\033[K%s", status())
				shown = true
			}
		}
	}()
	return func() { close(done); <-finished }
}

// Status shows on w, when w is a terminal, the line "what: TEXT, N s"
// refreshed every second from the first second on, where TEXT is what set
// was last given; stop clears it. On anything but a terminal set is nil,
// so that the work does not even format its text (and a run's result can
// never depend on it), and stop does nothing.
func Status(w *os.File, what string) (set func(text string), stop func()) {
	if !term.IsTerminal(int(w.Fd())) {
		return nil, func() {}
	}
	var mu sync.Mutex
	text := "starting"
	t0 := time.Now()
	stop = Line(w, func() string {
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprintf("%s: %s, %.0f s", what, text, time.Since(t0).Seconds())
	})
	return func(s string) {
		mu.Lock()
		text = s
		mu.Unlock()
	}, stop
}

// every is how often Line redraws: a second, or the duration in the
// environment variable ORCS_PROGRESS_EVERY (at least 10 ms), which lets a
// test see the line of a run shorter than a second.
func every() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("ORCS_PROGRESS_EVERY")); err == nil && d >= 10*time.Millisecond {
		return d
	}
	return time.Second
}
