package analyze

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"orcs/infile"
	"orcs/metrics"
)

// ShardFormat identifies shard files.
const ShardFormat = "orcs-shard/1"

// ShardFile is what one shard writes: the simulation's description, the
// per-run values of the runs it owns and its integer accumulators. Merging
// every shard of a split gives exactly the result of the unsplit run.
type ShardFile struct {
	Format      string       `json:"format"`
	Shard       int          `json:"shard"`
	Shards      int          `json:"shards"`
	Meta        metrics.Meta `json:"meta"`
	Values      []RunValue   `json:"values"`
	Weights     []int64      `json:"weights"`
	LinkLoad    []int64      `json:"link_load,omitempty"`
	RouteErrors int64        `json:"route_errors"`
}

// RunValue is one run's value.
type RunValue struct {
	Run   int     `json:"run"`
	Value float64 `json:"value"`
}

// NewShardFile packs the result of shard sh.
func NewShardFile(res *metrics.Result, sh Shard) *ShardFile {
	count := max(sh.Count, 1)
	sf := &ShardFile{Format: ShardFormat, Shard: sh.Index, Shards: count, Meta: res.Meta,
		Weights: res.Weights, LinkLoad: res.LinkLoad, RouteErrors: res.RouteErrors}
	if sf.Weights == nil {
		sf.Weights = []int64{}
	}
	sf.Values = make([]RunValue, len(res.Values))
	for k, v := range res.Values {
		sf.Values[k] = RunValue{sh.Run(k), v}
	}
	return sf
}

// Write writes the shard file as JSON.
func (sf *ShardFile) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	return enc.Encode(sf)
}

// ReadShardFile reads a shard file; errors name the file. links is the
// number of links of the fabric the shards were computed on, when known
// (a get_cable_cong shard holds one load per link and is refused without
// it), else −1. The file is
// validated field by field against the rules NewShardFile writes it by
// (see DecodeShard), and its bytes are bounded by what a shard of its runs
// can hold.
func ReadShardFile(path string, links int) (*ShardFile, error) {
	br, done, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer done()
	name := infile.Name(path)
	if err := infile.CheckText(br, name); err != nil {
		return nil, err
	}
	return DecodeShard(br, name, links)
}

// MergeFiles reads the shard files at paths and merges them (see Merge);
// links is the fabric's number of links when known, else −1.
func MergeFiles(paths []string, links int) (*metrics.Result, error) {
	files := make([]*ShardFile, 0, len(paths))
	for _, p := range paths {
		sf, err := ReadShardFile(p, links)
		if err != nil {
			return nil, err
		}
		files = append(files, sf)
	}
	return Merge(files, paths)
}

// Merge combines the shard files of one split into the full result. Every
// shard 0…N−1 must be present once, and all must describe the same
// simulation (fabric digest, pattern, metric, seed, runs, …).
func Merge(files []*ShardFile, names []string) (*metrics.Result, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no shard files to merge")
	}
	first := files[0]
	if first.Shards > len(files) {
		// Counted before anything of the split's size is allocated.
		given := make(map[int]bool, len(files))
		for _, sf := range files {
			given[sf.Shard] = true
		}
		var missing []int
		for i := 0; i < first.Shards && len(missing) < 10; i++ {
			if !given[i] {
				missing = append(missing, i)
			}
		}
		if first.Shards-len(given) > len(missing) {
			return nil, fmt.Errorf("missing %d shards of %d (the first %v): a %d-way split needs its %d shard files, %d given",
				first.Shards-len(given), first.Shards, missing, first.Shards, first.Shards, len(files))
		}
	}
	seen := make([]string, max(first.Shards, len(files)))
	for i, sf := range files {
		if sf.Shards != first.Shards {
			return nil, fmt.Errorf("%s: shard of a %d-way split, but %s is of a %d-way split",
				names[i], sf.Shards, names[0], first.Shards)
		}
		if sf.Meta.BinEdges != first.Meta.BinEdges {
			return nil, fmt.Errorf("%s: binned with hist_acc_band edges %s, but %s with %s: merge shards of one convention",
				names[i], sf.Meta.BinEdges, names[0], first.Meta.BinEdges)
		}
		if sf.Meta.Compat != first.Meta.Compat {
			return nil, fmt.Errorf("%s: computed with compat %q, but %s with %q: merge shards of one mode",
				names[i], sf.Meta.Compat, names[0], first.Meta.Compat)
		}
		a, b := sf.Meta, first.Meta
		a.Fabric, b.Fabric = "", "" // the same fabric may sit at different paths
		if a != b {
			return nil, fmt.Errorf("%s: describes another simulation than %s: %s", names[i], names[0], a.Diff(b))
		}
		if len(sf.LinkLoad) != len(first.LinkLoad) {
			return nil, fmt.Errorf("%s: %d link loads, but %s has %d: shards of one fabric have one load per link",
				names[i], len(sf.LinkLoad), names[0], len(first.LinkLoad))
		}
		if seen[sf.Shard] != "" {
			return nil, fmt.Errorf("%s: shard %d/%d given twice (also %s)", names[i], sf.Shard, sf.Shards, seen[sf.Shard])
		}
		seen[sf.Shard] = names[i]
	}
	var missing []int
	for i, n := range seen[:first.Shards] {
		if n == "" {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing shards %v of %d", missing, first.Shards)
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].Shard < files[j].Shard })
	if first.Meta.Runs > MaxStoredRuns || first.Meta.Runs < 1 {
		return nil, fmt.Errorf("%d runs: a merge keeps every run's value, at most %d (512 MiB)", first.Meta.Runs, MaxStoredRuns)
	}
	res := &metrics.Result{Meta: first.Meta, Values: make([]float64, first.Meta.Runs)}
	for i := range res.Values {
		res.Values[i] = math.NaN()
	}
	for _, sf := range files {
		part := &metrics.Result{Weights: sf.Weights, LinkLoad: sf.LinkLoad, RouteErrors: sf.RouteErrors}
		res.Merge(part, nil)
		for _, rv := range sf.Values {
			if rv.Run < 0 || rv.Run >= len(res.Values) || rv.Run%sf.Shards != sf.Shard {
				return nil, fmt.Errorf("shard %d/%d: run %d does not belong to it", sf.Shard, sf.Shards, rv.Run)
			}
			res.Values[rv.Run] = rv.Value
		}
	}
	for r, v := range res.Values {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("run %d missing from shard %d/%d", r, r%first.Shards, first.Shards)
		}
	}
	return res, nil
}

// ParseShard parses a --shard argument "I/N" (0 ≤ I < N); "" is the
// whole simulation, 0/1.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{Index: 0, Count: 1}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(i)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 0 || a >= b {
		return Shard{}, fmt.Errorf("--shard %q: want I/N with 0 ≤ I < N", s)
	}
	return Shard{Index: a, Count: b}, nil
}

// ParseSeed parses a --seed argument (decimal, or 0x hexadecimal); for
// "" it draws a fresh seed from the operating system and given is false.
func ParseSeed(s string) (seed uint64, given bool, err error) {
	if s == "" {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return 0, false, err
		}
		return binary.LittleEndian.Uint64(b[:]) >> 1, false, nil
	}
	seed, err = strconv.ParseUint(s, 0, 64)
	if err != nil {
		return 0, false, fmt.Errorf("--seed %q: want a non-negative integer", s)
	}
	return seed, true, nil
}
