package mapping

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"orcs/samplingsim"
)

// TestMapVerdict computes the verdict from hand-given objectives and
// times: 15/4 = 3.75, 92/33 = 2.79, 768/640 = 1.2.
func TestMapVerdict(t *testing.T) {
	us := samplingsim.Microsecond
	obj := func(cong int64, sq float64) Objective { return Objective{Congestion: cong, SumSq: sq, SumSqJob: sq} }
	for _, tc := range []struct {
		name   string
		mode   Mode
		chosen string
		rows   []Row
		want   string
	}{
		{"fewer congestion, simulated", ByCongestion, "search",
			[]Row{{Name: "linear", Obj: obj(15, 900), SimEnd: 92 * us}, {Name: "search", Obj: obj(4, 200), SimEnd: 33 * us}},
			"Placement search congests 3.75× less than the given one (4 vs 15); simulated completion 33 µs vs 92 µs (2.79× faster, one samplingsim run)."},
		{"not simulated", ByCongestion, "search",
			[]Row{{Name: "linear", Obj: obj(15, 900)}, {Name: "search", Obj: obj(4, 200)}},
			"Placement search congests 3.75× less than the given one (4 vs 15)."},
		{"equal congestion, better spread", ByCongestion, "search",
			[]Row{{Name: "linear", Obj: obj(4, 768)}, {Name: "search", Obj: obj(4, 640)}},
			"Placement search congests as much as the given one (4 vs 4) and has 1.2× less sum of squared loads than the given one (640 vs 768)."},
		{"all equal", ByCongestion, "search",
			[]Row{{Name: "linear", Obj: obj(4, 768)}, {Name: "search", Obj: obj(4, 768)}},
			"Placement search scores as the given one (congestion 4, sum of squared loads 768): reordering the ranks does not help."},
		{"zero congestion", ByCongestion, "search",
			[]Row{{Name: "linear", Obj: obj(3, 12)}, {Name: "search", Obj: obj(0, 0)}},
			"Placement search congests none against the given one's 3."},
		{"worse, and a better strategy", ByCongestion, "random",
			[]Row{{Name: "linear", Obj: obj(4, 768)}, {Name: "random", Obj: obj(9, 1264)}, {Name: "tile", Obj: obj(3, 500)}},
			"Placement random congests 2.25× more than the given one (9 vs 4). Scoring better than random: tile (congestion 3)."},
		{"sumsq first", BySumSq, "search",
			[]Row{{Name: "linear", Obj: obj(4, 768)}, {Name: "search", Obj: obj(5, 640)}},
			"Placement search has 1.2× less sum of squared loads than the given one (640 vs 768)."},
		{"linear kept", ByCongestion, "linear",
			[]Row{{Name: "linear", Obj: obj(4, 768), SimEnd: 32 * us}},
			"Placement linear (the allocation's order) is kept: congestion 4; simulated completion 32 µs (one samplingsim run)."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Report{Unit: "routes", Rows: tc.rows, Chosen: tc.chosen, Mode: tc.mode}
			if got := r.Verdict(); got != tc.want {
				t.Errorf("verdict\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestMapReportVerdict: the table marks the chosen row and ends in the
// verdict; the JSON carries it and the chosen placement.
func TestMapReportVerdict(t *testing.T) {
	r := &Report{Unit: "routes", Chosen: "search", Rows: []Row{
		{Name: "linear", Obj: Objective{Congestion: 15}, SimTime: "92 µs", SimEnd: 92 * samplingsim.Microsecond},
		{Name: "search", Obj: Objective{Congestion: 4}, SimTime: "33 µs", SimEnd: 33 * samplingsim.Microsecond}}}
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if !strings.HasSuffix(lines[2], "33 µs  <- chosen") || strings.Contains(lines[1], "chosen") {
		t.Errorf("chosen row not marked:\n%s", b.String())
	}
	if !strings.Contains(lines[3], "sum_sq_job: ") || !strings.Contains(lines[3], "leaf_up: ") {
		t.Errorf("the columns are not explained: %s", lines[3])
	}
	if last := lines[len(lines)-1]; last != r.Verdict() || !strings.HasPrefix(last, "Placement search congests 3.75× less") {
		t.Errorf("last line %q, want the verdict", last)
	}
	b.Reset()
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Chosen     string `json:"chosen"`
		Verdict    string `json:"verdict"`
		Placements []struct {
			Name   string  `json:"placement"`
			Chosen bool    `json:"chosen"`
			Cong   int64   `json:"congestion"`
			SimUs  float64 `json:"simulated_us"`
		} `json:"placements"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Chosen != "search" || back.Verdict != r.Verdict() || len(back.Placements) != 2 || !back.Placements[1].Chosen ||
		back.Placements[0].Chosen || back.Placements[0].Cong != 15 || back.Placements[1].SimUs != 33 {
		t.Errorf("JSON %s", b.String())
	}
}
