package opensm

import (
	"slices"

	"orcs/deadlock"
)

// slEngines are the engines that give paths service levels of their own
// and rely on them (and on SL-to-VL tables) to avoid credit loops; the
// others route every path on SL 0.
var slEngines = []string{"lash", "dfsssp", "nue", "torus-2QoS"}

// ComparePathSLHosts is the largest fabric on which Compare asks for the
// path SLs of the engines that assign them (see Options.PathSLs): one
// query per ordered pair of hosts, a few seconds for 32 hosts.
const ComparePathSLHosts = 32

// AssignsSLs reports whether the engine gives paths their own SLs.
func AssignsSLs(engine string) bool { return slices.Contains(slEngines, engine) }

// deadlockVerdict checks the routed fabric of res for credit loops: on the
// lanes res carries, else on one lane. It returns the compare column:
// "free (K VLs)", "loop", or "" when unknown: a loop on one lane by an
// engine that relies on SLs, whose SLs were not read.
func deadlockVerdict(res *Result, threads int) string {
	r, err := deadlock.Check(res.Fabric, res.Lanes, deadlock.Options{Threads: threads})
	if err != nil {
		return ""
	}
	if !r.Free() && res.Lanes == nil && AssignsSLs(res.Used) {
		return ""
	}
	return r.Short()
}
