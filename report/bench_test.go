package report

import (
	"bytes"
	"io"
	"testing"

	"orcs/analyze"
	"orcs/gen"
	"orcs/metrics"
)

// BenchmarkReport4096 reads and writes the report of a 4096-host 16-ary
// 3-tree (24576 directed cables, 1000 runs, the 10 hottest cables with
// their flows): the analyzer's JSON with --cables --hot 10 is made once,
// then each iteration loads it and writes the page (the drawing then
// merges the hosts of each leaf switch).
func BenchmarkReport4096(b *testing.B) {
	n, err := gen.Build("kary:k=16,n=3")
	if err != nil {
		b.Fatal(err)
	}
	cfg := analyze.Config{Input: "gen:kary:k=16,n=3", Metric: "hist_acc_band", Subset: analyze.SubsetLinearBFS, Level: -1,
		Runs: 1000, Seed: 1, Threads: 2}
	cfg.Pattern.Name = "bisect_fb_sym"
	sm, err := analyze.New(n.Fabric, cfg)
	if err != nil {
		b.Fatal(err)
	}
	res, err := sm.Run()
	if err != nil {
		b.Fatal(err)
	}
	if res.Hot, err = sm.HotCables(10); err != nil {
		b.Fatal(err)
	}
	res.Topology = sm.Topology(n)
	m, _ := metrics.Lookup("hist_acc_band")
	var saved bytes.Buffer
	if err := metrics.Render(&saved, "json", m, res, n.Fabric); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(saved.Len())/1e6, "MB-json")
	b.ResetTimer()
	for b.Loop() {
		in := &Inputs{Files: map[string]string{}}
		if _, err := in.add("run.json", saved.Bytes()); err != nil {
			b.Fatal(err)
		}
		if err := Write(io.Discard, in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
