package metrics

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"orcs/lft"
)

// twoHosts builds hosts H1 and H2 on a switch named "S,1" (a comma, to be
// quoted in CSV): links 0 H1→S, 1 S→H2, 2 H2→S, 3 S→H1.
func twoHosts(t *testing.T) *lft.Fabric {
	t.Helper()
	b := lft.NewBuilder()
	s := b.Node("S,1", lft.Switch)
	h1, h2 := b.Node("H1", lft.Host), b.Node("H2", lft.Host)
	b.Route(b.Link(h1, s, 1, 1), lft.AnyDest)
	b.Route(b.Link(s, h2, 2, 1), b.Dest("H2"))
	b.Route(b.Link(h2, s, 1, 2), lft.AnyDest)
	b.Route(b.Link(s, h1, 1, 1), b.Dest("H1"))
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func renderString(t *testing.T, format, metric string, r *Result, f *lft.Fabric) string {
	t.Helper()
	m, err := Lookup(metric)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(&b, format, m, r, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRenderHandDerived: two runs of hist_acc_band with values 0.5 and
// 0.25 and 4 connections, 2 of congestion 1 and 2 of congestion 2: the
// mean bandwidth is (2·1 + 2·½)/4 = 0.75; with exact edges 0.25 falls in
// bin 5 ([0.25, 0.3)) and 0.5 in bin 10; the CSV is one row per run.
func TestRenderHandDerived(t *testing.T) {
	r := &Result{Meta: Meta{Metric: "hist_acc_band", Runs: 2, BinEdges: string(EdgesExact)},
		Values: []float64{0.5, 0.25}, Weights: []int64{0, 2, 2}}
	if got, want := renderString(t, "csv", "hist_acc_band", r, nil), "run,bandwidth\n0,0.5\n1,0.25\n"; got != want {
		t.Errorf("csv %q, want %q", got, want)
	}
	var js struct {
		ValueName     string  `json:"value_name"`
		Connections   int64   `json:"connections"`
		MeanBandwidth float64 `json:"mean_bandwidth"`
		Weights       []struct{ Weight, Count int64 }
		Histogram     []struct {
			Low, High float64
			Count     int64
		}
		Summary struct{ Mean float64 }
	}
	if err := json.Unmarshal([]byte(renderString(t, "json", "hist_acc_band", r, nil)), &js); err != nil {
		t.Fatal(err)
	}
	if js.ValueName != "bandwidth" || js.Connections != 4 || js.MeanBandwidth != 0.75 || js.Summary.Mean != 0.375 {
		t.Errorf("json %+v: want bandwidth, 4 connections, mean bandwidth 0.75, mean 0.375", js)
	}
	if len(js.Weights) != 2 || js.Weights[0].Weight != 1 || js.Weights[0].Count != 2 || js.Weights[1].Weight != 2 || js.Weights[1].Count != 2 {
		t.Errorf("weights %+v, want 1×2 and 2×2 (none of weight 0)", js.Weights)
	}
	if len(js.Histogram) != HistBins || js.Histogram[5].Count != 1 || js.Histogram[10].Count != 1 || js.Histogram[5].Low != 0.25 || js.Histogram[10].High != 0.55 {
		t.Errorf("histogram %+v", js.Histogram)
	}
	if err := Render(&bytes.Buffer{}, "xml", nil, r, nil); err == nil || !strings.Contains(err.Error(), `unknown format "xml"`) {
		t.Errorf("format xml: %v", err)
	}
}

// TestRenderLinkTable: get_cable_cong's CSV lists every link with its
// summed load and the load over the largest (8): 8 → 1, 2 → 0.25, 0 → 0,
// 4 → 0.5; the switch's name, holding a comma, is quoted.
func TestRenderLinkTable(t *testing.T) {
	f := twoHosts(t)
	r := &Result{Meta: Meta{Metric: "get_cable_cong", Runs: 1}, Values: []float64{2}, Weights: []int64{0, 0, 1},
		LinkLoad: []int64{8, 2, 0, 4}}
	want := "link,from,to,from_port,to_port,load,scaled\n" +
		"0,H1,\"S,1\",1,1,8,1\n" +
		"1,\"S,1\",H2,2,1,2,0.25\n" +
		"2,H2,\"S,1\",1,2,0,0\n" +
		"3,\"S,1\",H1,1,1,4,0.5\n"
	if got := renderString(t, "csv", "get_cable_cong", r, f); got != want {
		t.Errorf("csv\n%s\nwant\n%s", got, want)
	}
	m, _ := Lookup("get_cable_cong")
	if err := Render(&bytes.Buffer{}, "csv", m, r, nil); err == nil {
		t.Error("get_cable_cong's CSV without the fabric: no error")
	}
}

// TestResultMerge: accumulators add up (weights growing to the longer
// list, link loads, route errors); values are copied for the owned runs
// only.
func TestResultMerge(t *testing.T) {
	r := &Result{Values: []float64{0, 0, 0}, Weights: []int64{0, 1}, RouteErrors: 1}
	r.Merge(&Result{Values: []float64{7, 8, 9}, Weights: []int64{0, 2, 3}, LinkLoad: []int64{1, 2}, RouteErrors: 2}, []int{0, 2})
	r.Merge(&Result{Values: []float64{5, 6, 5}, LinkLoad: []int64{10, 20}}, []int{1})
	r.AddWeight(3)
	if !slices.Equal(r.Values, []float64{7, 6, 9}) || !slices.Equal(r.Weights, []int64{0, 3, 3, 1}) ||
		!slices.Equal(r.LinkLoad, []int64{11, 22}) || r.RouteErrors != 3 {
		t.Errorf("merged %+v", r)
	}
}

// TestWriteHot: the hot cables' table and CSV, written out by hand for one
// cable with two flows (one asked for of them) and one without flows.
func TestWriteHot(t *testing.T) {
	hot := []HotCable{
		{Rank: 1, Link: 3, From: "S1", FromPort: 2, To: "H,0", ToPort: 1, MeanPeak: 2.5, MaxLoad: 4, MaxRun: 1, MaxLevel: 0,
			PeakFlows: []HotFlow{{Level: 0, SrcRank: 1, DstRank: 0, SrcHost: "H5", DstHost: "H,0", Run: 1, Runs: 2}},
			Flows:     []HotFlow{{Level: 0, SrcRank: 1, DstRank: 0, SrcHost: "H1", DstHost: "H,0", Runs: 2}}, DistinctFlows: 2},
		{Rank: 2, Link: 0, From: "H1", FromPort: 1, To: "S1", ToPort: 1, MeanPeak: 1, MaxLoad: 1},
	}
	var txt bytes.Buffer
	if err := WriteHotText(&txt, hot, 2); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nHot cables: the 2 most loaded (mean over 2 runs of the largest load in a level)\n",
		"1     " + lft.CableName("S1", 2, "H,0", 1) + " ",
		"2.500      4    1/0           2\n",
		"\n1. " + lft.CableName("S1", 2, "H,0", 1) + ": 2 flows over 2 runs; at its peak (load 4, run 1, level 0):\n  rank 1 -> 0 (H5 -> H,0)\n",
		"\n2. " + lft.CableName("H1", 1, "S1", 1) + ": 0 flows over 2 runs; at its peak (load 1, run 0, level 0):\n",
	} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
	var csv bytes.Buffer
	if err := WriteHotCSV(&csv, hot); err != nil {
		t.Fatal(err)
	}
	want := "rank,link,from,from_port,to,to_port,mean_peak_load,max_load,max_run,max_level,distinct_flows,set,run,level,src_rank,dst_rank,src_host,dst_host,runs\n" +
		"1,3,S1,2,\"H,0\",1,2.5,4,1,0,2,peak,1,0,1,0,H5,\"H,0\",2\n" +
		"1,3,S1,2,\"H,0\",1,2.5,4,1,0,2,all,0,0,1,0,H1,\"H,0\",2\n" +
		"2,0,H1,1,S1,1,1,1,0,0,0,,,,,,,,\n"
	if csv.String() != want {
		t.Errorf("csv\n%s\nwant\n%s", csv.String(), want)
	}
}
