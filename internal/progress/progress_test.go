package progress

import (
	"os"
	"testing"
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
	var bar *Bar
	bar.Set(3) // a nil bar does nothing
	bar.Stop()
}
