package metrics

import (
	"math"

	"github.com/montanaflynn/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Summary describes a sample of per-run values.
type Summary struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Std    float64 `json:"std"` // sample standard deviation (n−1)
	Min    float64 `json:"min"`
	P5     float64 `json:"p5"`
	P25    float64 `json:"p25"`
	Median float64 `json:"median"`
	P75    float64 `json:"p75"`
	P95    float64 `json:"p95"`
	Max    float64 `json:"max"`
	// CI95Low and CI95High bound the 95 % confidence interval of the mean
	// (Student's t with n−1 degrees of freedom; equal to the mean for n = 1).
	CI95Low  float64 `json:"ci95_low"`
	CI95High float64 `json:"ci95_high"`
}

// Summarize computes the summary statistics of values. Percentiles use
// linear interpolation between closest ranks (Hyndman & Fan type 7).
func Summarize(values []float64) Summary {
	s := Summary{N: len(values)}
	if len(values) == 0 {
		nan := math.NaN()
		return Summary{Mean: nan, Std: nan, Min: nan, P5: nan, P25: nan, Median: nan,
			P75: nan, P95: nan, Max: nan, CI95Low: nan, CI95High: nan}
	}
	data := stats.Float64Data(values)
	s.Mean, _ = stats.Mean(data)
	s.Min, _ = stats.Min(data)
	s.Max, _ = stats.Max(data)
	s.Median, _ = stats.Percentile(data, 50)
	s.P5, _ = stats.Percentile(data, 5)
	s.P25, _ = stats.Percentile(data, 25)
	s.P75, _ = stats.Percentile(data, 75)
	s.P95, _ = stats.Percentile(data, 95)
	s.CI95Low, s.CI95High = s.Mean, s.Mean
	if len(values) > 1 {
		s.Std, _ = stats.StandardDeviationSample(data)
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(values) - 1)}.Quantile(0.975)
		half := t * s.Std / math.Sqrt(float64(len(values)))
		s.CI95Low, s.CI95High = s.Mean-half, s.Mean+half
	}
	return s
}

// populationVariance is ORCS's "Variance" (divided by n).
func populationVariance(values []float64) float64 {
	v, err := stats.PopulationVariance(values)
	if err != nil {
		return math.NaN()
	}
	return v
}
