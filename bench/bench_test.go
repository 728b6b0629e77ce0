// Package bench holds the end-to-end benchmarks of orcs: loading routed dot
// files of 4096 and ~10k hosts and simulating 1000 runs on them. Run them
// with bench/run.sh, which also measures whole commands (time, peak RSS).
package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"orcs/analyze"
	"orcs/dot"
	"orcs/gen"
	"orcs/lft"
	"orcs/patterns"
)

// Fabrics used by the benchmarks: a 16-ary 3-tree (4096 hosts, d-mod-k) and
// a 22-ary 3-tree (10648 hosts), each also with GUID-style names as in dot
// files converted from real fabric dumps (H0x0002c903000012ab).
var specs = map[string]string{
	"4096": "kary:k=16,n=3",
	"10k":  "kary:k=22,n=3",
	"22k":  "kary:k=28,n=3",
}

var (
	dir   string // where the fabrics are written: $ORCS_BENCH_DIR or a temp dir
	files sync.Map
)

func TestMain(m *testing.M) {
	dir = os.Getenv("ORCS_BENCH_DIR")
	cleanup := false
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "orcs-bench"); err != nil {
			panic(err)
		}
		cleanup = true
	}
	code := m.Run()
	if cleanup {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// dotFile writes the fabric once per process and returns its path.
func dotFile(b *testing.B, size string, guidNames bool) string {
	key := fmt.Sprint(size, guidNames)
	if p, ok := files.Load(key); ok {
		return p.(string)
	}
	name := "kary-" + size
	if guidNames {
		name += "-guid"
	}
	p := filepath.Join(dir, name+".dot")
	if _, err := os.Stat(p); err != nil {
		f, err := gen.Generate(specs[size])
		if err != nil {
			b.Fatal(err)
		}
		if guidNames {
			for i := range f.Nodes {
				prefix := "S"
				if f.Nodes[i].Kind == lft.Host {
					prefix = "H"
				}
				f.Nodes[i].Name = fmt.Sprintf("%s0x0002c90300%06x", prefix, i)
			}
		}
		out, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		if err := dot.Write(out, f, dot.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		out.Close()
	}
	files.Store(key, p)
	return p
}

func benchLoad(b *testing.B, size string, guid bool) {
	p := dotFile(b, size, guid)
	st, _ := os.Stat(p)
	b.SetBytes(st.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := dot.ReadFile(p, dot.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Size())/1e6, "MB")
}

func BenchmarkLoad4096(b *testing.B)     { benchLoad(b, "4096", false) }
func BenchmarkLoad4096GUID(b *testing.B) { benchLoad(b, "4096", true) }
func BenchmarkLoad10k(b *testing.B)      { benchLoad(b, "10k", false) }
func BenchmarkLoad10kGUID(b *testing.B)  { benchLoad(b, "10k", true) }
func BenchmarkLoad22k(b *testing.B)      { benchLoad(b, "22k", false) }

// benchSim loads the fabric once and times 1000 runs (route check included)
// on all cores.
func benchSim(b *testing.B, size, pattern string, level int) {
	f, err := dot.ReadFile(dotFile(b, size, true), dot.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := analyze.New(f, analyze.Config{Pattern: patterns.Spec{Name: pattern}, Metric: "hist_acc_band",
			Runs: 1000, Seed: 1, Level: level})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSim1000BisectFbSym4096(b *testing.B) { benchSim(b, "4096", "bisect_fb_sym", -1) }
func BenchmarkSim1000AlltoallL4096(b *testing.B)   { benchSim(b, "4096", "alltoall", 1000) }
func BenchmarkSim1000BisectFbSym10k(b *testing.B)  { benchSim(b, "10k", "bisect_fb_sym", -1) }

// BenchmarkRouteCheck10k measures the all-pairs route check of the
// 10648-host 22-ary 3-tree on one thread (the check before every
// simulation and --checkinputfile), beyond loading the fabric.
func BenchmarkRouteCheck10k(b *testing.B) {
	f, err := gen.Generate(specs["10k"])
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if c := f.CheckRoutes(nil, 1, 1); !c.OK() {
			b.Fatal(c.Summary())
		}
	}
	b.ReportMetric(float64(f.NumHosts())*float64(f.NumHosts()-1)/b.Elapsed().Seconds()*float64(b.N)/1e6, "Mpairs/s")
}
