package analyze

import (
	"fmt"
	"io"

	"orcs/internal/plural"
	"orcs/lft"
	"orcs/metrics"
	"orcs/patterns"
)

// Quality is the congestion of the all-pairs route set of some hosts
// (ORCS's route quality): every ordered pair of them sends one message at
// once, as one level.
type Quality struct {
	// Hosts is how many hosts take part; Routes = Hosts·(Hosts−1).
	Hosts  int
	Routes int64
	// LinksUsed counts the links that carry at least one route, of Links.
	LinksUsed, Links int
	// MaxLoad is the largest number of routes over one link; MeanLoad the
	// mean over the links used.
	MaxLoad  int64
	MeanLoad float64
	// Result holds the congestion of every route (the largest load on its
	// links) as hist_max_cong weights.
	Result *metrics.Result

	fabric *lft.Fabric
}

// RouteQuality walks the routes between every ordered pair of hosts (host
// indices) and measures their congestion over the whole route set. A pair
// that does not route is an error (a *RouteError).
func RouteQuality(f *lft.Fabric, hosts []int32, threads int) (*Quality, error) {
	if check := f.CheckRoutes(hosts, 1, threads); !check.OK() {
		return nil, &RouteError{Check: check}
	}
	f.PrepareWalks(int64(len(hosts)) * int64(len(hosts)-1))
	var walk Walker
	walk.Init(f, true)
	level := make(patterns.Level, 0, len(hosts))
	perm := append([]int32(nil), hosts...)
	// One source at a time keeps memory small; loads are summed per link.
	for s := range hosts {
		level = level[:0]
		for d := range hosts {
			if s != d {
				level = append(level, patterns.Pair{Src: int32(s), Dst: int32(d)})
			}
		}
		walk.Level(level, perm)
	}
	q := &Quality{Hosts: len(hosts), Routes: int64(len(hosts)) * int64(len(hosts)-1),
		Links: len(f.Links), Result: &metrics.Result{}, fabric: f}
	var sum int64
	for _, c := range walk.Sum {
		if c > 0 {
			q.LinksUsed++
			sum += c
			q.MaxLoad = max(q.MaxLoad, c)
		}
	}
	q.MeanLoad = float64(sum) / float64(max(q.LinksUsed, 1))
	// Congestion of each route over the whole route set.
	var links []int32
	for s := range hosts {
		for d := range hosts {
			if s == d {
				continue
			}
			links, _ = f.AppendRoute(links[:0], hosts[s], hosts[d])
			var m int64
			for _, l := range links {
				m = max(m, walk.Sum[l])
			}
			q.Result.AddWeight(int32(m))
		}
	}
	return q, nil
}

// Write prints the route quality: two summary lines, then the congestion
// histogram in hist_max_cong's lines.
func (q *Quality) Write(w io.Writer) error {
	fmt.Fprintf(w, "Route quality of %s between %s\n", plural.N(q.Routes, "route"), plural.N(q.Hosts, "host"))
	fmt.Fprintf(w, "links used: %d of %d; max link load: %d; mean load of used links: %f\n",
		q.LinksUsed, q.Links, q.MaxLoad, q.MeanLoad)
	m, err := metrics.Lookup("hist_max_cong")
	if err != nil {
		return err
	}
	return m.Text(w, q.Result, q.fabric)
}
