package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/metrics"
)

// TestGoldenMetrics pins every metric's printed output on the shipped
// fabrics, deterministic with --subset linear_bfs -d. Regenerate with
// go test ./orcs -run TestGoldenMetrics -update.
func TestGoldenMetrics(t *testing.T) {
	fabrics := []string{"manual4", "ft16", "ft64", "torus4x4"}
	type variant struct {
		name string
		args []string
	}
	variants := []variant{
		{"bisect_fb_sym", []string{"-p", "bisect_fb_sym"}},
		{"tree", []string{"-p", "tree"}},
		{"bruck", []string{"-p", "bruck"}},
		{"ptrnvsptrn-tree-bisect", []string{"-p", "ptrnvsptrn", "-f", "tree", "-c", "bisect", "-z", "2"}},
	}
	seen := map[string]bool{}
	for _, fab := range fabrics {
		for _, m := range metrics.Names() {
			for _, v := range variants {
				name := fmt.Sprintf("%s_%s_%s.txt", fab, m, v.name)
				seen[name] = true
				args := append([]string{"-i", "../testdata/" + fab + ".dot", "--subset", "linear_bfs", "-d",
					"-n", "3", "--metric", m}, v.args...)
				got := mustRun(t, args...)
				checkGolden(t, filepath.Join("testdata", "golden", name), got)
			}
		}
	}
	entries, _ := os.ReadDir(filepath.Join("testdata", "golden"))
	for _, e := range entries {
		if !seen[e.Name()] && strings.Count(e.Name(), "_") >= 2 && !strings.HasPrefix(e.Name(), "printptrn") {
			if *update {
				os.Remove(filepath.Join("testdata", "golden", e.Name()))
			} else {
				t.Errorf("stale golden file %s (run with -update)", e.Name())
			}
		}
	}
}

// TestGoldenPrintptrn pins --printptrn and --printnamelist with host names.
func TestGoldenPrintptrn(t *testing.T) {
	for _, p := range []string{"recdbl", "4neighbor", "ptrnvsptrn"} {
		args := []string{"-i", "../testdata/ft16.dot", "-d", "-s", "10", "-p", p,
			"--printptrn", "--printnamelist", "--metric", "hist_max_cong"}
		if p == "ptrnvsptrn" {
			args = append(args, "-z", "4")
		}
		// On stdout, as ORCS printed them, before the result.
		got := string(runBin(t, args...))
		checkGolden(t, filepath.Join("testdata", "golden", "printptrn_ft16_"+p+".txt"), got)
		// Never inside a result file.
		out := filepath.Join(t.TempDir(), "result")
		stdout := string(runBin(t, append(args, "-o", out, "--format", "json")...))
		if b, _ := os.ReadFile(out); !strings.HasPrefix(string(b), "{") || !strings.Contains(stdout, "Used Pattern:") {
			t.Fatalf("%s: pattern listing went into the result file or got lost", p)
		}
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run with -update to create it)", path, err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("%s: line %d differs:\n got %q\nwant %q", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: output has %d lines, golden %d", path, len(gl), len(wl))
	}
}
