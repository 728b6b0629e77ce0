package samplingsim

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"orcs/plot"
)

func naiveReduceRun(t testing.TB, topo string, arrays int, cfg Config) *Result {
	t.Helper()
	f := fabric(t, topo)
	p, err := BuildPlan(f, []JobSpec{{Name: "reduce", Workload: "naive-reduce:arrays=" + strconv.Itoa(arrays), Hosts: allHosts(f.NumHosts())}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return mustRun(t, f, cfg, p)
}

func TestLinksCSV(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Window = 50 * Microsecond
	r := naiveReduceRun(t, "kary:k=4,n=3", 10, cfg)
	var buf bytes.Buffer
	if err := r.WriteLinksCSV(&buf, AllJobs, false); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := recs[0]
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, want := range []string{"window", "link", "from", "to", "direction", "truth_packets", "truth_congested",
		"truth_stalled_ns", "truth_utilisation", "truth_queue_avg", "est_packets", "est_congested", "est_fraction"} {
		if _, ok := col[want]; !ok {
			t.Fatalf("CSV lacks column %s", want)
		}
	}
	// The truth columns add up to the packets of the run: every packet
	// crosses one link into its destination host.
	var into int64
	windows := map[string]bool{}
	for _, rec := range recs[1:] {
		windows[rec[col["window"]]] = true
		if strings.HasPrefix(rec[col["to"]], "H") {
			n, _ := strconv.ParseInt(rec[col["truth_packets"]], 10, 64)
			into += n
		}
		if rec[col["from"]][0] == 'H' && rec[col["direction"]] != "up" || rec[col["to"]][0] == 'H' && rec[col["direction"]] != "down" {
			t.Fatalf("direction of %s → %s is %s", rec[col["from"]], rec[col["to"]], rec[col["direction"]])
		}
	}
	if into != r.Packets || into != 63*10 {
		t.Errorf("CSV rows deliver %d packets, run delivered %d", into, r.Packets)
	}
	if len(windows) != r.Windows() || r.Windows() < 3 {
		t.Errorf("%d windows in the CSV, %d in the run", len(windows), r.Windows())
	}
	// Whole-run rows: one per busy link.
	buf.Reset()
	r.WriteLinksCSV(&buf, AllJobs, true)
	recs, _ = csv.NewReader(&buf).ReadAll()
	for _, rec := range recs[1:] {
		if rec[0] != "-1" {
			t.Fatalf("whole-run row with window %s", rec[0])
		}
	}
	buf.Reset()
	if err := r.WriteMessagesCSV(&buf); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 631 {
		t.Errorf("messages CSV has %d lines, want 631", n)
	}
}

func TestJSON(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Window = 50 * Microsecond
	r := naiveReduceRun(t, "kary:k=4,n=3", 10, cfg)
	d := Diagnose(r, DiagnoseOptions{View: AllJobs, Window: -1})
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf, AllJobs, d); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Jobs []struct {
			Name     string
			FinishUs float64 `json:"finish_us"`
		}
		Windows []struct {
			Links []LinkRow
		}
		Diagnosis struct{ Cause string }
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Jobs) != 1 || doc.Jobs[0].Name != "reduce" || doc.Jobs[0].FinishUs <= 0 {
		t.Errorf("jobs %+v", doc.Jobs)
	}
	if len(doc.Windows) != r.Windows() {
		t.Errorf("%d windows", len(doc.Windows))
	}
	if doc.Diagnosis.Cause != string(Endpoint) {
		t.Errorf("diagnosis %q in JSON", doc.Diagnosis.Cause)
	}
}

// svgDoc is the part of an SVG plot the tests read.
type svgDoc struct {
	Rects []struct {
		Fill  string `xml:"fill,attr"`
		Title string `xml:"title"`
	} `xml:"rect"`
	Lines []struct {
		Stroke string `xml:"stroke,attr"`
		Width  string `xml:"stroke-width,attr"`
		Title  string `xml:"title"`
	} `xml:"line"`
	Circles []struct{} `xml:"circle"`
	Texts   []string   `xml:"text"`
}

func parseSVG(t *testing.T, r io.Reader) svgDoc {
	t.Helper()
	var doc svgDoc
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		t.Fatalf("plot is not valid XML: %v", err)
	}
	return doc
}

func TestPlotSVG(t *testing.T) {
	r := naiveReduceRun(t, "kary:k=4,n=3", 10, DefaultConfig())
	for _, src := range []PlotSource{PlotEstimate, PlotTruth} {
		var buf bytes.Buffer
		if err := r.WritePlotSVG(&buf, AllJobs, -1, src); err != nil {
			t.Fatal(err)
		}
		raw := buf.String()
		doc := parseSVG(t, strings.NewReader(raw))
		if len(doc.Circles) != 2*48 {
			t.Errorf("%d switch circles, want 48 per view", len(doc.Circles))
		}
		// H0's host box in the down view is black (congested fraction ~1);
		// other hosts receive nothing and stay white.
		var h0, other []string
		for _, rc := range doc.Rects {
			if strings.HasPrefix(rc.Title, "H0:") {
				h0 = append(h0, rc.Fill)
			} else if strings.HasPrefix(rc.Title, "H5:") {
				other = append(other, rc.Fill)
			}
		}
		// The darkest end of the shared load scale: at least as dark as 0.95.
		dark := func(hex string) bool {
			var r, g, b int
			fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b)
			c := plot.LoadColor(0.95)
			return r+g+b <= int(c.R)+int(c.G)+int(c.B)
		}
		if len(h0) != 2 || !dark(h0[1]) {
			t.Errorf("source %d: H0 boxes %v, want the down view at the top of the load scale", src, h0)
		}
		if len(other) != 2 || other[1] != "white" {
			t.Errorf("source %d: H5 boxes %v, want white in the down view", src, other)
		}
		if len(doc.Lines) == 0 {
			t.Error("no links drawn")
		}
		// Every switch is labelled with its name in both views, and every
		// leaf's column with its hosts (4 per leaf: H0 … H3 under the first).
		count := map[string]int{}
		for _, tx := range doc.Texts {
			count[tx]++
		}
		f := r.Fabric
		for v, n := range f.Nodes {
			if f.HostIndex(int32(v)) < 0 && count[n.Name] != 2 {
				t.Errorf("switch %s labelled %d times, want 2", n.Name, count[n.Name])
			}
		}
		for leaf := range 16 {
			if label := fmt.Sprintf("H%d … H%d (4)", 4*leaf, 4*leaf+3); count[label] != 2 {
				t.Errorf("hosts of leaf %d: label %q %d times, want 2", leaf, label, count[label])
			}
		}
		if !strings.Contains(raw, plot.Escape(plot.Default.FontFamily)) {
			t.Error("the plot does not use the shared style's font")
		}
	}
}
