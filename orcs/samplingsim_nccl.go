package main

import (
	"fmt"
	"io"
	"math"
	"slices"
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
		&cli.StringFlag{Name: "nccl-algos", Usage: "with --nccl-sizes: run every algorithm of `LIST` (ring,tree: NCCL_ALGO) side by side, each under every routing, and name the fastest per size (default: the workload's algo)"},
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

// ncclRow is one size of the nccl-tests table: the time per variant
// (algorithm and routing).
type ncclRow struct {
	size  int64
	times []float64 // seconds
}

// ncclVariant is one column group of the table: an algorithm under a
// routing.
type ncclVariant struct {
	algo, routing string
}

// ncclRun is what --nccl-sizes runs: the workload spec without its size,
// its op and iterations, and the variants.
type ncclRun struct {
	spec     registry.Spec
	op       string
	iters    int
	variants []ncclVariant
}

// ncclSetup reads the nccl spec, --compare-routing (or the routing of
// cfg) and --nccl-algos into an ncclRun.
func ncclSetup(c *cli.Context, cfg samplingsim.Config, spec string) (ncclRun, error) {
	parsed, _ := registry.Parse(spec)
	run := ncclRun{op: "allreduce", iters: 1}
	algos := []string{"ring"}
	var err error
	for _, kv := range parsed.Args {
		switch kv.Key {
		case "op":
			run.op = kv.Value
		case "algo":
			algos = []string{kv.Value}
		case "iters":
			if run.iters, err = strconv.Atoi(kv.Value); err != nil || run.iters < 1 {
				return run, fmt.Errorf("-w %s: iters=%s: want a number ≥ 1", spec, kv.Value)
			}
		case "size":
			return run, fmt.Errorf("-w %s: --nccl-sizes gives the sizes; leave size= out", spec)
		}
		if kv.Key != "algo" {
			run.spec.Args = append(run.spec.Args, kv)
		}
	}
	run.spec.Name = parsed.Name
	if l := c.String("nccl-algos"); l != "" {
		algos = strings.Split(l, ",")
		for i, a := range algos {
			if algos[i] = strings.TrimSpace(a); !slices.Contains(samplingsim.NCCLAlgos, algos[i]) {
				return run, fmt.Errorf("--nccl-algos %s: %q is not one of %v", l, a, samplingsim.NCCLAlgos)
			}
		}
	}
	routings := []string{cfg.Routing}
	if l := c.String("compare-routing"); l != "" {
		routings = strings.Split(l, ";")
	}
	for _, a := range algos {
		for _, rt := range routings {
			run.variants = append(run.variants, ncclVariant{algo: a, routing: strings.TrimSpace(rt)})
		}
	}
	return run, nil
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
	run, err := ncclSetup(c, cfg, spec)
	if err != nil {
		return true, err
	}
	out, err := outfile.Create(c.String("output_file"))
	if err != nil {
		return true, err
	}
	defer out.Abort()
	var rows []ncclRow
	var plan *samplingsim.Plan
	for size := lo; size <= hi; size *= 2 {
		row := ncclRow{size: size}
		for i, v := range run.variants {
			if i == 0 || v.algo != run.variants[i-1].algo {
				sized := run.spec
				sized.Args = append(append([]registry.Arg(nil), run.spec.Args...),
					registry.Arg{Key: "algo", Value: v.algo}, registry.Arg{Key: "size", Value: strconv.FormatInt(size, 10)})
				if plan, err = samplingsim.BuildPlan(src.Fabric, []samplingsim.JobSpec{{Name: "nccl", Workload: sized.String(), Hosts: hosts}}, cfg.Seed); err != nil {
					return true, err
				}
			}
			rc := cfg
			rc.Routing = v.routing
			res, err := samplingsim.Run(src.Fabric, rc, plan)
			if err != nil {
				return true, fmt.Errorf("size %d, %s: %w", size, v.label(run.variants), err)
			}
			start, end := res.JobFinish(0)
			if end <= start {
				return true, fmt.Errorf("size %d, %s: the collective did not finish (--max-time?)", size, v.label(run.variants))
			}
			row.times = append(row.times, float64(end-start)/float64(samplingsim.Second)/float64(run.iters))
		}
		rows = append(rows, row)
		if hi/2 < size {
			break
		}
	}
	if err := writeNCCLTable(out, src.Name, run.op, len(hosts), run.variants, rows); err != nil {
		return true, err
	}
	return true, out.Commit()
}

// label names variant v among all: its routing when every variant has
// the same algorithm, else "algo routing".
func (v ncclVariant) label(all []ncclVariant) string {
	for _, o := range all {
		if o.algo != v.algo {
			return v.algo + " " + v.routing
		}
	}
	return v.routing
}

// writeNCCLTable prints the rows as nccl-tests does (time in µs, algbw and
// busbw in GB/s of 10^9 bytes), one time/algbw/busbw group per variant,
// the average bus bandwidth per variant, the fastest variant per range of
// sizes when there are several, and the verdict.
func writeNCCLTable(w io.Writer, fabric, op string, n int, variants []ncclVariant, rows []ncclRow) error {
	factor := samplingsim.NCCLBusFactor(op, n)
	redop := "none"
	if op == "allreduce" || op == "reducescatter" {
		redop = "sum"
	}
	name := "nccl " + op
	if !strings.HasPrefix(op, "alltoall") {
		var algos []string
		for _, v := range variants {
			if !slices.Contains(algos, v.algo) {
				algos = append(algos, v.algo)
			}
		}
		name += " (" + strings.Join(algos, ", ") + ")"
	}
	fmt.Fprintf(w, "# %s: %s on %d ranks (float, 4 bytes), simulated by samplingsim; busbw = algbw × %.4f (nccl-tests' factor)\n", fabric, name, n, factor)
	fmt.Fprintf(w, "#%12s %12s %8s %6s %6s", "", "", "", "", "")
	for _, v := range variants {
		fmt.Fprintf(w, " %28s", v.label(variants))
	}
	fmt.Fprintf(w, "\n#%12s %12s %8s %6s %6s", "size", "count", "type", "redop", "root")
	for range variants {
		fmt.Fprintf(w, " %10s %8s %8s", "time", "algbw", "busbw")
	}
	fmt.Fprintf(w, "\n#%12s %12s %8s %6s %6s", "(B)", "(elements)", "", "", "")
	for range variants {
		fmt.Fprintf(w, " %10s %8s %8s", "(us)", "(GB/s)", "(GB/s)")
	}
	fmt.Fprintln(w)
	alg := func(r ncclRow, i int) float64 { return float64(r.size) / 1e9 / r.times[i] }
	bus := func(r ncclRow, i int) float64 { return alg(r, i) * factor }
	sums := make([]float64, len(variants))
	for _, r := range rows {
		fmt.Fprintf(w, " %12d %12d %8s %6s %6d", r.size, r.size/4, "float", redop, -1)
		for i, t := range r.times {
			sums[i] += bus(r, i)
			fmt.Fprintf(w, " %10.1f %8.2f %8.2f", t*1e6, alg(r, i), bus(r, i))
		}
		fmt.Fprintln(w)
	}
	for i, v := range variants {
		fmt.Fprintf(w, "# Avg bus bandwidth (%s): %.3f GB/s\n", v.label(variants), sums[i]/float64(len(rows)))
	}
	if len(variants) > 1 {
		for _, s := range fastestRanges(rows, variants) {
			fmt.Fprintf(w, "# fastest: %s\n", s)
		}
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
	verdict := fmt.Sprintf("at %d bytes %s reaches %.2f GB/s bus bandwidth", last.size, variants[best].label(variants), bus(last, best))
	if best != worst {
		verdict += fmt.Sprintf(", %.2f× %s's %.2f GB/s", bus(last, best)/bus(last, worst), variants[worst].label(variants), bus(last, worst))
	}
	_, err := fmt.Fprintf(w, "# verdict: %s (one simulated run per size and variant: deterministic for the seed, no spread measured).\n", verdict)
	return err
}

// fastestRanges describes, for each run of consecutive sizes with the
// same fastest variants (equal times tie), those variants, the sizes and
// how much faster they are than the slowest variant there:
// "tree static = tree adaptive from 1048576 to 4194304 bytes, 1.52–1.80×
// the speed of ring static = ring adaptive".
func fastestRanges(rows []ncclRow, variants []ncclVariant) []string {
	// at returns the labels of the variants whose time at row r equals
	// pick's, joined by " = ", and that time.
	at := func(r ncclRow, pick func(a, b float64) float64) (string, float64) {
		t := r.times[0]
		for _, x := range r.times {
			t = pick(t, x)
		}
		var ls []string
		for i, x := range r.times {
			if x == t {
				ls = append(ls, variants[i].label(variants))
			}
		}
		return strings.Join(ls, " = "), t
	}
	var out []string
	for i := 0; i < len(rows); {
		names, _ := at(rows[i], math.Min)
		j := i
		lo, hi := math.Inf(1), 0.0
		var slow []string
		for ; j < len(rows); j++ {
			nj, fast := at(rows[j], math.Min)
			if nj != names {
				break
			}
			sl, t := at(rows[j], math.Max)
			lo, hi = min(lo, t/fast), max(hi, t/fast)
			if !slices.Contains(slow, sl) {
				slow = append(slow, sl)
			}
		}
		sizes := fmt.Sprintf("at %d bytes", rows[i].size)
		if j-i > 1 {
			sizes = fmt.Sprintf("from %d to %d bytes", rows[i].size, rows[j-1].size)
		}
		if len(slow) == 1 && slow[0] == names { // every variant alike
			out = append(out, fmt.Sprintf("%s %s, in the same time", names, sizes))
			i = j
			continue
		}
		speed := fmt.Sprintf("%.2f×", lo)
		if hi-lo >= 0.005 {
			speed = fmt.Sprintf("%.2f–%.2f×", lo, hi)
		}
		out = append(out, fmt.Sprintf("%s %s, %s the speed of %s", names, sizes, speed, strings.Join(slow, "; ")))
		i = j
	}
	return out
}
