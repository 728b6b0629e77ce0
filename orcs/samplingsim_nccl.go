package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"orcs/analyze"
	"orcs/fabricarg"
	"orcs/internal/outfile"
	"orcs/lft"
	"orcs/patterns"
	"orcs/registry"
	"orcs/samplingsim"
)

// ncclFlags are samplingsim's flags of the nccl workload.
func ncclFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "nccl-sizes", Usage: "with -w nccl:…: run sizes `MIN-MAX` (bytes, K/M/G = 2^10/2^20/2^30, doubling) under every routing of --compare-routing (or --routing) and print nccl-tests' rows: size, count, type, redop, time, algbw, busbw"},
	}
}

// ncclPlacement puts an nccl workload's ranks on whole nodes: node by
// node in the allocation's order (or the fabric's), rail by rail, and adds
// rails=R to the spec when it does not give it. Other workloads are
// returned as they are, with nil hosts.
func ncclPlacement(f *lft.Fabric, spec string, alloc []int32, first int) (string, []int32, error) {
	parsed, err := registry.Parse(spec)
	if err != nil || parsed.Name != "nccl" {
		return spec, nil, nil
	}
	cfg := analyze.Config{Pattern: patterns.Spec{Name: "nccl_ring_allreduce"}, Allocation: alloc, Commsize: first}
	hosts, err := analyze.NodePlacement(f, &cfg)
	if err != nil {
		return "", nil, fmt.Errorf("-w %s: %w", spec, err)
	}
	given := false
	for _, a := range parsed.Args {
		given = given || a.Key == "rails"
	}
	if !given {
		parsed.Args = append(parsed.Args, registry.Arg{Key: "rails", Value: strconv.Itoa(cfg.Pattern.Rails)})
	}
	return parsed.String(), hosts, nil
}

// parseSizeRange parses "MIN-MAX" with K, M and G suffixes (powers of 2).
func parseSizeRange(s string) (lo, hi int64, err error) {
	one := func(v string) (int64, error) {
		mult := int64(1)
		switch {
		case strings.HasSuffix(v, "K"):
			mult, v = 1<<10, strings.TrimSuffix(v, "K")
		case strings.HasSuffix(v, "M"):
			mult, v = 1<<20, strings.TrimSuffix(v, "M")
		case strings.HasSuffix(v, "G"):
			mult, v = 1<<30, strings.TrimSuffix(v, "G")
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > (1<<40)/mult {
			return 0, fmt.Errorf("--nccl-sizes %s: %q is not a size of 1 byte to 1T (e.g. 1M-1G)", s, v)
		}
		return n * mult, nil
	}
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return 0, 0, fmt.Errorf("--nccl-sizes %s: want MIN-MAX, e.g. 1M-1G", s)
	}
	if lo, err = one(a); err == nil {
		hi, err = one(b)
	}
	if err == nil && lo > hi {
		err = fmt.Errorf("--nccl-sizes %s: MIN is larger than MAX", s)
	}
	return lo, hi, err
}

// ncclRow is one size of the nccl-tests table: the time per routing.
type ncclRow struct {
	size  int64
	times []float64 // seconds
}

// ncclTests runs --nccl-sizes and writes nccl-tests' rows; it reports
// whether the flag was given.
func ncclTests(c *cli.Context, src *fabricarg.Fabric, cfg samplingsim.Config, spec string, hosts []int32) (bool, error) {
	if !c.IsSet("nccl-sizes") {
		return false, nil
	}
	if hosts == nil {
		return true, fmt.Errorf("--nccl-sizes runs the nccl workload: give -w nccl:op=…")
	}
	lo, hi, err := parseSizeRange(c.String("nccl-sizes"))
	if err != nil {
		return true, err
	}
	parsed, _ := registry.Parse(spec)
	op, iters := "allreduce", 1
	for _, kv := range parsed.Args {
		switch kv.Key {
		case "op":
			op = kv.Value
		case "iters":
			if iters, err = strconv.Atoi(kv.Value); err != nil || iters < 1 {
				return true, fmt.Errorf("-w %s: iters=%s: want a number ≥ 1", spec, kv.Value)
			}
		case "size":
			return true, fmt.Errorf("-w %s: --nccl-sizes gives the sizes; leave size= out", spec)
		}
	}
	routings := []string{cfg.Routing}
	if l := c.String("compare-routing"); l != "" {
		routings = strings.Split(l, ";")
	}
	out, err := outfile.Create(c.String("output_file"))
	if err != nil {
		return true, err
	}
	defer out.Abort()
	var rows []ncclRow
	for size := lo; size <= hi; size *= 2 {
		sized := parsed
		sized.Args = append(append([]registry.Arg(nil), parsed.Args...), registry.Arg{Key: "size", Value: strconv.FormatInt(size, 10)})
		plan, err := samplingsim.BuildPlan(src.Fabric, []samplingsim.JobSpec{{Name: "nccl", Workload: sized.String(), Hosts: hosts}}, cfg.Seed)
		if err != nil {
			return true, err
		}
		row := ncclRow{size: size}
		for _, rt := range routings {
			rc := cfg
			rc.Routing = strings.TrimSpace(rt)
			res, err := samplingsim.Run(src.Fabric, rc, plan)
			if err != nil {
				return true, fmt.Errorf("size %d, routing %s: %w", size, rc.Routing, err)
			}
			start, end := res.JobFinish(0)
			if end <= start {
				return true, fmt.Errorf("size %d, routing %s: the collective did not finish (--max-time?)", size, rc.Routing)
			}
			row.times = append(row.times, float64(end-start)/float64(samplingsim.Second)/float64(iters))
		}
		rows = append(rows, row)
		if hi/2 < size {
			break
		}
	}
	if err := writeNCCLTable(out, src.Name, op, len(hosts), routings, rows); err != nil {
		return true, err
	}
	return true, out.Commit()
}

// writeNCCLTable prints the rows as nccl-tests does (time in µs, algbw and
// busbw in GB/s of 10^9 bytes), one time/algbw/busbw group per routing,
// the average bus bandwidth per routing, and the verdict.
func writeNCCLTable(w io.Writer, fabric, op string, n int, routings []string, rows []ncclRow) error {
	factor := samplingsim.NCCLBusFactor(op, n)
	redop := "none"
	if op == "allreduce" || op == "reducescatter" {
		redop = "sum"
	}
	fmt.Fprintf(w, "# %s: nccl %s on %d ranks (float, 4 bytes), simulated by samplingsim; busbw = algbw × %.4f (nccl-tests' factor)\n", fabric, op, n, factor)
	fmt.Fprintf(w, "#%12s %12s %8s %6s %6s", "", "", "", "", "")
	for _, rt := range routings {
		fmt.Fprintf(w, " %28s", strings.TrimSpace(rt))
	}
	fmt.Fprintf(w, "\n#%12s %12s %8s %6s %6s", "size", "count", "type", "redop", "root")
	for range routings {
		fmt.Fprintf(w, " %10s %8s %8s", "time", "algbw", "busbw")
	}
	fmt.Fprintf(w, "\n#%12s %12s %8s %6s %6s", "(B)", "(elements)", "", "", "")
	for range routings {
		fmt.Fprintf(w, " %10s %8s %8s", "(us)", "(GB/s)", "(GB/s)")
	}
	fmt.Fprintln(w)
	sums := make([]float64, len(routings))
	for _, r := range rows {
		fmt.Fprintf(w, " %12d %12d %8s %6s %6d", r.size, r.size/4, "float", redop, -1)
		for i, t := range r.times {
			alg := float64(r.size) / 1e9 / t
			sums[i] += alg * factor
			fmt.Fprintf(w, " %10.1f %8.2f %8.2f", t*1e6, alg, alg*factor)
		}
		fmt.Fprintln(w)
	}
	for i, rt := range routings {
		fmt.Fprintf(w, "# Avg bus bandwidth (%s): %.3f GB/s\n", strings.TrimSpace(rt), sums[i]/float64(len(rows)))
	}
	last := rows[len(rows)-1]
	best, worst := 0, 0
	for i, t := range last.times {
		if t < last.times[best] {
			best = i
		}
		if t > last.times[worst] {
			worst = i
		}
	}
	bus := func(i int) float64 { return float64(last.size) / 1e9 / last.times[i] * factor }
	verdict := fmt.Sprintf("at %d bytes %s reaches %.2f GB/s bus bandwidth", last.size, strings.TrimSpace(routings[best]), bus(best))
	if best != worst {
		verdict += fmt.Sprintf(", %.2f× %s's %.2f GB/s", bus(best)/bus(worst), strings.TrimSpace(routings[worst]), bus(worst))
	}
	_, err := fmt.Fprintf(w, "# verdict: %s (one simulated run per size and routing: deterministic for the seed, no spread measured).\n", verdict)
	return err
}
