package opensm

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"orcs/metrics"
)

// row is an engine row with the given per-run values (summarised).
func row(engine string, values ...float64) EngineRow {
	s := metrics.Summarize(values)
	return EngineRow{Requested: engine, Used: engine, Summary: &s, Values: values}
}

// TestCompareVerdict computes the verdict from hand-given values. The
// numbers in the sentences are worked out by hand: {0.5, 0.52, 0.54} has
// mean 0.52 and sample standard deviation 0.02, so its 95 % CI half-width
// is t(0.975, 2)·0.02/√3 = 4.3027·0.01155 = 0.0497; {0.36, 0.37, 0.38}
// has mean 0.37, half-width 0.0248; 0.52/0.37 = 1.41.
func TestCompareVerdict(t *testing.T) {
	fallback := row("torus-2QoS", 0.9, 0.9, 0.9) // the best numbers, but minhop's
	fallback.Used, fallback.Fallback = "minhop", true
	current := row(CurrentRow, 0.36, 0.37, 0.38)
	current.Used = "(tables given)"
	other := row(CurrentRow, 0.2, 0.3, 0.4)
	failed := EngineRow{Requested: "lash", Error: "OpenSM did not bring the subnet up"}
	for _, tc := range []struct {
		name    string
		metric  string
		value   string
		engines []EngineRow
		best    string
		want    string
	}{
		{"CIs apart", "hist_acc_band", "bandwidth",
			[]EngineRow{row("minhop", 0.36, 0.37, 0.38), row("dfsssp", 0.5, 0.52, 0.54)}, "dfsssp",
			"Best engine for bisect: dfsssp, 0.52 mean bandwidth (95 % CI ±0.0497 over 3 runs), 1.41× minhop's 0.37 " +
				"(95 % CIs ±0.0497 and ±0.0248 do not overlap: the difference is real)."},
		{"CIs overlap", "hist_acc_band", "bandwidth",
			// {0.4, 0.6}: std 0.1414, half-width t(0.975, 1)·0.1414/√2 = 12.706·0.1 = 1.27;
			// {0.44, 0.46}: 0.127.
			[]EngineRow{row("ftree", 0.44, 0.46), row("updn", 0.4, 0.6)}, "updn",
			"Best engine for bisect: updn, 0.5 mean bandwidth (95 % CI ±1.27 over 2 runs), 1.11× ftree's 0.45 " +
				"(95 % CIs ±1.27 and ±0.127 overlap: not significant with 2 runs; more runs (-n) may tell)."},
		{"fallback never ranked", "hist_acc_band", "bandwidth",
			[]EngineRow{fallback, row("minhop", 0.36, 0.37, 0.38), row("dfsssp", 0.5, 0.52, 0.54), failed}, "dfsssp",
			"Best engine for bisect: dfsssp, 0.52 mean bandwidth (95 % CI ±0.0497 over 3 runs), 1.41× minhop's 0.37 " +
				"(95 % CIs ±0.0497 and ±0.0248 do not overlap: the difference is real). " +
				"Not ranked: torus-2QoS (OpenSM fell back to minhop). Failed: lash."},
		{"current equals an engine", "hist_acc_band", "bandwidth",
			[]EngineRow{current, row("minhop", 0.36, 0.37, 0.38), row("dfsssp", 0.5, 0.52, 0.54)}, "dfsssp",
			"Best engine for bisect: dfsssp, 0.52 mean bandwidth (95 % CI ±0.0497 over 3 runs), 1.41× minhop's 0.37 " +
				"(95 % CIs ±0.0497 and ±0.0248 do not overlap: the difference is real); the current tables give the same values as minhop, " +
				"1.41× current's 0.37 (95 % CIs ±0.0497 and ±0.0248 do not overlap: the difference is real)."},
		{"current of its own", "hist_acc_band", "bandwidth",
			// {0.2, 0.3, 0.4}: mean 0.3, std 0.1, half-width 4.3027·0.1/√3 = 0.248.
			[]EngineRow{other, row("dfsssp", 0.5, 0.52, 0.54)}, "dfsssp",
			"Best engine for bisect: dfsssp, 0.52 mean bandwidth (95 % CI ±0.0497 over 3 runs), the only engine ranked; " +
				"over the current tables: 1.73× current's 0.3 (95 % CIs ±0.0497 and ±0.248 overlap: not significant with 3 runs; more runs (-n) may tell)."},
		{"tie", "hist_acc_band", "bandwidth",
			[]EngineRow{row("ftree", 0.5, 0.5), row("updn", 0.5, 0.5), row("minhop", 0.25, 0.25)}, "",
			"No single best engine for bisect: ftree and updn tie at 0.5 mean bandwidth (95 % CI ±0 over 2 runs), with the same value in every run, " +
				"2× minhop's 0.25 (95 % CIs ±0 and ±0 do not overlap: the difference is real)."},
		{"tie in the means only", "hist_acc_band", "bandwidth",
			[]EngineRow{row("ftree", 0.5, 0.5), row("updn", 0.4, 0.6), row("dor", 0.6, 0.4)}, "",
			"No single best engine for bisect: ftree, updn and dor tie at 0.5 mean bandwidth (95 % CI ±0 over 2 runs)."},
		{"one engine, one run", "hist_acc_band", "bandwidth",
			[]EngineRow{row("ftree", 0.5)}, "ftree",
			"Best engine for bisect: ftree, 0.5 mean bandwidth (1 run, no confidence interval), the only engine ranked."},
		{"lower is better", "sum_max_cong", "congestion_sum",
			// {3, 4, 5}: mean 4, std 1, half-width 2.48; {0, 0, 0}: 0.
			[]EngineRow{row("minhop", 3, 4, 5), row("ftree", 0, 0, 0)}, "ftree",
			"Best engine for bisect: ftree, 0 mean congestion_sum (95 % CI ±0 over 3 runs), below minhop's 4 " +
				"(95 % CIs ±0 and ±2.48 do not overlap: the difference is real)."},
		{"lower is better, ratio", "dep_max_delay", "delay",
			[]EngineRow{row("minhop", 8, 8), row("ftree", 4, 4)}, "ftree",
			"Best engine for bisect: ftree, 4 mean delay (95 % CI ±0 over 2 runs), 2× less than minhop's 8 " +
				"(95 % CIs ±0 and ±0 do not overlap: the difference is real)."},
		{"no engine routed", "hist_acc_band", "bandwidth",
			[]EngineRow{fallback, failed}, "",
			"No engine routed this fabric as itself, none is ranked. Not ranked: torus-2QoS (OpenSM fell back to minhop). Failed: lash."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Comparison{Pattern: "bisect", Metric: tc.metric, Value: tc.value, Engines: tc.engines}
			got, best := c.Judge()
			if got != tc.want {
				t.Errorf("verdict\n got %s\nwant %s", got, tc.want)
			}
			name := ""
			if best >= 0 {
				name = c.Engines[best].Requested
			}
			if name != tc.best {
				t.Errorf("best %q, want %q", name, tc.best)
			}
		})
	}
}

// TestCompareVerdictOutputs checks that the table ends in the verdict and
// marks the best row, the JSON carries it and the plot labels the best.
func TestCompareVerdictOutputs(t *testing.T) {
	c := sampleComparison()
	want, _ := c.Judge()
	if !strings.HasPrefix(want, "Best engine for bisect: ftree, 0.75 mean bandwidth") || !strings.Contains(want, "Not ranked: torus-2QoS (OpenSM fell back to minhop)") {
		t.Fatalf("verdict %q", want)
	}
	var b bytes.Buffer
	if err := c.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if last := lines[len(lines)-1]; last != want {
		t.Errorf("the table's last line is %q, want the verdict %q", last, want)
	}
	for _, l := range lines {
		if strings.Contains(l, "<- best") != strings.HasPrefix(strings.TrimSpace(l), "ftree ") {
			t.Errorf("best mark on the wrong line: %q", l)
		}
	}
	b.Reset()
	if err := c.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Verdict string `json:"verdict"`
		Best    string `json:"best"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Verdict != want || back.Best != "ftree" {
		t.Errorf("JSON verdict %q best %q", back.Verdict, back.Best)
	}
	if l := c.Plot().Series[0].Label; l != "ftree (best)" {
		t.Errorf("plot label %q", l)
	}
}
