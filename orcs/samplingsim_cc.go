package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"orcs/fabricarg"
	"orcs/infile"
	"orcs/internal/outfile"
	"orcs/samplingsim"
)

// ccFlags are samplingsim's congestion-control flags.
func ccFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "cc", Usage: "InfiniBand congestion control `SPEC`: off, on, " + strings.Join(samplingsim.CCPresetNames(), ", ") +
			", each optionally :key=value,… (threshold, packet_size, marking_rate, victim=hosts|none, flows=qp|sl, timer, increase, min, trigger, cct=linear:N[:STEP] or SHIFT:MULT/…); see doc/congestion-control.md"},
		&cli.StringFlag{Name: "cc-conf", Usage: "congestion control from the cc_* keys of an opensm.conf `FILE` (the file route --osm-conf passes on; its other keys are ignored)"},
		&cli.StringFlag{Name: "compare-cc", Usage: "run once per congestion control `LIST` (separated by ';': off, a --cc SPEC, or an opensm.conf file) and print the hot spot's victims' and senders' throughput side by side"},
	}
}

// readCC returns the congestion control of one --compare-cc entry: a
// --cc SPEC, or an opensm.conf FILE when the spec's name is no preset.
func readCC(spec string) (*samplingsim.CongestionControl, error) {
	name, _, _ := strings.Cut(strings.TrimSpace(spec), ":")
	if name == "off" || name == "on" || slices.Contains(samplingsim.CCPresetNames(), name) {
		return samplingsim.ParseCC(spec)
	}
	return readCCConf(strings.TrimSpace(spec))
}

// readCCConf reads the congestion control of an opensm.conf.
func readCCConf(path string) (*samplingsim.CongestionControl, error) {
	r, done, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer done()
	return samplingsim.ReadOpenSMConf(r, infile.Name(path))
}

// applyCC reads --cc or --cc-conf into cfg.
func applyCC(c *cli.Context, cfg *samplingsim.Config) error {
	if c.IsSet("cc") && c.IsSet("cc-conf") {
		return fmt.Errorf("give congestion control either with --cc SPEC or with --cc-conf FILE, not both")
	}
	if c.IsSet("compare-cc") && (c.IsSet("cc") || c.IsSet("cc-conf")) {
		return fmt.Errorf("--compare-cc runs every setting of its list: give --cc and --cc-conf as entries of the list instead")
	}
	if c.IsSet("compare-cc") && c.IsSet("seeds") {
		return fmt.Errorf("--seeds diagnoses one run over several seeds: give it without --compare-cc")
	}
	if c.IsSet("compare-cc") && c.IsSet("compare-routing") {
		return fmt.Errorf("--compare-cc and --compare-routing each print a table of several runs: give one of them")
	}
	var err error
	switch {
	case c.IsSet("cc"):
		if cfg.CC, err = samplingsim.ParseCC(c.String("cc")); err != nil {
			return fmt.Errorf("--cc: %w", err)
		}
	case c.IsSet("cc-conf"):
		if cfg.CC, err = readCCConf(c.String("cc-conf")); err != nil {
			return fmt.Errorf("--cc-conf: %w", err)
		}
	}
	return nil
}

// ccOffNote says why a congestion control file leaves it off ("" when
// it does not).
func ccOffNote(c *cli.Context, cfg samplingsim.Config) string {
	if cfg.CC != nil && !cfg.CC.Enable {
		return fmt.Sprintf("congestion control: off (%s says congestion_control FALSE)\n", c.String("cc-conf"))
	}
	return ""
}

// compareCC runs --compare-cc and writes its table; it reports whether
// the flag was given.
func compareCC(c *cli.Context, src *fabricarg.Fabric, cfg samplingsim.Config, plan *samplingsim.Plan) (bool, error) {
	list := c.String("compare-cc")
	if list == "" {
		return false, nil
	}
	var settings []samplingsim.CCSetting
	for _, e := range strings.Split(list, ";") {
		if strings.TrimSpace(e) == "" {
			return true, fmt.Errorf("--compare-cc: an empty entry in %q (give e.g. 'off;on;opensm.conf')", list)
		}
		cc, err := readCC(e)
		if err != nil {
			return true, fmt.Errorf("--compare-cc: %w", err)
		}
		settings = append(settings, samplingsim.CCSetting{Name: strings.TrimSpace(e), CC: cc})
	}
	rows, err := samplingsim.CompareCC(src.Fabric, cfg, plan, settings)
	if err != nil {
		return true, err
	}
	out, err := outfile.Create(c.String("output_file"))
	if err != nil {
		return true, err
	}
	defer out.Abort()
	fmt.Fprintf(out, "%s, job %s, %d hosts\n", src.Name, plan.Jobs[0].Name, len(plan.Jobs[0].Hosts))
	if err := samplingsim.WriteCCTable(out, src.Fabric, rows); err != nil {
		return true, err
	}
	return true, out.Commit()
}
