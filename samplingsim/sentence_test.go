package samplingsim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSentence computes the verdict sentence from hand-given roots and
// delivery counts.
func TestSentence(t *testing.T) {
	ep := func(name string, frac, packets float64) Root {
		return Root{Name: name, Fraction: frac, Packets: packets, Tree: 3, Gbps: 100, LineGbps: 100, Cause: Endpoint}
	}
	in := func(name string, margin float64) Root {
		return Root{Name: name, Fraction: 0.8, Packets: 500, Tree: 2, Gbps: 50 + margin, LineGbps: 100, Cause: Internal, MarginGbps: margin}
	}
	for _, tc := range []struct {
		name string
		d    Diagnosis
		want string
	}{
		{"none", Diagnosis{View: "all", Cause: NoCongestion},
			"verdict (all view): no congestion: no congestion tree."},
		{"none, unconfirmed", Diagnosis{View: "all", Cause: NoCongestion, Unconfirmed: []Root{in("a", -20)}},
			"verdict (all view): no congestion: no congestion tree (1 congested link below the Theorem 4.2 cutoff, not saturated roots, are not counted)."},
		{"one endpoint tree", Diagnosis{View: "job0", Cause: Endpoint, Roots: []Root{ep(`"S0" -> "H0"`, 0.9, 1200)}},
			`verdict (job0 view): endpoint congestion: the only congestion tree, rooted at "S0" -> "H0": congested fraction 0.900 of 1200 packets, 100.0 of 100 Gb/s sampled.`},
		// The largest root is internal, but endpoint congestion holds the
		// verdict: the sentence names the largest endpoint root.
		{"majority of another cause", Diagnosis{View: "all", Cause: Endpoint, Roots: []Root{in("I", 12.5), ep("E1", 0.9, 1200), ep("E2", 0.7, 800)}},
			"verdict (all view): endpoint congestion: 2 of 3 congestion trees (1 internal congestion, 2 endpoint congestion), the largest of them rooted at E1: congested fraction 0.900 of 1200 packets, 100.0 of 100 Gb/s sampled."},
		{"internal with margin", Diagnosis{View: "all", Cause: Internal, Roots: []Root{in("S1 -> S2", 12.5), in("S3 -> S4", 3)}},
			"verdict (all view): internal congestion: 2 of 2 congestion trees, the largest of them rooted at S1 -> S2: congested fraction 0.800 of 500 packets, 62.5 of 100 Gb/s sampled, Theorem 4.2 margin +12.5 Gb/s."},
		{"mixed", Diagnosis{View: "all", Cause: Mixed, Why: "endpoint congestion carries 70 % of the congested weight (1 of 3 roots), but internal congestion holds 2 of 3 roots"},
			"verdict (all view): mixed: endpoint congestion carries 70 % of the congested weight (1 of 3 roots), but internal congestion holds 2 of 3 roots."},
		{"saturation", Diagnosis{View: "all", Cause: Saturation, Roots: []Root{ep("E1", 0.9, 30)},
			Delivery: Delivery{Stopped: 1, Receivers: 512, Delivered: 900, Messages: 2000, Hot: []HotHost{{Name: "H7"}}}},
			"verdict (all view): tree saturation: 1 of 512 receivers stopped receiving with traffic to them outstanding (most owed: H7), 900 of 2000 messages delivered (counted, not sampled); " +
				"the 1 congestion tree listed (1 endpoint congestion) comes from delivered packets only and does not decide."},
		{"with seeds", Diagnosis{View: "all", Cause: NoCongestion, Seeds: &Support{Holds: true, Cause: NoCongestion, Agree: 9, Runs: 10, Low: 0.6, High: 0.98}},
			"verdict (all view): no congestion: no congestion tree; over seeds: no congestion, 9 of 10 seeds (95 % interval of its share 0.60–0.98)."},
	} {
		if got := tc.d.Sentence(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestSentenceAgreesWithRoots: for random sets of roots decided as
// Diagnose decides them, the sentence never contradicts the roots it
// lists: a single cause is held by a root named in it, with the count of
// the roots of that cause; mixed names the split.
func TestSentenceAgreesWithRoots(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 1))
	causes := []Cause{Endpoint, Internal, Background}
	for i := range 2000 {
		var roots []Root
		count := map[Cause]int{}
		for j := range 1 + r.IntN(6) {
			c := causes[r.IntN(3)]
			count[c]++
			roots = append(roots, Root{Name: fmt.Sprintf("R%d", j), Cause: c, Fraction: r.Float64(), Packets: float64(1 + r.IntN(1000)), Tree: 1 + r.IntN(5), LineGbps: 100})
		}
		d := Diagnosis{View: "all", Roots: roots}
		d.Cause, d.Why = verdict(roots)
		s := d.Sentence()
		if d.Cause == Mixed {
			if !strings.Contains(s, "mixed: ") || !strings.Contains(s, " holds ") {
				t.Fatalf("case %d: %s", i, s)
			}
			continue
		}
		if 2*count[d.Cause] < len(roots) && count[d.Cause] < max(count[Endpoint], count[Internal], count[Background]) {
			// verdict() lets the heaviest cause win unless another holds a
			// strict majority; then the sentence must give the split.
			if !strings.Contains(s, "(") {
				t.Fatalf("case %d: a minority cause without the split: %s", i, s)
			}
		}
		var named *Root
		for k := range roots {
			if strings.Contains(s, "rooted at "+roots[k].Name+":") {
				named = &roots[k]
			}
		}
		if named == nil || named.Cause != d.Cause {
			t.Fatalf("case %d: the sentence names no root of its cause %s: %s", i, d.Cause, s)
		}
		if len(roots) > 1 && !strings.Contains(s, fmt.Sprintf("%s: %d of %d congestion trees", d.Cause, count[d.Cause], len(roots))) {
			t.Fatalf("case %d: wrong count: %s", i, s)
		}
	}
}

// TestSentenceOfARun: the verdict of a real run (everyone sends to one
// host) names its endpoint root, is the Diagnosis's Verdict field and the
// last line of its text.
func TestSentenceOfARun(t *testing.T) {
	f := fabric(t, "kary:k=4,n=2")
	res := runJobs(t, f, DefaultConfig(), JobSpec{Name: "reduce", Workload: "naive-reduce", Hosts: allHosts(f.NumHosts())})
	d := Diagnose(res, DiagnoseOptions{View: AllJobs, Window: -1})
	if d.Cause != Endpoint || len(d.Roots) == 0 {
		t.Fatalf("naive reduce: %s with %d roots", d.Cause, len(d.Roots))
	}
	if d.Verdict != d.Sentence() || !strings.Contains(d.Verdict, "endpoint congestion: ") || !strings.Contains(d.Verdict, "rooted at "+d.Roots[0].Name+":") {
		t.Errorf("verdict %q, roots %+v", d.Verdict, d.Roots)
	}
	var b strings.Builder
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), "\n"+d.Verdict+"\n") {
		t.Errorf("the text does not end in the verdict:\n%s", b.String())
	}
}
