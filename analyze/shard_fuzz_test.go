package analyze

import (
	"bytes"
	"errors"
	"testing"

	"orcs/infile"
	"orcs/patterns"
)

// FuzzDecodeShard: whatever the bytes, DecodeShard returns a shard or an
// error that names the file, never panics; a shard it accepts is one the
// writer could have written (it writes back to the same bytes' meaning
// and, when it is a whole split of one, merges).
func FuzzDecodeShard(f *testing.F) {
	fab := fabric(f, "kary:k=4,n=2")
	links := len(fab.Links)
	for _, metric := range []string{"hist_acc_band", "get_cable_cong", "sum_max_cong", "dep_max_delay", "hist_max_cong"} {
		for _, sh := range []Shard{{0, 1}, {1, 3}} {
			cfg := Config{Pattern: patterns.Spec{Name: "rand"}, Metric: metric, Runs: 5, Seed: 3, Shard: sh}
			var buf bytes.Buffer
			if err := NewShardFile(simulate(f, fab, cfg), sh).Write(&buf); err != nil {
				f.Fatal(err)
			}
			f.Add(buf.Bytes())
		}
	}
	f.Add([]byte(`{"format":"orcs-shard/1","shard":0,"shards":1000000000,"meta":{}}`))
	f.Add([]byte(`{"format":"orcs-shard/1","shard":0,"shards":1,"meta":{"fabric_digest":"x","hosts":16,"commsize":16,"subset":"rand","runs":1,"metric":"hist_max_cong"},"values":[{"run":0,"value":-7.5}],"weights":[0,-1],"route_errors":-1}`))
	f.Add([]byte("\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sf, err := DecodeShard(bytes.NewReader(data), "fuzz.json", links)
		if err != nil {
			var pe *infile.ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz.json" {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		own := Shard{Index: sf.Shard, Count: sf.Shards}.Runs(int64(sf.Meta.Runs))
		if int64(len(sf.Values)) != own {
			t.Fatalf("%d values for %d runs", len(sf.Values), own)
		}
		var buf bytes.Buffer
		if err := sf.Write(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := DecodeShard(&buf, "again", links)
		if err != nil {
			t.Fatalf("a shard read back: %v", err)
		}
		if again.Meta != sf.Meta || len(again.Values) != len(sf.Values) || len(again.Weights) != len(sf.Weights) {
			t.Fatal("a shard read back differs")
		}
		if sf.Shards == 1 {
			if _, err := Merge([]*ShardFile{sf}, []string{"fuzz.json"}); err != nil && own <= MaxStoredRuns && sf.Meta.Runs <= MaxStoredRuns {
				t.Fatalf("a whole split of one does not merge: %v", err)
			}
		}
	})
}
