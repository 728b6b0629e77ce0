package opensm

import (
	"orcs/deadlock"
)

// ComparePathSLHosts is the largest fabric on which Compare asks for the
// path SLs of the engines that assign them (see Options.PathSLs): one
// query per ordered pair of hosts, a few seconds for 32 hosts.
const ComparePathSLHosts = 32

// PathSLHosts is the largest fabric on which the path SLs of engine are
// collected by Route (with Options.PathSLs) and cmp by Compare: unlimited
// (0) for an engine that logs them (dfsssp: one routing, one pass over the
// log), else max, as each ordered pair of hosts costs one saquery.
func PathSLHosts(name string, max int) int {
	if e, err := engines.Lookup(name); err == nil && e.logsSLs {
		return 0
	}
	return max
}

// WantPathSLs reports whether Route should collect the path SLs of engine
// on a fabric of hosts hosts, at most max hosts for engines asked one pair
// at a time (see PathSLHosts).
func WantPathSLs(name string, hosts, max int) bool {
	limit := PathSLHosts(name, max)
	return AssignsSLs(name) && (limit == 0 || hosts <= limit)
}

// CompareLoggedSLHosts is the largest fabric on which Compare has an
// engine that logs its path SLs (dfsssp) log them: the debug output slows
// OpenSM down several times (dfsssp on a 1056-host dragonfly: 210 s
// instead of 29 s), so larger fabrics get the verdict on one lane, and
// "?" where that loops; orcs route --keep has no limit.
const CompareLoggedSLHosts = 256

// comparePathSLs reports whether Compare collects the path SLs of engine
// on a fabric of hosts hosts.
func comparePathSLs(name string, hosts int) bool {
	if logged, _ := logsSLs(name); logged {
		return hosts <= CompareLoggedSLHosts
	}
	return WantPathSLs(name, hosts, ComparePathSLHosts)
}

// logsSLs reports whether the engine logs every path's SL, and the source
// file whose log level must be raised to debug for it.
func logsSLs(name string) (bool, string) {
	e, err := engines.Lookup(name)
	return err == nil && e.logsSLs, e.logModule
}

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

// DeadlockVerdict is the deadlock column of orcs compare for a routed
// fabric: "free (K VLs)", a loop's short verdict, or "" when unknown (a
// loop on one lane by an engine that separates paths by SLs not read).
func DeadlockVerdict(res *Result, threads int) string { return deadlockVerdict(res, threads) }

// ComparePathSLs reports whether compare (and whatif) collect the path SLs
// of engine on a fabric of hosts hosts (see CompareLoggedSLHosts and
// ComparePathSLHosts).
func ComparePathSLs(engine string, hosts int) bool { return comparePathSLs(engine, hosts) }
