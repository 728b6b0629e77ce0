package regions

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/fabricarg"
	"orcs/gen"
	"orcs/infile"
	"orcs/lft"
	"orcs/samplingsim"
)

func loadDot(t testing.TB, name string) *lft.Fabric {
	t.Helper()
	src, err := fabricarg.Load(fabricarg.Args{Input: filepath.Join("..", "testdata", name), Need: fabricarg.Topology})
	if err != nil {
		t.Fatal(err)
	}
	return src.Fabric
}

func linkOf(t *testing.T, f *lft.Fabric, from, to string) int32 {
	t.Helper()
	u, _ := f.NodeByName(from)
	v, _ := f.NodeByName(to)
	for _, l := range f.OutLinks(u) {
		if f.Links[l].To == v {
			return l
		}
	}
	t.Fatalf("no cable %s -> %s", from, to)
	return -1
}

// The shipped example: two windows, the values where the rows put them,
// and by hand the regions of window 120 (σ 3): the spines' four cables
// into S0_0 (29.5–31) chain; S0_0 -> H0 (42, 11 above) is alone, too small,
// and joins the neighbour of closest mean: (42 + 121)/5 = 32.6, high.
func TestReadCSV(t *testing.T) {
	f := loadDot(t, "ft16.dot")
	data, err := os.ReadFile(filepath.Join(fixtures, "ft16-stalls.csv"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadCSV(bytes.NewReader(data), "stalls.csv", f)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Times) != 2 || s.Times[0] != 60 || s.Times[1] != 120 {
		t.Fatalf("times %v", s.Times)
	}
	if v := s.Values[0][linkOf(t, f, "S0_0", "H0")]; v != 40 {
		t.Errorf("60 S0_0->H0 %v", v)
	}
	if v := s.Values[1][linkOf(t, f, "S1_2", "S0_0")]; v != 29.5 {
		t.Errorf("120 S1_2->S0_0 %v", v)
	}
	if v := s.Values[0][linkOf(t, f, "S1_2", "S0_0")]; v != 0 {
		t.Errorf("a cable without a row: %v", v)
	}
	p := MonetParams()
	p.Sigma = 3
	res, err := ExtractFabric(f, "ft16", nil, p, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := res.Windows[1]
	if len(w.Regions) != 2 || len(w.Regions[1].Cables) != 5 || math.Abs(w.Regions[1].Mean-32.6) > 1e-9 || w.Regions[1].Severity() != High {
		t.Fatalf("window 120: %+v", w.Regions)
	}
}

func TestReadCSVErrors(t *testing.T) {
	f := loadDot(t, "ft16.dot")
	for _, tc := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"columns", "1,S0_0,,H0,40\n", 1, "5 columns"},
		{"time", "x,S0_0,,H0,,40\n", 1, "bad time"},
		{"stall", "1,S0_0,,H0,,NaN\n", 1, "bad stall_percent"},
		{"over 100", "1,S0_0,,H0,,400\n", 1, "from 0 to 100"},
		{"negative", CSVHeader + "\n1,S0_0,,H0,,-4\n", 2, "from 0 to 100"},
		{"node", CSVHeader + "\n1,S9,,H0,,1\n", 2, "unknown node"},
		{"no cable", "1,H0,,H1,,1\n", 1, "no cable"},
		{"port", "1,S0_0,x,H0,,1\n", 1, "bad port"},
		{"twice", "1,S0_0,,H0,,1\n2,S0_0,,H0,,1\n1,S0_0,,H0,,3\n", 3, "given twice"},
		{"empty", CSVHeader + "\n", 0, "no rows"},
	} {
		_, err := ReadCSV(strings.NewReader(tc.text), "s.csv", f)
		var pe *infile.ParseError
		if !errors.As(err, &pe) || pe.Line != tc.line || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "s.csv") {
			t.Errorf("%s: %v, want s.csv:%d … %s", tc.name, err, tc.line, tc.msg)
		}
	}
}

// Ports tell parallel cables apart; without them two cables between the
// same nodes are ambiguous.
func TestReadCSVPorts(t *testing.T) {
	b := lft.NewBuilder()
	a, c, h := b.Node("S1", lft.Switch), b.Node("S2", lft.Switch), b.Node("H0", lft.Host)
	b.Link(a, c, 1, 1)
	b.Link(a, c, 2, 2)
	b.Link(c, a, 1, 1)
	b.Link(c, a, 2, 2)
	b.Link(h, a, 1, 3)
	b.Link(a, h, 3, 1)
	f, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadCSV(strings.NewReader("0,S1,2,S2,2,7\n"), "p.csv", f)
	if err != nil || s.Values[0][1] != 7 || s.Values[0][0] != 0 {
		t.Errorf("%v %v", s.Values, err)
	}
	if _, err := ReadCSV(strings.NewReader("0,S1,,S2,,7\n"), "p.csv", f); err == nil || !strings.Contains(err.Error(), "give the ports") {
		t.Errorf("ambiguous: %v", err)
	}
}

// The analyzer's loads: 100 · load / the largest load. A gather to H0 of
// 16 ranks loads S0_0 -> H0 with 15 routes (100 %) and H1 -> S0_0 with one
// (6.67 %).
func TestReadAnalyzerCSV(t *testing.T) {
	f := loadDot(t, "ft16.dot")
	data, err := os.ReadFile(filepath.Join(fixtures, "ft16-gather-loads.csv"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadAnalyzerCSV(bytes.NewReader(data), "loads.csv", f)
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Values[0][linkOf(t, f, "S0_0", "H0")]; v != 100 {
		t.Errorf("S0_0 -> H0: %v", v)
	}
	if v := s.Values[0][linkOf(t, f, "H1", "S0_0")]; math.Abs(v-100.0/15) > 1e-12 {
		t.Errorf("H1 -> S0_0: %v", v)
	}
	bad := strings.Replace(string(data), "1,S0_0,H0,0,0,15,1", "1,S0_0,H9,0,0,15,1", 1)
	if _, err := ReadAnalyzerCSV(strings.NewReader(bad), "loads.csv", f); err == nil || !strings.Contains(err.Error(), "loads.csv:3") {
		t.Errorf("another fabric's loads: %v", err)
	}
	if _, err := ReadAnalyzerCSV(strings.NewReader("run,value\n1,2\n"), "x.csv", f); err == nil || !strings.Contains(err.Error(), "x.csv:1") {
		t.Errorf("not a get_cable_cong CSV: %v", err)
	}
}

// The JSON of orcs samplingsim --json gives the same stall percentages as
// the simulation itself (the fixture is that run: kary:k=4,n=3,
// hotspot:hot=0,msgs=4,gbps=20, windows of 4 µs).
func TestReadSamplingsimJSON(t *testing.T) {
	f, err := gen.Generate("kary:k=4,n=3")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(fixtures, "k4n3-hotspot-samplingsim.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadSamplingsimJSON(bytes.NewReader(data), "run.json", f)
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]int32, f.NumHosts())
	for i := range hosts {
		hosts[i] = int32(i)
	}
	cfg := samplingsim.DefaultConfig()
	cfg.Window = 4 * samplingsim.Microsecond
	plan, err := samplingsim.BuildPlan(f, []samplingsim.JobSpec{{Workload: "hotspot:hot=0,msgs=4,gbps=20", Hosts: hosts}}, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	res, err := samplingsim.Run(f, cfg, plan)
	if err != nil {
		t.Fatal(err)
	}
	want := fromSamplingsim(res)
	if len(want.Values) != len(got.Values) {
		t.Fatalf("%d windows, the run has %d", len(got.Values), len(want.Values))
	}
	nonzero := 0
	for w := range want.Values {
		for l := range want.Values[w] {
			if math.Abs(want.Values[w][l]-got.Values[w][l]) > 1e-9 {
				t.Fatalf("window %d link %d: %v, the run says %v", w, l, got.Values[w][l], want.Values[w][l])
			}
			if want.Values[w][l] > 0 {
				nonzero++
			}
		}
	}
	if nonzero < 10 {
		t.Errorf("only %d stalled link-windows: the fixture tests nothing", nonzero)
	}
	other, _ := gen.Generate("kary:k=2,n=3")
	if _, err := ReadSamplingsimJSON(bytes.NewReader(data), "run.json", other); err == nil {
		t.Error("a run of another fabric accepted")
	}
}

func FuzzReadCSV(f *testing.F) {
	fab := loadDot(f, "ft16.dot")
	data, err := os.ReadFile(filepath.Join(fixtures, "ft16-stalls.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("1,S0_0,1,H0,1,5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadCSV(bytes.NewReader(data), "fuzz.csv", fab)
		if err != nil {
			var pe *infile.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		if len(s.Times) == 0 || len(s.Values[0]) != len(fab.Links) {
			t.Fatalf("%d windows", len(s.Times))
		}
	})
}

func FuzzReadAnalyzerCSV(f *testing.F) {
	fab := loadDot(f, "ft16.dot")
	data, err := os.ReadFile(filepath.Join(fixtures, "ft16-gather-loads.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadAnalyzerCSV(bytes.NewReader(data), "fuzz.csv", fab)
		if err != nil {
			var pe *infile.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		for _, v := range s.Values[0] {
			if v < 0 || v > 100 || v != v {
				t.Fatalf("value %v", v)
			}
		}
	})
}

func FuzzReadSamplingsimJSON(f *testing.F) {
	fab, err := gen.Generate("kary:k=4,n=3")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"windows":[{"index":0,"start_us":0,"end_us":4,"links":[{"link":1,"from":"S0_0","to":"H0","truth_stalled_ns":5}]}]}`))
	f.Add([]byte(`{"windows":[]}`))
	f.Add([]byte(`{"jobs":[{"a":[1,{"b":null}]}],"windows":[{"index":0,"start_us":0,"end_us":4,"links":[]}],"diagnosis":{"x":"y"},"windows":[]}`))
	if data, err := os.ReadFile(filepath.Join("..", "report", "testdata", "samplingsim-ft64.json")); err == nil && len(data) < 1<<20 {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSamplingsimJSON(bytes.NewReader(data), "fuzz.json", fab)
		if err != nil {
			var pe *infile.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		for _, w := range s.Values {
			for _, v := range w {
				if v < 0 || v != v {
					t.Fatalf("value %v", v)
				}
			}
		}
	})
}
