package samplingsim

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"orcs/infile"
	"orcs/lft"
	"orcs/samplingsim/plan"
)

// ParseTime parses a duration such as "50ns", "2us", "1.5ms" or "1h30m"
// into simulated time (picoseconds, exactly: "0.5ns" is 500 ps); a bare
// number is nanoseconds. Units: ps, ns, us (µs), ms, s, m, h. A duration
// finer than a picosecond, longer than LongestTime, or not a finite number is
// an error.
func ParseTime(s string) (Time, error) {
	bad := func(why string) (Time, error) {
		return 0, fmt.Errorf("%q: %s", s, why)
	}
	t := strings.TrimSpace(s)
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" {
		return bad("want a duration such as 50ns, 2us or 1ms")
	}
	if t == "0" {
		return 0, nil
	}
	total := new(big.Rat)
	bare := true
	for t != "" {
		i := 0
		for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.' || t[i] == 'e' || t[i] == 'E' ||
			(i > 0 && (t[i] == '-' || t[i] == '+') && (t[i-1] == 'e' || t[i-1] == 'E'))) {
			i++
		}
		num := t[:i]
		t = t[i:]
		j := 0
		for j < len(t) && !(t[j] >= '0' && t[j] <= '9' || t[j] == '.') {
			j++
		}
		unit := t[:j]
		t = t[j:]
		if num == "" || len(num) > 40 {
			return bad("want a duration such as 50ns, 2us or 1ms")
		}
		if k := strings.IndexAny(num, "eE"); k >= 0 {
			// big.Rat would compute 10^exp exactly: refuse absurd exponents
			// before it does.
			if e, err := strconv.Atoi(num[k+1:]); err != nil || e > 40 || e < -40 {
				return bad("exponent out of range")
			}
		}
		v, ok := new(big.Rat).SetString(num)
		if !ok {
			return bad("want a duration such as 50ns, 2us or 1ms")
		}
		var ps int64
		switch unit {
		case "":
			if !bare || t != "" {
				return bad("a number without a unit must stand alone (it is nanoseconds)")
			}
			ps = int64(Nanosecond)
		case "ps":
			ps = 1
		case "ns":
			ps = int64(Nanosecond)
		case "us", "µs", "μs":
			ps = int64(Microsecond)
		case "ms":
			ps = int64(Millisecond)
		case "s":
			ps = int64(Second)
		case "m":
			ps = 60 * int64(Second)
		case "h":
			ps = 3600 * int64(Second)
		default:
			return bad(fmt.Sprintf("unknown unit %q (known: ps, ns, us, ms, s, m, h)", unit))
		}
		bare = false
		total.Add(total, v.Mul(v, new(big.Rat).SetInt64(ps)))
		if total.Cmp(maxTimeRat) > 0 {
			return bad("longer than the largest simulated time, 2^63 ps (about 106 days)")
		}
	}
	if !total.IsInt() {
		return bad("finer than the simulator's resolution of 1 ps")
	}
	v := total.Num().Int64()
	if neg {
		v = -v
	}
	return v, nil
}

// LongestTime is the largest simulated time, about 106 days.
const LongestTime = plan.LongestTime

// maxTimeRat is LongestTime as a rational, for ParseTime.
var maxTimeRat = new(big.Rat).SetInt64(int64(LongestTime))

// JobsOptions describes the jobs of a run as a command line gives them.
type JobsOptions struct {
	// Workload is the primary job's workload spec; Background, if not
	// empty, a second job's on the other hosts, shared by the rule Alloc
	// (see Allocate).
	Workload, Background, Alloc string
	// Hosts limits the run to the first Hosts hosts (0 = all).
	Hosts int
	// Allocation, when not nil, limits the run to these hosts (host
	// indices, in order), as a job's allocation does; it replaces Hosts.
	Allocation []int32
	// Mapping, if not empty, is a file mapping the primary job's ranks to
	// hosts (see ReadMapping); the background job keeps the rest.
	Mapping string
}

// Jobs allocates the hosts of f to the primary job (and the background
// job) and applies the mapping file. A job is named after its workload.
func Jobs(f *lft.Fabric, opt JobsOptions) ([]JobSpec, error) {
	n := f.NumHosts()
	if opt.Hosts < 0 {
		return nil, fmt.Errorf("--hosts %d: want a number of hosts ≥ 1, or a host list", opt.Hosts)
	}
	if opt.Hosts > 0 {
		if opt.Hosts > n {
			return nil, fmt.Errorf("--hosts %d: the fabric has only %d hosts", opt.Hosts, n)
		}
		n = opt.Hosts
	}
	hosts := make([]int32, n)
	for i := range hosts {
		hosts[i] = int32(i)
	}
	if opt.Allocation != nil {
		hosts = append([]int32(nil), opt.Allocation...)
	}
	name := func(spec string) string { return strings.SplitN(spec, ":", 2)[0] }
	jobs := []JobSpec{{Name: name(opt.Workload), Workload: opt.Workload, Hosts: hosts}}
	if bg := opt.Background; bg != "" {
		parts, err := Allocate(opt.Alloc, hosts, 2)
		if err != nil {
			return nil, err
		}
		bgName := name(bg)
		if bgName == jobs[0].Name {
			bgName += "-background"
		}
		jobs[0].Hosts = parts[0]
		jobs = append(jobs, JobSpec{Name: bgName, Workload: bg, Hosts: parts[1]})
	}
	if opt.Mapping == "" {
		return jobs, nil
	}
	fh, done, err := infile.Open(opt.Mapping)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := infile.CheckText(fh, infile.Name(opt.Mapping)); err != nil {
		return nil, err
	}
	mapped, err := ReadMapping(fh, infile.Name(opt.Mapping), f)
	if err != nil {
		return nil, err
	}
	jobs[0].Hosts = mapped
	if len(jobs) > 1 {
		// The background job keeps its hosts minus those the mapping took.
		taken := make(map[int32]bool, len(mapped))
		for _, h := range mapped {
			taken[h] = true
		}
		var rest []int32
		for _, h := range jobs[1].Hosts {
			if !taken[h] {
				rest = append(rest, h)
			}
		}
		jobs[1].Hosts = rest
	}
	return jobs, nil
}
