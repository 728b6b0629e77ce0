package samplingsim

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"orcs/lft"
)

// RoutingRow is the outcome of one routing of a comparison: the primary
// job's noise statistics.
type RoutingRow struct {
	// Routing is the --routing spec of the primary job.
	Routing string
	// Stats are the primary job's statistics.
	Stats NoiseStats
	// End is the simulated end of the run, Hops its packet-hops and CPU
	// the CPU time of its event loop.
	End  Time
	Hops int64
	CPU  time.Duration
}

// CompareRouting runs plan once per routing of the primary job (the other
// jobs keep cfg.BackgroundRouting, or cfg.Routing when that is empty) and
// returns the primary job's noise statistics of each run.
func CompareRouting(f *lft.Fabric, cfg Config, plan *Plan, routings []string) ([]RoutingRow, error) {
	if cfg.BackgroundRouting == "" {
		cfg.BackgroundRouting = cfg.Routing
	}
	var rows []RoutingRow
	for _, rt := range routings {
		if strings.TrimSpace(rt) == "" {
			return nil, fmt.Errorf("an empty routing in the list (give e.g. static;adaptive)")
		}
		c := cfg
		c.Routing, c.measure = rt, true
		r, err := Run(f, c, plan)
		if err != nil {
			return nil, fmt.Errorf("routing %s: %w", rt, err)
		}
		rows = append(rows, RoutingRow{Routing: rt, Stats: r.Noise(0), End: r.End, Hops: r.PacketHops, CPU: r.CPU})
	}
	return rows, nil
}

// WriteRoutingTable prints rows as a table: iterations, their quartiles,
// median and QCD in µs, mean packet latency and its QCD, stalls per packet,
// the share sent adaptively and the median relative to the best median.
func WriteRoutingTable(w io.Writer, rows []RoutingRow) error {
	best := math.Inf(1)
	for _, r := range rows {
		best = math.Min(best, r.Stats.Median)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "routing\titers\tmedian µs\tQ1 µs\tQ3 µs\tQCD\tlatency ns\tlatency QCD\tstall ns/pkt\tadaptive %\tdetour %\tvs best\t")
	us := func(x float64) float64 { return x / float64(Microsecond) }
	ns := func(x float64) float64 { return x / float64(Nanosecond) }
	for _, r := range rows {
		s := r.Stats
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.4f\t%.1f\t%.4f\t%.2f\t%.1f\t%.1f\t%+.1f%%\t\n",
			strings.TrimPrefix(r.Routing, "adaptive:"), len(s.Iterations), us(s.Median), us(s.Q1), us(s.Q3), s.QCD,
			ns(s.Latency), s.LatencyQCD, ns(s.Stall), 100*s.AdaptiveShare, 100*s.Detour, 100*(s.Median/best-1))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if q := r.Stats.Quiet; q > 0 {
			fmt.Fprintf(w, "%s: %d of %d iterations started after the background's last delivery (no noise; give the background more messages or a gbps rate)\n",
				strings.TrimPrefix(r.Routing, "adaptive:"), q, len(r.Stats.Iterations))
		}
	}
	if lambda, sigma, ok := AppRatios(rows); ok {
		_, err := fmt.Fprintf(w, "high bias / adaptive: latency λ = %.3f, stall σ = %.3f\n", lambda, sigma)
		return err
	}
	return nil
}

// AppRatios returns the ratios of High bias to Adaptive of the mean packet
// latency (λ) and of the mean stall per packet (σ), the scaling factors of
// Application-Aware routing, from the rows "adaptive" (or
// "adaptive:mode=adaptive") and "adaptive:mode=high"; ok is false when
// either row is missing or Adaptive had no latency or no stall.
func AppRatios(rows []RoutingRow) (lambda, sigma float64, ok bool) {
	var ad, hi *NoiseStats
	for i := range rows {
		rt, err := ParseRouting(rows[i].Routing)
		if err != nil || rt.Bias != 0 && rt.Mode != ModeHigh {
			continue
		}
		switch {
		case rt.Mode == ModeAdaptive:
			ad = &rows[i].Stats
		case rt.Mode == ModeHigh && rt.Bias == defaultHighBias:
			hi = &rows[i].Stats
		}
	}
	if ad == nil || hi == nil || ad.Latency == 0 || ad.Stall == 0 {
		return 0, 0, false
	}
	return hi.Latency / ad.Latency, hi.Stall / ad.Stall, true
}

// setRouting records the routing of c in the JSON configuration when a
// job routes adaptively (static runs keep their JSON as before).
func (j *RunFileConfig) setRouting(c *Config) {
	bg := c.BackgroundRouting
	if bg == "" {
		bg = c.Routing
	}
	if (c.Routing == "" || c.Routing == "static") && (bg == "" || bg == "static") {
		return
	}
	j.Routing, j.BackgroundRouting = c.Routing, bg
	j.GlobalLatencyNs = float64(c.GlobalLatency) / 1e3
}
