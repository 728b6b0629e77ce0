package opensm

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"orcs/analyze"
	"orcs/lft"
	"orcs/metrics"
	"orcs/plot"
)

// sampleComparison is a comparison of three engines: one routed, one
// fallen back with the same values, one failed.
func sampleComparison() *Comparison {
	vals := []float64{0.5, 0.75, 0.75, 1}
	sum := metrics.Summarize(vals)
	return &Comparison{Fabric: "f.dot", Hosts: 16, Switches: 8, Pattern: "bisect", Metric: "hist_acc_band",
		Value: "bandwidth", Runs: 4, Commsize: 16, Seed: 1, Seconds: 1.25,
		Engines: []EngineRow{
			{Requested: "ftree", Used: "ftree", RouteSeconds: 0.5, MeanBandwidth: 0.75, Summary: &sum, MaxCongestion: 2, Values: vals},
			{Requested: "torus-2QoS", Used: "minhop", Fallback: true, Notes: []string{"no seed"}, Summary: &sum, Values: vals},
			{Requested: "lash", Error: "OpenSM did not bring the subnet up\nsee the log"},
		}}
}

func TestComparisonTable(t *testing.T) {
	var b bytes.Buffer
	if err := sampleComparison().WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"fabric f.dot: 16 hosts, 8 switches; pattern bisect on 16 hosts, metric hist_acc_band (bandwidth), 4 runs, seed 1",
		"ftree    ftree     0.50   0.7500  0.5375  0.7500  0.9625         2           0",
		"torus-2QoS  minhop*",
		"* torus-2QoS fell back to minhop: no seed",
		"lash failed: OpenSM did not bring the subnet up\n",
		"total 1.2 s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if c := sampleComparison(); c.Failed() != 1 {
		t.Errorf("Failed() = %d", c.Failed())
	}
}

func TestComparisonJSONHasNoNaN(t *testing.T) {
	c := sampleComparison()
	nan := metrics.Summarize(nil)
	if !math.IsNaN(nan.Mean) {
		t.Fatal("summary of no values is not NaN")
	}
	c.Engines[2].Summary = &nan
	var b bytes.Buffer
	if err := c.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Comparison
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Engines[2].Summary != nil || back.Engines[0].Summary == nil || c.Engines[2].Summary == nil {
		t.Errorf("NaN summary not dropped from the JSON only: %+v", back.Engines)
	}
}

func TestComparisonPlot(t *testing.T) {
	d := sampleComparison().Plot()
	if len(d.Series) != 3 || d.Series[1].Label != "torus-2QoS (used minhop) = ftree" || d.XLabel != "fraction of peak bandwidth" {
		t.Errorf("plot %+v", d)
	}
	var b bytes.Buffer
	if err := d.Write(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<svg") || !strings.Contains(b.String(), "torus-2QoS") {
		t.Error("no SVG with the legend")
	}
	// Bandwidth is continuous (an ECDF), a delay discrete (bars).
	if d.Kind != plot.Continuous {
		t.Errorf("hist_acc_band drawn as kind %d", d.Kind)
	}
	c := sampleComparison()
	c.Metric = "dep_max_delay"
	if k := c.Plot().Kind; k != plot.Discrete {
		t.Errorf("dep_max_delay drawn as kind %d", k)
	}
}

func TestParseEngines(t *testing.T) {
	got, err := ParseEngines(" ftree, minhop ,")
	if err != nil || strings.Join(got, ",") != "ftree,minhop" {
		t.Errorf("ParseEngines = %v, %v", got, err)
	}
	for _, bad := range []string{"ftree,bogus", "ftree,ftree", " , "} {
		if _, err := ParseEngines(bad); err == nil {
			t.Errorf("ParseEngines(%q) accepted", bad)
		}
	}
}

func TestSlowestFirst(t *testing.T) {
	engines := []string{"minhop", "ftree", "lash", "bogus", "dfsssp"}
	var got []string
	for _, i := range slowestFirst(engines) {
		got = append(got, engines[i])
	}
	if strings.Join(got, ",") != "lash,dfsssp,ftree,minhop,bogus" {
		t.Errorf("order %v", got)
	}
}

// TestBadRouteOptions checks options refused before any tool starts.
func TestBadRouteOptions(t *testing.T) {
	keep := t.TempDir()
	if err := os.WriteFile(filepath.Join(keep, "old.dump"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Engine: "minhop", Timeout: -5 * time.Second}, "want a positive duration"},
		{Options{Engine: "minhop", Keep: keep}, "is not empty"},
		{Options{Engine: "minhop,ftree"}, "give one engine name"},
	} {
		if _, err := Route(context.Background(), nil, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
	if _, err := Compare(context.Background(), &Input{}, CompareOptions{Sim: analyze.Config{Metric: "hist_acc_band"}, Jobs: -3}, nil); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("jobs -3: %v", err)
	}
}

// TestComparisonJSONFailedEngine checks that a failed engine has a status
// and null numbers in the JSON, while the others keep theirs.
func TestComparisonJSONFailedEngine(t *testing.T) {
	var b bytes.Buffer
	if err := sampleComparison().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Engines []map[string]any `json:"engines"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	ok, fallback, failed := back.Engines[0], back.Engines[1], back.Engines[2]
	if ok["status"] != "ok" || fallback["status"] != "fallback" || failed["status"] != "failed" {
		t.Errorf("statuses %v %v %v", ok["status"], fallback["status"], failed["status"])
	}
	if ok["mean_bandwidth"] != 0.75 || ok["max_congestion"] != 2.0 {
		t.Errorf("ok row %v", ok)
	}
	for _, k := range []string{"mean_bandwidth", "max_congestion", "route_seconds", "unroutable_pairs", "loop_pairs", "skipped_connections"} {
		if v, present := failed[k]; !present || v != nil {
			t.Errorf("failed engine: %s = %v (present %v), want null", k, v, present)
		}
	}
}

// TestLongHostNames routes fabrics whose first host has a 40-byte name:
// ibsim cannot attach OpenSM to it, so the SM goes to the next host, or
// with no short host name to a switch; with no short name at all the error
// says why before any tool starts.
func TestLongHostNames(t *testing.T) {
	long := func(i int) string { return fmt.Sprintf("H%039d", i) }
	build := func(sw string, names ...string) *lft.Fabric {
		b := lft.NewBuilder()
		s := b.Node(sw, lft.Switch)
		for _, n := range names {
			h := b.Node(n, lft.Host)
			b.Route(b.Link(h, s, 0, 0), lft.AnyDest)
			b.Route(b.Link(s, h, 0, 0), b.Dest(n))
		}
		f, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if _, err := Route(context.Background(), build("S"+long(0), long(1), long(2)), Options{Engine: "minhop"}); err == nil || !strings.Contains(err.Error(), "no host name has at most 31 bytes") || !strings.Contains(err.Error(), "give --names guid") {
		t.Errorf("only long names: %v", err)
	}
	tools := needTools(t)
	for _, f := range []*lft.Fabric{build("S", long(1), "H2"), build("S", long(1), long(2))} {
		res, err := Route(context.Background(), f, Options{Engine: "minhop", Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Fabric.CheckRoutes(nil, 1, 1); !c.OK() {
			t.Error(c.Summary())
		}
	}
}

func TestComparisonCSV(t *testing.T) {
	var b bytes.Buffer
	if err := sampleComparison().Write(&b, "csv"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[1][0] != "ftree" || rows[1][2] != "ok" || rows[1][4] != "0.75" || rows[1][9] != "2" {
		t.Errorf("rows %v", rows)
	}
	if failed := rows[3]; failed[2] != "failed" || failed[4] != "" || failed[13] != "OpenSM did not bring the subnet up" {
		t.Errorf("failed row %v", failed)
	}
	if err := CheckFormat("xml"); err == nil {
		t.Error("xml accepted")
	}
}

func TestStatusLine(t *testing.T) {
	s := NewStatus(3)
	s.begin("lash")
	s.begin("dfsssp")
	s.end("dfsssp")
	if got := s.Line(); !strings.HasPrefix(got, "routing lash (0 s); 1 of 3 engines routed, ") {
		t.Errorf("line %q", got)
	}
	s.end("lash")
	if got := s.Line(); !strings.HasPrefix(got, "simulating the routed fabrics; 2 of 3 engines routed") {
		t.Errorf("line %q", got)
	}
	var nilStatus *Status
	nilStatus.begin("x") // a comparison without a progress line
	nilStatus.end("x")
}

// TestInOrder: the runs start in the given order, one job at a time when
// there is one, however the goroutines are scheduled; with the context
// done the runs not started are skipped.
func TestInOrder(t *testing.T) {
	order := []int{7, 3, 9, 0, 5, 1, 8, 2, 6, 4}
	for trial := range 20 {
		var mu sync.Mutex
		var started []int
		inOrder(context.Background(), order, 1, func(i int) {
			mu.Lock()
			started = append(started, i)
			mu.Unlock()
		}, func(i int) { t.Errorf("run %d skipped", i) })
		if !slices.Equal(started, order) {
			t.Fatalf("trial %d: started %v, want %v", trial, started, order)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var ran, skipped []int
	inOrder(ctx, order, 1, func(i int) {
		ran = append(ran, i)
		if len(ran) == 3 {
			cancel()
		}
	}, func(i int) { skipped = append(skipped, i) })
	if len(ran) != 3 || !slices.Equal(append(ran, skipped...), order) {
		t.Errorf("cancelled after 3 runs: ran %v, skipped %v", ran, skipped)
	}
}
