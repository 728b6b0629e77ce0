package mapping

import (
	"fmt"
	"io"
	"strings"

	"orcs/analyze"
	"orcs/hostlist"
	"orcs/internal/outfile"
	"orcs/lft"
	"orcs/samplingsim"
)

// Allocation resolves a --hosts argument (a Slurm host list or @FILE; ""
// = every host, nil) into host indices of f, and returns the names as
// given, for the output files.
func Allocation(f *lft.Fabric, arg string) (hosts []int32, names []string, err error) {
	if arg == "" {
		return nil, nil, nil
	}
	if names, err = hostlist.Parse(arg); err == nil {
		hosts, err = analyze.ResolveHosts(f, names)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--hosts: %w", err)
	}
	return hosts, names, nil
}

// WriteFiles writes placement pl as a rank→host file to rankHosts, with
// the fabric's host names (samplingsim --mapping reads it back), and as a
// Slurm host file to slurm, with the names of HostNames(names); each is
// skipped when "". Both are created before either is written and renamed
// into place only when both are written, so a failure leaves neither.
func (p *Problem) WriteFiles(pl Placement, names []string, rankHosts, slurm string) error {
	fabricNames := make([]string, p.Fabric.NumHosts())
	for h := range fabricNames {
		fabricNames[h] = p.Fabric.HostName(h)
	}
	type output struct {
		path  string
		write func(io.Writer, Placement, []string) error
		names []string
		file  *outfile.File
	}
	var outs []*output
	for _, o := range []*output{{path: rankHosts, write: WriteRankHosts, names: fabricNames},
		{path: slurm, write: WriteSlurmHostfile, names: p.HostNames(names)}} {
		if o.path != "" {
			outs = append(outs, o)
		}
	}
	defer func() {
		for _, o := range outs {
			if o.file != nil {
				o.file.Abort()
			}
		}
	}()
	for _, o := range outs {
		f, err := outfile.Create(o.path)
		if err != nil {
			return err
		}
		o.file = f
	}
	for _, o := range outs {
		if err := o.write(o.file, pl, o.names); err != nil {
			return err
		}
	}
	for _, o := range outs {
		if err := o.file.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// HostNames returns the node name of every host of the fabric as the
// Slurm host file gives it: the name a --hosts list used for it when names
// is not nil (names[i] for p.Hosts[i], the Slurm names), else the fabric's
// name; a name that --names desc made from a node description, "H-" +
// description with blanks as "_" and ":PORT" for a port of a multi-port
// HCA ("H-node001_mlx5_0"), gives the description's first word, the
// machine's host name ("node001"; host names have no "_").
func (p *Problem) HostNames(names []string) []string {
	out := make([]string, p.Fabric.NumHosts())
	for h := range out {
		name := p.Fabric.HostName(h)
		if rest, ok := strings.CutPrefix(name, "H-"); ok && rest != "" {
			if i := strings.IndexAny(rest, "_:"); i > 0 {
				rest = rest[:i]
			}
			name = rest
		}
		out[h] = name
	}
	if len(names) == len(p.Hosts) {
		for i, h := range p.Hosts {
			out[h] = names[i]
		}
	}
	return out
}

// WriteRankHosts writes the placement as "RANK HOST" lines after a comment
// line (the format samplingsim --mapping reads).
func WriteRankHosts(w io.Writer, pl Placement, names []string) error {
	if _, err := fmt.Fprintln(w, "# rank host"); err != nil {
		return err
	}
	for r, h := range pl {
		if _, err := fmt.Fprintf(w, "%d %s\n", r, names[h]); err != nil {
			return err
		}
	}
	return nil
}

// WriteSlurmHostfile writes the placement as a Slurm host file: line i
// names the node of task i, as srun --distribution=arbitrary reads the
// file named by SLURM_HOSTFILE.
func WriteSlurmHostfile(w io.Writer, pl Placement, names []string) error {
	for _, h := range pl {
		if _, err := fmt.Fprintln(w, names[h]); err != nil {
			return err
		}
	}
	return nil
}

// Report is the comparison orcs map prints: every strategy run with its
// objective and time, the chosen placement's, and the simulated times.
type Report struct {
	Unit string
	Rows []Row
	// Chosen names the strategy whose placement is returned; Mode is how
	// placements compare.
	Chosen string
	Mode   Mode
	// Times adds each strategy's run time (which varies from run to run).
	Times bool
}

// Row is one placement of a Report.
type Row struct {
	Name    string
	Obj     Objective
	Seconds float64
	// SimTime is the simulated completion time ("" without --verify),
	// SimEnd the same as a number (0 without --verify).
	SimTime string
	SimEnd  samplingsim.Time
}

// Write prints the report as an aligned table, the chosen placement's row
// marked "<- chosen", a line that says what every column is, and the
// verdict as the last line.
func (r *Report) Write(w io.Writer) error {
	secs := func(v float64) string {
		if !r.Times {
			return ""
		}
		if v < 0 {
			return fmt.Sprintf(" %9s", "seconds")
		}
		return fmt.Sprintf(" %9.3f", v)
	}
	_, err := fmt.Fprintf(w, "%-10s %12s %10s %10s %16s %16s %12s%s %s\n", "placement", "congestion", "max_load", "leaf_up",
		"sum_sq_load", "sum_sq_job", "hops", secs(-1), "simulated")
	for _, row := range r.Rows {
		if err != nil {
			return err
		}
		sim := row.SimTime
		if sim == "" {
			sim = "-"
		}
		mark := ""
		if row.Name == r.Chosen {
			mark = "  <- chosen"
		}
		_, err = fmt.Fprintf(w, "%-10s %12d %10d %10d %16.0f %16.0f %12d%s %s%s\n", row.Name, row.Obj.Congestion, row.Obj.MaxLoad,
			row.Obj.LeafUp, row.Obj.SumSq, row.Obj.SumSqJob, row.Obj.Hops, secs(row.Seconds), sim, mark)
	}
	if err == nil {
		_, err = fmt.Fprintf(w, "(a cable's load: the %s of one level over it; congestion: the largest load of each level, summed over levels; "+
			"max_load: the largest load of any level; leaf_up: the largest load on a leaf switch's up-cable; "+
			"sum_sq_load: squared loads summed per level, then over levels; sum_sq_job: squared loads of all levels together, as levels that overlap in time share cables; "+
			"hops: cables walked by all routes; simulated: samplingsim's completion time of the job)\n\n%s\n", r.Unit, r.Verdict())
	}
	return err
}
