package main

import (
	"encoding/json"
	"html"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// layoutScript measures, from Chromium's own layout, every <svg> of every
// picture frame: texts outside their <svg> (clipped) and pairs of labels
// whose boxes overlap by more than 2 px both ways. It writes its findings
// as JSON into #layoutresult.
const layoutScript = `<pre id="layoutresult"></pre><script>
window.addEventListener('load', function () {
  var out = [];
  document.querySelectorAll('iframe').forEach(function (f) {
    var doc = f.contentDocument, name = f.getAttribute('data-name');
    if (!doc) { out.push({pic: name, svgs: 0, problems: ['frame not loaded']}); return; }
    var svgs = doc.querySelectorAll('svg'), problems = [], texts = 0, data = [];
    svgs.forEach(function (svg, k) {
      var sr = svg.getBoundingClientRect(), where = name + ' svg#' + k + ' (' + Math.round(sr.width) + 'x' + Math.round(sr.height) + ')';
      // A plot's data area (a plot: a picture with grid lines): its axis
      // lines are as long as the area is wide and high (the longest
      // horizontal and vertical ink line; ticks are short), as a fraction
      // of the picture.
      var paths = [].slice.call(svg.querySelectorAll('path'));
      if (paths.some(function (p) { return /stroke:#E1E1E1/i.test(p.getAttribute('style') || ''); })) {
        var w = 0, h = 0;
        paths.filter(function (p) { return /stroke:#222222/i.test(p.getAttribute('style') || ''); }).forEach(function (p) {
          var r = p.getBoundingClientRect();
          if (r.height < 2) w = Math.max(w, r.width);
          if (r.width < 2) h = Math.max(h, r.height);
        });
        data.push({svg: where, frac: w * h / (sr.width * sr.height), w: w / sr.width, h: h / sr.height});
      }
      var ts = [].slice.call(svg.querySelectorAll('text')).filter(function (t) { return t.textContent.trim() !== '' && t.getBoundingClientRect().width > 0; });
      var rs = ts.map(function (t) { return t.getBoundingClientRect(); });
      texts += ts.length;
      rs.forEach(function (r, i) {
        if (r.left < sr.left - 1 || r.right > sr.right + 1 || r.top < sr.top - 1 || r.bottom > sr.bottom + 1)
          problems.push(where + ': clipped "' + ts[i].textContent.trim().slice(0, 40) + '" at x ' + Math.round(r.left - sr.left) + '..' + Math.round(r.right - sr.left) + ', y ' + Math.round(r.top - sr.top) + '..' + Math.round(r.bottom - sr.top));
      });
      for (var i = 0; i < rs.length; i++) for (var j = i + 1; j < rs.length; j++) {
        var a = rs[i], b = rs[j];
        var ox = Math.min(a.right, b.right) - Math.max(a.left, b.left), oy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (ox > 2 && oy > 2) problems.push(where + ': overlap "' + ts[i].textContent.trim().slice(0, 30) + '" and "' + ts[j].textContent.trim().slice(0, 30) + '"');
      }
    });
    out.push({pic: name, svgs: svgs.length, texts: texts, problems: problems, data: data});
  });
  document.getElementById('layoutresult').textContent = 'LAYOUT' + JSON.stringify(out) + 'END';
});
</script>`

// picture is one file orcs wrote, to be laid out by the browser.
type picture struct{ name, path string }

// pictureLayout is what the browser found in one picture.
type pictureLayout struct {
	Pic      string
	SVGs     int
	Texts    int
	Problems []string
	// Data holds, per plot with a grid, its data area's share of the
	// picture.
	Data []struct {
		SVG  string
		Frac float64
		W, H float64
	}
}

// layoutPictures loads every picture in one headless Chromium (each in a
// frame of one page) and returns what its layout shows.
func layoutPictures(t *testing.T, pics []picture) []pictureLayout {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian package chromium; scripts/deps.sh installs it)")
	}
	var page strings.Builder
	page.WriteString("<!doctype html><html><head><meta charset=\"utf-8\"></head><body style=\"margin:0\">\n")
	for _, p := range pics {
		b, err := os.ReadFile(p.path)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		if strings.HasSuffix(p.path, ".svg") { // a standalone SVG shown as it is, in an HTML page
			doc = "<!doctype html><html><body style=\"margin:0\">" + regexp.MustCompile(`^<\?xml[^>]*\?>`).ReplaceAllString(doc, "") + "</body></html>"
		}
		page.WriteString(`<iframe style="display:block;border:0" width="1400" height="2400" data-name="` + html.EscapeString(p.name) + `" srcdoc="` + html.EscapeString(doc) + "\"></iframe>\n")
	}
	page.WriteString(layoutScript + "</body></html>\n")
	dir := t.TempDir()
	pagePath := filepath.Join(dir, "pictures.html")
	if err := os.WriteFile(pagePath, []byte(page.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-dev-shm-usage",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--virtual-time-budget=10000", "--window-size=1400,2400", "--dump-dom", "file://"+pagePath)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	m := regexp.MustCompile(`(?s)LAYOUT(.*?)END`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("chromium wrote no layout result (%d bytes of DOM)", len(out))
	}
	var res []pictureLayout
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &res); err != nil {
		t.Fatalf("layout result: %v", err)
	}
	return res
}

// TestPicturesLayout draws every kind of picture orcs writes — the compare
// plot (continuous and discrete), samplingsim's --svg plots, and each
// section of orcs report (histogram, ECDF, fabric drawings of a fat tree,
// a torus and a 3 000-cable fat tree, regions timeline) — and checks in
// real Chromium that no text leaves its picture, no two labels overlap and
// every plot's data area takes most of it (minDataArea).
func TestPicturesLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs chromium and OpenSM")
	}
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium is not installed (Debian package chromium; scripts/deps.sh installs it)")
	}
	dir := t.TempDir()
	ft16, _ := filepath.Abs("../testdata/ft16.dot") // an absolute path, as a user gives it
	fix := func(name string) string { return filepath.Join("../report/testdata", name) }
	var pics []picture
	add := func(name, path string) { pics = append(pics, picture{name, path}) }

	if _, err := exec.LookPath("opensm"); err == nil {
		p := filepath.Join(dir, "cmp.svg")
		mustRun(t, "compare", "--engines", "minhop,updn", "-p", "bisect_fb_sym", "--metric", "hist_acc_band", "-n", "50", "--seed", "1", "--plot", p, ft16)
		add("compare plot, hist_acc_band", p)
		p = filepath.Join(dir, "cmp-disc.svg")
		mustRun(t, "compare", "--engines", "minhop,updn", "-p", "bisect", "--metric", "sum_max_cong", "-n", "50", "--seed", "1", "--plot", p, ft16)
		add("compare plot, sum_max_cong", p)
		for _, metric := range []string{"hist_acc_band", "sum_max_cong"} {
			png := filepath.Join(dir, "cmp-"+metric+".png")
			mustRun(t, "compare", "--engines", "minhop,updn", "-p", "bisect", "--metric", metric, "-n", "50", "--seed", "1", "--plot", png, ft16)
			checkPNG(t, png)
		}
	} else {
		t.Log("opensm is not installed: no compare plot")
	}
	mustRun(t, "samplingsim", "-i", ft16, "--workload", "naive-reduce", "--svg", filepath.Join(dir, "ss"))
	add("samplingsim --svg", filepath.Join(dir, "ss-all.svg"))

	report := func(out string, in ...string) {
		t.Helper()
		if b, err := exec.Command(orcsBin, append([]string{"report", "-o", out}, in...)...).CombinedOutput(); err != nil {
			t.Fatalf("orcs report: %v\n%s", err, b)
		}
	}
	rep := filepath.Join(dir, "ft64.html")
	report(rep, fix("analysis-ft64.json"), fix("check-ft64.json"), fix("deadlock-ft64.json"),
		fix("compare-ft64.json"), fix("samplingsim-ft64.json"), fix("regions-ft64.json"))
	add("report ft64", rep)
	rep = filepath.Join(dir, "torus.html")
	report(rep, fix("analysis-torus4x4.json"), fix("check-torus4x4.json"))
	add("report torus4x4", rep)
	// A regions result of one window: the smallest timeline.
	var one map[string]any
	raw, err := os.ReadFile(fix("regions-ft64.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &one); err != nil {
		t.Fatal(err)
	}
	one["windows"] = one["windows"].([]any)[:1]
	one["tracks"] = one["tracks"].([]any)[:1]
	raw, _ = json.Marshal(one)
	oneWin := filepath.Join(dir, "regions-1.json")
	if err := os.WriteFile(oneWin, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	rep = filepath.Join(dir, "regions1.html")
	report(rep, fix("analysis-ft64.json"), oneWin)
	add("report ft64, regions of one window", rep)
	rep = filepath.Join(dir, "dragonfly.html")
	report(rep, dragonflyAnalysis(t, dir))
	add("report dragonfly (same-level cables)", rep)
	big := filepath.Join(dir, "big.json")
	mustRun(t, "-i", "gen:kary:k=10,n=3", "-p", "bisect", "-n", "1", "--seed", "1", "--hot", "5", "--cables", "--format", "json", "-o", big)
	rep = filepath.Join(dir, "big.html")
	report(rep, big)
	add("report 3000-cable fat tree", rep)

	res := layoutPictures(t, pics)
	if len(res) != len(pics) {
		t.Fatalf("the browser laid out %d pictures, want %d", len(res), len(pics))
	}
	for _, r := range res {
		if r.SVGs == 0 || r.Texts == 0 {
			t.Errorf("%s: %d svg, %d texts laid out", r.Pic, r.SVGs, r.Texts)
		}
		for _, p := range r.Problems {
			t.Error(p)
		}
		for _, d := range r.Data {
			// A plot's data area takes most of it: the compare plot's took 59-64 %
			// (ft16, ft64) with its legend a column beside the axes.
			if d.Frac < minDataArea {
				t.Errorf("%s: the data area is %.0f %% of the picture (%.0f %% of its width, %.0f %% of its height), want at least %.0f %%",
					d.SVG, 100*d.Frac, 100*d.W, 100*d.H, 100*minDataArea)
			}
		}
	}
}

// checkPNG decodes a PNG picture and checks that its size is sane (200 to
// 4000 pixels each way), that it is not blank (at least 2 % of its pixels
// differ from the corner's background, in at least 3 colours) and that
// what is drawn spans at least 70 % of the canvas both ways.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b := img.Bounds()
	if b.Dx() < 200 || b.Dy() < 200 || b.Dx() > 4000 || b.Dy() > 4000 {
		t.Errorf("%s: %d×%d pixels", path, b.Dx(), b.Dy())
		return
	}
	bg := color.RGBAModel.Convert(img.At(b.Min.X, b.Min.Y))
	colours := map[color.Color]bool{}
	drawn := 0
	minX, minY, maxX, maxY := b.Max.X, b.Max.Y, b.Min.X, b.Min.Y
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y))
			if c == bg {
				continue
			}
			drawn++
			colours[c] = true
			minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
		}
	}
	if frac := float64(drawn) / float64(b.Dx()*b.Dy()); frac < 0.02 || len(colours) < 3 {
		t.Errorf("%s: blank: %.1f %% of the pixels drawn, %d colours", path, 100*frac, len(colours))
		return
	}
	w, h := float64(maxX-minX+1)/float64(b.Dx()), float64(maxY-minY+1)/float64(b.Dy())
	t.Logf("%s: %d×%d pixels, %.1f %% drawn in %d colours, spanning %.0f %% × %.0f %%", filepath.Base(path), b.Dx(), b.Dy(),
		100*float64(drawn)/float64(b.Dx()*b.Dy()), len(colours), 100*w, 100*h)
	if w < 0.7 || h < 0.7 {
		t.Errorf("%s: the drawing spans %.0f %% × %.0f %% of the canvas", path, 100*w, 100*h)
	}
}

// minDataArea is the least share of a plot that its data area (the axes'
// rectangle, without title, tick labels, captions and legend) takes.
const minDataArea = 0.65

// dragonflyAnalysis writes the analyzer's JSON with cables of a small
// Dragonfly (every switch on level 1) into dir and returns its path.
func dragonflyAnalysis(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "dragonfly.json")
	mustRun(t, "-i", "gen:dragonfly:a=4,p=2,h=2", "-p", "bisect", "-n", "5", "--seed", "1", "--cables", "--format", "json", "-o", p)
	return p
}

// TestSameLevelCablesAreArcs: in the report's drawing of a Dragonfly,
// every cable between two switches is an arc above their row, none a line
// along it. By hand: a=4, h=2 make 4·2+1 = 9 groups of 4 routers, 6
// cables inside each group (54) and one between each pair of groups
// (9·8/2 = 36): 90 arcs; p=2 hosts per router: 72 host cables as lines.
func TestSameLevelCablesAreArcs(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "df.html")
	if b, err := exec.Command(orcsBin, "report", "-o", rep, dragonflyAnalysis(t, dir)).CombinedOutput(); err != nil {
		t.Fatalf("orcs report: %v\n%s", err, b)
	}
	page, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	arcs := regexp.MustCompile(`<path d="M[-0-9.]+,[-0-9.]+ Q[^"]*"[^>]*data-links`).FindAll(page, -1)
	lines := regexp.MustCompile(`<line x1="([-0-9.]+)" y1="([-0-9.]+)" x2="([-0-9.]+)" y2="([-0-9.]+)"[^>]*data-links`).FindAllSubmatch(page, -1)
	along := 0
	for _, l := range lines {
		if string(l[2]) == string(l[4]) && string(l[1]) != string(l[3]) {
			along++
		}
	}
	if len(arcs) != 90 || len(lines) != 72 || along != 0 {
		t.Errorf("%d arcs, %d lines (%d of them along a row); want 90 arcs and 72 lines, none along a row", len(arcs), len(lines), along)
	}
}
