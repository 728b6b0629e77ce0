package report

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"orcs/analyze"
	"orcs/gen"
	"orcs/infile"
	"orcs/metrics"
	"orcs/plot"
)

var update = flag.Bool("update", false, "rewrite the golden report")

// The fixtures: real outputs of the commands on the shipped fabrics
// (testdata/README.md) and a hand-made regions result.
var ft64 = []string{"analysis-ft64.json", "check-ft64.json", "deadlock-ft64.json", "compare-ft64.json", "samplingsim-ft64.json", "regions-ft64.json"}

func fixtures(names ...string) []string {
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join("testdata", n)
	}
	return paths
}

func makeReport(t testing.TB, opt Options, names ...string) string {
	t.Helper()
	in, err := Load(fixtures(names...))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, in, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The report of the ft64 fixtures in a real headless Chromium, opened from
// disk: no console error, no request, every section, a screenshot with
// content.
func TestReportInChromium(t *testing.T) {
	chromium(t)
	page := writeTemp(t, "report.html", makeReport(t, Options{}, ft64...))
	b := startBrowser(t)
	got := b.load(t, page)
	if len(got.ConsoleErrors) > 0 {
		t.Errorf("console errors: %q", got.ConsoleErrors)
	}
	if len(got.Requests) > 0 {
		t.Errorf("network requests: %q", got.Requests)
	}
	if !slices.Equal(got.Sections, Sections) {
		t.Errorf("sections %q, want %q", got.Sections, Sections)
	}
	for _, want := range []string{"every pair routes", "deadlock-free (1 VL)", "endpoint congestion", "S0_0 → S1_3",
		"d-mod-k (the generator's tables)", "region 1", "dfsssp"} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("the page shows no %q", want)
		}
	}
	png := filepath.Join(t.TempDir(), "report.png")
	screenshot(t, page, png, 1280, 2400)
	colours, inked := variety(t, png)
	if colours < 200 || inked < 0.05 {
		t.Errorf("screenshot looks blank: %d colours, %.1f %% not white", colours, 100*inked)
	}
}

// The detector is real: a page with a console error, an uncaught
// exception, an image and a fetch from the network is caught on each
// count, and a blank page's screenshot has one colour.
func TestChromiumCatchesABrokenPage(t *testing.T) {
	chromium(t)
	broken := writeTemp(t, "broken.html", `<!DOCTYPE html><html><body><p>broken</p>
<img src="http://127.0.0.1:9/pixel.png" alt="">
<script>console.error("boom"); fetch("http://127.0.0.1:9/data.json").catch(function () {}); undefinedFunction();</script>
</body></html>`)
	b := startBrowser(t)
	got := b.load(t, broken)
	joined := strings.Join(got.ConsoleErrors, "\n")
	if !strings.Contains(joined, "boom") || !strings.Contains(joined, "undefinedFunction") {
		t.Errorf("console errors not caught: %q", got.ConsoleErrors)
	}
	for _, want := range []string{"http://127.0.0.1:9/pixel.png", "http://127.0.0.1:9/data.json"} {
		if !slices.Contains(got.Requests, want) {
			t.Errorf("request %s not caught: %q", want, got.Requests)
		}
	}
	if len(got.Sections) != 0 {
		t.Errorf("sections %q in a page without any", got.Sections)
	}
	blank := writeTemp(t, "blank.html", `<!DOCTYPE html><html><body></body></html>`)
	png := filepath.Join(t.TempDir(), "blank.png")
	screenshot(t, blank, png, 400, 300)
	if colours, inked := variety(t, png); colours != 1 || inked != 0 {
		t.Errorf("blank page: %d colours, %.3f inked", colours, inked)
	}
}

// externalURL finds anything that would make a browser reach out: a URL
// with a scheme other than data:, a protocol-relative reference, a src
// or href that is not a fragment, or a CSS url()/@import.
var externalURL = regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://|\b(src|href|xlink:href|action|srcset)\s*=\s*["']?[^"'#\s>]|url\s*\(|@import)`)

func TestNoExternalURL(t *testing.T) {
	for _, names := range [][]string{ft64, {"analysis-torus4x4.json", "check-torus4x4.json", "deadlock-torus4x4.json"}, nil} {
		var page string
		if names == nil {
			var b bytes.Buffer
			if err := Write(&b, &Inputs{Files: map[string]string{}}, Options{}); err != nil {
				t.Fatal(err)
			}
			page = b.String()
		} else {
			page = makeReport(t, Options{}, names...)
		}
		if m := externalURL.FindAllString(page, 5); m != nil {
			t.Errorf("%v: the page names %q", names, m)
		}
	}
	// The pattern does catch them.
	for _, bad := range []string{`<img src="x.png">`, `<a href="https://example.org/">`, `<use xlink:href="y.svg#a"/>`,
		`background: url(z.png)`, `<svg xmlns="http://www.w3.org/2000/svg">`, `@import "a.css"`, `<script src=//cdn/x.js>`} {
		if !externalURL.MatchString(bad) {
			t.Errorf("%s not caught", bad)
		}
	}
	if externalURL.MatchString(`<a href="#fabric">`) {
		t.Error("a fragment link caught")
	}
}

func TestGolden(t *testing.T) {
	got := makeReport(t, Options{}, ft64...)
	golden := filepath.Join("testdata", "report-ft64.golden.html")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the report differs from %s (go test ./report -run Golden -update after an intended change)", golden)
	}
	// The same inputs give the same bytes.
	if again := makeReport(t, Options{}, ft64...); again != got {
		t.Error("two reports of the same inputs differ")
	}
}

// Every section is there, saying what to run, when its input is missing.
func TestEverySectionWithoutInputs(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, &Inputs{Files: map[string]string{}}, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, id := range Sections {
		if !strings.Contains(page, `<section id="`+id+`">`) {
			t.Errorf("no section %s", id)
		}
	}
	for _, hint := range []string{"--checkinputfile", "orcs deadlock", "--hot N", "--cables", "orcs regions", "orcs compare", "orcs samplingsim"} {
		if !strings.Contains(page, hint) {
			t.Errorf("no hint %q for a missing input", hint)
		}
	}
}

// Hand-derived content: the numbers the fixtures imply.
func TestContent(t *testing.T) {
	page := makeReport(t, Options{}, ft64...)
	for _, want := range []string{
		// 3 levels of 16 switches (4-ary 3-tree); generator's d-mod-k.
		"<th>switch levels</th><td>3 (16 &#43; 16 &#43; 16 switches from the hosts up)</td>",
		"<th>routing engine</th><td>d-mod-k (the generator&#39;s tables)</td>",
		// The checks' verdicts: 64·63 = 4032 ordered pairs through the 48
		// switches; 64 host cables and 2·16·4 between levels = 192 cables,
		// 384 directed.
		`<p class="answer">Every pair routes without a loop: checked 4032 ordered pairs of 64 hosts, each to its destination&#39;s base LID, hop by hop through the tables of 48 switches.`,
		`<p class="answer">Deadlock: deadlock-free (1 VL). Checked: 4032 routes (every ordered pair of 64 hosts) through 48 switches and 384 directed cables, on VL 0. ` +
			`Left out: the paths&#39; SLs (not given: every path on SL 0;`,
		// 64·63 ordered pairs.
		"(4032 ordered pairs of 64 hosts)",
		// Regions: track 1 low→medium→high→medium, track 2 low→medium→negligible:
		// low→medium 2 of 2, medium→negligible and medium→high 1 of 2 each.
		`<th>low</th><td class="n" style="background:#ffffff; color:#222222">0 (0 %)</td><td class="n" style="background:#ffffff; color:#222222">0 (0 %)</td><td class="n" style="background:` + plot.Hex(plot.LoadColor(0.9)) + `; color:#ffffff">2 (100 %)</td>`,
		`<th>medium</th><td class="n" style="background:` + plot.Hex(plot.LoadColor(0.5)) + `; color:#222222">1 (50 %)</td>`,
		"5 windows, 2 region tracks",
		// The timeline: region 1 at its peak (window 2), region 2 from window 2 on only.
		"region 1 at 500: 32 cables, mean stall 32 %, max 57.5 %, high;",
		"region 2 at 1000: 20 cables, mean stall 4.25 %, max 7.5 %, negligible;",
		// The hot cable of the analyzer's result, with the flows of its peak
		// (max load 3 in run 7; rank 0 → 1 crosses it in 8 of the 200 runs).
		// Its verdict at the top of the section (max_load 3, run 7, level 0,
		// mean_peak_load 1.09, the three peak flows).
		`<p class="answer">The hottest cable is S0_0 -&gt; S1_3, carrying 3 flows at once in level 0 of run 7 (its peak load averages 1.09 over 200 runs); ` +
			`its flows: rank 0 -&gt; 1 (H3 -&gt; H39), rank 51 -&gt; 50 (H0 -&gt; H31), rank 52 -&gt; 53 (H1 -&gt; H59).</p>`,
		`<tr data-link="`, "S0_0 → S1_3", "3 flows at its peak, of 62", "<th>hosts (run 7)</th>", "<td>0 → 1</td><td>H3 → H39</td><td class=\"n\">8</td>",
		// compare: the verdict at the top, from the JSON's summaries: ftree's
		// mean 0.6415 with CI [0.63485, 0.64817] (half-width 0.00666),
		// dfsssp's 0.5826 with [0.57646, 0.58882] (0.00618); 0.6415/0.5826 = 1.10.
		`<p class="answer">Best engine for bisect_fb_sym: ftree, 0.642 mean bandwidth (95 % CI ±0.00666 over 200 runs), ` +
			`1.1× dfsssp&#39;s 0.583 (95 % CIs ±0.00666 and ±0.00618 do not overlap: the difference is real).</p>`,
		"<td>ftree (best)</td><td>ftree</td>",
		// compare: lash's mean bandwidth, 0.1474 in its JSON.
		"<td>lash</td><td>lash</td><td>ok</td><td>0.34</td><td>0.1474</td>",
		// samplingsim: its verdict at the top (root "S0_0" -> "H0", fraction
		// 1, 3148 packets, gbps 100.0954, line_gbps 100 in its JSON).
		`<p class="answer">verdict (all view): endpoint congestion: the only congestion tree, rooted at &#34;S0_0&#34; -&gt; &#34;H0&#34;: congested fraction 1.000 of 3148 packets, 100.1 of 100 Gb/s sampled.</p>`,
		// samplingsim: the root of the tree.
		"<td>&#34;S0_0&#34; -&gt; &#34;H0&#34;</td><td>endpoint congestion</td>",
		// Its bandwidth, sampled then line: gbps 100.0954 (shown to 4
		// digits) and line_gbps 100 in samplingsim-ft64.json.
		`<td class="n">3148</td><td class="n">100.1 / 100</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Contains(page, "region 2 at 250") || strings.Count(page, "<title>region 1 at ") != 4 {
		t.Error("the timeline's boxes are not those of the windows in which each region exists")
	}
	// The fonts and colours of the shared style.
	if !strings.Contains(page, plot.Default.FontFamily) {
		t.Error("the page does not use the shared style's font")
	}
}

// The drawing of a gather onto H0 on the 16-host fat tree (d-mod-k): all
// routes to H0 go through spine S1_0, so S1_0 → S0_0 carries the 12
// remote hosts and each other leaf sends its 4 up to S1_0.
func TestDrawingLoads(t *testing.T) {
	f := gatherTopology(t)
	svg, note := drawFabric(f, 1500)
	for _, want := range []string{
		"S0_0 ⇄ S1_0: S0_0 → S1_0 0, back 12 (mean peak load)",
		"S0_1 ⇄ S1_0: S0_1 → S1_0 4, back 0 (mean peak load)",
		"H0 ⇄ S0_0: H0 → S0_0 0, back 15 (mean peak load)",
	} {
		if !strings.Contains(string(svg), plot.Escape(want)) {
			t.Errorf("the drawing lacks %q", want)
		}
	}
	if note != "" {
		t.Errorf("note %q for a small fabric", note)
	}
	// The most loaded cable has the darkest colour and the widest line.
	top := plot.Hex(plot.LoadColor(1))
	if !regexp.MustCompile(`stroke="` + top + `" stroke-width="4.00"[^>]*><title>H0 ⇄ S0_0`).MatchString(string(svg)) {
		t.Error("H0's cable is not drawn at the top of the scale")
	}
	// Too many lines: the hosts of a leaf become one block, whose line
	// has the mean load of its 4 cables: (15 + 1 + 1 + 1) / 4 = 4.5 (H0's
	// carries the 15 routes to H0, H1-H3's each its route up).
	svg, note = drawFabric(f, 10)
	if !strings.Contains(note, "hosts of each leaf switch (or group) are one block") ||
		!strings.Contains(string(svg), "H0 … H3 (4) ⇄ S0_0: 4 cables, mean 4.5, up at most 1, down at most 15 (mean peak load)") ||
		!strings.Contains(string(svg), "hosts H0 … H3 (4): their cables up at most 1, down at most 15") {
		t.Errorf("aggregated drawing: note %q", note)
	}
	if strings.Contains(string(svg), "H5 ⇄ S0_1") {
		t.Error("a host cable drawn one by one in the aggregated drawing")
	}
}

// On a 512-host 8-ary 3-tree (64 switches per level) with few lines
// allowed, the switches of a level merge into 32 groups of two, and the
// merged lines still account for every cable: 512 between each pair of
// levels, 512 host cables in 32 blocks of 16 (the hosts of a leaf group).
func TestDrawingGroups(t *testing.T) {
	n, err := gen.Build("kary:k=8,n=3")
	if err != nil {
		t.Fatal(err)
	}
	cfg := analyze.Config{Input: "gen", Metric: "hist_acc_band", Subset: analyze.SubsetLinearBFS, Level: -1, Runs: 4, Seed: 1, Threads: 1}
	cfg.Pattern.Name = "bisect"
	sm, err := analyze.New(n.Fabric, cfg)
	if err != nil {
		t.Fatal(err)
	}
	svg, note := drawFabric(sm.Topology(n), 500)
	if !strings.Contains(note, "the 1024 switch-to-switch cables are merged per pair of switch groups (at most 32 groups per level)") {
		t.Errorf("note %q", note)
	}
	if got := strings.Count(string(svg), "<title>switches S"); got != 3*32 {
		t.Errorf("%d switch groups, want 96", got)
	}
	if got := strings.Count(string(svg), "<title>hosts H"); got != 32 {
		t.Errorf("%d host blocks, want 32", got)
	}
	cables := map[string]int{}
	for _, m := range regexp.MustCompile(`<title>[^<]*?\((\d+)\) ⇄ S(\d)_[^<]*?: (\d+) cables`).FindAllStringSubmatch(string(svg), -1) {
		c, _ := strconv.Atoi(m[3])
		cables["to level "+m[2]] += c
	}
	if cables["to level 0"] != 512 || cables["to level 1"] != 512 || cables["to level 2"] != 512 {
		t.Errorf("cables per level pair %v, want 512 each", cables)
	}
}

// gatherTopology is the topology of
// orcs -i testdata/ft16.dot -p gather -d -n 1 --format json --cables
// (as in the analyzer's test of --cables), built by hand.
func gatherTopology(t *testing.T) *metrics.Topology {
	t.Helper()
	tp := &metrics.Topology{Hosts: 16, Switches: 8, Levels: 2}
	for h := range 16 {
		tp.Nodes = append(tp.Nodes, metrics.TopologyNode{Name: "H" + itoa(h), Level: 0})
	}
	for l := range 2 {
		for w := range 4 {
			tp.Nodes = append(tp.Nodes, metrics.TopologyNode{Name: "S" + itoa(l) + "_" + itoa(w), Switch: true, Level: l + 1})
		}
	}
	cable := func(a, b string, ab, ba float64) {
		tp.Cables = append(tp.Cables, metrics.CableLoad{From: a, To: b, MeanPeak: ab, MaxLoad: int32(ab)},
			metrics.CableLoad{From: b, To: a, MeanPeak: ba, MaxLoad: int32(ba)})
	}
	for h := range 16 {
		up, down := 1.0, 0.0
		if h == 0 {
			up, down = 0, 15
		}
		cable("H"+itoa(h), "S0_"+itoa(h/4), up, down)
	}
	for leaf := range 4 {
		for spine := range 4 {
			up, down := 0.0, 0.0
			if spine == 0 && leaf > 0 {
				up = 4
			}
			if spine == 0 && leaf == 0 {
				down = 12
			}
			cable("S0_"+itoa(leaf), "S1_"+itoa(spine), up, down)
		}
	}
	return tp
}

func itoa(i int) string { return strconv.Itoa(i) }

// The torus is drawn as a grid: 16 switches at their coordinates, the
// wrap-around cables as stubs.
func TestDrawingGrid(t *testing.T) {
	in, err := Load(fixtures("analysis-torus4x4.json"))
	if err != nil {
		t.Fatal(err)
	}
	svg, _ := drawFabric(in.Analysis.Topology, 1500)
	if n := strings.Count(string(svg), "<circle"); n != 16 {
		t.Errorf("%d switches drawn, want 16", n)
	}
	// 32 switch cables: 24 inner ones as one line each, 8 wrap-arounds as
	// two stubs each.
	if n := regexp.MustCompile(`<line [^>]*data-links`).FindAllStringIndex(string(svg), -1); len(n) != 24+2*8 {
		t.Errorf("%d cable lines, want 40", len(n))
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	regions, _ := os.ReadFile(filepath.Join("testdata", "regions-ft64.json"))
	for _, c := range []struct {
		paths []string
		want  string
	}{
		{[]string{file("bad.json", "{\n  \"metric\": \"x\",\n  \"values\": [1,\n}")}, "bad.json:4: "},
		{[]string{file("cut.json", "{\n\"metric\": \"x\",\n")}, "cut.json:2: unexpected end of JSON input"},
		{[]string{file("other.json", `{"a": 1, "b": 2}`)}, "other.json: a JSON object with the fields a, b is none of the results"},
		{[]string{file("type.json", "{\"metric\": \"x\", \"values\": \"many\", \"summary\": {}}")}, "type.json:1: json: cannot unmarshal string"},
		{fixtures("check-ft64.json", "check-torus4x4.json"), "check-torus4x4.json: a second route check result (the first was check-ft64.json)"},
		{[]string{file("sev.json", strings.Replace(string(regions), `"severity": "high"`, `"severity": "severe"`, 1))}, `sev.json: window 2: region 1 has severity "severe"`},
		{[]string{file("cab.json", strings.Replace(string(regions), `"S0_0",`, ``, 1))}, "cab.json:18: a cable of 3 fields"},
		{[]string{file("tr.json", strings.Replace(string(regions), `"classes": [
   "negligible",`, `"classes": [`, 1))}, "tr.json: transitions: 3 classes but 4 rows"},
		{[]string{filepath.Join(dir, "absent.json")}, "absent.json"},
	} {
		_, err := Load(c.paths)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.paths, err, c.want)
			continue
		}
		var pe *infile.ParseError
		if strings.HasSuffix(c.want, "absent.json") {
			continue
		}
		if !errors.As(err, &pe) || !errors.Is(err, ErrInput) {
			t.Errorf("%v: %v is no ParseError of kind ErrInput", c.paths, err)
		}
	}
}

func FuzzLoad(f *testing.F) {
	for _, n := range append(ft64, "analysis-torus4x4.json") {
		data, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		if len(data) < 20000 {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"windows": [], "tracks": [], "transitions": {"classes": ["a"], "counts": [[1, 2]]}}`))
	f.Add([]byte(`{"metric": "hist_acc_band", "values": [0.5, null], "summary": {}, "topology": {"nodes": [], "cables": [{"from": "x"}]}}`))
	// Issue 22: a switch above the levels, 10⁹ levels, 10¹⁸ runs.
	f.Add([]byte(`{"metric": "hist_max_cong", "value_name": "bandwidth", "runs": 1, "values": [0.5], "summary": {"n": 1}, "topology": {"hosts": 1, "switches": 1, "levels": 1, "nodes": [{"name": "H", "level": 0}, {"name": "S", "switch": true, "level": 101}], "cables": []}}`))
	f.Add([]byte(`{"metric": "hist_max_cong", "value_name": "bandwidth", "runs": 1, "values": [0.5], "summary": {"n": 1}, "topology": {"levels": 1e9, "nodes": [], "cables": []}}`))
	f.Add([]byte(`{"metric": "hist_max_cong", "value_name": "bandwidth", "runs": 1e18, "values": [0.5], "summary": {"n": 1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &Inputs{Files: map[string]string{}}
		if _, err := in.add("fuzz.json", data); err != nil {
			return
		}
		var b bytes.Buffer
		if err := Write(&b, in, Options{MaxLines: 50}); err != nil {
			return // a figure that cannot be drawn is an error, not a panic
		}
	})
}

// TestRegionsOfAnotherFabric: a regions result of another fabric than the
// analysis (its hosts and switches, which orcs regions writes) is flagged
// on the page, like any two inputs that disagree on the fabric.
func TestRegionsOfAnotherFabric(t *testing.T) {
	dir := t.TempDir()
	regions := filepath.Join(dir, "regions.json")
	os.WriteFile(regions, []byte(`{"fabric": "ft16", "hosts": 16, "switches": 8, "source": "csv",
		"params": {"theta_p": 4, "theta_r": 4, "sigma": 20, "delta": 2},
		"windows": [], "tracks": [], "transitions": {"classes": ["negligible","low","medium","high"], "counts": [[0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]}}`), 0o644)
	in, err := Load(append(fixtures("analysis-torus4x4.json"), regions))
	if err != nil {
		t.Fatal(err)
	}
	_, warn := fabricRows(in, Options{})
	if len(warn) == 0 || !strings.Contains(strings.Join(warn, "\n"), "different fabrics") {
		t.Errorf("regions of a 16-host fabric beside a 4×4 torus analysis: warnings %q", warn)
	}
}

// A whatif result (testdata/whatif-k2n2.json, written by orcs whatif) gives
// its section: the verdict, the fail-in-place table per engine and the
// random sweep's plot.
func TestWhatifSection(t *testing.T) {
	in, err := Load([]string{"testdata/whatif-k2n2.json"})
	if err != nil {
		t.Fatal(err)
	}
	if in.Whatif == nil {
		t.Fatal("the whatif file was not recognised as one")
	}
	var b bytes.Buffer
	if err := Write(&b, in, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	i := strings.Index(page, `<section id="whatif">`)
	if i < 0 {
		t.Fatal("no whatif section")
	}
	sec := page[i : i+strings.Index(page[i:], "</section>")]
	for _, want := range []string{"Verdict: minhop: ", "<th>first critical K</th>", "<td>ftree</td>", "<svg", "K failed cables", "Not given"} {
		if got := strings.Contains(sec, want); got != (want != "Not given") {
			t.Errorf("section contains %q: %v", want, got)
		}
	}
}
