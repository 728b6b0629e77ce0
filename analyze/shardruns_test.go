package analyze

import (
	"math"
	"testing"

	"orcs/patterns"
)

// TestShardRunsNoOverflow checks Shard.Runs against a count by hand and on
// run counts near the int64 limit, where runs+count−1 overflows: a shard of
// 2⁶³−1 runs split 2³⁶ ways owns 2²⁷ of them (issue 22, item 9), not 0.
func TestShardRunsNoOverflow(t *testing.T) {
	cases := []struct {
		runs         int64
		index, count int
		want         int64
	}{
		{10, 0, 1, 10},
		{10, 0, 3, 4}, // 0 3 6 9
		{10, 1, 3, 3}, // 1 4 7
		{10, 2, 3, 3}, // 2 5 8
		{2, 5, 10, 0}, // the shard's first run is past the end
		{5, 5, 10, 0},
		{6, 5, 10, 1},
		{math.MaxInt64, 0, 1 << 36, 1 << 27}, // runs 0, 2³⁶, …, (2²⁷−1)·2³⁶ < 2⁶³−1
		{math.MaxInt64, 1<<36 - 1, 1 << 36, 1<<27 - 1},       // (2²⁷−1)·2³⁶ + 2³⁶−1 = 2⁶³−1 is past the last run
		{math.MaxInt64, 0, math.MaxInt64, 1},                 // run 0 only
		{math.MaxInt64, math.MaxInt64 - 1, math.MaxInt64, 1}, // run 2⁶³−2
		{math.MaxInt64 - 1, math.MaxInt64 - 1, math.MaxInt64, 0},
	}
	for _, c := range cases {
		sh := Shard{Index: c.index, Count: c.count}
		if got := sh.Runs(c.runs); got != c.want {
			t.Errorf("shard %d/%d of %d runs owns %d, want %d", c.index, c.count, c.runs, got, c.want)
		}
	}
	// Property: the count by formula is the count by enumeration.
	for runs := int64(0); runs < 40; runs++ {
		for count := 1; count < 12; count++ {
			for index := 0; index < count; index++ {
				var n int64
				for r := int64(index); r < runs; r += int64(count) {
					n++
				}
				if got := (Shard{Index: index, Count: count}).Runs(runs); got != n {
					t.Fatalf("shard %d/%d of %d runs owns %d, want %d", index, count, runs, got, n)
				}
			}
		}
	}
}

// TestMergeHugeSplitCountedFirst: shards that claim a 2⁴⁰-way split are
// refused by counting the files given, before anything of the split's size
// is allocated (issue 22, item 1: "shards": 1000000000 allocated first).
func TestMergeHugeSplitCountedFirst(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	cfg := Config{Pattern: patterns.Spec{Name: "bisect"}, Metric: "hist_acc_band", Runs: 10, Seed: 1}
	var files []*ShardFile
	for i := 0; i < 3; i++ {
		c := cfg
		c.Shard = Shard{Index: i, Count: 1 << 40}
		files = append(files, NewShardFile(simulate(t, f, c), c.Shard))
	}
	_, err := Merge(files, []string{"a", "b", "c"})
	want := "missing 1099511627773 shards of 1099511627776 (the first [3 4 5 6 7 8 9 10 11 12]): a 1099511627776-way split needs its 1099511627776 shard files, 3 given"
	if err == nil || err.Error() != want {
		t.Errorf("Merge: %v\nwant %s", err, want)
	}
}
