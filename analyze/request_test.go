package analyze

import (
	"strings"
	"testing"
)

// TestRequestValidate checks every cross-check of the analyzer's flags,
// one disagreement at a time, and that a request that agrees passes.
func TestRequestValidate(t *testing.T) {
	ok := Request{Format: "text", Output: "-", Pattern: "bisect"}
	for _, c := range []struct {
		name string
		edit func(r *Request)
		want string // "" for no error
	}{
		{"defaults", func(r *Request) {}, ""},
		{"json with cables", func(r *Request) { r.Format, r.Cables = "json", true }, ""},
		{"shard with seed to a .json", func(r *Request) { r.Sharded, r.SeedGiven, r.Output = true, true, "s.json" }, ""},
		{"ptrnvsptrn parts", func(r *Request) { r.Pattern, r.PvPParts = "ptrnvsptrn", true }, ""},
		{"hot with csv", func(r *Request) { r.Hot, r.HotCSV = 5, true }, ""},
		{"unknown format", func(r *Request) { r.Format = "xml" }, `unknown format "xml" (known: text, json, csv)`},
		{"check and quality", func(r *Request) { r.CheckInput, r.RouteQuality = true, true }, "--checkinputfile and --routequal are two separate runs"},
		{"shard to .csv", func(r *Request) { r.Sharded, r.SeedGiven, r.Output = true, true, "x.CSV" }, "--shard writes a shard file (JSON) for orcs merge, not x.CSV"},
		{"shard to .txt", func(r *Request) { r.Sharded, r.SeedGiven, r.Output = true, true, "x.txt" }, "not x.txt"},
		{"negative hot", func(r *Request) { r.Hot = -1 }, "--hot N wants N > 0"},
		{"hot-csv without hot", func(r *Request) { r.HotCSV = true }, "--hot N wants N > 0 (--hot-csv needs it)"},
		{"hot with shard", func(r *Request) { r.Hot, r.Sharded, r.SeedGiven, r.Output = 3, true, true, "s.json" }, "and not with --shard"},
		{"cables in text", func(r *Request) { r.Cables = true }, "--cables adds the fabric and its cable loads to the JSON result"},
		{"cables with shard", func(r *Request) { r.Format, r.Cables, r.Sharded, r.SeedGiven = "json", true, true, true }, "it wants --format json, and not --shard"},
		{"shard without seed", func(r *Request) { r.Sharded = true }, "--shard needs --seed"},
		{"parts without ptrnvsptrn", func(r *Request) { r.PvPParts = true }, "belong to -p ptrnvsptrn (the pattern is bisect)"},
	} {
		r := ok
		c.edit(&r)
		err := r.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
