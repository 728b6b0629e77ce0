package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"orcs/metrics"
	"orcs/report"
)

// TestReportCommand makes the page from the shipped fixtures through the
// binary, and refuses bad input with a message naming the file and line,
// leaving no page behind.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "r.html")
	fx := func(name string) string { return filepath.Join("..", "report", "testdata", name) }
	cmd := exec.Command(orcsBin, "report", fx("analysis-ft64.json"), fx("deadlock-ft64.json"), "-o", page, "--title", "ft64 today")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range report.Sections {
		if !strings.Contains(string(b), `<section id="`+id+`">`) {
			t.Errorf("no section %s", id)
		}
	}
	if !strings.Contains(string(b), "<title>ft64 today</title>") {
		t.Error("--title not used")
	}
	bad := writeFile(t, dir, "bad.json", "{\n\"metric\": \"x\",\n\"values\": [1,,2]}\n")
	out := filepath.Join(dir, "bad.html")
	cmd = exec.Command(orcsBin, "report", bad, "-o", out)
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "bad.json:3: invalid character ','") {
		t.Errorf("bad input: %v: %s", err, msg)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a page was left behind after an error")
	}
	if msg, err := exec.Command(orcsBin, "report").CombinedOutput(); err == nil || !strings.Contains(string(msg), "give the JSON results") {
		t.Errorf("no inputs: %v: %s", err, msg)
	}
}

// TestCablesJSON checks --cables on a gather onto H0 of the 16-host fat
// tree, derived by hand: d-mod-k sends everything for H0 through spine
// S1_0, so S1_0 → S0_0 carries the 12 hosts of the other leaves, each of
// those leaves sends its 4 up to S1_0, and S0_0 → H0 carries all 15.
func TestCablesJSON(t *testing.T) {
	var res struct {
		Topology *metrics.Topology `json:"topology"`
		Metric   string            `json:"metric"`
	}
	out := mustRun(t, "-i", "../testdata/ft16.dot", "-p", "gather", "-d", "-n", "1", "--format", "json", "--cables")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	tp := res.Topology
	if tp == nil || tp.Hosts != 16 || tp.Switches != 8 || tp.Levels != 2 || tp.Routing != "d-mod-k" || tp.Grid != nil {
		t.Fatalf("topology %+v", tp)
	}
	load := map[string]float64{}
	busy := 0
	for _, c := range tp.Cables {
		load[c.From+">"+c.To] = c.MeanPeak
		if c.MaxLoad > 0 {
			busy++
		}
	}
	for cable, want := range map[string]float64{"S0_0>H0": 15, "S1_0>S0_0": 12, "S0_1>S1_0": 4, "S0_3>S1_0": 4, "H1>S0_0": 1, "H15>S0_3": 1, "S0_1>S1_1": 0} {
		if load[cable] != want {
			t.Errorf("%s: load %g, want %g", cable, load[cable], want)
		}
	}
	if busy != 15+1+1+3 { // 15 host up-links, H0's down-link, S1_0 → S0_0, 3 leaves up
		t.Errorf("%d loaded cables, want 20", busy)
	}
	if tp.Nodes[0].Name != "H0" || tp.Nodes[0].Level != 0 || tp.Nodes[16].Level != 1 || !tp.Nodes[16].Switch || tp.Nodes[23].Level != 2 {
		t.Errorf("nodes %+v", tp.Nodes[:1])
	}
	// A torus: its grid and coordinates.
	out = mustRun(t, "-i", "gen:torus:dims=4x3", "-n", "2", "--seed", "1", "--format", "json", "--cables")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if g := res.Topology.Grid; g == nil || !g.Torus || len(g.Dims) != 2 || g.Dims[0] != 4 || g.Dims[1] != 3 || res.Topology.Routing != "dimension order" {
		t.Errorf("torus topology %+v", res.Topology)
	}
	// The generated topology with other tables (one entry moved to another
	// spine): the routing is no longer the generator's.
	dot, err := os.ReadFile("../testdata/ft16.dot")
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(string(dot), `"S0_1" -> "S1_0" [comment="H0,H8,H12"]`, `"S0_1" -> "S1_0" [comment="H8,H12"]`, 1)
	moved = strings.Replace(moved, `"S0_1" -> "S1_1" [comment="H1,H9,H13"]`, `"S0_1" -> "S1_1" [comment="H0,H1,H9,H13"]`, 1)
	if moved == string(dot) {
		t.Fatal("ft16.dot changed: the test's edit does not apply")
	}
	out = mustRun(t, "-i", writeFile(t, t.TempDir(), "ft16-moved.dot", moved), "-p", "gather", "-d", "-n", "1", "--format", "json", "--cables")
	res.Topology = nil
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Topology == nil || res.Topology.Routing != "" {
		t.Errorf("re-routed fabric claims routing %q", res.Topology.Routing)
	}
	// Without --cables the JSON is as it was.
	plain := mustRun(t, "-i", "../testdata/ft16.dot", "-p", "gather", "-d", "-n", "1", "--format", "json")
	if strings.Contains(plain, `"topology"`) {
		t.Error("topology without --cables")
	}
	for _, args := range [][]string{{"--cables"}, {"--cables", "--format", "csv"}, {"--cables", "--format", "json", "--shard", "0/2", "--seed", "1"}} {
		if _, err := run(t, append([]string{"-i", "../testdata/ft16.dot"}, args...)...); err == nil || !strings.Contains(err.Error(), "--cables") {
			t.Errorf("%v: %v", args, err)
		}
	}
}

func TestCheckInputJSON(t *testing.T) {
	var got struct {
		Fabric                   string
		Hosts, Switches          int
		Pairs, Unroutable, Loops int64
		OK                       bool
		Examples                 []struct{ Src, Dst, Kind, Message string }
		DirectedCables           int `json:"directed_cables"`
	}
	out := mustRun(t, "-i", "../testdata/ft16.dot", "--checkinputfile", "--format", "json")
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if !got.OK || got.Pairs != 16*15 || got.Hosts != 16 || got.Switches != 8 || got.DirectedCables != 64 || len(got.Examples) != 0 {
		t.Errorf("ft16: %+v", got)
	}
	loop := writeFile(t, t.TempDir(), "loop.dot", loopDot)
	outFile := filepath.Join(t.TempDir(), "check.json")
	cmd := exec.Command(orcsBin, "-i", loop, "--checkinputfile", "--format", "json", "-o", outFile)
	if err := cmd.Run(); err == nil {
		t.Fatal("a routing loop passed")
	}
	b, _ := os.ReadFile(outFile)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.OK || got.Loops != 1 || len(got.Examples) != 1 || got.Examples[0].Kind != "routing loop" ||
		!strings.Contains(got.Examples[0].Message, "S1 -> S2 -> S1") || got.Examples[0].Src != "H1" || got.Examples[0].Dst != "H2" {
		t.Errorf("loop: %+v", got)
	}
}

// TestReportSwitchDescriptions (issue 24): the analyzer's topology carries
// each switch's ibnetdiscover node description, and the report's drawing
// and hot-cable table show the switches by it (leaf01, ibcore01/L02)
// instead of their GUID names (S0000000000200005). testdata/ib/cluster:
// leaves "MF0;leaf01:MQM8700/U1", "MF0;leaf02:MQM8700/U1" and the chips
// of the director switch "MF0;ibcore01:IS5100/{S01,S02,L01,L02}/U1".
func TestReportSwitchDescriptions(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "a.json")
	mustRun(t, "--topo", "../testdata/ib/cluster/minhop/ibnetdiscover.txt", "--lfts", "../testdata/ib/cluster/minhop/dump_fts.txt",
		"-p", "bisect", "-n", "2", "--seed", "1", "--hot", "3", "--cables", "--format", "json", "-o", js)
	var a metrics.AnalysisFile
	raw, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	descs := map[string]bool{}
	for _, n := range a.Topology.Nodes {
		if n.Switch {
			descs[n.Desc] = true
		}
	}
	for _, d := range []string{"MF0;leaf01:MQM8700/U1", "MF0;ibcore01:IS5100/L02/U1"} {
		if !descs[d] {
			t.Errorf("topology lacks the switch description %q: %v", d, descs)
		}
	}
	page := filepath.Join(dir, "r.html")
	mustRun(t, "report", "-o", page, js)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	drawing := html[strings.Index(html, `id="drawing"`):]
	hot := html[strings.Index(html, `id="hot-cables"`):strings.Index(html, `id="drawing"`)]
	for _, want := range []string{">leaf01<", ">leaf02<", ">ibcore01/L01<", ">ibcore01/S02<"} {
		if !strings.Contains(drawing, want) {
			t.Errorf("the drawing lacks the label %s", want)
		}
	}
	if strings.Contains(drawing, "S000000000020") || strings.Contains(hot, "S000000000020") {
		t.Errorf("the report still names switches by GUID")
	}
	if !strings.Contains(hot, "leaf0") {
		t.Errorf("the hot-cable table names no leaf by its description:\n%s", hot)
	}
}

// TestLargeFabricHotOnTop (issue 24): the report's drawing of a 3 000-cable
// fat tree (k=10, n=3: 1 000 host cables, 2 000 between switches, above
// the 1 500 lines drawn one by one) merges cables per pair of switch
// groups and leaf host blocks; a merged line is as wide as its cables are
// many, and every hot cable of the table is drawn on its own, on top of
// all merged lines (it was hidden in a merged line coloured by its most
// loaded cable).
func TestLargeFabricHotOnTop(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "big.json")
	mustRun(t, "-i", "gen:kary:k=10,n=3", "-p", "bisect", "-n", "1", "--seed", "1", "--hot", "5", "--cables", "--format", "json", "-o", js)
	page := filepath.Join(dir, "big.html")
	mustRun(t, "report", "-o", page, js)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	var hot []string
	for _, m := range regexp.MustCompile(`<tr data-link="(\d+)">`).FindAllStringSubmatch(html, -1) {
		hot = append(hot, m[1])
	}
	if len(hot) != 5 {
		t.Fatalf("%d hot cables in the table, want 5", len(hot))
	}
	drawing := html[strings.Index(html, `id="drawing"`):]
	drawing = drawing[:strings.Index(drawing, "</svg>")]
	lines := regexp.MustCompile(`<(?:line|path) [^>]*stroke-width="([0-9.]+)" data-links="([0-9 ]+)"( class="hot")?><title>([^<]*)</title>`).FindAllStringSubmatch(drawing, -1)
	firstHot, onTop := -1, map[string]bool{}
	type merged struct {
		cables int
		width  float64
	}
	var bundles []merged
	for i, m := range lines {
		if m[3] != "" {
			if firstHot < 0 {
				firstHot = i
			}
			onTop[m[2]] = true
			continue
		}
		if firstHot >= 0 {
			t.Fatalf("line %d (%s) is drawn over the hot cables", i, m[4])
		}
		if c := regexp.MustCompile(`: (\d+) cables,`).FindStringSubmatch(m[4]); c != nil {
			n, _ := strconv.Atoi(c[1])
			w, _ := strconv.ParseFloat(m[1], 64)
			bundles = append(bundles, merged{n, w})
		}
	}
	for _, l := range hot {
		if !onTop[l] {
			t.Errorf("hot cable (link %s) is not drawn on its own on top", l)
		}
	}
	if len(bundles) < 100 {
		t.Fatalf("%d merged lines, want the cables merged per pair of groups", len(bundles))
	}
	sawWider := false
	for _, x := range bundles {
		for _, y := range bundles {
			if x.cables < y.cables && x.width >= y.width {
				t.Fatalf("a line of %d cables is %g px wide, one of %d cables %g px", x.cables, x.width, y.cables, y.width)
			}
			sawWider = sawWider || x.width != y.width
		}
	}
	if !sawWider {
		t.Error("every merged line has the same width")
	}
}
