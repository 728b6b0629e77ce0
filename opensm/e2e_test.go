package opensm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"orcs/gen"
	"orcs/ib"
	"orcs/lft"
)

// needTools skips the test when the InfiniBand tools are not installed.
func needTools(t *testing.T) *Tools {
	t.Helper()
	tools, err := FindTools()
	if err != nil {
		t.Skipf("InfiniBand tools missing (%v); install with: apt-get install %s", err, Packages)
	}
	return tools
}

// children returns the PIDs of this process's live child processes.
func children(t *testing.T) []int {
	t.Helper()
	self := os.Getpid()
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, d := range dirs {
		data, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == self {
			pid, _ := strconv.Atoi(strings.Fields(s)[0])
			out = append(out, pid)
		}
	}
	return out
}

// checkClean fails when a tool is still running or the work area holds
// anything.
func checkClean(t *testing.T, tmp string) {
	t.Helper()
	if kids := children(t); len(kids) > 0 {
		t.Errorf("child processes still running: %v", kids)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind in the temporary directory: %v", left)
	}
}

// e2eCase is one routing of the end-to-end matrix.
type e2eCase struct {
	spec, engine string
	fallback     string // engine OpenSM is expected to fall back to, "" none
}

// e2eCases: every engine on a 16-host and a 64-host fat tree and torus.
// torus-2QoS needs a torus (and -Q with its seed), so it falls back on the
// fat trees; updn and ftree find no roots on a torus and fall back.
func e2eCases() []e2eCase {
	var cases []e2eCase
	for _, spec := range []string{"kary:k=4,n=2", "kary:k=4,n=3", "torus:dims=4x4", "torus:dims=8x8"} {
		torus := strings.HasPrefix(spec, "torus")
		for _, e := range Engines() {
			c := e2eCase{spec: spec, engine: e}
			switch {
			case e == "torus-2QoS" && !torus:
				c.fallback = "minhop"
			case (e == "updn" || e == "ftree") && torus:
				c.fallback = "minhop"
			}
			cases = append(cases, c)
		}
	}
	return cases
}

// TestRouteEngines routes 16- and 64-host fabrics with every engine, with
// the routes running in parallel (each with its own ibsim), and checks
// each result: every host pair routes without loops, the tables are what
// dump_fts reads back from the emulated switches, names and link order are
// the input's, and fallbacks are reported.
func TestRouteEngines(t *testing.T) {
	tools := needTools(t)
	tmp := t.TempDir()
	cases := e2eCases()
	if testing.Short() {
		cases = cases[:len(Engines())] // the 16-host fat tree only
	}
	nets := map[string]*gen.Network{}
	for _, c := range cases {
		if nets[c.spec] == nil {
			var err error
			if nets[c.spec], err = gen.Build(c.spec); err != nil {
				t.Fatal(err)
			}
		}
	}
	type outcome struct {
		res     *Result
		err     error
		elapsed time.Duration
	}
	out := make([]outcome, len(cases))
	sem := make(chan struct{}, max(2, runtime.NumCPU()))
	var wg sync.WaitGroup
	start := time.Now()
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			n := nets[c.spec]
			t0 := time.Now()
			res, err := Route(context.Background(), n.Fabric, Options{Engine: c.engine, KeepPorts: true,
				DumpFTS: true, Torus: TorusOf(n), Tools: tools, TempDir: tmp, Timeout: 2 * time.Minute})
			out[i] = outcome{res, err, time.Since(t0)}
		}()
	}
	wg.Wait()
	t.Logf("%d routings in %v", len(cases), time.Since(start).Round(time.Millisecond))
	for i, c := range cases {
		t.Run(c.spec+"/"+c.engine, func(t *testing.T) {
			o := out[i]
			var fb *FallbackError
			switch {
			case c.fallback == "" && o.err != nil:
				t.Fatalf("%v", o.err)
			case c.fallback != "" && !errors.As(o.err, &fb):
				t.Fatalf("want a fallback to %s reported, got error %v", c.fallback, o.err)
			case c.fallback != "" && (fb.Used != c.fallback || fb.Requested != c.engine || o.res == nil || !o.res.Fallback):
				t.Fatalf("fallback %+v, want %s -> %s", fb, c.engine, c.fallback)
			}
			res := o.res
			t.Logf("used %s: %v (ibsim start %v, opensm %v, sweep %v)", res.Used, o.elapsed.Round(time.Millisecond),
				res.Start.Round(time.Millisecond), res.OpenSM.Round(time.Millisecond), res.Log.Sweep)
			checkRouted(t, nets[c.spec].Fabric, res)
		})
	}
	checkClean(t, tmp)
}

// checkRouted checks a routing result against its input fabric and its
// dump_fts read-back.
func checkRouted(t *testing.T, in *lft.Fabric, res *Result) {
	t.Helper()
	f := res.Fabric
	if len(f.Nodes) != len(in.Nodes) || len(f.Links) != len(in.Links) {
		t.Fatalf("%d nodes, %d links; input has %d, %d", len(f.Nodes), len(f.Links), len(in.Nodes), len(in.Links))
	}
	for v := range in.Nodes {
		if f.Nodes[v].Name != in.Nodes[v].Name || f.Nodes[v].Kind != in.Nodes[v].Kind {
			t.Fatalf("node %d is %q, input %q", v, f.Nodes[v].Name, in.Nodes[v].Name)
		}
	}
	for l := range in.Links {
		a, b := f.Links[l], in.Links[l]
		if a.From != b.From || a.To != b.To || a.FromPort != b.FromPort || a.ToPort != b.ToPort {
			t.Fatalf("link %d is %+v, input %+v", l, a, b)
		}
	}
	all := make([]int32, f.NumHosts())
	for i := range all {
		all[i] = int32(i)
	}
	if c := f.CheckRoutes(all, 1, 2); !c.OK() {
		t.Fatalf("%d unroutable pairs, %d loops; first: %s", c.Unroutable, c.Loops, c.Examples[0].Error())
	}
	if res.FTS == nil {
		t.Fatal("no dump_fts read-back")
	}
	skipped, err := CompareRoutings(res.LFTs, res.FTS)
	if err != nil {
		t.Fatalf("opensm-lfts.dump vs dump_fts: %v", err)
	}
	// The fabric built from what the switches hold routes every pair as
	// the one built from OpenSM's dump.
	back, err := routedFabric(in, res.Net, res.Topology, res.FTS, false)
	if err != nil {
		if len(skipped) > 0 {
			return // the dropped top LID is a host's: nothing more to compare
		}
		t.Fatalf("fabric from dump_fts: %v", err)
	}
	for s := 0; s < f.NumSwitches(); s++ {
		v := f.SwitchNode(s)
		for h := int32(0); h < int32(f.NumHosts()); h++ {
			if a, b := f.NextHop(0, v, h), back.NextHop(0, v, h); a != b {
				t.Fatalf("switch %s towards %s: link %d from opensm-lfts.dump, %d from dump_fts",
					f.Nodes[v].Name, f.HostName(int(h)), a, b)
			}
		}
	}
}

func TestRouteNoFallbackStops(t *testing.T) {
	tools := needTools(t)
	tmp := t.TempDir()
	f, err := gen.Generate("kary:k=4,n=2")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	_, err = Route(context.Background(), f, Options{Engine: "torus-2QoS", NoFallback: true, KeepPorts: true,
		Tools: tools, TempDir: tmp, Grace: 500 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "could not route the fabric (no_fallback)") {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(t0); d > 20*time.Second {
		t.Errorf("took %v to give up", d)
	}
	checkClean(t, tmp)
}

// fakeTools returns tools whose ibsim becomes ready at once and whose
// OpenSM never finishes and ignores SIGTERM, to test time limits and
// cancellation without the real tools.
func fakeTools(t *testing.T) *Tools {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+text+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return &Tools{
		IBSim:         write("ibsim", "echo 'Network simulator ready.'; exec sleep 1000"),
		OpenSM:        write("opensm", "trap '' TERM; exec sleep 1000"),
		DumpFTS:       write("dump_fts", "exit 1"),
		IBNetDiscover: write("ibnetdiscover", "exit 1"),
		UMAD2Sim:      filepath.Join(dir, "none.so"),
	}
}

func TestRouteTimeoutAndCancel(t *testing.T) {
	tools := fakeTools(t)
	tmp := t.TempDir()
	f, err := gen.Generate("kary:k=2,n=2")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Route(context.Background(), f, Options{Engine: "minhop,no_fallback", Tools: tools, TempDir: tmp})
	if err == nil || !strings.Contains(err.Error(), "give one engine name") {
		t.Errorf("engine list: %v", err)
	}

	// The time limit stops OpenSM, which ignores SIGTERM: SIGKILL after
	// the grace period.
	t0 := time.Now()
	_, err = Route(context.Background(), f, Options{Engine: "minhop", Tools: tools, TempDir: tmp,
		Timeout: 300 * time.Millisecond, Grace: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "time limit") {
		t.Errorf("timeout: error %v", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("timeout: took %v", d)
	}
	checkClean(t, tmp)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	t0 = time.Now()
	_, err = Route(ctx, f, Options{Engine: "minhop", Tools: tools, TempDir: tmp, Grace: 200 * time.Millisecond})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("cancel: took %v", d)
	}
	checkClean(t, tmp)
}

func TestRouteKeep(t *testing.T) {
	tools := needTools(t)
	tmp, keep := t.TempDir(), t.TempDir()
	net, err := gen.Build("torus:dims=4x4")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Route(context.Background(), net.Fabric, Options{Engine: "torus-2QoS", Torus: TorusOf(net),
		KeepPorts: true, IBNetDiscover: true, Tools: tools, TempDir: tmp, Keep: keep})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Command, "-Q --torus_config WORK/torus-2QoS.conf") {
		t.Errorf("command %q", res.Command)
	}
	for _, name := range []string{"fabric.net", "opensm.log", "opensm-lfts.dump", "opensm-subnet.lst",
		"ibnetdiscover.txt", "torus-2QoS.conf"} {
		if _, err := os.Stat(filepath.Join(keep, name)); err != nil {
			t.Errorf("not kept: %v", err)
		}
	}
	// The kept files make the same fabric again.
	back, err := ib.ReadFiles(filepath.Join(keep, "ibnetdiscover.txt"), filepath.Join(keep, "opensm-lfts.dump"),
		ib.Options{Names: ib.NamesDesc})
	if err != nil {
		t.Fatal(err)
	}
	if back.NumHosts() != res.Fabric.NumHosts() || len(back.Links) != len(res.Fabric.Links) {
		t.Errorf("kept dumps give %d hosts, %d links", back.NumHosts(), len(back.Links))
	}
	checkClean(t, tmp)
}
