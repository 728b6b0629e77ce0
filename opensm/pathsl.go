package opensm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"orcs/deadlock"
	"orcs/ib"
	"orcs/internal/workers"
	"orcs/lft"
)

// MaxPathSLHosts bounds the fabrics whose path SLs Route asks for: one
// saquery per ordered pair of hosts (the SA's multi-packet answers do not
// pass libumad2sim: a plain `saquery PR` lists 3 records), about 10 ms
// each, a few at a time.
const MaxPathSLHosts = 128

// pathSLQueries is how many saquery run at once (ibsim serves at most 10
// clients, OpenSM is one; a query mostly waits for the SA's answer).
const pathSLQueries = 8

// PathSLFile is the name of the saquery PathRecord output that Route
// writes with PathSLs (kept with Keep, beside OpenSM's dumps).
const PathSLFile = "saquery-pr.txt"

// waitSubnetUp waits until OpenSM, run without -o, has brought the subnet
// up: then its dumps are complete and its SA answers.
func (r *run) waitSubnetUp(ctx context.Context, logPath string) error {
	var failed error
	err := r.child.until(ctx, r.opt.Timeout, r.opt.Grace, func() bool {
		data, _ := os.ReadFile(logPath)
		s := ParseLog(data)
		if failed = r.smDown(s); failed != nil {
			return true
		}
		if s.NoEngine && r.opt.NoFallback {
			failed = fmt.Errorf("OpenSM: %s could not route the fabric (no_fallback)", r.opt.Engine)
			return true
		}
		return s.SubnetUp
	})
	if err == nil {
		err = failed
	}
	return err
}

// queryPathSLs asks the running OpenSM's SA for the PathRecord of every
// ordered pair of CA ports (base LIDs, from opensm-lfts.dump) and writes
// the answers, in pair order, to PathSLFile in the work directory.
func (r *run) queryPathSLs(ctx context.Context) error {
	if h := r.f.NumHosts(); h > MaxPathSLHosts {
		return fmt.Errorf("path SLs are asked one pair of hosts at a time: at most %d hosts, this fabric has %d", MaxPathSLHosts, h)
	}
	dump, err := os.ReadFile(r.path("dump/opensm-lfts.dump"))
	if err != nil {
		return fmt.Errorf("OpenSM wrote no opensm-lfts.dump: %w", err)
	}
	rt, err := ib.ReadLFTDump(dump, "opensm-lfts.dump")
	if err != nil {
		return err
	}
	saquery, err := lookTool("saquery")
	if err != nil {
		return &MissingError{Tool: "saquery", Package: "infiniband-diags"}
	}
	switchLID := map[int]bool{}
	for _, t := range rt.Switches {
		switchLID[int(t.LID)] = true
	}
	var cas []int
	seen := map[uint64]bool{}
	for lid := 1; lid <= 0xbfff; lid++ {
		if guid, _ := rt.LIDLabel(lid); guid != 0 && !switchLID[lid] && !seen[guid] {
			seen[guid] = true
			cas = append(cas, lid)
		}
	}
	type pair struct{ s, d int }
	var pairs []pair
	for _, s := range cas {
		for _, d := range cas {
			if s != d {
				pairs = append(pairs, pair{s, d})
			}
		}
	}
	out := make([][]byte, len(pairs))
	errs := make([]error, len(pairs))
	workers.Run(ctx, pathSLQueries, len(pairs), func(_, i int) error {
		out[i], errs[i] = r.saquery(ctx, saquery, "PR", "--slid", strconv.Itoa(pairs[i].s), "--dlid", strconv.Itoa(pairs[i].d))
		return nil
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var all bytes.Buffer
	for i, o := range out {
		if errs[i] != nil {
			return fmt.Errorf("saquery PR --slid %d --dlid %d: %w", pairs[i].s, pairs[i].d, errs[i])
		}
		all.Write(o)
	}
	return os.WriteFile(r.path(PathSLFile), all.Bytes(), 0o644)
}

// saquery runs one saquery against ibsim (MAD time-out 3 s, 60 s in all,
// up to three tries) and returns its output. The process is killed by its
// PID when ctx ends.
func (r *run) saquery(ctx context.Context, program string, args ...string) ([]byte, error) {
	var err error
	for try := 0; try < 3; try++ {
		qctx, cancel := context.WithTimeout(ctx, time.Minute)
		cmd := exec.CommandContext(qctx, program, append([]string{"-t", "3000"}, args...)...)
		cmd.Dir = r.work
		cmd.Env = r.clientEnv()
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		cancel()
		if err == nil {
			return stdout.Bytes(), nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		err = fmt.Errorf("%v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil, err
}

// pathLanes reads the SLs the SA gave and the SL2VL tables OpenSM dumped
// (if it did: with QoS or an engine that sets them) for the routed fabric.
// Ports of topo (the emulation read back) that f lacks, the aggregation
// nodes left out of its hosts, are skipped in both files.
func (r *run) pathLanes(f *lft.Fabric, topo *ib.Topology) (*deadlock.Lanes, error) {
	files := deadlock.Files{SL: r.path(PathSLFile), SL2VL: "none", LeftOut: leftOutPorts(f, topo)}
	source := "saquery PR (" + PathSLFile + ")"
	if logged, _ := logsSLs(r.opt.Engine); logged {
		files.SL = r.path(PathSLLogFile)
		source = "OpenSM's log (" + r.opt.Engine + "'s layer of every path, " + PathSLLogFile + ")"
	}
	if _, err := os.Stat(r.path("dump/opensm-sl2vl.dump")); err == nil {
		files.SL2VL = r.path("dump/opensm-sl2vl.dump")
	}
	l, err := deadlock.Load(f, files)
	if err != nil {
		return nil, err
	}
	l.SLSource = source
	if files.SL2VL != "none" {
		l.VLSource = "opensm-sl2vl.dump"
	}
	return l, nil
}

// leftOutPorts lists the CA ports of topo whose GUIDs f has no node for:
// the aggregation nodes that f leaves out of its hosts.
func leftOutPorts(f *lft.Fabric, topo *ib.Topology) []deadlock.LeftOutPort {
	if topo == nil {
		return nil
	}
	has := make(map[uint64]bool, len(f.Nodes))
	for _, n := range f.Nodes {
		has[n.GUID] = true
	}
	var out []deadlock.LeftOutPort
	for i := range topo.Nodes {
		n := &topo.Nodes[i]
		if n.Kind != lft.Host || has[n.GUID] {
			continue
		}
		for _, p := range n.Ports {
			out = append(out, deadlock.LeftOutPort{LID: p.LID, LMC: p.LMC, PortGUID: p.GUID})
		}
	}
	return out
}
