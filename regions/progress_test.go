package regions

import (
	"reflect"
	"testing"
)

// TestSyntheticProgress: the synthetic benchmark reports each sample as
// it starts and the end, and scores as without progress.
func TestSyntheticProgress(t *testing.T) {
	var done []int
	res, err := SyntheticProgress("fattree", ReadLinks, MonetParams(), 3, 1, nil, func(d, total int) {
		if total != 3 {
			t.Errorf("total %d", total)
		}
		done = append(done, d)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(done, []int{0, 1, 2, 3}) {
		t.Errorf("progress %v, want 0 1 2 3", done)
	}
	plain, err := Synthetic("fattree", ReadLinks, MonetParams(), 3, 1, nil)
	if err != nil || !reflect.DeepEqual(res, plain) {
		t.Errorf("with progress %+v, without %+v (%v)", res, plain, err)
	}
}
