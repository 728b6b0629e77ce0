package opensm

import (
	"orcs/deadlock"
)

// ComparePathSLHosts is the largest fabric on which Compare asks for the
// path SLs of the engines that assign them (see Options.PathSLs): one
// query per ordered pair of hosts, a few seconds for 32 hosts.
const ComparePathSLHosts = 32

// AssignsSLs reports whether the engine gives paths their own SLs.
func AssignsSLs(name string) bool {
	e, err := engines.Lookup(name)
	return err == nil && e.sls
}

// deadlockVerdict checks the routed fabric of res for credit loops: on the
// lanes res carries, else on one lane. It returns the compare column:
// "free (K VLs)", "loop", or "" when unknown: a loop on one lane by an
// engine that relies on SLs, whose SLs were not read.
func deadlockVerdict(res *Result, threads int) string {
	r, err := deadlock.Check(res.Fabric, res.Lanes, deadlock.Options{Threads: threads})
	if err != nil {
		return ""
	}
	// Without the path SLs a loop on one lane is no verdict for an engine
	// that separates paths by SL, nor for tables of an unknown engine
	// (Used "": the production tables of a comparison).
	if !r.Free() && res.Lanes == nil && (res.Used == "" || AssignsSLs(res.Used)) {
		return ""
	}
	return r.Short()
}
