package samplingsim

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"

	"orcs/infile"
	"orcs/lft"
)

// AllocNames lists the host allocation rules of Allocate.
var AllocNames = []string{"contiguous", "interleaved", "parity"}

// Allocate splits hosts (in order) between jobs jobs:
//
//   - contiguous: job 0 gets the first ⌈n/jobs⌉ hosts, job 1 the next, …;
//   - interleaved: host i goes to job i mod jobs;
//   - parity: for two jobs, the thesis's rule (§4.4): host i goes to job 0
//     when (i+1)² has an even number of 1 bits in binary, else to job 1
//     (on 4608 hosts: 2172 and 2436, an irregular but even spread).
func Allocate(rule string, hosts []int32, jobs int) ([][]int32, error) {
	if jobs < 1 {
		return nil, fmt.Errorf("allocation for %d jobs", jobs)
	}
	out := make([][]int32, jobs)
	switch rule {
	case "contiguous":
		per := (len(hosts) + jobs - 1) / jobs
		for i, h := range hosts {
			out[i/per] = append(out[i/per], h)
		}
	case "interleaved":
		for i, h := range hosts {
			out[i%jobs] = append(out[i%jobs], h)
		}
	case "parity":
		if jobs > 2 {
			return nil, fmt.Errorf("the parity allocation splits hosts between 2 jobs, not %d", jobs)
		}
		for i, h := range hosts {
			sq := uint64(i+1) * uint64(i+1)
			j := bits.OnesCount64(sq) & 1
			if j < jobs {
				out[j] = append(out[j], h)
			}
		}
	default:
		return nil, fmt.Errorf("unknown allocation %q (known: %s)", rule, strings.Join(AllocNames, ", "))
	}
	return out, nil
}

// ReadMapping reads a mapping of ranks to hosts: one host name per line in
// rank order, or "RANK HOST" lines in any order covering ranks 0 … n−1.
// Blank lines and lines starting with # are ignored. Unknown hosts, hosts
// named twice and missing ranks are errors that name the file and line.
func ReadMapping(r io.Reader, name string, f *lft.Fabric) ([]int32, error) {
	var hosts []int32
	byRank := map[int]int32{}
	seen := map[int32]int{}
	sc := bufio.NewScanner(r)
	line, ranked := 0, -1
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		isRanked := len(fields) == 2
		if len(fields) > 2 {
			return nil, infile.Errorf(name, line, "want HOST or RANK HOST, got %q", text)
		}
		if ranked >= 0 && isRanked != (ranked == 1) {
			return nil, infile.Errorf(name, line, "mixes HOST lines and RANK HOST lines")
		}
		ranked = 0
		if isRanked {
			ranked = 1
		}
		hostName := fields[len(fields)-1]
		v, ok := f.NodeByName(hostName)
		if !ok || f.HostIndex(v) < 0 {
			return nil, infile.Errorf(name, line, "unknown host %q", hostName)
		}
		h := f.HostIndex(v)
		if prev, dup := seen[h]; dup {
			return nil, infile.Errorf(name, line, "host %s already mapped on line %d", hostName, prev)
		}
		seen[h] = line
		if !isRanked {
			hosts = append(hosts, h)
			continue
		}
		rank, err := strconv.Atoi(fields[0])
		if err != nil || rank < 0 {
			return nil, infile.Errorf(name, line, "bad rank %q", fields[0])
		}
		if _, dup := byRank[rank]; dup {
			return nil, infile.Errorf(name, line, "rank %d mapped twice", rank)
		}
		byRank[rank] = h
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if ranked == 1 {
		hosts = make([]int32, len(byRank))
		for r := range hosts {
			h, ok := byRank[r]
			if !ok {
				return nil, fmt.Errorf("%s: rank %d is not mapped (ranks must be 0 … %d)", name, r, len(byRank)-1)
			}
			hosts[r] = h
		}
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("%s: no hosts", name)
	}
	return hosts, nil
}
