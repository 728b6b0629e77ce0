package deadlock

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestStatement: the verdict with what was checked and what was left out,
// counted by hand on the 4-switch ring (4 hosts, 12 ordered pairs; 16
// directed cables: 4 clockwise, 4 counter-clockwise, 4 host up and 4 down)
// and on sharp-spines/minhop (20 hosts, 4 of them aggregation nodes).
func TestStatement(t *testing.T) {
	const mgmt = "routes to and from the switches' own LIDs (management traffic)"
	noLanes := "the paths' SLs (not given: every path on SL 0; an engine that separates paths by SL may avoid a loop found so); " +
		"the switches' SL2VL tables (not given: VL = SL); "
	f := ring(t, 4)
	loop := check(t, f, nil)
	want := "Credit loop on VL 0: 4 cables. Checked: 12 routes (every ordered pair of 4 hosts) through 4 switches and 16 directed cables, on VL 0. " +
		"Left out: " + noLanes + mgmt + "."
	if got := loop.Statement(); got != want {
		t.Errorf("ring without lanes:\n got %s\nwant %s", got, want)
	}
	out := text(t, loop)
	if !strings.HasSuffix(out, "\n\n"+want+"\n") {
		t.Errorf("the text does not end in the statement:\n%s", out)
	}
	loop.Unrouted = 3
	if got := loop.LeftOut(); len(got) != 4 || got[2] != "3 host pairs that do not route (orcs --checkinputfile lists them)" {
		t.Errorf("left out with 3 unrouted pairs: %q", got)
	}

	// Paths on SL 1 where they pass the dateline S4 -> S1, which switches
	// move to VL 1: deadlock-free on two VLs, every lane given.
	lanes := NewLanes(f)
	for s := int32(0); s < 4; s++ {
		for d := int32(0); d < s; d++ {
			lanes.SetSL(s, d, 1)
		}
	}
	for _, name := range []string{"S1", "S2", "S3", "S4"} {
		v, _ := f.NodeByName(name)
		for in := 0; in <= 3; in++ {
			for out := 1; out <= 3; out++ {
				for sl := uint8(0); sl < NumSLs; sl++ {
					vl := uint8(0)
					if sl == 1 && out == 1 && (name == "S4" || in == 2 && name != "S3") {
						vl = 1
					}
					lanes.SetVL(v, in, out, sl, vl)
				}
			}
		}
	}
	free := check(t, f, lanes)
	want = "Deadlock-free (2 VLs). Checked: 12 routes (every ordered pair of 4 hosts) through 4 switches and 16 directed cables, on VLs 0, 1; " +
		"SLs: given per path; SL2VL: given per switch. Left out: " + mgmt + "."
	if got := free.Statement(); got != want {
		t.Errorf("dateline ring:\n got %s\nwant %s", got, want)
	}

	fa, la := loadRun(t, "sharp-spines/minhop", "")
	agg := check(t, fa, la)
	if c := agg.Checked(); !strings.HasPrefix(c, "380 routes (every ordered pair of 20 hosts, 4 of them SHARP aggregation nodes) through ") {
		t.Errorf("sharp-spines checked: %s", c)
	}
	var b bytes.Buffer
	if err := agg.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict string   `json:"verdict"`
		Checked string   `json:"checked"`
		LeftOut []string `json:"left_out"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || doc.Verdict != agg.Verdict() || doc.Checked != agg.Checked() ||
		strings.Join(doc.LeftOut, "; ") != strings.Join(agg.LeftOut(), "; ") {
		t.Errorf("JSON %v: %s", err, b.String())
	}
}
