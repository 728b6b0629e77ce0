package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"orcs/fabricarg"
	"orcs/hostlist"
	"orcs/nodes"
)

func init() {
	registerCommand(&cli.Command{
		Name:      "slurm-topology",
		Usage:     "write Slurm's topology.conf (tree or block plugin) or topology.yaml from the fabric and its node names",
		ArgsUsage: "[FABRIC]",
		Description: "The fabric's hosts (HCAs) are grouped into nodes by the first word of their names (dgx017 of \"dgx017 mlx5_3\").\n" +
			"Leaf switches joined by multi-HCA nodes form a unit (a scalable unit of a rail-optimized fabric: each rail on its\n" +
			"own leaf); a node sits in the unit of its HCAs. --plugin tree (topology.conf for topology/tree) lists every unit\n" +
			"with its nodes (SwitchName=su1 Nodes=dgx[001-032]) and the switches above with their children, switches of one\n" +
			"level with the same children as one; --plugin block (topology/block, Slurm 23.11 and later) writes one BlockName=\n" +
			"line per unit; --format yaml writes topology.yaml (Slurm 25.05 and later) with the tree, the blocks and flat.\n\n" +
			"Example: orcs slurm-topology --topo ibnetdiscover.txt --exclude 'ufm[01-04],login01' -o /etc/slurm/topology.conf",
		Flags: append(fabricFlags(""),
			&cli.StringFlag{Name: "exclude", Usage: "leave out the nodes of this Slurm host `LIST` (or @FILE): storage, management"},
			&cli.StringFlag{Name: "format", Value: "conf", Usage: "conf (topology.conf) or yaml (topology.yaml)"},
			&cli.StringFlag{Name: "plugin", Value: "tree", Usage: "with --format conf: tree (SwitchName= lines) or block (BlockName= lines)"},
			&cli.StringFlag{Name: "output_file", Aliases: []string{"output-file", "o"}, Value: "-", Usage: "write the file to `FILE`"},
		),
		Action: slurmTopologyAction,
	})
}

func slurmTopologyAction(c *cli.Context) error {
	format, plugin := c.String("format"), c.String("plugin")
	if format != "conf" && format != "yaml" {
		return fmt.Errorf("slurm-topology: unknown format %q (known: conf, yaml)", format)
	}
	if plugin != "tree" && plugin != "block" {
		return fmt.Errorf("slurm-topology: unknown plugin %q (known: tree, block)", plugin)
	}
	if c.IsSet("plugin") && format == "yaml" {
		return fmt.Errorf("slurm-topology: --plugin is for --format conf; topology.yaml holds the tree, the blocks and flat")
	}
	var exclude []string
	if arg := c.String("exclude"); arg != "" {
		var err error
		if exclude, err = hostlist.Parse(arg); err != nil {
			return fmt.Errorf("slurm-topology: --exclude: %w", err)
		}
	}
	src, err := loadFabric(c, fabricarg.Topology, false, true)
	if err != nil {
		return err
	}
	layout, err := nodes.FromFabric(src.Fabric)
	if err != nil {
		return fmt.Errorf("slurm-topology: %w", err)
	}
	misplaced := layout.CheckRails(src.Fabric)
	for _, w := range misplaced {
		fmt.Fprintf(errWriter(c), "orcs slurm-topology: warning: %s\n", w)
	}
	s, err := nodes.BuildSlurm(src.Fabric, layout, exclude)
	if err != nil {
		return fmt.Errorf("slurm-topology: %w", err)
	}
	if s.Nodes == 0 {
		return fmt.Errorf("slurm-topology: no nodes left (%d excluded)", s.Excluded)
	}
	header := fmt.Sprintf("Slurm topology from %s: %s\n%s", src.Name, layout.Summary(), s.Summary())
	err = writeOutput(c.String("output_file"), func(w io.Writer) error {
		if format == "yaml" {
			return s.WriteYAML(w, header)
		}
		return s.WriteConf(w, plugin == "block", header)
	})
	if err != nil {
		return err
	}
	rails := "every HCA of a multi-HCA node is on the leaf of its rail"
	switch {
	case !layout.MultiHCA():
		rails = "no node has several HCAs: one unit per leaf switch"
	case len(misplaced) > 0:
		rails = fmt.Sprintf("%d HCAs are on another rail's leaf (warnings above): check the cabling before trusting the units", len(misplaced))
	}
	out := c.String("output_file")
	if out == "-" {
		out = "stdout"
	}
	blocks := ""
	if note := s.BlockNote(); note != "" && (format == "yaml" || plugin == "block") {
		blocks = " " + note + "."
	}
	fmt.Fprintf(errWriter(c), "orcs slurm-topology: %s: %s (%s); %s.%s\n", out, s.Summary(), layout.Summary(), rails, blocks)
	return nil
}
