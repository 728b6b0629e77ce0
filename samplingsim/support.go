package samplingsim

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// SeedVerdict is the verdict of one run of a sweep over seeds.
type SeedVerdict struct {
	// Seed is the run's seed and EndUs its simulated time in µs.
	Seed  uint64  `json:"seed"`
	EndUs float64 `json:"end_us"`
	// Cause is the run's verdict, Roots its number of congestion trees and
	// MarginGbps the Theorem 4.2 margin of its largest tree (0 for an
	// endpoint root or none).
	Cause      Cause   `json:"cause"`
	Roots      int     `json:"roots"`
	MarginGbps float64 `json:"margin_gbps"`
	// Hot names the receiver most owed under tree saturation.
	Hot string `json:"hot,omitempty"`
}

// Support is a verdict decided over several seeds: the cause most runs
// agree on, how many do, and whether that is a majority.
type Support struct {
	// Cause is the cause of most runs (ties: the first in the order of
	// the runs) and Agree how many of the Runs gave it.
	Cause Cause `json:"cause"`
	Agree int   `json:"agree"`
	Runs  int   `json:"runs"`
	// Holds says the cause has a strict majority of the runs: only then
	// is it a verdict.
	Holds bool `json:"holds"`
	// Low and High bound the share of seeds that give Cause (Wilson score
	// interval, 95 %).
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Counts gives every cause seen with its number of runs, most first.
	Counts []CauseCount `json:"counts"`
	// Seeds lists the runs.
	Seeds []SeedVerdict `json:"runs_by_seed"`
}

// CauseCount is a cause with the number of runs that gave it.
type CauseCount struct {
	Cause Cause `json:"cause"`
	Runs  int   `json:"runs"`
}

// Consensus decides a verdict over the runs of several seeds.
func Consensus(runs []SeedVerdict) *Support {
	s := &Support{Runs: len(runs), Seeds: runs}
	for _, v := range runs {
		i := 0
		for i < len(s.Counts) && s.Counts[i].Cause != v.Cause {
			i++
		}
		if i == len(s.Counts) {
			s.Counts = append(s.Counts, CauseCount{Cause: v.Cause})
		}
		s.Counts[i].Runs++
	}
	// Most runs first; equal counts keep the order of first appearance.
	for i := 1; i < len(s.Counts); i++ {
		for j := i; j > 0 && s.Counts[j].Runs > s.Counts[j-1].Runs; j-- {
			s.Counts[j], s.Counts[j-1] = s.Counts[j-1], s.Counts[j]
		}
	}
	if len(s.Counts) > 0 {
		s.Cause, s.Agree = s.Counts[0].Cause, s.Counts[0].Runs
	}
	s.Holds = 2*s.Agree > s.Runs
	s.Low, s.High = wilson(s.Agree, s.Runs, 1.959964)
	return s
}

// wilson returns the Wilson score interval of k successes in n trials at
// normal quantile z.
func wilson(k, n int, z float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return max(mid-half, 0), min(mid+half, 1)
}

// Headline is the verdict sentence: the cause with its support when it
// holds, or that none holds with the split.
func (s *Support) Headline() string {
	if s.Holds {
		return fmt.Sprintf("%s, %d of %d seeds (95 %% interval of its share %.2f–%.2f)", s.Cause, s.Agree, s.Runs, s.Low, s.High)
	}
	parts := make([]string, len(s.Counts))
	for i, c := range s.Counts {
		parts[i] = fmt.Sprintf("%s %d", c.Cause, c.Runs)
	}
	return fmt.Sprintf("no verdict holds in a majority of %d seeds (%s)", s.Runs, strings.Join(parts, ", "))
}

// Write prints the verdict over the seeds and one line per seed.
func (s *Support) Write(w io.Writer, view string) error {
	fmt.Fprintf(w, "verdict over %d seeds (%s view): %s\n", s.Runs, view, s.Headline())
	for _, v := range s.Seeds {
		m := ""
		if v.MarginGbps != 0 {
			m = fmt.Sprintf(", margin %+.1f Gb/s", v.MarginGbps)
		}
		if v.Hot != "" {
			m += ", towards " + v.Hot
		}
		fmt.Fprintf(w, "  seed %d: ran %s, %s, %d roots%s\n", v.Seed, FormatTime(Time(v.EndUs*1e6)), v.Cause, v.Roots, m)
	}
	return nil
}

// SeedVerdictOf summarises a run's diagnosis for a sweep.
func SeedVerdictOf(r *Result, d *Diagnosis) SeedVerdict {
	v := SeedVerdict{Seed: r.Config.Seed, EndUs: float64(r.End) / 1e6, Cause: d.Cause, Roots: len(d.Roots)}
	if len(d.Roots) > 0 {
		v.MarginGbps = d.Roots[0].MarginGbps
	}
	if d.Cause == Saturation && len(d.Delivery.Hot) > 0 {
		v.Hot = d.Delivery.Hot[0].Name
	}
	return v
}

// MaxSeeds bounds the runs of one sweep (ParseSeedList).
const MaxSeeds = 1000

// ParseSeedList parses a --seeds list: comma-separated seeds and ranges
// A-B (A ≤ B), e.g. "1-10" or "1,4,7-9", in the order given, each seed once,
// at most MaxSeeds.
func ParseSeedList(s string) ([]uint64, error) {
	var out []uint64
	seen := map[uint64]bool{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("seed list %q: item %q: want a seed N or a range A-B of non-negative integers", s, item)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("seed list %q: range %q: want A-B with A ≤ B", s, item)
			}
		}
		if b-a >= MaxSeeds {
			return nil, fmt.Errorf("seed list %q: range %q has more than %d seeds", s, item, MaxSeeds)
		}
		for x := a; ; x++ {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
				if len(out) > MaxSeeds {
					return nil, fmt.Errorf("seed list %q: more than %d seeds", s, MaxSeeds)
				}
			}
			if x == b {
				break
			}
		}
	}
	return out, nil
}
