package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"orcs/dot"
	"orcs/gen"
	"orcs/ib"
	"orcs/internal/cliargs"
	"orcs/opensm"
)

// runCmd runs the subcommand args[0] in-process as the command line would
// (flags may follow arguments), writing its output (-o) to a temporary file
// unless args name one, and returns the output.
func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	full := []string{"orcs", args[0]}
	hasOutput := false
	for _, a := range args[1:] {
		if a == "-o" || a == "--output_file" {
			hasOutput = true
		}
	}
	if !hasOutput {
		full = append(full, "-o", out)
	}
	full = append(full, args[1:]...)
	app := newApp()
	err := app.Run(cliargs.Interspersed(app, full))
	b, _ := os.ReadFile(out)
	return string(b), err
}

// needIBTools skips a test when the InfiniBand tools are missing.
func needIBTools(t *testing.T) {
	t.Helper()
	if _, err := opensm.FindTools(); err != nil {
		t.Skipf("InfiniBand tools missing (%v); install with: apt-get install %s", err, opensm.Packages)
	}
}

func TestRouteCommand(t *testing.T) {
	needIBTools(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "ft64-ftree.dot")
	keep := filepath.Join(dir, "keep")
	if _, err := runCmd(t, "route", "--engine", "ftree", "../testdata/ft64.dot", "-o", out, "--verify", "--keep", keep); err != nil {
		t.Fatal(err)
	}
	f, err := dot.ReadFile(out, dot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := dot.ReadFile("../testdata/ft64.dot", dot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !gen.SameTopology(f, in) {
		t.Error("the routed dot does not keep the input's names and link order")
	}
	all := make([]int32, f.NumHosts())
	for i := range all {
		all[i] = int32(i)
	}
	if c := f.CheckRoutes(all, 1, 2); !c.OK() {
		t.Errorf("%d unroutable, %d loops", c.Unroutable, c.Loops)
	}
	if _, err := os.Stat(filepath.Join(keep, "opensm-lfts.dump")); err != nil {
		t.Errorf("--keep: %v", err)
	}
	// The routed dot simulates.
	if _, err := run(t, "-i", out, "-p", "bisect", "-n", "3", "--seed", "1"); err != nil {
		t.Errorf("simulating the routed dot: %v", err)
	}

	// A fallback is an error unless allowed.
	_, err = runCmd(t, "route", "-R", "torus-2QoS", "../testdata/ft16.dot")
	if err == nil || !strings.Contains(err.Error(), "fell back from torus-2QoS to minhop") {
		t.Errorf("fallback: %v", err)
	}
	if _, err := runCmd(t, "route", "-R", "torus-2QoS", "--allow-fallback", "../testdata/ft16.dot"); err != nil {
		t.Errorf("--allow-fallback: %v", err)
	}
	// The torus gets its seed and routes with torus-2QoS.
	if _, err := runCmd(t, "route", "-R", "torus-2QoS", "gen:torus:dims=4x4,hosts=2"); err != nil {
		t.Errorf("torus-2QoS on a torus: %v", err)
	}
	_, err = runCmd(t, "route", "-R", "updn", "--no-fallback", "gen:torus:dims=4x4")
	if err == nil || !strings.Contains(err.Error(), "could not route the fabric (no_fallback)") {
		t.Errorf("--no-fallback: %v", err)
	}
	if _, err := runCmd(t, "route", "-R", "updn", "--roots", "S0_0", "gen:torus:dims=4x4"); err != nil {
		t.Errorf("updn with a root on a torus: %v", err)
	}
}

// toolsOf lists the processes whose ibsim socket name belongs to pid.
func toolsOf(pid int) []string {
	var out []string
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	mark := "IBSIM_SOCKNAME=orcs" + strconv.Itoa(pid) + "."
	for _, e := range envs {
		data, err := os.ReadFile(e)
		if err == nil && strings.Contains(string(data), mark) {
			out = append(out, e)
		}
	}
	return out
}

// TestRouteInterrupt stops orcs route with Ctrl-C (SIGINT) and with
// SIGHUP (a closed ssh session) while OpenSM runs: orcs must stop its
// tools, remove its work directory and exit with 130 or 129 (SIGHUP used
// to end it at once with 129, the tools' directory left in /tmp).
func TestRouteInterrupt(t *testing.T) {
	needIBTools(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGHUP, 129}} {
		tmp := t.TempDir()
		cmd := exec.Command(orcsBin, "route", "-R", "lash", "gen:kary:k=8,n=3", "-o", filepath.Join(tmp, "out.dot"))
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until OpenSM runs, then interrupt.
		deadline := time.Now().Add(20 * time.Second)
		for len(toolsOf(cmd.Process.Pid)) < 2 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if len(toolsOf(cmd.Process.Pid)) < 2 {
			t.Fatal("ibsim and OpenSM did not start")
		}
		cmd.Process.Signal(c.sig)
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != c.code || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%v: exit %v, stderr %q; want %d", c.sig, err, stderr.String(), c.code)
		}
		if left := toolsOf(cmd.Process.Pid); len(left) > 0 {
			t.Errorf("%v: tools still running: %v", c.sig, left)
		}
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("%v: left behind: %v", c.sig, left)
		}
	}
}

func TestCompareCommand(t *testing.T) {
	needIBTools(t)
	dir := t.TempDir()
	plotFile := filepath.Join(dir, "cmp.svg")
	out, err := runCmd(t, "compare", "--engines", "minhop,ftree,torus-2QoS", "../testdata/ft16.dot",
		"-p", "bisect_fb_sym", "-n", "50", "--plot", plotFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"engine", "minhop*", "ftree", "mean bw", "unroutable", "* torus-2QoS fell back to minhop"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	svg, err := os.ReadFile(plotFile)
	if err != nil || !strings.Contains(string(svg), "<svg") {
		t.Errorf("plot: %v", err)
	}
	// The verdict is the last line; torus-2QoS fell back and is named as
	// such. minhop and ftree route this fat tree alike: they tie, and no
	// row or curve is marked best.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if v := lines[len(lines)-1]; !strings.HasPrefix(v, "No single best engine for bisect_fb_sym: minhop and ftree tie at ") ||
		!strings.Contains(v, "Not ranked: torus-2QoS (OpenSM fell back to minhop).") || strings.Contains(out, "<- best") || strings.Contains(string(svg), "(best)") {
		t.Errorf("the table does not end in the verdict:\n%s", out)
	}
	out, err = runCmd(t, "compare", "--engines", "minhop,updn", "gen:kary:k=4,n=2", "-p", "bisect_fb_sym", "-n", "20",
		"--format", "json", "--seed", "7")
	if err != nil {
		t.Fatal(err)
	}
	var c opensm.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(c.Engines) != 2 || c.Seed != 7 || c.Hosts != 16 || len(c.Engines[1].Values) != 20 ||
		c.Engines[0].Used != "minhop" || c.Engines[1].Summary == nil || c.Engines[0].MaxCongestion < 1 {
		t.Errorf("json: %+v", c)
	}
	if want, best := c.Judge(); c.Verdict != want || (best < 0) != (c.Best == "") || (best >= 0 && c.Best != c.Engines[best].Requested) {
		t.Errorf("JSON verdict %q (best %q), recomputed from its numbers %q", c.Verdict, c.Best, want)
	}
}

func TestCompareBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "--format", "xml", "gen:kary:k=2,n=2"}, `unknown format "xml"`},
		{[]string{"compare", "--plot", "x.gif", "gen:kary:k=2,n=2"}, "want a .svg, .png or .pdf file"},
		{[]string{"compare", "--metric", "nope", "gen:kary:k=2,n=2"}, `unknown metric "nope"`},
		{[]string{"compare", "-s", "99", "gen:kary:k=2,n=2"}, "commsize 99 is larger"},
		{[]string{"compare"}, "want one FABRIC"},
		{[]string{"route", "-R", "minhop"}, "want one FABRIC"},
		{[]string{"route", "-R", "minhop", "nonexistent.dot"}, "nonexistent.dot"},
	} {
		if _, err := runCmd(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("orcs %v: %v, want %q", c.args, err, c.want)
		}
	}
}

func TestDot2OSMCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ft16.net")
	// ORCS's form: IN OUT.
	if err := newApp().Run([]string{"orcs", "dot2osm", "../testdata/ft16.dot", out}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	if _, err := ib.ReadSimNet(data, out); err != nil || !strings.HasPrefix(string(data), "# ibsim net file: 24 nodes") {
		t.Errorf("%v\n%s", err, data)
	}
	bad := writeFile(t, dir, "bad.dot", "digraph {\n  H0 -> S0;\n  S0 -> H0;\n  S0 -> H1;\n}\n")
	if _, err := runCmd(t, "dot2osm", bad); err == nil || !strings.Contains(err.Error(), `bad.dot:4: link "S0" -> "H1" has no reverse edge`) {
		t.Errorf("error %v", err)
	}
}

func TestGenIBSim(t *testing.T) {
	out, err := runCmd(t, "gen", "--format", "ibsim", "torus:dims=3x3")
	if err != nil {
		t.Fatal(err)
	}
	topo, err := ib.ReadSimNet([]byte(out), "torus.net")
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.Nodes) != 18 || topo.Nodes[9].ID != "S0_0" || topo.Nodes[9].NPorts != 5 {
		t.Errorf("torus net:\n%s", out)
	}
	if _, err := runCmd(t, "gen", "--format", "xml", "torus:dims=3x3"); err == nil || !strings.Contains(err.Error(), `unknown format "xml"`) {
		t.Errorf("bad format: %v", err)
	}
}

// TestRouteMissingTools: without the tools, route names the Debian
// packages to install.
func TestRouteMissingTools(t *testing.T) {
	cmd := exec.Command(orcsBin, "route", "-R", "minhop", "gen:kary:k=2,n=2")
	cmd.Env = append(os.Environ(), "UMAD2SIM="+filepath.Join(t.TempDir(), "libumad2sim.so"))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "apt-get install opensm ibsim-utils infiniband-diags") {
		t.Errorf("exit %v, output %q", err, out)
	}
}

// TestCompareInterruptWhileSimulating sends SIGTERM to compare after the
// routing, while it simulates: it stops within 3 s (10 million runs take
// minutes; a loaded CI machine needs more than the second an idle one
// takes) with exit code 143 and writes no output.
func TestCompareInterruptWhileSimulating(t *testing.T) {
	needIBTools(t)
	tmp := t.TempDir()
	out := filepath.Join(tmp, "cmp.txt")
	cmd := exec.Command(orcsBin, "compare", "--engines", "minhop", "gen:kary:k=4,n=3", "-n", "10000000", "-p", "bisect_fb_sym", "-o", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	startReady(t, cmd) // the first runs are simulated: the tools are done
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 143 || time.Since(start) > 3*time.Second || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("exit %v after %s, stderr %q", err, time.Since(start), stderr.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestFullDisk writes a result and routes with TMPDIR on a full disk (a
// small tmpfs; needs root): the errors name the disk's file and "no space
// left on device", and nothing is left behind.
func TestFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	if err := os.WriteFile(filepath.Join(dir, "fill"), make([]byte, 128<<10), 0o644); err == nil {
		t.Fatal("the 64 KiB tmpfs took 128 KiB")
	}
	cmd := exec.Command(orcsBin, "-i", "../testdata/ft64.dot", "-p", "gather", "-n", "1", "--seed", "1", "--metric", "get_cable_cong", "-o", filepath.Join(dir, "out.dot"))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), dir) || !strings.Contains(string(out), "no space left on device") {
		t.Errorf("result on a full disk: %v\n%s", err, out)
	}
	if _, err := exec.LookPath("opensm"); err == nil {
		cmd = exec.Command(orcsBin, "route", "-R", "minhop", "-i", "../testdata/ft16.dot", "-o", filepath.Join(t.TempDir(), "r.dot"))
		cmd.Env = append(os.Environ(), "TMPDIR="+dir)
		out, err = cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), dir) || !strings.Contains(string(out), "no space left on device") {
			t.Errorf("route with TMPDIR on a full disk: %v\n%s", err, out)
		}
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 || files[0].Name() != "fill" {
		t.Errorf("left on the disk: %v", files)
	}
}

// TestCompareWarnsOnce: compare reads --topo twice (the emulation, and
// with --lfts the row "current"); the warning that it leaves out the two
// aggregation nodes of cluster/minhop comes once.
func TestCompareWarnsOnce(t *testing.T) {
	needIBTools(t)
	dir := "../testdata/ib/cluster/minhop/"
	_, stderr, status := runStatus(t, "compare", "--topo", dir+"ibnetdiscover.txt", "--lfts", dir+"opensm-lfts.dump",
		"--engines", "minhop", "-n", "1", "-o", filepath.Join(t.TempDir(), "c.txt"))
	if n := strings.Count(stderr, "left out 2 SHARP aggregation nodes"); status != 0 || n != 1 {
		t.Errorf("exit %d, the warning %d times, want once:\n%s", status, n, stderr)
	}
}

// TestCompareCurrentIsEngine: on fabrics made by the real tools (ibsim,
// OpenSM, ibnetdiscover), compare --topo with the tables an engine made
// (--lfts) prints the row "current" equal to that engine's row — SHARP
// aggregation nodes (sharp576: 576 hosts, 48 switches, 48 aggregation
// nodes), a 2-port CA, loopback cables and a CA cabled on port 2 only
// included.
func TestCompareCurrentIsEngine(t *testing.T) {
	needIBTools(t)
	for _, run := range []string{"sharp/minhop", "sharp/dfsssp", "cluster/minhop", "loopback/minhop", "port2/minhop", "sharp576/minhop"} {
		t.Run(run, func(t *testing.T) {
			file := func(name string) string {
				p := filepath.Join("../testdata/ib", run, name)
				if _, err := os.Stat(p); err != nil {
					return p + ".gz"
				}
				return p
			}
			engine := filepath.Base(run)
			out, err := runCmd(t, "compare", "--topo", file("ibnetdiscover.txt"), "--lfts", file("opensm-lfts.dump"),
				"--engines", engine, "-n", "100", "--format", "json", "--timeout", "1m")
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var c opensm.Comparison
			if err := json.Unmarshal([]byte(out), &c); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(c.Engines) != 2 || c.Engines[0].Requested != opensm.CurrentRow || c.Engines[1].Error != "" {
				t.Fatalf("rows: %+v", c.Engines)
			}
			cur, eng := c.Engines[0], c.Engines[1]
			if cur.MeanBandwidth != eng.MeanBandwidth || !slices.Equal(cur.Values, eng.Values) || len(cur.Values) != 100 {
				t.Errorf("current %.4f, %s %.4f: the emulation routed another fabric", cur.MeanBandwidth, engine, eng.MeanBandwidth)
			}
		})
	}
}

// TestRouteLoopbackDot routes a fabric with loopback cables (two ports of
// one switch cabled together), read from ibnetdiscover, writes it as dot
// and routes that dot again: the loopbacks, two self edges each, are
// emulated as cables both times (they used to be refused).
func TestRouteLoopbackDot(t *testing.T) {
	needIBTools(t)
	out := filepath.Join(t.TempDir(), "loop.dot")
	if _, err := runCmd(t, "route", "-R", "minhop", "--topo", "../testdata/ib/loopback/minhop/ibnetdiscover.txt", "-o", out); err != nil {
		t.Fatal(err)
	}
	f, err := dot.ReadFile(out, dot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	self := 0
	for _, k := range f.Links {
		if k.From == k.To {
			self++
		}
	}
	if self != 4 {
		t.Fatalf("%d self edges, want 4 (two loopback cables)", self)
	}
	if _, err := runCmd(t, "route", "-R", "minhop", out); err != nil {
		t.Fatal(err)
	}
}

// TestCompareHelpAndHosts: compare --help says what the "current" row and
// the deadlock column are and offers --hosts, which restricts every
// engine's simulation to the same allocation.
func TestCompareHelpAndHosts(t *testing.T) {
	help, err := exec.Command(orcsBin, "compare", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("compare --help: %v\n%s", err, help)
	}
	for _, want := range []string{`"current"`, "deadlock column", "--hosts LIST", "a job's\n   allocation"} {
		if !strings.Contains(string(help), want) {
			t.Errorf("compare --help lacks %q:\n%s", want, help)
		}
	}
	needIBTools(t)
	out, err := runCmd(t, "compare", "--engines", "minhop,updn", "gen:kary:k=4,n=2", "-p", "bisect", "-n", "20",
		"--format", "json", "--hosts", "H[4-11]")
	if err != nil {
		t.Fatal(err)
	}
	var c opensm.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if c.Hosts != 16 || c.Commsize != 8 || len(c.Engines) != 2 || len(c.Engines[1].Values) != 20 {
		t.Errorf("--hosts H[4-11]: %d hosts, commsize %d, %d engines", c.Hosts, c.Commsize, len(c.Engines))
	}
	if _, err := runCmd(t, "compare", "--engines", "minhop", "gen:kary:k=4,n=2", "--hosts", "nosuch[1-2]"); err == nil || !strings.Contains(err.Error(), "nosuch1") {
		t.Errorf("unknown host: %v", err)
	}
}
