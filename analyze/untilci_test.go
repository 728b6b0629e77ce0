package analyze

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"orcs/metrics"
	"orcs/patterns"
)

func TestParseUntilCI(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want *UntilCI
	}{
		{"0.01", &UntilCI{Eps: 0.01}},
		{"1%", &UntilCI{Eps: 1, Relative: true}},
		{"2.5%", &UntilCI{Eps: 2.5, Relative: true}},
		{"0", nil}, {"-1", nil}, {"%", nil}, {"x", nil}, {"NaN", nil}, {"Inf", nil}, {"1%%", nil},
	} {
		got, err := ParseUntilCI(tc.in)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%q: accepted as %+v", tc.in, got)
			}
			continue
		}
		if err != nil || *got != *tc.want {
			t.Errorf("%q: got %+v, %v; want %+v", tc.in, got, err, *tc.want)
		} else if got.String() != tc.in {
			t.Errorf("%q prints as %q", tc.in, got.String())
		}
	}
}

// ciConfig is a simulation of random mappings of pattern.
func ciConfig(pattern, eps string, runs int) Config {
	u, err := ParseUntilCI(eps)
	if err != nil {
		panic(err)
	}
	return Config{Pattern: patterns.Spec{Name: pattern}, Metric: "hist_acc_band", Runs: runs, Seed: 7,
		Subset: SubsetRand, Threads: 2, UntilCI: u}
}

func runCI(t *testing.T, spec string, cfg Config) (*metrics.Result, *CIStop) {
	t.Helper()
	s, err := New(fabric(t, spec), cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	return res, s.CIStop()
}

// halfWidth is the half-width of the 95 % interval that the JSON output
// reports for these values.
func halfWidth(values []float64) float64 {
	s := metrics.Summarize(values)
	return (s.CI95High - s.CI95Low) / 2
}

// TestUntilCIStopsByWidth: with the same ε on the same fabric, a tight
// distribution (the bandwidth of 2neighbor under random mappings, sd ≈
// 0.015) stops earlier than a wide one (bisect, sd ≈ 0.055); both stop at
// the first count whose interval, as the JSON output computes it, is
// narrower than ε.
func TestUntilCIStopsByWidth(t *testing.T) {
	const eps = 0.005
	tight, st := runCI(t, "kary:k=4,n=3", ciConfig("2neighbor", "0.005", 100000))
	wide, sw := runCI(t, "kary:k=4,n=3", ciConfig("bisect", "0.005", 100000))
	if !st.Met || !sw.Met {
		t.Fatalf("a rule was not met: %+v %+v", st, sw)
	}
	if 4*st.Runs >= sw.Runs {
		t.Errorf("tight distribution stopped after %d runs, wide after %d: want (sd ratio² ≈ 13) far earlier", st.Runs, sw.Runs)
	}
	for name, res := range map[string]*metrics.Result{"tight": tight, "wide": wide} {
		n := len(res.Values)
		if n != res.Meta.Runs {
			t.Errorf("%s: %d values, meta says %d runs", name, n, res.Meta.Runs)
		}
		if hw := halfWidth(res.Values); !(hw < eps) {
			t.Errorf("%s: stopped at %d runs with half-width %g ≥ %g", name, n, hw, eps)
		}
		if n > MinCIRuns {
			if hw := halfWidth(res.Values[:n-1]); hw < eps*(1-1e-9) {
				t.Errorf("%s: stopped at %d runs, but %d already had half-width %g < %g", name, n, n-1, hw, eps)
			}
		}
	}
	sd := func(v []float64) float64 { return metrics.Summarize(v).Std }
	t.Logf("tight: %d runs (sd %.4f), wide: %d runs (sd %.4f)", st.Runs, sd(tight.Values), sw.Runs, sd(wide.Values))
}

// TestUntilCIEqualsRuns: the result of --until-ci is the result of -n of
// its stopping count, with accumulators (get_cable_cong's link loads) and
// whatever the threads; the stopping point lies past the first batch, so
// the batch that overshot is recomputed.
func TestUntilCIEqualsRuns(t *testing.T) {
	for _, threads := range []int{1, 2, 3} {
		cfg := ciConfig("rand", "0.4%", 100000)
		cfg.Metric, cfg.Threads = "get_cable_cong", threads
		got, st := runCI(t, "fattree2:leaves=8,hosts=8,up=2", cfg)
		if st.Runs <= 256 || st.Runs%256 == 0 {
			t.Fatalf("stopped after %d runs: the test wants a stop inside a later batch", st.Runs)
		}
		cfg.UntilCI, cfg.Runs = nil, st.Runs
		want := simulate(t, fabric(t, "fattree2:leaves=8,hosts=8,up=2"), cfg)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("-j %d: --until-ci after %d runs differs from -n %d", threads, st.Runs, st.Runs)
		}
		for _, format := range []string{"text", "json", "csv"} {
			f := fabric(t, "fattree2:leaves=8,hosts=8,up=2")
			if render(t, format, got, f) != render(t, format, want, f) {
				t.Fatalf("%s output differs", format)
			}
		}
	}
}

// TestUntilCICap: an ε no run count reaches stops at -n, not met.
func TestUntilCICap(t *testing.T) {
	res, st := runCI(t, "fattree2:leaves=8,hosts=8,up=2", ciConfig("rand", "1e-9", 300))
	if st.Met || st.Runs != 300 || len(res.Values) != 300 {
		t.Fatalf("got %+v with %d values, want the cap 300, not met", st, len(res.Values))
	}
	if math.IsNaN(res.Values[299]) {
		t.Fatal("last run not simulated")
	}
}

func TestUntilCIRefusesShards(t *testing.T) {
	cfg := ciConfig("rand", "1%", 100)
	cfg.Shard = Shard{Index: 0, Count: 2}
	if _, err := New(fabric(t, "kary:k=4,n=2"), cfg); !errors.Is(err, ErrUntilCIShard) {
		t.Fatalf("got %v, want ErrUntilCIShard", err)
	}
}

// TestUntilCIAtLeastTenRuns: the rule of doc/analyzer.md is "at least 10 runs". On
// equal values the interval has width 0 from the second run on, so the
// rule is met exactly at the 10th value and not before.
func TestUntilCIAtLeastTenRuns(t *testing.T) {
	for _, u := range []UntilCI{{Eps: 0.01}, {Eps: 1, Relative: true}} {
		rule := &ciRule{u: u}
		stop := 0
		for n := 1; n <= 20 && stop == 0; n++ {
			if rule.add(0.5) {
				stop = n
			}
		}
		if stop != 10 {
			t.Errorf("--until-ci %s on equal values: met after %d runs, want 10", u, stop)
		}
	}
}
