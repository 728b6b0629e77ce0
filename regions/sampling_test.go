package regions

import (
	"testing"

	"orcs/gen"
	"orcs/lft"
	"orcs/samplingsim"
)

// simulate runs samplingsim on spec with one job of workload on every host,
// in windows of window.
func simulate(t *testing.T, spec, workload string, window samplingsim.Time) (*lft.Fabric, *samplingsim.Result) {
	t.Helper()
	f, err := gen.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]int32, f.NumHosts())
	for i := range hosts {
		hosts[i] = int32(i)
	}
	cfg := samplingsim.DefaultConfig()
	cfg.Window = window
	plan, err := samplingsim.BuildPlan(f, []samplingsim.JobSpec{{Workload: workload, Hosts: hosts}}, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	res, err := samplingsim.Run(f, cfg, plan)
	if err != nil {
		t.Fatal(err)
	}
	return f, res
}

// largest returns the size of the largest region above negligible.
func largest(w WindowRegions) (size int, sev Severity) {
	for _, r := range w.Regions {
		if r.Severity() > Negligible && len(r.Cables) > size {
			size, sev = len(r.Cables), r.Severity()
		}
	}
	return size, sev
}

// A hot spot (every other host sends to host 0 at 2 Gb/s each, 511 senders
// into one 100 Gb/s link) grows a congestion tree window by window: the
// largest region above negligible is empty at first, then grows through
// at least three sizes, to at least five times its first size.
func TestSamplingsimHotSpotGrows(t *testing.T) {
	f, res := simulate(t, "kary:k=8,n=3", "hotspot:hot=0,msgs=20,gbps=2", 5*samplingsim.Microsecond)
	s := fromSamplingsim(res)
	p := MonetParams()
	p.Sigma = 4 // a 512-host tree: the first congested cables are few
	out, err := ExtractFabric(f, "kary", nil, p, s, 2)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	first, peak, steps := 0, 0, 0
	for i, w := range out.Windows {
		n, sev := largest(w)
		sizes = append(sizes, n)
		t.Logf("window %d (t=%.1f µs): %d regions, largest above negligible %d cables (%s)", i, w.Time, len(w.Regions), n, sev)
		if n > peak {
			if peak > 0 || n > 0 {
				steps++
			}
			peak = n
		}
		if first == 0 {
			first = n
		}
	}
	if sizes[0] != 0 {
		t.Errorf("a region above negligible before the hot spot built up: %v", sizes)
	}
	if steps < 3 || first == 0 || peak < 5*first {
		t.Errorf("largest region sizes %v: want growth through at least 3 sizes to at least 5× the first (first %d, peak %d, %d steps)", sizes, first, peak, steps)
	}
}

// A ring exchange of 1 MiB messages loads the fabric evenly: no cable
// waits for credits long enough to form a region above negligible.
func TestSamplingsimNoHotSpot(t *testing.T) {
	f, res := simulate(t, "kary:k=8,n=3", "ring:size=1048576", 5*samplingsim.Microsecond)
	if res.Packets < 100000 {
		t.Fatalf("only %d packets: the ring is too light to test anything", res.Packets)
	}
	s := fromSamplingsim(res)
	p := MonetParams()
	p.Sigma = 4
	out, err := ExtractFabric(f, "kary", nil, p, s, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Windows) < 5 {
		t.Fatalf("%d windows", len(out.Windows))
	}
	for i, w := range out.Windows {
		if n, sev := largest(w); n > 0 {
			t.Errorf("window %d: a %s region of %d cables", i, sev, n)
		}
	}
}

// fromSamplingsim returns the credit-stall percentages of every link in
// every window of a packet simulation as the run itself holds them
// (samplingsim.Result.StallPercent), the window start in µs as the time.
func fromSamplingsim(res *samplingsim.Result) Series {
	s := Series{Source: SourceSamplingsim}
	for w := range res.Windows() {
		from, _ := res.WindowSpan(w)
		s.Times = append(s.Times, float64(from)/float64(samplingsim.Microsecond))
		s.Values = append(s.Values, res.StallPercent(w))
	}
	return s
}
