package samplingsim

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"
)

// errorScaling runs uniform random traffic with msgs messages per rank on
// topo and returns the mean relative error |W−N|/N of the estimated packet
// counts over the switch links that carried traffic, the mean of |W−N|/√N
// (which stays constant when the error shrinks like 1/√N), the median N and
// the number of packets.
func errorScaling(t testing.TB, topo, scheme string, msgs int) (rel, norm, medianN float64, packets int64) {
	f := fabric(t, topo)
	p, err := BuildPlan(f, []JobSpec{{Workload: "random:size=16384,msgs=" + strconv.Itoa(msgs), Hosts: allHosts(f.NumHosts())}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Scheme = scheme
	cfg.FalsePositiveConfidence = 0
	r := mustRun(t, f, cfg, p)
	est := r.Estimates(AllJobs, -1)
	var ns []float64
	n := 0
	for l := range f.Links {
		tr := r.TruthOf(-1, int32(l))
		if !r.Sampled(int32(l)) || tr.Packets == 0 {
			continue
		}
		N := float64(tr.Packets)
		d := math.Abs(est[l].Packets - N)
		rel += d / N
		norm += d / math.Sqrt(N)
		ns = append(ns, N)
		n++
	}
	slices.Sort(ns)
	return rel / float64(n), norm / float64(n), ns[len(ns)/2], r.Packets
}

// TestErrorShrinks: quadrupling the traffic halves the mean relative error
// of the per-link estimates (1/√N), within 25%, on a 64-host fat tree.
func TestErrorShrinks(t *testing.T) {
	var prev float64
	for i, msgs := range []int{4, 16, 64} {
		rel, norm, med, _ := errorScaling(t, "kary:k=4,n=3", "reservoir", msgs)
		t.Logf("msgs %d: mean relative error %.4f, |W−N|/√N %.3f, median N %.0f", msgs, rel, norm, med)
		if i > 0 {
			if ratio := rel / prev; ratio < 0.5/1.25 || ratio > 0.5*1.25 {
				t.Errorf("4× the traffic changed the relative error by %.3f, want 0.5 ± 25%%", ratio)
			}
		}
		prev = rel
	}
}

// TestErrorScaling1k prints the table of the README: estimates against the
// ground truth on a 1000-host fat tree as the traffic grows. It runs only
// with SAMPLINGSIM_LONG=1 (bench/samplingsim.sh sets it).
func TestErrorScaling1k(t *testing.T) {
	if os.Getenv("SAMPLINGSIM_LONG") == "" {
		t.Skip("set SAMPLINGSIM_LONG=1 to run")
	}
	topo := "kary:k=10,n=3"
	fmt.Printf("| scheme | msgs/rank | packets | median N per link | mean \\|W−N\\|/N | mean \\|W−N\\|/√N |\n|---|---|---|---|---|---|\n")
	for _, scheme := range []string{"reservoir", "onebit"} {
		for _, msgs := range []int{1, 4, 16, 64} {
			rel, norm, med, pk := errorScaling(t, topo, scheme, msgs)
			fmt.Printf("| %s | %d | %d | %.0f | %.4f | %.3f |\n", scheme, msgs, pk, med, rel, norm)
		}
	}
}
