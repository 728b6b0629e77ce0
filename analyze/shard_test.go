package analyze

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"orcs/patterns"
)

// TestParseShard: "I/N" with 0 ≤ I < N; "" is the whole simulation.
func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"", Shard{0, 1}, true}, {"0/1", Shard{0, 1}, true}, {"0/3", Shard{0, 3}, true}, {"2/3", Shard{2, 3}, true},
		{"3/3", Shard{}, false}, {"-1/3", Shard{}, false}, {"0/0", Shard{}, false}, {"1", Shard{}, false},
		{"a/2", Shard{}, false}, {"1/b", Shard{}, false}, {"1/2/3", Shard{}, false},
	} {
		got, err := ParseShard(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("ParseShard(%q) = %+v, %v; want %+v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "want I/N with 0 ≤ I < N") {
			t.Errorf("ParseShard(%q): error %q does not say what it wants", tc.in, err)
		}
	}
}

// TestParseSeed: decimal or 0x hexadecimal seeds are given; "" draws one
// (below 2⁶³, as it is printed for a rerun), another each time.
func TestParseSeed(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
	}{{"0", 0}, {"42", 42}, {"0x2a", 42}, {"18446744073709551615", 1<<64 - 1}} {
		got, given, err := ParseSeed(tc.in)
		if err != nil || !given || got != tc.want {
			t.Errorf("ParseSeed(%q) = %d, %v, %v; want %d, given", tc.in, got, given, err, tc.want)
		}
	}
	for _, bad := range []string{"-1", "x", "1.5", "18446744073709551616"} {
		if _, _, err := ParseSeed(bad); err == nil || !strings.Contains(err.Error(), "want a non-negative integer") {
			t.Errorf("ParseSeed(%q): error %v", bad, err)
		}
	}
	a, given, err := ParseSeed("")
	b, _, _ := ParseSeed("")
	if err != nil || given || a>>63 != 0 || b>>63 != 0 || a == b {
		t.Errorf("drawn seeds %d, %d (given %v, %v): want two different seeds below 2^63", a, b, given, err)
	}
}

// TestMergeFiles: shard files written to disk merge to the unsplit result;
// a file that is not a shard file, or of a bad shard, is refused with its
// name.
func TestMergeFiles(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	cfg := Config{Pattern: patterns.Spec{Name: "rand"}, Metric: "get_cable_cong", Runs: 11, Seed: 3, Threads: 2}
	want := simulate(t, f, cfg)
	dir := t.TempDir()
	var paths []string
	for i := range 2 {
		c := cfg
		c.Shard = Shard{Index: i, Count: 2}
		var buf bytes.Buffer
		if err := NewShardFile(simulate(t, f, c), c.Shard).Write(&buf); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, []string{"a.json", "b.json"}[i])
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	got, err := MergeFiles(paths, len(f.Links))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("merged shard files differ from the unsplit run")
	}
	bad := map[string]string{
		"notjson.json": "not a shard file",
		"other.json":   `format "x", want "orcs-shard/1"`,
		"range.json":   "bad shard 2/2",
		"compat.json":  `unknown compat "orcs9"`,
	}
	good, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	content := map[string]string{
		"notjson.json": "{",
		"other.json":   `{"format":"x","shard":0,"shards":1}`,
		"range.json":   strings.Replace(string(good), `"shard":0,`, `"shard":2,`, 1),
		"compat.json":  strings.Replace(string(good), `"metric":"get_cable_cong"`, `"metric":"get_cable_cong","compat":"orcs9"`, 1),
	}
	for name, want := range bad {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := MergeFiles([]string{paths[0], p}, len(f.Links)); err == nil || !strings.Contains(err.Error(), p+": ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
	}
	if _, err := MergeFiles([]string{filepath.Join(dir, "none.json")}, -1); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("missing file: %v", err)
	}
}
