package hostile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// templates returns the command × format pairs of a round; the seeds of
// the saved-result formats (shards, report inputs) are made first with
// the binary itself, in Work/seeds.
func templates(opt Options) ([]template, error) {
	td := func(p string) string { return filepath.Join(opt.Root, "testdata", p) }
	seeds := filepath.Join(opt.Work, "seeds")
	if err := os.MkdirAll(seeds, 0o755); err != nil {
		return nil, err
	}
	sd := func(p string) string { return filepath.Join(seeds, p) }
	ft16, ib := td("ft16.dot"), td("ib/ft16/minhop")+"/"
	// The pattern seed: 16 ranks, a ring and a shift.
	ptrn := "# 16 ranks\n"
	for i := range 16 {
		ptrn += fmt.Sprintf("%d %d\n%d %d\n", i, (i+1)%16, i, (i+5)%16)
	}
	if err := os.WriteFile(sd("p16.ptrn"), []byte(ptrn), 0o644); err != nil {
		return nil, err
	}
	for _, args := range [][]string{
		{"-i", ft16, "-p", "bisect_fb_sym", "-n", "20", "--seed", "1", "--metric", "hist_acc_band", "--shard", "0/2", "-o", sd("shard0.json")},
		{"-i", ft16, "-p", "bisect_fb_sym", "-n", "20", "--seed", "1", "--metric", "hist_acc_band", "--shard", "1/2", "-o", sd("shard1.json")},
		{"-i", ft16, "-p", "bisect_fb_sym", "-n", "20", "--seed", "1", "--metric", "hist_acc_band", "--hot", "5", "--cables", "--format", "json", "-o", sd("run.json")},
		{"deadlock", "-i", ft16, "--format", "json", "-o", sd("deadlock.json")},
		{"samplingsim", "-i", ft16, "--workload", "naive-reduce:arrays=5", "--window", "2us", "--json", sd("sim.json"), "-o", os.DevNull},
		{"regions", "-i", ft16, "--counters", td("regions/ft16-stalls.csv"), "--format", "json", "-o", sd("regions.json")},
	} {
		if out, err := exec.Command(opt.Bin, args...).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("making a seed: orcs %v: %v\n%s", args, err, out)
		}
	}
	kary := "gen:kary:k=4,n=2"
	return []template{
		{cmd: "orcs", format: "dot", args: []string{"-i", "@IN", "-p", "bisect_fb_sym", "-n", "20", "--seed", "1", "--metric", "hist_acc_band"}, input: ft16},
		{cmd: "orcs", format: "dot torus", args: []string{"-i", "@IN", "-p", "bisect", "-n", "10", "--seed", "2", "--metric", "hist_max_cong"}, input: td("torus4x4.dot")},
		{cmd: "orcs", format: "ibnetdiscover", args: []string{"--topo", "@IN", "--lfts", ib + "opensm-lfts.dump", "-p", "bisect", "-n", "10", "--seed", "1"}, input: ib + "ibnetdiscover.txt"},
		{cmd: "orcs", format: "opensm-lfts.dump", args: []string{"--topo", ib + "ibnetdiscover.txt", "--lfts", "@IN", "-p", "bisect", "-n", "10", "--seed", "1"}, input: ib + "opensm-lfts.dump"},
		{cmd: "orcs", format: "dump_fts", args: []string{"--topo", ib + "ibnetdiscover.txt", "--lfts", "@IN", "-p", "bisect", "-n", "10", "--seed", "1"}, input: ib + "dump_fts.txt"},
		{cmd: "orcs", format: "opensm-subnet.lst", args: []string{"--topo", "@IN", "--lfts", ib + "opensm-lfts.dump", "-p", "bisect", "-n", "10", "--seed", "1"}, input: ib + "opensm-subnet.lst"},
		{cmd: "orcs", format: "pattern file", args: []string{"-i", ft16, "-p", "file:@IN", "-n", "10", "--seed", "1", "--metric", "hist_acc_band"}, input: sd("p16.ptrn")},
		{cmd: "orcs", format: "flags", args: []string{"-i", kary, "-p", "bisect_fb_sym", "-n", "20", "--seed", "1", "--metric", "hist_acc_band", "--shard", "0/1", "-j", "2", "--format", "text"}},
		{cmd: "samplingsim", format: "flags", args: []string{"samplingsim", "--gen", "kary:k=4,n=2", "--workload", "naive-reduce:arrays=5,size=4096", "--mtu", "4096", "--gbps", "100", "--window", "1us", "--latency", "50ns", "--buffer", "4", "--seed", "1", "--hosts", "8", "--outq", "4", "--hop-bits", "8"}},
		{cmd: "samplingsim", format: "workload flags", args: []string{"samplingsim", "--gen", "kary:k=4,n=2", "--workload", "ring:iters=2,size=4096,shift=1", "--background", "random:msgs=2,size=8192", "--max-time", "1ms", "--slow-factor", "0.5", "--slow-hosts", "H1", "--congested", "0.5", "--tag", "1", "--router-delay", "100ns", "--marking", "queue:threshold=2", "--buffers", "counting:alpha=2"}},
		{cmd: "samplingsim", format: "dot", args: []string{"samplingsim", "-i", "@IN", "--workload", "ring:size=4096", "--csv", "@DIR/l.csv", "--json", "@DIR/r.json", "--svg", "@DIR/p"}, input: ft16},
		{cmd: "regions", format: "counters csv", args: []string{"regions", "-i", ft16, "--counters", "@IN", "--sigma", "4"}, input: td("regions/ft16-stalls.csv")},
		{cmd: "regions", format: "samplingsim json", args: []string{"regions", "-i", ft16, "--samplingsim", "@IN", "--sigma", "4"}, input: sd("sim.json")},
		{cmd: "regions", format: "analyzer csv", args: []string{"regions", "-i", ft16, "--analyzer", "@IN", "--sigma", "4"}, input: td("regions/ft16-gather-loads.csv")},
		{cmd: "regions", format: "perfquery", args: []string{"regions", "--topo", td("regions/ft16-ibnetdiscover.txt"), "--perfquery", "@IN", "--perfquery", td("regions/ft16-perfquery-1.txt")}, input: td("regions/ft16-perfquery-0.txt")},
		{cmd: "regions", format: "flags", args: []string{"regions", "--synthetic", "torus", "--samples", "1", "--delta", "2", "--smooth", "1", "--sigma", "20", "--theta-p", "4", "--theta-r", "4", "-j", "2", "--seed", "3"}},
		{cmd: "deadlock", format: "dot", args: []string{"deadlock", "-i", "@IN"}, input: ft16},
		{cmd: "deadlock", format: "flags", args: []string{"deadlock", "-i", kary, "-j", "2", "--examples", "3", "--format", "text"}},
		{cmd: "merge", format: "shard json", args: []string{"merge", "@IN", sd("shard1.json")}, input: sd("shard0.json")},
		{cmd: "report", format: "run json", args: []string{"report", "@IN", "-o", "@DIR/r.html"}, input: sd("run.json")},
		{cmd: "report", format: "samplingsim json", args: []string{"report", "@IN", "-o", "@DIR/r.html"}, input: sd("sim.json")},
		{cmd: "report", format: "deadlock json", args: []string{"report", "@IN", "-o", "@DIR/r.html"}, input: sd("deadlock.json")},
		{cmd: "report", format: "regions json", args: []string{"report", "@IN", "-o", "@DIR/r.html"}, input: sd("regions.json")},
		{cmd: "map", format: "flags", args: []string{"map", "-i", kary, "-p", "bisect", "--budget", "2000", "--seed", "1", "--verify-workload", "ring:iters=2", "--hosts", "H[0-15]"}},
		{cmd: "map", format: "dot", args: []string{"map", "-i", "@IN", "-p", "bisect", "--budget", "2000"}, input: ft16},
		{cmd: "lft2dot", format: "ibnetdiscover", args: []string{"lft2dot", "@IN", ib + "opensm-lfts.dump"}, input: ib + "ibnetdiscover.txt"},
		{cmd: "dot2osm", format: "dot", args: []string{"dot2osm", "@IN", "@DIR/out.net"}, input: ft16},
		{cmd: "gen", format: "flags", args: []string{"gen", "kary:k=4,n=2", "-o", "@DIR/g.dot"}},
		{cmd: "route", format: "flags", args: []string{"route", "-R", "minhop", "-i", "gen:kary:k=2,n=2", "-o", "@DIR/r.dot", "--timeout", "8s"}},
		{cmd: "compare", format: "flags", args: []string{"compare", "--engines", "minhop,updn", "-i", "gen:kary:k=2,n=2", "-p", "bisect", "-n", "5", "--seed", "1", "--timeout", "8s"}},
	}, nil
}
