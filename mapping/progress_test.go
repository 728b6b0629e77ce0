package mapping

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestRunProgress: Run reports every step as it starts (placing with each
// strategy of --compare), in order, then done = total, and the report is
// the one without progress.
func TestRunProgress(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	p, err := JobProblem(f, nil, Job{Pattern: "bisect"})
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	opt := Options{Strategy: "greedy", Compare: true, Progress: func(step string, done, total int) {
		calls = append(calls, fmt.Sprintf("%s %d/%d", step, done, total))
	}}
	rep, _, err := p.Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	n := len(Names())
	if len(calls) != n+1 || calls[0] != fmt.Sprintf("placing with linear 0/%d", n) || calls[n] != fmt.Sprintf("done %d/%d", n, n) {
		t.Errorf("progress calls %q", calls)
	}
	for i, c := range calls[:n] {
		if !strings.HasSuffix(c, fmt.Sprintf(" %d/%d", i, n)) {
			t.Errorf("call %d: %q", i, c)
		}
	}
	opt.Progress = nil
	plain, _, err := p.Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain.Rows {
		plain.Rows[i].Seconds, rep.Rows[i].Seconds = 0, 0
	}
	if !reflect.DeepEqual(rep, plain) {
		t.Errorf("the report depends on the progress callback:\n%+v\n%+v", rep, plain)
	}
}
