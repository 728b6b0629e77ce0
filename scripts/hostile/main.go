// Command hostile runs the mutation fuzzer of orcs (package
// internal/hostile) and prints its summary table:
//
//	go build -o bin/orcs ./orcs
//	go run ./scripts/hostile -n 10000 -seed 1 -j 2 > table.md
//
// Every panic, hang or peak is listed on standard error with its command
// line; the exit status is 1 if there was any.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"orcs/internal/hostile"
)

func main() {
	n := flag.Int("n", 10000, "inputs")
	seed := flag.Uint64("seed", 1, "seed of the mutations")
	workers := flag.Int("j", 2, "runs in parallel")
	bin := flag.String("bin", "bin/orcs", "the orcs binary")
	timeout := flag.Duration("timeout", 10*time.Second, "hang limit")
	recheck := flag.Duration("recheck", 120*time.Second, "rerun a run past -timeout with this limit: slow if it ends, a hang if not (0: no rerun)")
	maxRSS := flag.Int64("max-rss", 1<<30, "peak limit in bytes (max RSS)")
	as := flag.Int64("as", 8<<30, "address-space cap of every run in bytes (RLIMIT_AS)")
	only := flag.String("only", "", "comma-separated commands to fuzz (default: all)")
	flag.Parse()
	absBin, err := filepath.Abs(*bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(2)
	}
	work, err := os.MkdirTemp("", "orcs-hostile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(2)
	}
	root, _ := os.Getwd()
	opt := hostile.Options{Bin: absBin, Root: root, Work: work, N: *n, Seed: *seed, Workers: *workers,
		Timeout: *timeout, Recheck: *recheck, MaxRSS: *maxRSS, AddressSpace: *as}
	if *only != "" {
		opt.Only = strings.Split(*only, ",")
	}
	start := time.Now()
	res, err := hostile.Run(opt)
	os.RemoveAll(work)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(2)
	}
	bad := 0
	for _, r := range res {
		if r.Outcome >= hostile.Panic {
			if r.Outcome != hostile.Slow {
				bad++
			}
			fmt.Fprintf(os.Stderr, "%s: %s (status %d, %.1f s, %d MB): orcs %q\n%s\n", r.Outcome, r.Template, r.Status, r.Elapsed.Seconds(), r.RSS>>20, r.Args, r.Stderr)
		}
	}
	hostile.WriteTable(os.Stdout, hostile.Summarize(res))
	fmt.Printf("\n%d inputs, seed %d, %d workers, %.0f s; limits: %s (rechecked with %s), %d MB max RSS, %d GB address space.\n",
		len(res), *seed, *workers, time.Since(start).Seconds(), *timeout, *recheck, *maxRSS>>20, *as>>30)
	if bad > 0 {
		os.Exit(1)
	}
}
