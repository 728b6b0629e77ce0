package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"orcs/internal/interrupt"
)

// TestHotGather checks --hot on a gather to H0 on the 16-host fat tree,
// counted by hand: all 15 messages end on S0_0 -> H0 (load 15); the 12
// from the other three leaves come down S1_0 -> S0_0 (ft16 routes H0 over
// spine S1_0 from every leaf), and each other leaf sends its 4 up one
// cable to S1_0 (load 4, three such cables, ranked by link id).
func TestHotGather(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "hot.csv")
	out := mustRun(t, "-i", "../testdata/ft16.dot", "-p", "gather", "-d", "-n", "1", "--hot", "10", "--hot-csv", csvPath)
	for _, want := range []string{
		"Hot cables: the 10 most loaded (mean over 1 run of the largest load in a level)",
		"1     S0_0 -> H0    15.000     15   0/0           15",
		"2     S1_0 -> S0_0  12.000     12   0/0           12",
		"3     S0_1 -> S1_0  4.000      4    0/0           4",
		"1. S0_0 -> H0: 15 flows over 1 run; at its peak (load 15, run 0, level 0):\n  rank 1 -> 0 (H1 -> H0)\n",
		"  rank 15 -> 0 (H15 -> H0)\n\n2. S1_0 -> S0_0: 12 flows",
		"3. S0_1 -> S1_0: 4 flows over 1 run; at its peak (load 4, run 0, level 0):\n  rank 4 -> 0 (H4 -> H0)\n",
		// The verdict, the last line.
		"\n\nThe hottest cable is S0_0 -> H0, carrying 15 flows at once in level 0 of run 0 (its peak load averages 15 over 1 run); " +
			"its flows: rank 1 -> 0 (H1 -> H0), rank 2 -> 0 (H2 -> H0), rank 3 -> 0 (H3 -> H0), rank 4 -> 0 (H4 -> H0) and 11 more.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	csv, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if !strings.HasPrefix(lines[0], "rank,link,from,") || !strings.Contains(string(csv), "\n1,") || !strings.HasSuffix(lines[1], ",0,1,0,H1,H0,1") {
		t.Errorf("csv:\n%s", csv)
	}
	// JSON carries them; get_cable_cong's dot gets them as attributes.
	js := mustRun(t, "-i", "../testdata/ft16.dot", "-p", "gather", "-d", "-n", "1", "--hot", "2", "--format", "json")
	var res struct {
		Verdict string `json:"verdict"`
		Hot     []struct {
			Rank    int    `json:"rank"`
			From    string `json:"from"`
			MaxLoad int    `json:"max_load"`
			Flows   []any  `json:"flows"`
		} `json:"hot_cables"`
	}
	if err := json.Unmarshal([]byte(js), &res); err != nil || len(res.Hot) != 2 || res.Hot[1].From != "S1_0" || res.Hot[1].MaxLoad != 12 || len(res.Hot[1].Flows) != 12 ||
		!strings.HasPrefix(res.Verdict, "The hottest cable is S0_0 -> H0, carrying 15 flows at once in level 0 of run 0") || !strings.HasSuffix(out, res.Verdict+"\n") {
		t.Errorf("json: %v %+v", err, res.Hot)
	}
	dot := mustRun(t, "-i", "../testdata/ft16.dot", "-p", "gather", "-d", "-n", "1", "--hot", "1", "--metric", "get_cable_cong")
	if !strings.Contains(dot, `"S0_0" -> "H0" [comment="H0", congestion="1.000000", color="0.000000 0.900000 0.900000", hot_rank="1", hot_mean_peak="15.000000", hot_max="15", hot_peak_at="0/0", hot_flows="H1->H0@0×1 `) ||
		strings.Count(dot, "hot_rank") != 1 || strings.Contains(dot, "Hot cables") ||
		!strings.HasSuffix(dot, "}\n// "+res.Verdict+"\n") { // the verdict of --hot 2 and --hot 1: the same first cable
		t.Errorf("get_cable_cong dot:\n%s", dot)
	}
	// The comment line does not stop the dot from being read back.
	if out := mustRun(t, "--checkinputfile", "-i", writeFile(t, dir, "hot.dot", dot)); !strings.Contains(out, "all pairs route without loops") {
		t.Errorf("the hot dot does not read back:\n%s", out)
	}
}

// TestHotDeterministic checks that --hot over shuffled runs gives the same
// bytes on one and two threads, and that it is refused with --shard.
func TestHotDeterministic(t *testing.T) {
	args := []string{"-i", "../testdata/ft64.dot", "-p", "bisect_fb_sym", "-n", "50", "--seed", "9", "--hot", "5"}
	a := string(runBin(t, append(args, "-j", "1")...))
	b := string(runBin(t, append(args, "-j", "2")...))
	if a != b || !strings.Contains(a, "mean over 50 runs") {
		t.Errorf("-j 1 and -j 2 differ or no table:\n%s\n---\n%s", a, b)
	}
	if _, err := run(t, append(args, "--shard", "0/2")...); err == nil || !strings.Contains(err.Error(), "not with --shard") {
		t.Errorf("--hot with --shard: %v", err)
	}
}

// TestRefusedCombinations checks options that cannot work together.
func TestRefusedCombinations(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--checkinputfile", "--routequal"}, "give one"},
		{[]string{"--shard", "0/2", "--seed", "1", "--format", "csv", "-o", "s.csv"}, "--shard writes a shard file (JSON) for orcs merge, not s.csv"},
		{[]string{"-j", "-3"}, "want 0 (all cores) to 1024"},
		{[]string{"--hot", "-1"}, "--hot N wants N > 0"},
	} {
		_, err := run(t, append([]string{"-i", "../testdata/ft16.dot"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestBinaryInputRefused checks that binary data (here /dev/zero, which
// never ends) is refused at once, as a fabric and as a pattern file.
func TestBinaryInputRefused(t *testing.T) {
	for _, args := range [][]string{{"-i", "/dev/zero"}, {"-i", "../testdata/ft16.dot", "-p", "file:/dev/zero"}} {
		_, err := run(t, append(args, "-n", "2")...)
		if err == nil || !strings.Contains(err.Error(), "/dev/zero: a NUL byte at offset 0: binary data, not a text file") {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// TestSigtermKeepsOutput stops a long simulation with SIGTERM, as Slurm's
// scancel does: the exit code is 143, the previous output file is kept and
// no temporary file is left beside it.
func TestSigtermKeepsOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(orcsBin, "-i", "../testdata/ft64.dot", "-p", "bisect_fb_sym", "-n", "50000000", "--seed", "1", "-o", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	startReady(t, cmd)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 || time.Since(start) > time.Second {
		t.Errorf("exit %v after %s, want 143 within 1 s; stderr %q", err, time.Since(start), stderr.String())
	}
	if got, _ := os.ReadFile(out); string(got) != "old\n" {
		t.Errorf("output file now %q", got)
	}
	if files, _ := os.ReadDir(dir); len(files) != 1 {
		t.Errorf("files left: %v", files)
	}
	if strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "orcs: stopped by terminated") {
		t.Errorf("stderr %q", stderr.String())
	}
}

// startReady starts cmd and returns once orcs says, on the pipe named by
// interrupt.ReadyEnv, that a signal now stops it cleanly (its long work
// has begun): tests signal then, not after a fixed sleep that a loaded
// machine outlasts. It fails the test if orcs ends or stays silent for a
// minute.
func startReady(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd.ExtraFiles = []*os.File{w} // descriptor 3 in orcs
	cmd.Env = append(cmd.Environ(), interrupt.ReadyEnv+"=3")
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		line <- string(b)
	}()
	select {
	case got := <-line:
		if got != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("orcs ended or closed the ready pipe without saying ready (said %q)", got)
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("orcs did not say ready within a minute")
	}
}

// TestCSVIsATable checks that --format csv holds one row per run and
// nothing else: its column mean is the mean the JSON output reports.
func TestCSVIsATable(t *testing.T) {
	args := []string{"-i", "../testdata/ft64.dot", "-p", "bisect_fb_sym", "--metric", "hist_acc_band", "-n", "200", "--seed", "4"}
	rows, err := csv.NewReader(strings.NewReader(mustRun(t, append(args, "--format", "csv")...))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 201 || rows[0][0] != "run" || rows[0][1] != "bandwidth" {
		t.Fatalf("%d rows, header %v", len(rows), rows[0])
	}
	var sum float64
	for i, r := range rows[1:] {
		v, err := strconv.ParseFloat(r[1], 64)
		if err != nil || r[0] != strconv.Itoa(i) {
			t.Fatalf("row %d: %v", i, r)
		}
		sum += v
	}
	var doc struct {
		Summary struct {
			Mean float64 `json:"mean"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, append(args, "--format", "json")...)), &doc); err != nil {
		t.Fatal(err)
	}
	if mean := sum / 200; math.Abs(mean-doc.Summary.Mean) > 1e-12 {
		t.Errorf("CSV column mean %v, JSON mean %v", mean, doc.Summary.Mean)
	}
}

// TestHotPeakLevel: --hot gives the flows of the level where a cable's
// peak happened, and every flow in CSV and JSON. Worked by hand on ft16
// with testdata/hot/peak-level.txt, one run with rank i on Hi: S0_0 -> H0
// carries every message (13 distinct flows over 6 levels), at most 3 at once,
// in level 1 (8, 9, 12 -> 0). S1_0 -> S0_0 (ft16 routes H0 over spine S1_0
// from every leaf) carries the 10 from the other leaves (not 1, 2, 3 -> 0),
// also 3 in level 1; the tie goes to the lower link id, S0_0 -> H0.
func TestHotPeakLevel(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "hot.csv")
	args := []string{"-i", "../testdata/ft16.dot", "-p", "file:testdata/hot/peak-level.txt", "-d", "-n", "1", "--hot", "2"}
	out := mustRun(t, append(args, "--hot-csv", csvPath)...)
	for _, want := range []string{
		"1     S0_0 -> H0    3.000      3    0/1           13",
		"2     S1_0 -> S0_0  3.000      3    0/1           10",
		"1. S0_0 -> H0: 13 flows over 1 run; at its peak (load 3, run 0, level 1):\n" +
			"  rank 8 -> 0 (H8 -> H0)\n  rank 9 -> 0 (H9 -> H0)\n  rank 12 -> 0 (H12 -> H0)\n",
		"2. S1_0 -> S0_0: 10 flows over 1 run; at its peak (load 3, run 0, level 1):\n" +
			"  rank 8 -> 0 (H8 -> H0)\n  rank 9 -> 0 (H9 -> H0)\n  rank 12 -> 0 (H12 -> H0)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "level 0: rank 4") {
		t.Errorf("the text lists flows of other levels than the peak's:\n%s", out)
	}
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0], ","); got != "rank,link,from,from_port,to,to_port,mean_peak_load,max_load,max_run,max_level,distinct_flows,set,run,level,src_rank,dst_rank,src_host,dst_host,runs" {
		t.Fatalf("csv header %s", got)
	}
	count := map[string]int{}
	for _, r := range rows[1:] {
		count[r[0]+" "+r[11]]++
	}
	if want := map[string]int{"1 peak": 3, "1 all": 13, "2 peak": 3, "2 all": 10}; !maps.Equal(count, want) {
		t.Errorf("csv rows per cable and set: %v, want %v\n%s", count, want, b)
	}
	if got := strings.Join(rows[1][11:], ","); got != "peak,0,1,8,0,H8,H0,1" {
		t.Errorf("first csv row ends %s, want peak,0,1,8,0,H8,H0,1", got)
	}
	js := mustRun(t, append(args, "--format", "json")...)
	var res struct {
		Verdict string `json:"verdict"`
		Hot     []struct {
			Flows     []struct{ Level, Run int } `json:"flows"`
			PeakFlows []struct {
				Level   int    `json:"level"`
				Run     int    `json:"run"`
				SrcHost string `json:"src_host"`
			} `json:"peak_flows"`
		} `json:"hot_cables"`
	}
	if err := json.Unmarshal([]byte(js), &res); err != nil || len(res.Hot) != 2 {
		t.Fatalf("json: %v %s", err, js)
	}
	if h := res.Hot[0]; len(h.Flows) != 13 || len(h.PeakFlows) != 3 || h.PeakFlows[2].Level != 1 || h.PeakFlows[2].SrcHost != "H12" {
		t.Errorf("json cable 1: %+v", h)
	}
}
