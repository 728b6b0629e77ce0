package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckInputVerdict: --checkinputfile ends in its verdict, which says
// what it left out: on testdata/ib/sharp/minhop the 24 "Aggregation Node"
// lines of ibnetdiscover are 12 SHARP aggregation nodes (each named on its
// own line and on its switch's port line), left out without
// --include-aggregation-nodes; 64 hosts give 64·63 = 4032 ordered pairs
// through 12 switches. The JSON carries the same sentence.
func TestCheckInputVerdict(t *testing.T) {
	args := []string{"--checkinputfile", "--topo", "../testdata/ib/sharp/minhop/ibnetdiscover.txt", "--lfts", "../testdata/ib/sharp/minhop/opensm-lfts.dump"}
	text := mustRun(t, args...)
	want := "Every pair routes without a loop: checked 4032 ordered pairs of 64 hosts, each to its destination's base LID, hop by hop through the tables of 12 switches. " +
		"Left out: 12 SHARP aggregation nodes of the topology (--include-aggregation-nodes checks their paths too); routes to and from the switches' own LIDs (management traffic)."
	if !strings.HasSuffix(text, "\n"+want+"\n") {
		t.Errorf("the check does not end in %q:\n%s", want, text)
	}
	var doc struct {
		Verdict string   `json:"verdict"`
		LeftOut []string `json:"left_out"`
	}
	js := mustRun(t, append(args, "--format", "json")...)
	if err := json.Unmarshal([]byte(js), &doc); err != nil || doc.Verdict != want || len(doc.LeftOut) != 1 {
		t.Errorf("JSON %v:\n%s", err, js)
	}
	// With them: 76 hosts, 76·75 = 5700 pairs, nothing of the topology left out.
	text = mustRun(t, append(args, "--include-aggregation-nodes")...)
	if !strings.Contains(text, "checked 5700 ordered pairs of 76 hosts") || strings.Contains(text, "aggregation nodes of the topology") {
		t.Errorf("with the aggregation nodes:\n%s", text)
	}
}

// TestDeadlockStatementCLI: orcs deadlock ends in the verdict with what it
// checked and left out; on ft16 (16 hosts, 240 ordered pairs, 8 switches,
// 32 cables = 64 directed) without SL files, the SLs and SL2VL tables are
// left out. The JSON carries checked and left_out.
func TestDeadlockStatementCLI(t *testing.T) {
	out, err := runCmd(t, "deadlock", "-i", "../testdata/ft16.dot")
	if err != nil {
		t.Fatal(err)
	}
	want := "Deadlock-free (1 VL). Checked: 240 routes (every ordered pair of 16 hosts) through 8 switches and 64 directed cables, on VL 0. " +
		"Left out: the paths' SLs (not given: every path on SL 0; an engine that separates paths by SL may avoid a loop found so); " +
		"the switches' SL2VL tables (not given: VL = SL); routes to and from the switches' own LIDs (management traffic)."
	if !strings.HasSuffix(out, "\n"+want+"\n") {
		t.Errorf("deadlock does not end in %q:\n%s", want, out)
	}
	js, err := runCmd(t, "deadlock", "-i", "../testdata/ft16.dot", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict string   `json:"verdict"`
		Checked string   `json:"checked"`
		LeftOut []string `json:"left_out"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || doc.Verdict != "deadlock-free (1 VL)" ||
		doc.Checked != "240 routes (every ordered pair of 16 hosts) through 8 switches and 64 directed cables, on VL 0" || len(doc.LeftOut) != 3 {
		t.Errorf("JSON %v:\n%s", err, js)
	}
}
