package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"orcs/analyze"
	"orcs/fabricarg"
	"orcs/internal/outfile"
	"orcs/internal/progress"
	"orcs/lft"
	"orcs/mapping"
	"orcs/patterns"
	"orcs/samplingsim"
)

func init() {
	registerCommand(&cli.Command{
		Name:  "map",
		Usage: "place a job's ranks on its hosts so that its communication congests the fabric least, and hand it to Slurm",
		Description: "Strategies (--strategy):\n  " + strings.ReplaceAll(mapping.Help(), "\n", "\n  ") +
			"\n\nExample: orcs map -i gen:fattree3:pods=6,leaves=24,hosts=32,up=16 -p file:stencil.ptrn --grid 64x72 --compare --verify --slurm-hostfile hosts.txt",
		Flags: append(fabricFlags(""),
			&cli.StringFlag{Name: "ptrn", Aliases: []string{"p"}, Usage: "the job's communication: an ORCS `PATTERN` or file:PATH"},
			&cli.StringFlag{Name: "traffic", Usage: "the job's communication: a traffic matrix CSV `FILE` (src_rank,dst_rank,bytes)"},
			&cli.IntFlag{Name: "commsize", Aliases: []string{"s"}, Usage: "ranks of the job (0 = every host of the allocation for a named pattern)"},
			&cli.StringFlag{Name: "hosts", Usage: "the job's allocation: a Slurm host `LIST` or @FILE (default: every host); the linear placement is its order"},
			&cli.StringFlag{Name: "strategy", Value: "search", Usage: "placement `STRATEGY`: " + strings.Join(mapping.Names(), ", ")},
			&cli.StringFlag{Name: "objective", Value: "congestion", Usage: "congestion (largest cable load per level, then sum of squared loads) or sumsq (the other way round)"},
			&cli.StringFlag{Name: "grid", Usage: "the ranks' grid `XxY[xZ]` (x fastest) for --strategy tile"},
			&cli.StringFlag{Name: "seed", Value: "1", Usage: "random seed `S` of random and search"},
			&cli.IntFlag{Name: "budget", Usage: "candidate swaps search evaluates (0 = 100 per rank, at least 200000)"},
			&cli.BoolFlag{Name: "compare", Usage: "run and report every strategy"},
			&cli.BoolFlag{Name: "times", Usage: "report each strategy's run time"},
			&cli.BoolFlag{Name: "verify", Usage: "simulate the placements with samplingsim on the same fabric and tables: job completion times"},
			&cli.StringFlag{Name: "verify-workload", Usage: "simulate this samplingsim workload `SPEC` (e.g. stencil:x=64,y=72) instead of the communication itself"},
			&cli.Int64Flag{Name: "verify-size", Value: 65536, Usage: "bytes per message of a pattern in --verify"},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the report to `FILE`"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "report `FORMAT`: text (a table and the verdict) or json"},
			&cli.StringFlag{Name: "rank-hosts", Usage: "write the placement as RANK HOST lines to `FILE` (samplingsim --mapping reads it)"},
			&cli.StringFlag{Name: "slurm-hostfile", Usage: "write the placement as a Slurm host `FILE`: SLURM_HOSTFILE=FILE srun --distribution=arbitrary"},
		),
		Action: mapAction,
	})
}

func mapAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return fmt.Errorf("unexpected argument %q (the fabric is given with -i or --topo/--lfts)", c.Args().First())
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return fmt.Errorf("--format %q: want text or json", format)
	}
	src, err := loadFabric(c, fabricarg.Tables, false, false)
	if err != nil {
		return err
	}
	hosts, err := hostsList(c)
	if err != nil {
		return err
	}
	alloc, names, err := mapping.Allocation(src.Fabric, hosts)
	if err != nil {
		return err
	}
	if patterns.Collective(c.String("ptrn")) {
		return mapCollective(c, src.Fabric, alloc)
	}
	p, err := mapping.JobProblem(src.Fabric, alloc, mapping.Job{Pattern: c.String("ptrn"), Traffic: c.String("traffic"),
		Ranks: c.Int("commsize"), Grid: c.String("grid")})
	if err != nil {
		return err
	}
	seed, _, err := analyze.ParseSeed(c.String("seed"))
	if err != nil {
		return err
	}
	if p.Mode, err = mapping.ParseMode(c.String("objective")); err != nil {
		return err
	}
	p.Seed, p.Budget, p.Network = seed, c.Int("budget"), src.Network
	opt := mapping.Options{Strategy: c.String("strategy"), Compare: c.Bool("compare"), Times: c.Bool("times")}
	if c.Bool("verify") || c.IsSet("verify-workload") {
		opt.Verify = &mapping.Verify{Config: samplingsim.DefaultConfig(), Workload: c.String("verify-workload"),
			Size: c.Int64("verify-size"), Seed: seed}
	}
	// The report's file is created first and moved into place last: a bad
	// path fails before the search, and a failure leaves no file behind.
	out, err := outfile.Create(c.String("output_file"))
	if err != nil {
		return err
	}
	defer out.Abort()
	set, stopLine := progress.Status(os.Stderr, "orcs map")
	if set != nil {
		opt.Progress = func(step string, done, total int) { set(fmt.Sprintf("%s (step %d of %d)", step, done+1, total)) }
	}
	rep, pl, err := p.Run(opt)
	stopLine()
	if err != nil {
		return err
	}
	if err := p.WriteFiles(pl, names, c.String("rank-hosts"), c.String("slurm-hostfile")); err != nil {
		return err
	}
	write := rep.Write
	if format == "json" {
		write = rep.WriteJSON
	}
	if err := write(out); err != nil {
		return err
	}
	return out.Commit()
}

// mapCollective places an NCCL collective by node: it compares node
// orders (mapping.NodeStrategies) and writes the chosen one, every node
// once per GPU, as the Slurm host file.
func mapCollective(c *cli.Context, f *lft.Fabric, alloc []int32) error {
	if c.Bool("verify") || c.IsSet("verify-workload") || c.IsSet("traffic") || c.IsSet("grid") {
		return fmt.Errorf("-p %s is placed by node: --verify, --verify-workload, --traffic and --grid are for single-host placements (simulate the collective with orcs samplingsim --workload nccl:op=…)", c.String("ptrn"))
	}
	np, err := mapping.CollectiveProblem(f, alloc, c.String("ptrn"), c.Int("commsize"))
	if err != nil {
		return err
	}
	seed, _, err := analyze.ParseSeed(c.String("seed"))
	if err != nil {
		return err
	}
	if np.Mode, err = mapping.ParseMode(c.String("objective")); err != nil {
		return err
	}
	np.Seed, np.Budget = seed, c.Int("budget")
	strategy := c.String("strategy")
	if !c.IsSet("strategy") {
		strategy = "search"
	}
	out, err := outfile.Create(c.String("output_file"))
	if err != nil {
		return err
	}
	defer out.Abort()
	rep, pl, err := np.RunNodes(mapping.Options{Strategy: strategy, Compare: c.Bool("compare"), Times: c.Bool("times")})
	if err != nil {
		return err
	}
	names := make([]string, len(np.Hosts)) // Slurm's node names
	for i, h := range np.Hosts {
		names[i] = np.Layout.Nodes[np.Layout.NodeOf(h)].Name
	}
	if err := np.WriteFiles(pl, names, c.String("rank-hosts"), c.String("slurm-hostfile")); err != nil {
		return err
	}
	if err := rep.Write(out); err != nil {
		return err
	}
	return out.Commit()
}
