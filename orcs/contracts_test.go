package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"orcs/analyze"
	"orcs/deadlock"
	"orcs/lft"
	"orcs/metrics"
	"orcs/regions"
	"orcs/report"
	"orcs/samplingsim"
	"orcs/schema"
)

// contract is one kind of file that one command writes and another reads
// (doc/file-contracts.md).
type contract struct {
	// kind names the file kind; its keys are in testdata/contracts/KIND.keys.
	kind string
	// file is the output in the test's directory; fixture, when not "",
	// the committed file of the same kind that an earlier orcs wrote.
	file, fixture string
	// typ is the writer's exported type, which every reader decodes.
	typ func() any
	// version is the type's format version.
	version int
}

// contracts are the JSON kinds TestFileContracts writes.
var contracts = []contract{
	{"analysis", "analysis.json", "analysis-ft64.json", func() any { return &metrics.AnalysisFile{} }, metrics.AnalysisVersion},
	{"analysis-merged", "merged.json", "", func() any { return &metrics.AnalysisFile{} }, metrics.AnalysisVersion},
	{"routecheck", "check.json", "check-ft64.json", func() any { return &lft.RouteCheckFile{} }, lft.RouteCheckVersion},
	{"deadlock", "deadlock.json", "deadlock-torus4x4.json", func() any { return &deadlock.File{} }, deadlock.FileVersion},
	{"compare", "compare.json", "compare-ft64.json", func() any { return &schema.Comparison{} }, schema.ComparisonVersion},
	{"samplingsim", "samplingsim.json", "samplingsim-ft64.json", func() any { return &samplingsim.RunFile{} }, samplingsim.RunFileVersion},
	{"regions", "regions.json", "regions-ft64.json", func() any { return &regions.File{} }, regions.FileVersion},
	{"shard", "shard0.json", "", func() any { return &analyze.ShardFile{} }, 1},
}

// TestFileContracts runs every command that writes a file another command
// reads, on the shipped fabrics (ft16, torus4x4, and a generated 4-ary
// 3-tree whose hot spot stalls for regions; compare with the real OpenSM),
// and feeds its current output to every reader: orcs report (all six
// result kinds), orcs regions (samplingsim's run, the analyzer's
// get_cable_cong CSV), orcs merge (shards; the merge must equal the
// unsplit run byte for byte), samplingsim --mapping (map's rank→host
// file). For every JSON kind it then checks that
//   - the file decodes into the writer's type and encodes back to the same
//     bytes (the type is the whole file, so readers need no copy of it);
//   - its keys (and the CSV's columns) are those of
//     testdata/contracts/KIND.keys: a renamed or removed field fails here
//     (files of older orcs versions still use the old name: raise the
//     version and keep reading it), an added one asks for -update;
//   - report.Load fills every field the report shows, from the fresh file
//     and from the committed fixture an earlier orcs wrote;
//   - a format_version one above the type's is refused, naming the file.
func TestFileContracts(t *testing.T) {
	dir := t.TempDir()
	ft16, torus := filepath.Join("..", "testdata", "ft16.dot"), filepath.Join("..", "testdata", "torus4x4.dot")
	const k4n3 = "gen:kary:k=4,n=3" // a hot spot's credit stalls make regions
	p := func(name string) string { return filepath.Join(dir, name) }
	sim := []string{"-i", ft16, "-p", "bisect_fb_sym", "--metric", "hist_acc_band", "-n", "40", "--seed", "1"}
	steps := []struct {
		args []string
		exit int
	}{
		// Writers.
		{append(sim, "--hot", "3", "--cables", "--format", "json", "-o", p("analysis.json")), 0},
		{append(sim, "--format", "json", "-o", p("unsplit.json")), 0},
		{append(sim, "--shard", "0/2", "-o", p("shard0.json")), 0},
		{append(sim, "--shard", "1/2", "-o", p("shard1.json")), 0},
		{[]string{"--checkinputfile", "-i", ft16, "--format", "json", "-o", p("check.json")}, 0},
		{[]string{"deadlock", "-i", torus, "--format", "json", "-o", p("deadlock.json")}, 2},
		{[]string{"deadlock", "-i", ft16, "--format", "json", "-o", p("deadlock-free.json")}, 0},
		{[]string{"compare", ft16, "--engines", "minhop,updn", "-p", "bisect_fb_sym", "-n", "20", "--seed", "1", "--format", "json", "-o", p("compare.json")}, 0},
		{[]string{"samplingsim", "-i", k4n3, "--workload", "hotspot:hot=0,msgs=4,gbps=20", "--window", "4us", "--json", p("samplingsim.json"), "-o", p("samplingsim.txt")}, 0},
		{[]string{"-i", ft16, "-p", "bisect_fb_sym", "--metric", "get_cable_cong", "-n", "20", "--seed", "1", "--format", "csv", "-o", p("loads.csv")}, 0},
		{[]string{"map", "-i", ft16, "-p", "ring", "-s", "8", "--strategy", "linear", "--rank-hosts", p("ranks.txt"), "-o", p("map.txt")}, 0},
		// Readers (which write in turn).
		{[]string{"merge", p("shard0.json"), p("shard1.json"), "--format", "json", "-o", p("merged.json")}, 0},
		{[]string{"regions", "-i", k4n3, "--samplingsim", p("samplingsim.json"), "--sigma", "4", "--format", "json", "-o", p("regions.json")}, 0},
		{[]string{"regions", "-i", ft16, "--analyzer", p("loads.csv"), "--format", "json", "-o", p("regions-loads.json")}, 0},
		{[]string{"samplingsim", "-i", ft16, "--mapping", p("ranks.txt"), "--workload", "naive-reduce:arrays=20", "-o", p("mapped.txt")}, 0},
		{[]string{"report", p("analysis.json"), p("check.json"), p("deadlock-free.json"), p("compare.json"),
			p("samplingsim.json"), p("regions.json"), "-o", p("page.html")}, 0},
		{[]string{"report", p("merged.json"), p("deadlock.json"), "-o", p("page2.html")}, 0},
	}
	for _, s := range steps {
		out, err := exec.Command(orcsBin, s.args...).CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != s.exit {
			t.Fatalf("orcs %s: exit %d, want %d:\n%s", strings.Join(s.args, " "), code, s.exit, out)
		}
	}
	merged, _ := os.ReadFile(p("merged.json"))
	unsplit, _ := os.ReadFile(p("unsplit.json"))
	if !bytes.Equal(merged, unsplit) {
		t.Errorf("merge of 2 shards differs from the unsplit run:\n%s\nvs\n%s", merged, unsplit)
	}

	for _, c := range contracts {
		t.Run(c.kind, func(t *testing.T) {
			data, err := os.ReadFile(p(c.file))
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, c, data)
			checkKeys(t, c.kind, data)
			if c.kind != "shard" {
				refuseNewer(t, c, p, data)
			}
		})
	}

	// The get_cable_cong CSV that regions --analyzer reads: its columns.
	loads, err := os.ReadFile(p("loads.csv"))
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(loads), "\n")
	columns := map[string]any{}
	for _, c := range strings.Split(header, ",") {
		columns[c] = 0
	}
	doc, _ := json.Marshal(columns)
	t.Run("cable-loads-csv", func(t *testing.T) { checkKeys(t, "cable-loads-csv", doc) })

	// What the report shows, from the fresh files and from the fixtures an
	// earlier orcs wrote (report/testdata).
	fx := func(name string) string { return filepath.Join("..", "report", "testdata", name) }
	fresh := []string{p("analysis.json"), p("check.json"), p("deadlock.json"), p("compare.json"), p("samplingsim.json"), p("regions.json")}
	old := []string{fx("analysis-ft64.json"), fx("check-ft64.json"), fx("deadlock-torus4x4.json"), fx("compare-ft64.json"), fx("samplingsim-ft64.json"), fx("regions-ft64.json")}
	for _, set := range [][]string{fresh, old} {
		in, err := report.Load(set)
		if err != nil {
			t.Fatal(err)
		}
		for _, miss := range missingFields(in) {
			t.Errorf("%s: report reads no %s", filepath.Dir(set[0]), miss)
		}
	}
	in, err := report.Load([]string{p("merged.json")})
	if err != nil {
		t.Fatal(err)
	}
	if a := in.Analysis; a == nil || a.Runs != 40 || len(a.Values) != 40 || len(a.Histogram) != metrics.HistBins {
		t.Errorf("merged analysis as the report reads it: %+v", in.Analysis)
	}
	// regions read samplingsim's run: its stall values are the run's
	// truth_stalled_ns over the window.
	var ss samplingsim.RunFile
	var rg regions.File
	decodeFile(t, p("samplingsim.json"), &ss)
	decodeFile(t, p("regions.json"), &rg)
	if len(rg.Windows) != len(ss.Windows) || rg.Source != regions.SourceSamplingsim || len(rg.Windows) == 0 {
		t.Errorf("regions of the run: %d windows of source %q, the run has %d windows", len(rg.Windows), rg.Source, len(ss.Windows))
	}
}

// roundTrip decodes data into the contract's type and encodes it again:
// the bytes must be the file's (compacted), so that the type holds every
// field of the file.
func roundTrip(t *testing.T, c contract, data []byte) {
	t.Helper()
	v := c.typ()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s does not decode into %T: %v", c.file, v, err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, data); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		i := 0
		for i < min(len(got), want.Len()) && got[i] == want.Bytes()[i] {
			i++
		}
		t.Errorf("%T does not write %s back: they differ at byte %d: %q vs %q", v, c.file, i,
			got[max(0, i-60):min(len(got), i+60)], want.Bytes()[max(0, i-60):min(want.Len(), i+60)])
	}
}

// decodeFile decodes a JSON file into v.
func decodeFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// checkKeys compares the keys of a JSON document (paths such as
// config.scheme or windows[].links[].truth_stalled_ns) with the committed
// list; -update rewrites the list.
func checkKeys(t *testing.T, kind string, data []byte) {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	jsonKeys(doc, "", set)
	var keys []string
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	path := filepath.Join("testdata", "contracts", kind+".keys")
	if *update {
		if err := os.WriteFile(path, []byte(strings.Join(keys, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(string(b))
	var gone, added []string
	for _, k := range want {
		if !set[k] {
			gone = append(gone, k)
		}
	}
	for _, k := range keys {
		if !slices.Contains(want, k) {
			added = append(added, k)
		}
	}
	if len(gone) > 0 {
		t.Errorf("%s: fields renamed or removed: %s. Files that an earlier orcs wrote still have them: raise the type's format version, "+
			"keep reading the old fields, then run go test ./orcs -run FileContracts -args -update", kind, strings.Join(gone, ", "))
	}
	if len(added) > 0 {
		t.Errorf("%s: new fields %s: run go test ./orcs -run FileContracts -args -update (the format version stays)", kind, strings.Join(added, ", "))
	}
}

// jsonKeys adds the key paths of v below prefix to set.
func jsonKeys(v any, prefix string, set map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			set[key] = true
			jsonKeys(e, key, set)
		}
	case []any:
		for _, e := range x {
			jsonKeys(e, prefix+"[]", set)
		}
	}
}

// refuseNewer gives every reader of the kind the file with a
// format_version one above the type's: each must refuse it naming the
// file.
func refuseNewer(t *testing.T, c contract, p func(string) string, data []byte) {
	t.Helper()
	old := fmt.Sprintf(`"format_version": %d,`, c.version)
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s: no %s", c.file, old)
	}
	newer := p("newer-" + c.file)
	if err := os.WriteFile(newer, bytes.Replace(data, []byte(old), fmt.Appendf(nil, `"format_version": %d,`, c.version+1), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	why := fmt.Sprintf("of format_version %d, but this orcs reads up to version %d", c.version+1, c.version)
	_, err := report.Load([]string{newer})
	if err == nil || !strings.HasPrefix(err.Error(), newer+": ") || !strings.Contains(err.Error(), why) {
		t.Errorf("report of a newer %s: %v", c.kind, err)
	}
	if c.kind != "samplingsim" {
		return
	}
	out, err := exec.Command(orcsBin, "regions", "-i", "gen:kary:k=4,n=3", "--samplingsim", newer, "-o", p("newer.txt")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "newer-"+c.file+": samplingsim run "+why) {
		t.Errorf("regions of a newer samplingsim run: %v: %s", err, out)
	}
	if _, err := os.Stat(p("newer.txt")); !os.IsNotExist(err) {
		t.Error("regions left an output behind after refusing its input")
	}
}

// missingFields names the fields the report shows that in lacks (zero),
// one kind after the other.
func missingFields(in *report.Inputs) []string {
	var miss []string
	need := func(ok bool, what string) {
		if !ok {
			miss = append(miss, what)
		}
	}
	nonZero := func(v any) bool { return !reflect.ValueOf(v).IsZero() }
	if a := in.Analysis; a != nil {
		need(a.Fabric != "" && a.Pattern != "" && a.Metric != "" && a.ValueName != "" && a.Seed != 0, "analysis fabric, pattern, metric, value name, seed")
		need(a.Runs > 0 && len(a.Values) == a.Runs && a.Summary.N == a.Runs && a.MeanBandwidth > 0, "analysis runs, values, summary, mean bandwidth")
		need(len(a.Histogram) == metrics.HistBins && a.BinEdges != "", "analysis histogram and bin edges")
		need(len(a.Hot) > 0 && a.Hot[0].MaxLoad > 0 && nonZero(a.Hot[0]), "analysis hot cables")
		need(a.Topology != nil && len(a.Topology.Nodes) > 0 && len(a.Topology.Cables) > 0, "analysis topology")
	} else {
		miss = append(miss, "analysis")
	}
	if c := in.RouteCheck; c != nil {
		need(c.Fabric != "" && c.Hosts > 0 && c.Switches > 0 && c.Pairs > 0 && c.OK, "route check counts and verdict")
	} else {
		miss = append(miss, "route check")
	}
	if d := in.Deadlock; d != nil {
		need(strings.HasPrefix(d.Verdict, "credit loop") && !d.DeadlockFree, "deadlock verdict")
		need(d.Hosts > 0 && d.Switches > 0 && d.SLs != "" && d.SL2VL != "" && len(d.VLs) > 0 && d.LoopComponents > 0, "deadlock sizes, SLs, SL2VL, VLs, loop components")
		need(len(d.Loop) > 0 && d.Loop[0].From != "" && d.Loop[0].To != "" && len(d.Loop[0].Flows) > 0 && d.Loop[0].Flows[0].Src != "", "deadlock loop cables and flows")
	} else {
		miss = append(miss, "deadlock")
	}
	if c := in.Compare; c != nil {
		need(c.Fabric != "" && c.Pattern != "" && c.Metric != "" && c.Value != "" && c.Runs > 0 && len(c.Engines) > 1, "compare settings and engines")
		for _, e := range c.Engines {
			need(e.Requested != "" && e.Used != "" && e.Summary != nil && e.MeanBandwidth > 0 && len(e.Values) == c.Runs && e.Deadlock != "", "compare engine "+e.Requested)
		}
	} else {
		miss = append(miss, "compare")
	}
	if s := in.Samplingsim; s != nil {
		need(s.Fabric != "" && s.Hosts > 0 && s.Switches > 0 && s.View != "" && s.EndUs > 0 && s.Packets > 0, "samplingsim run")
		need(s.Config.BandwidthGbps > 0 && s.Config.Scheme != "" && s.Config.Marking != "" && s.Config.MarkAt != "", "samplingsim config (bandwidth, scheme, marking)")
		need(len(s.Jobs) > 0 && s.Jobs[0].Name != "" && s.Jobs[0].FinishUs > 0, "samplingsim jobs")
		need(s.Diagnosis != nil && s.Diagnosis.Cause != "", "samplingsim diagnosis")
	} else {
		miss = append(miss, "samplingsim")
	}
	if r := in.Regions; r != nil {
		need(r.Fabric != "" && r.Source != "" && r.Params.ThetaP > 0 && r.Params.Sigma > 0, "regions fabric, source, params")
		need(len(r.Tracks) > 0 && r.Tracks[0].PeakSeverity != "" && len(r.Transitions.Classes) == 4 && len(r.Transitions.Counts) == 4, "regions tracks and transitions")
		best := 0.0
		var cable regions.FileCable
		for _, w := range r.Windows {
			for _, reg := range w.Regions {
				if reg.MeanStall > best {
					best, cable = reg.MeanStall, reg.Cables[0]
				}
				need(reg.Size == len(reg.Cables) && reg.Severity != "" && reg.MaxStall >= reg.MeanStall && len(reg.Switches) > 0, "regions region fields")
			}
		}
		need(best > 0 && cable.From != "" && cable.To != "", "regions mean stall and cables")
	} else {
		miss = append(miss, "regions")
	}
	return slices.Compact(miss)
}
