package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/samplingsim"
)

// ccWorkload is a hot spot on 64 hosts: a fifth of every host's messages
// go to one host that receives at line rate.
var ccWorkload = []string{"--gen", "kary:k=4,n=3", "--scheme", "none", "--workload", "saturation:msgs=60,stop=0,frac=0.2"}

// TestSamplingsimCC: --cc prints what congestion control did and its
// verdict; --cc-conf reads OpenSM's own files (testdata/cc): the template
// leaves it off and says why, the edited one sets OpenSM's values.
func TestSamplingsimCC(t *testing.T) {
	js := filepath.Join(t.TempDir(), "run.json")
	out, err := runSampling(t, append(ccWorkload, "--cc", "aggressive", "--json", js)...)
	if err != nil {
		t.Fatal(err)
	}
	var run samplingsim.RunFile
	if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &run) != nil {
		t.Fatalf("%s: %v", js, err)
	}
	cc := run.CongestionControl
	if cc == nil || len(cc.Flows) == 0 || len(cc.Ports) == 0 || cc.BECNs == 0 || !strings.HasPrefix(cc.Verdict, "Congestion control acted") {
		t.Errorf("the JSON's congestion_control: %+v", cc)
	} else {
		var marked, flowMarked int64
		for _, p := range cc.Ports {
			marked += p.Marked
		}
		for _, f := range cc.Flows {
			flowMarked += f.Marked
		}
		if marked != flowMarked || marked != cc.CNPs {
			t.Errorf("ports marked %d, flows %d, BECNs sent %d: want the same", marked, flowMarked, cc.CNPs)
		}
	}
	for _, want := range []string{"congestion control: threshold 15, marking rate 0", "ports mark packets of at least 512 bytes entering an output queue that then holds 2 of its 4 packets",
		"hot spot H", "Congestion control acted: "} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	out, err = runSampling(t, append(ccWorkload, "--cc-conf", "../testdata/cc/opensm.conf")...)
	if err != nil || !strings.Contains(out, "congestion control: off (../testdata/cc/opensm.conf says congestion_control FALSE)") {
		t.Errorf("OpenSM's template: %v\n%s", err, out)
	}
	out, err = runSampling(t, append(ccWorkload, "--cc-conf", "../testdata/cc/opensm-cc.conf")...)
	if err != nil || !strings.Contains(out, "congestion control: threshold 15, marking rate 1, packet size 8 credits, CCTI increase 2, timer 20 (20.48 µs), min 0, limit 7") {
		t.Errorf("opensm-cc.conf: %v\n%s", err, out)
	}
}

// TestSamplingsimCompareCC: --compare-cc runs off, a short form and an
// opensm.conf side by side: the hot spot, one row each, each row's verdict
// and the comparison's.
func TestSamplingsimCompareCC(t *testing.T) {
	out, err := runSampling(t, append(ccWorkload, "--compare-cc", "off;aggressive:victim=hosts;../testdata/cc/opensm-cc.conf")...)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 10 || !strings.HasPrefix(lines[1], "hot spot H") || !strings.Contains(lines[2], "victims Gb/s") {
		t.Fatalf("want a title, the hot spot, a header, 3 rows, 3 verdicts and the comparison:\n%s", out)
	}
	for i, name := range []string{"off", "aggressive:victim=hosts", "../testdata/cc/opensm-cc.conf"} {
		if f := strings.Fields(lines[3+i]); f[0] != name {
			t.Errorf("row %d: %q, want %s", i, lines[3+i], name)
		}
	}
	if f := strings.Fields(lines[3]); f[8] != "-" {
		t.Errorf("the off row has marks: %s", lines[3])
	}
	if !strings.HasPrefix(lines[6], "off: Congestion control was off.") || !strings.Contains(lines[7], "Congestion control acted") ||
		!strings.HasPrefix(lines[9], "Best for the victims: ") {
		t.Errorf("verdicts:\n%s", strings.Join(lines[6:], "\n"))
	}
}

func TestSamplingsimCCErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.conf")
	if err := os.WriteFile(bad, []byte("# mine\nrouting_engine ftree\ncc_sw_cong_threshold 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cc", "fast"}, `--cc: unknown congestion control "fast" (known: off, on, aggressive, default, timid`},
		{[]string{"--cc", "on", "--cc-conf", bad}, "either with --cc SPEC or with --cc-conf FILE"},
		{[]string{"--cc-conf", bad}, `bad.conf:3: unknown congestion control key "cc_sw_cong_threshold" (known: congestion_control, `},
		{[]string{"--cc-conf", filepath.Join(dir, "none.conf")}, "none.conf"},
		{[]string{"--compare-cc", "off;on", "--json", filepath.Join(dir, "x.json")}, "--compare-cc prints one table of several runs; --json writes one run"},
		{[]string{"--compare-cc", "off;;on"}, "an empty entry"},
		{[]string{"--compare-cc", "off;" + filepath.Join(dir, "none.conf")}, "none.conf"},
		{[]string{"--compare-cc", "off;on", "--cc", "on"}, "give --cc and --cc-conf as entries of the list"},
		{[]string{"--cc", "on", "--routing", "adaptive"}, "congestion control with adaptive routing"},
		{[]string{"--compare-cc", "off;on", "--seeds", "1-3"}, "give it without --compare-cc"},
		{[]string{"--compare-cc", "off;on", "--compare-routing", "static;adaptive"}, "give one of them"},
	} {
		_, err := runSampling(t, append(ccWorkload, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Errorf("a refused run wrote its JSON")
	}
}
