package analyze

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Request is what a user asks of the analyzer command beside Config: the
// output and the extras around a run. Validate checks that its choices
// agree with each other before any fabric is read.
type Request struct {
	Format       string // output format: text, json or csv
	Output       string // the output file ("-": standard output)
	CheckInput   bool   // only check that every pair routes (--checkinputfile)
	RouteQuality bool   // only the all-pairs route quality (--routequal)
	Sharded      bool   // write a shard file for merge (--shard)
	SeedGiven    bool   // --seed given
	Hot          int    // the hottest cables to explain (--hot)
	HotCSV       bool   // their flows to a CSV file (--hot-csv)
	Cables       bool   // the fabric and its cable loads in the JSON (--cables)
	Pattern      string // the pattern's name
	PvPParts     bool   // --frstptrn, --secptrn or --part_commsize given
}

// Formats lists the output formats of the analyzer.
var Formats = []string{"text", "json", "csv"}

// Validate returns the first disagreement between the request's choices,
// as a message that names the flags.
func (r Request) Validate() error {
	switch {
	case !slices.Contains(Formats, r.Format):
		return fmt.Errorf("unknown format %q (known: %s)", r.Format, strings.Join(Formats, ", "))
	case r.CheckInput && r.RouteQuality:
		return fmt.Errorf("--checkinputfile and --routequal are two separate runs: give one")
	case r.Sharded && slices.Contains([]string{".csv", ".txt"}, strings.ToLower(filepath.Ext(r.Output))):
		return fmt.Errorf("--shard writes a shard file (JSON) for orcs merge, not %s; --format applies to the merge", r.Output)
	case r.Hot < 0 || r.HotCSV && r.Hot == 0 || r.Sharded && r.Hot > 0:
		return fmt.Errorf("--hot N wants N > 0 (--hot-csv needs it), and not with --shard: the flows are found by walking the runs again, which a merge cannot")
	case r.Cables && (r.Format != "json" || r.Sharded):
		return fmt.Errorf("--cables adds the fabric and its cable loads to the JSON result: it wants --format json, and not --shard")
	case r.Sharded && !r.SeedGiven:
		return fmt.Errorf("--shard needs --seed: every shard must draw the same mappings")
	case r.Pattern != "ptrnvsptrn" && r.PvPParts:
		return fmt.Errorf("-f/--frstptrn, -c/--secptrn and -z/--part_commsize belong to -p ptrnvsptrn (the pattern is %s)", r.Pattern)
	}
	return nil
}
