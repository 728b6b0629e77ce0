package progress

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLineOffTerminal checks that nothing is drawn on a file that is not
// a terminal (a log, a Slurm output file).
func TestLineOffTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	stop := Line(f, func() string { return "busy" })
	stop()
	if st, _ := f.Stat(); st.Size() != 0 {
		t.Errorf("%d bytes written to a file", st.Size())
	}
	set, stop := Status(f, "map")
	if set != nil {
		t.Error("Status gives a setter off a terminal")
	}
	stop()
	var bar *Bar
	bar.Set(3) // a nil bar does nothing
	bar.Stop()
}

// syncBuffer is a buffer the bar's goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestBarTimeLeftOnlyWithARate draws a bar at once and checks that it
// gives no time left (the bar read "[0s:0s]" until the first run ended)
// before a unit has finished, and a time left after.
func TestBarTimeLeftOnlyWithARate(t *testing.T) {
	var w syncBuffer
	bar := start(&w, "runs", 100, 0)
	bar.Set(0)
	waitFor(t, &w, "0/100")
	if got := w.String(); strings.Contains(got, "left") || strings.Contains(got, "0s") {
		t.Errorf("before the first run: %q", got)
	}
	bar.Set(1)
	waitFor(t, &w, "left)")
	bar.Stop()
}

// waitFor waits (up to 10 s, as the bar redraws every 200 ms on a busy
// machine) until w holds want.
func waitFor(t *testing.T, w *syncBuffer, want string) {
	t.Helper()
	for range 200 {
		if strings.Contains(w.String(), want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no %q in %q", want, w.String())
}

func TestLeft(t *testing.T) {
	cases := []struct {
		elapsed     time.Duration
		done, total int64
		want        string
	}{
		{5 * time.Second, 0, 100, ""},
		{5 * time.Second, 100, 100, ""},
		{10 * time.Second, 1, 4, " (about 30s left)"},
		{10 * time.Millisecond, 99, 100, " (about 1s left)"},
		{2 * time.Hour, 1, 2, " (about 2h0m0s left)"},
		{90 * time.Second, 50, 100, " (about 1m30s left)"},
	}
	for _, c := range cases {
		if got := Left(c.elapsed, c.done, c.total); got != c.want {
			t.Errorf("Left(%v, %d, %d) = %q, want %q", c.elapsed, c.done, c.total, got, c.want)
		}
	}
}
