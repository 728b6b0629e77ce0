package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"orcs/gen"
	"orcs/samplingsim"
)

var mapArgs = []string{"-i", "gen:fattree2:leaves=4,hosts=4,up=2", "-p", "neighbor2d", "--budget", "3000"}

// runMap runs orcs map in-process and returns its report.
func runMap(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runCmd(t, append([]string{"map"}, args...)...)
}

func mustMap(t *testing.T, args ...string) string {
	t.Helper()
	out, err := runMap(t, args...)
	if err != nil {
		t.Fatalf("orcs map %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// TestMapGolden pins the report of every strategy with samplingsim times.
// Regenerate with go test ./orcs -run TestMapGolden -update.
func TestMapGolden(t *testing.T) {
	got := mustMap(t, append(mapArgs, "--compare", "--verify")...)
	checkGolden(t, filepath.Join("testdata", "golden", "map-fattree2-neighbor2d.txt"), got)
}

// TestMapLinearHandDerived checks the linear row by hand. neighbor2d on 16
// ranks is a 4×4 torus, rank = 4·a + b: the ±b partners share the leaf
// switch of 4 hosts, the ±a partners are on other leaves. Every host sends
// and receives 4 messages (load 4 on its cables, the congestion); a leaf
// sends 8 messages up, to hosts d with up-link d mod 2: 4 per up-link, and
// receives 4 per spine down-link. Hops: 32 messages of 2 and 32 of 4 = 192;
// Σ load² = 16·16 (host up) + 16·16 (host down) + 8·16 (leaf up) + 8·16
// (spine down) = 768.
func TestMapLinearHandDerived(t *testing.T) {
	out := mustMap(t, mapArgs...)
	lines := strings.Split(out, "\n")
	if len(lines) < 3 {
		t.Fatalf("report:\n%s", out)
	}
	if got := strings.Fields(lines[1]); strings.Join(got[:7], " ") != "linear 4 4 4 768 768 192" {
		t.Fatalf("linear row %q, want linear 4 4 4 768 768 192", lines[1])
	}
	if !strings.HasPrefix(lines[2], "search ") {
		t.Fatalf("second row %q, want the chosen strategy search", lines[2])
	}
}

// TestMapFiles: --hosts names come back in the Slurm host file and the
// rank→host file (which samplingsim --mapping reads to the same
// placement); the same seed writes the same bytes.
func TestMapFiles(t *testing.T) {
	dir := t.TempDir()
	rh, sh := filepath.Join(dir, "rank-hosts"), filepath.Join(dir, "hostfile")
	args := []string{"-i", "gen:fattree2:leaves=4,hosts=4,up=2", "--hosts", "H[2-15]", "-p", "ring", "-s", "12",
		"--strategy", "bisect", "--rank-hosts", rh, "--slurm-hostfile", sh}
	mustMap(t, args...)
	hostfile, _ := os.ReadFile(sh)
	names := strings.Fields(string(hostfile))
	if len(names) != 12 {
		t.Fatalf("host file has %d lines, want 12:\n%s", len(names), hostfile)
	}
	f, err := gen.Generate("fattree2:leaves=4,hosts=4,up=2")
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(rh)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	pl, err := samplingsim.ReadMapping(fh, rh, f)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for r, h := range pl {
		if name := f.HostName(int(h)); name != names[r] || name == "H0" || name == "H1" || seen[name] {
			t.Fatalf("rank %d: rank-hosts says %s, host file %s (hosts H2…H15, each once)", r, name, names[r])
		}
		seen[names[r]] = true
	}
	first := string(hostfile)
	mustMap(t, args...)
	if again, _ := os.ReadFile(sh); string(again) != first {
		t.Fatal("the same seed wrote another host file")
	}
}

// TestMapBadInput: a bad traffic matrix names file and line, fails, and
// leaves no output file behind; so do the other refusals.
func TestMapBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "m.csv", "src_rank,dst_rank,bytes\n0,1,100\n1,two,5\n")
	sh := filepath.Join(dir, "hostfile")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--traffic", bad}, "m.csv:3: dst_rank \"two\""},
		{[]string{"-p", "ring", "--traffic", bad}, "one of them"},
		{[]string{}, "give the job's communication"},
		{[]string{"-p", "rand"}, "drawn anew for every run"},
		{[]string{"-p", "ring", "-s", "99"}, "the job has 99 ranks, the allocation 16 hosts"},
		{[]string{"-p", "ring", "--strategy", "best"}, `unknown strategy "best"`},
		{[]string{"-p", "ring", "--strategy", "tile"}, "tile needs the job's grid"},
		{[]string{"-p", "ring", "--objective", "hops"}, `unknown objective "hops"`},
		{[]string{"-p", "ring", "--grid", "4"}, "want XxY or XxYxZ"},
	} {
		args := append([]string{"-i", "gen:fattree2:leaves=4,hosts=4,up=2", "--slurm-hostfile", sh}, tc.args...)
		_, err := runMap(t, args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.args, err, tc.want)
		}
		if _, err := os.Stat(sh); err == nil {
			t.Fatalf("%v: a host file was written", tc.args)
		}
	}
}

// TestMapSlurmNamesFromDescriptions: on a fabric read from dumps with
// --names desc, the Slurm host file names the machines (node003 for both
// HCAs of node003), the rank→host file the fabric's hosts.
func TestMapSlurmNamesFromDescriptions(t *testing.T) {
	dir := t.TempDir()
	sh, rh := filepath.Join(dir, "hostfile"), filepath.Join(dir, "ranks")
	mustMap(t, "--topo", "../testdata/ib/cluster/updn/ibnetdiscover.txt", "--lfts", "../testdata/ib/cluster/updn/opensm-lfts.dump",
		"--names", "desc", "-p", "ring", "-s", "4", "--strategy", "linear", "--slurm-hostfile", sh, "--rank-hosts", rh)
	hostfile, _ := os.ReadFile(sh)
	ranks, _ := os.ReadFile(rh)
	if string(hostfile) != "node001\nnode002\nnode003\nnode003\n" {
		t.Errorf("host file:\n%s", hostfile)
	}
	if !strings.Contains(string(ranks), "0 H-node001_mlx5_0\n") {
		t.Errorf("rank-hosts:\n%s", ranks)
	}
}

// TestMapScoreIsAnalyzers: the objective map reports for a placement is
// the analyzer's own: running the classic command on the placement (the
// Slurm host file as --hosts, -d: rank i on line i) gives the congestion as
// sum_max_cong, and get_cable_cong's summed link loads give sum_sq_job.
func TestMapScoreIsAnalyzers(t *testing.T) {
	dir := t.TempDir()
	fab := "gen:fattree2:leaves=4,hosts=4,up=2"
	for _, strategy := range []string{"random", "rcm", "search"} {
		hf := filepath.Join(dir, strategy)
		rep := mustMap(t, "-i", fab, "-p", "bruck", "--strategy", strategy, "--seed", "3", "--slurm-hostfile", hf)
		row := strings.Fields(strings.Split(rep, "\n")[2])
		if row[0] != strategy {
			t.Fatalf("report:\n%s", rep)
		}
		base := []string{"-i", fab, "--hosts", "@" + hf, "-d", "-p", "bruck", "-n", "1", "--format", "csv"}
		smc := strings.Split(strings.TrimSpace(mustRun(t, append(base, "--metric", "sum_max_cong")...)), "\n")
		if got := strings.TrimPrefix(smc[1], "0,"); got != row[1] {
			t.Errorf("%s: map's congestion %s, the analyzer's sum_max_cong %s", strategy, row[1], got)
		}
		var sq int64
		for _, line := range strings.Split(strings.TrimSpace(mustRun(t, append(base, "--metric", "get_cable_cong")...)), "\n")[1:] {
			load, err := strconv.ParseInt(strings.Split(line, ",")[5], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			sq += load * load
		}
		if got := strconv.FormatInt(sq, 10); got != row[5] {
			t.Errorf("%s: map's sum_sq_job %s, Σ load² of get_cable_cong %s", strategy, row[5], got)
		}
	}
}

// TestMapNoPartialOutputs: when one output of orcs map cannot be written,
// none is left behind — the rank→host file is not written while the Slurm
// host file or the report fails.
func TestMapNoPartialOutputs(t *testing.T) {
	dir := t.TempDir()
	ranks := filepath.Join(dir, "ranks.txt")
	bad := filepath.Join(dir, "missing", "x.txt")
	for _, args := range [][]string{
		{"--rank-hosts", ranks, "--slurm-hostfile", bad},
		{"--rank-hosts", ranks, "-o", bad},
	} {
		full := append([]string{"map", "-i", "../testdata/ft16.dot", "-p", "bisect"}, args...)
		if _, err := runCmd(t, full...); err == nil {
			t.Fatalf("%v: no error", args)
		}
		if _, err := os.Stat(ranks); err == nil {
			t.Errorf("%v: the rank→host file was written although another output failed", args)
			os.Remove(ranks)
		}
	}
}

// TestMapRefusesPtrnvsptrn: ptrnvsptrn needs flags orcs map does not have;
// it is refused with what to give instead.
func TestMapRefusesPtrnvsptrn(t *testing.T) {
	_, err := runMap(t, "-i", "gen:kary:k=4,n=2", "-p", "ptrnvsptrn")
	if err == nil || !strings.Contains(err.Error(), "-p file:PATH") {
		t.Errorf("map -p ptrnvsptrn: %v", err)
	}
}

// TestMapVerdictCLI: orcs map ends its report in the verdict, which the
// JSON carries too, with the numbers of the placements' rows. The tree
// pattern on the 16 hosts of a two-level fat tree: search brings the
// congestion from 6 to 4.
func TestMapVerdictCLI(t *testing.T) {
	args := []string{"-i", "gen:fattree2:leaves=4,hosts=4,up=2", "-p", "tree", "--budget", "3000", "--verify"}
	text := mustMap(t, args...)
	lines := strings.Split(strings.TrimSpace(text), "\n")
	verdict := lines[len(lines)-1]
	out := mustMap(t, append(args, "--format", "json")...)
	var rep struct {
		Chosen     string `json:"chosen"`
		Verdict    string `json:"verdict"`
		Placements []struct {
			Name       string  `json:"placement"`
			Chosen     bool    `json:"chosen"`
			Congestion int64   `json:"congestion"`
			SimUs      float64 `json:"simulated_us"`
		} `json:"placements"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Verdict != verdict || rep.Chosen != "search" || len(rep.Placements) != 2 || !rep.Placements[1].Chosen {
		t.Fatalf("text verdict %q, JSON %s", verdict, out)
	}
	lin, s := rep.Placements[0], rep.Placements[1]
	want := fmt.Sprintf("Placement search congests %s× less than the given one (%d vs %d); simulated completion %.4g µs vs %.4g µs (",
		strconv.FormatFloat(float64(lin.Congestion)/float64(s.Congestion), 'g', 3, 64), s.Congestion, lin.Congestion, s.SimUs, lin.SimUs)
	if lin.Congestion != 6 || s.Congestion != 4 || !strings.HasPrefix(verdict, want) || !strings.Contains(text, "  <- chosen\n") {
		t.Errorf("verdict %q, want it to start %q", verdict, want)
	}
}
