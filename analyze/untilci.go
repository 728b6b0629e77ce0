package analyze

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"gonum.org/v1/gonum/stat/distuv"

	"orcs/metrics"
)

// UntilCI is the stopping rule of --until-ci: the runs stop at the first
// count n ≥ MinCIRuns at which the 95 % confidence interval of the mean of
// the first n per-run values (Student's t with n−1 degrees of freedom, as
// the JSON output's ci95) has a half-width below Eps, or below
// Eps/100 · |mean| when Relative. Runs are independent of each other and
// of the number of threads, so the stopping point depends only on the seed:
// the result is byte for byte that of -n with the stopping count.
type UntilCI struct {
	Eps      float64
	Relative bool
}

// MinCIRuns is the fewest runs --until-ci stops at: a handful of equal
// values must not pass for a tight distribution.
const MinCIRuns = 10

// ErrUntilCIShard is the error for --until-ci with --shard: it says why
// they do not go together.
var ErrUntilCIShard = errors.New("--until-ci cannot run in shards: where to stop depends on the values of all runs before the stopping point, which no shard sees; " +
	"run --until-ci unsplit, or split a run of -n with the count it stopped at")

// ParseUntilCI reads an --until-ci value: an absolute half-width ("0.01")
// or a relative one ("1%").
func ParseUntilCI(s string) (*UntilCI, error) {
	rel := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("--until-ci %q: want a half-width > 0, absolute (0.01) or relative to the mean (1%%)", s)
	}
	return &UntilCI{Eps: v, Relative: rel}, nil
}

// String gives the rule as ParseUntilCI reads it.
func (u UntilCI) String() string {
	s := strconv.FormatFloat(u.Eps, 'g', -1, 64)
	if u.Relative {
		s += "%"
	}
	return s
}

// ciRule follows the running mean and variance (Welford) of the values
// and tells when the rule is met.
type ciRule struct {
	u       UntilCI
	n       int
	mean, m float64 // running mean and sum of squared deviations
}

// add takes the next value and reports whether the rule is met after it.
func (c *ciRule) add(x float64) bool {
	c.n++
	d := x - c.mean
	c.mean += d / float64(c.n)
	c.m += d * (x - c.mean)
	if c.n < MinCIRuns {
		return false
	}
	eps := c.u.Eps
	if c.u.Relative {
		eps = c.u.Eps / 100 * math.Abs(c.mean)
	}
	se := math.Sqrt(c.m/float64(c.n-1)) / math.Sqrt(float64(c.n))
	if 1.959963984540054*se >= eps { // t ≥ z: cannot be met yet
		return false
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(c.n - 1)}.Quantile(0.975)
	return t*se < eps
}

// halfWidth returns the current half-width of the 95 % interval.
func (c *ciRule) halfWidth() float64 {
	if c.n < 2 {
		return math.Inf(1)
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(c.n - 1)}.Quantile(0.975)
	return t * math.Sqrt(c.m/float64(c.n-1)) / math.Sqrt(float64(c.n))
}

// CIStop says where --until-ci stopped.
type CIStop struct {
	// Runs is the number of runs kept.
	Runs int
	// Mean and HalfWidth describe the 95 % interval of the mean after them.
	Mean, HalfWidth float64
	// Met is false when the cap (-n) came first.
	Met bool
}

// CIStop returns where Run stopped under Config.UntilCI (nil otherwise).
func (s *Analysis) CIStop() *CIStop { return s.stopped }

// runUntil runs batches of runs until the rule is met or every run of the
// cap is done, then keeps exactly the runs up to the stopping point: the
// values beyond it are dropped and, when the last batch went past it, that
// batch's accumulators are computed again for the runs up to it only.
func (s *Analysis) runUntil(res *metrics.Result, done *atomic.Int64) error {
	rule := &ciRule{u: *s.cfg.UntilCI}
	total := len(res.Values)
	batch := max(256, 64*s.cfg.Threads)
	stop, met := total, false
	for lo := 0; lo < total && !met; lo += batch {
		hi := min(total, lo+batch)
		acc := &metrics.Result{}
		if err := s.runSlots(res.Values, acc, lo, hi, done); err != nil {
			return err
		}
		end := hi
		for k := lo; k < hi && !met; k++ {
			if rule.add(res.Values[k]) {
				end, met = k+1, true
			}
		}
		if end < hi {
			acc = &metrics.Result{}
			if err := s.runSlots(res.Values, acc, lo, end, nil); err != nil { // done already counted
				return err
			}
		}
		res.Merge(acc, nil)
		stop = end
	}
	res.Values = res.Values[:stop]
	s.cfg.Runs = stop
	s.stopped = &CIStop{Runs: stop, Mean: rule.mean, HalfWidth: rule.halfWidth(), Met: met}
	return nil
}
