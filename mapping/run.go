package mapping

import (
	"fmt"
	"strings"
	"time"

	"orcs/infile"
	"orcs/lft"
	"orcs/patterns"
	"orcs/samplingsim"
)

// Job names the job's communication as a command line gives it.
type Job struct {
	// Pattern is an ORCS pattern name or file:PATH ("" when Traffic is
	// given).
	Pattern string
	// Traffic is a traffic matrix CSV file (see ParseTraffic).
	Traffic string
	// Ranks is the job's size for a named pattern (0: every host of the
	// allocation); a pattern file or matrix has at least its largest rank + 1.
	Ranks int
	// Grid is a --grid spec ("" = none; neighbor2d and neighbor3d give
	// their own).
	Grid string
}

// LoadComm reads the job's communication for an allocation of hosts hosts
// and returns it with the ranks' grid (nil if unknown).
func LoadComm(j Job, hosts int) (*Comm, []int, error) {
	var grid []int
	if j.Grid != "" {
		g, err := ParseGrid(j.Grid)
		if err != nil {
			return nil, nil, err
		}
		grid = g
	}
	if (j.Pattern == "") == (j.Traffic == "") {
		return nil, nil, fmt.Errorf("give the job's communication: -p PATTERN, -p file:PATH or --traffic FILE (one of them)")
	}
	if j.Traffic != "" {
		r, closeFn, err := infile.Open(j.Traffic)
		if err != nil {
			return nil, nil, err
		}
		defer closeFn()
		if err := infile.CheckText(r, infile.Name(j.Traffic)); err != nil {
			return nil, nil, err
		}
		c, err := ParseTraffic(r, infile.Name(j.Traffic))
		if err != nil {
			return nil, nil, err
		}
		if j.Ranks > c.Ranks {
			c.Ranks = j.Ranks
		}
		return c, grid, nil
	}
	if path, ok := patterns.FilePath(j.Pattern); ok {
		levels, err := patterns.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		n := j.Ranks
		for _, lv := range levels {
			for _, p := range lv {
				n = max(n, int(p.Src)+1, int(p.Dst)+1)
			}
		}
		c, err := FromLevels(levels, n)
		return c, grid, err
	}
	n := j.Ranks
	if n == 0 {
		n = hosts
	}
	if j.Pattern == "ptrnvsptrn" {
		return nil, nil, fmt.Errorf("-p ptrnvsptrn: orcs map places one job; give the two patterns' communication as a pattern file (-p file:PATH) or a traffic matrix (--traffic)")
	}
	c, err := PatternComm(patterns.Spec{Name: j.Pattern}, n)
	if err != nil {
		return nil, nil, err
	}
	if grid == nil && (j.Pattern == "neighbor2d" || j.Pattern == "neighbor3d") {
		dims := patterns.Dims(n, int(j.Pattern[len("neighbor")]-'0'))
		for i := len(dims) - 1; i >= 0; i-- { // the last coordinate varies fastest
			grid = append(grid, dims[i])
		}
	}
	return c, grid, nil
}

// JobProblem reads the job's communication for the allocation alloc of
// fabric f (nil: every host) and prepares the problem.
func JobProblem(f *lft.Fabric, alloc []int32, j Job) (*Problem, error) {
	hosts := f.NumHosts()
	if alloc != nil {
		hosts = len(alloc)
	}
	c, grid, err := LoadComm(j, hosts)
	if err != nil {
		return nil, err
	}
	p, err := NewProblem(f, c, alloc)
	if err != nil {
		return nil, err
	}
	p.Grid = grid
	return p, nil
}

// Help lists the strategies with their descriptions, one per line.
func Help() string {
	var b strings.Builder
	for _, n := range Names() {
		fmt.Fprintf(&b, "%-7s %s\n", n, Doc(n))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Options says what Run does besides the chosen strategy.
type Options struct {
	// Strategy is the strategy whose placement Run returns.
	Strategy string
	// Compare also runs and reports every other strategy.
	Compare bool
	// Times reports each strategy's run time.
	Times bool
	// Verify, when not nil, simulates the linear and the chosen placement
	// (every placement with Compare) with samplingsim.
	Verify *Verify
	// Progress, when not nil, is called as each step starts (placing with
	// a strategy, simulating a placement) with its name, the steps done
	// and all steps, and once at the end with done = total.
	Progress func(step string, done, total int)
}

// Run places the job with o.Strategy and returns the report (the linear
// placement first, the chosen one last) and the chosen placement.
func (p *Problem) Run(o Options) (*Report, Placement, error) {
	if _, err := Lookup(o.Strategy); err != nil {
		return nil, nil, err
	}
	if p.Budget < 0 {
		return nil, nil, fmt.Errorf("--budget %d: want 0 (the default budget) or more candidate swaps", p.Budget)
	}
	if m := MaxBudget(p.Comm.Ranks); p.Budget > m {
		return nil, nil, fmt.Errorf("--budget %d: at most %d candidate swaps for %d ranks (ten times the default, %d)", p.Budget, m, p.Comm.Ranks, DefaultBudget(p.Comm.Ranks))
	}
	names := []string{"linear"}
	if o.Compare {
		names = Names()
	}
	if o.Strategy != "linear" && !o.Compare {
		names = append(names, o.Strategy)
	}
	rep := &Report{Unit: p.Comm.Unit, Times: o.Times, Chosen: o.Strategy, Mode: p.Mode}
	var chosen Placement
	steps := len(names)
	if o.Verify != nil {
		steps *= 2
	}
	step := 0
	progress := func(what string) {
		if o.Progress != nil {
			o.Progress(what, step, steps)
		}
		step++
	}
	for _, name := range names {
		t := time.Now()
		progress("placing with " + name)
		pl, err := p.Place(name)
		if err != nil {
			if o.Compare && name != o.Strategy {
				continue // e.g. tile without a grid
			}
			return nil, nil, err
		}
		row := Row{Name: name, Seconds: time.Since(t).Seconds(), Obj: p.Score(pl)}
		if o.Verify != nil {
			progress("simulating the " + name + " placement")
			end, err := p.Simulate(pl, *o.Verify)
			if err != nil {
				return nil, nil, fmt.Errorf("--verify of %s: %w", name, err)
			}
			row.SimTime, row.SimEnd = samplingsim.FormatTime(end), end
		}
		rep.Rows = append(rep.Rows, row)
		if name == o.Strategy {
			chosen = pl
		}
	}
	if o.Progress != nil {
		o.Progress("done", steps, steps)
	}
	return rep, chosen, nil
}
