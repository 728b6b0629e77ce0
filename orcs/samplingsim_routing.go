package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"orcs/fabricarg"
	"orcs/internal/outfile"
	"orcs/samplingsim"
)

// routingFlags are samplingsim's adaptive-routing flags.
func routingFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "routing", Value: "static", Usage: "routing `SPEC` of the (primary) job: static, or adaptive[:mode=adaptive|imb|low|high|app,bias=N]"},
		&cli.StringFlag{Name: "background-routing", Usage: "routing `SPEC` of the background job (default: --routing)"},
		&cli.StringFlag{Name: "global-latency", Value: "0", Usage: "latency of a Dragonfly's global links (`DURATION`; 0 = --latency)"},
		&cli.StringFlag{Name: "compare-routing", Usage: "run once per routing `SPECS` (separated by ';') and print the primary job's iteration times, QCD, latency and stalls"},
	}
}

// applyRouting reads the routing flags into cfg; a generated Dragonfly
// (or a dot file orcs gen wrote) gives adaptive routing its groups.
func applyRouting(c *cli.Context, src *fabricarg.Fabric, cfg *samplingsim.Config) error {
	cfg.Routing = c.String("routing")
	cfg.BackgroundRouting = c.String("background-routing")
	if cfg.BackgroundRouting != "" && c.String("background") == "" {
		return fmt.Errorf("--background-routing routes the background job: give --background too")
	}
	if src.Network != nil {
		cfg.Groups = src.Network.Groups
	}
	var err error
	if cfg.GlobalLatency, err = samplingsim.ParseTime(c.String("global-latency")); err != nil {
		return fmt.Errorf("--global-latency %w", err)
	}
	return cfg.Validate()
}

// refuseOneRunOutputs refuses, before any work, the outputs of one run
// (--json, --csv, --messages, --svg) beside --compare-routing.
func refuseOneRunOutputs(c *cli.Context) error {
	for _, cmp := range []string{"compare-routing", "compare-cc"} {
		if c.String(cmp) == "" {
			continue
		}
		for _, name := range []string{"json", "csv", "messages", "svg"} {
			if c.IsSet(name) {
				return fmt.Errorf("--%s prints one table of several runs; --%s writes one run: give it without --%s", cmp, name, cmp)
			}
		}
	}
	return nil
}

// compareRouting runs --compare-routing and writes its table; it reports
// whether the flag was given.
func compareRouting(c *cli.Context, src *fabricarg.Fabric, cfg samplingsim.Config, plan *samplingsim.Plan) (bool, error) {
	list := c.String("compare-routing")
	if list == "" {
		return false, nil
	}
	rows, err := samplingsim.CompareRouting(src.Fabric, cfg, plan, strings.Split(list, ";"))
	if err != nil {
		return true, err
	}
	out, err := outfile.Create(c.String("output_file"))
	if err != nil {
		return true, err
	}
	defer out.Abort()
	fmt.Fprintf(out, "%s, job %s, %d hosts; background %q routed %s\n", src.Name, plan.Jobs[0].Name, len(plan.Jobs[0].Hosts),
		c.String("background"), cfg.BackgroundRouting)
	if err := samplingsim.WriteRoutingTable(out, rows); err != nil {
		return true, err
	}
	return true, out.Commit()
}
