package samplingsim

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"orcs/lft"
)

// ParseTime parses a duration such as "50ns", "2us" or "1.5ms" into
// simulated time; a bare number is nanoseconds.
func ParseTime(s string) (Time, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return Time(v * 1000), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q: want a duration such as 50ns, 2us or 1ms", s)
	}
	return Time(d.Nanoseconds()) * Nanosecond, nil
}

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
	fh, err := os.Open(opt.Mapping)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	mapped, err := ReadMapping(fh, opt.Mapping, f)
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
