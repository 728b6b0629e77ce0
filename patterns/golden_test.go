package patterns

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"orcs/rng"
)

// update rewrites the golden files: go test ./patterns/ -run TestGolden -update
var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenMaxN is the largest commsize in the golden files.
const goldenMaxN = 17

// goldenCase is one golden file: the pattern selected by spec(n) for
// n = 1 … goldenMaxN.
type goldenCase struct {
	file string
	spec func(n int) Spec
}

// goldenCases returns a case for every registered pattern (ptrnvsptrn with
// several -f/-c/-z combinations) and one file: pattern.
func goldenCases() []goldenCase {
	var cases []goldenCase
	for _, name := range Names() {
		if name == pvpName {
			continue
		}
		cases = append(cases, goldenCase{name, func(int) Spec { return Spec{Name: name} }})
	}
	pvp := func(file, first, second string, z func(n int) int) goldenCase {
		return goldenCase{file, func(n int) Spec {
			return Spec{Name: pvpName, First: first, Second: second, Part: z(n)}
		}}
	}
	half := func(n int) int { return n / 2 }
	fixed := func(z int) func(int) int { return func(int) int { return z } }
	cases = append(cases,
		pvp("ptrnvsptrn_default_zhalf", "", "", half),
		pvp("ptrnvsptrn_tree_bisect_z3", "tree", "bisect", fixed(3)),
		pvp("ptrnvsptrn_tree_null_zhalf", "tree", "null", half),
		pvp("ptrnvsptrn_null_bisect_z2", "null", "bisect", fixed(2)),
		pvp("ptrnvsptrn_ring_tree_z2", "ring", "tree", fixed(2)),
		pvp("ptrnvsptrn_recdbl_bruck_z8", "recdbl", "bruck", fixed(8)),
		pvp("ptrnvsptrn_scatter_rand_z4", "scatter", "rand", fixed(4)),
		pvp("ptrnvsptrn_rand_bisect_zhalf", "rand", "bisect", half),
		goldenCase{"file_sample", func(int) Spec { return Spec{Name: "file:testdata/patterns/sample.txt"} }},
	)
	return cases
}

// goldenOutput renders a case for n = 1 … goldenMaxN: a header line per n,
// then the Print output with host names H<rank>, or the Compile error.
// Random patterns draw from rng.New(1, n).
func goldenOutput(c goldenCase) []byte {
	var buf bytes.Buffer
	name := func(r int) string { return fmt.Sprintf("H%d", r) }
	for n := 1; n <= goldenMaxN; n++ {
		spec := c.spec(n)
		fmt.Fprintf(&buf, "=== %s n=%d", spec.Name, n)
		if spec.Name == pvpName {
			fmt.Fprintf(&buf, " -f %q -c %q -z %d", spec.First, spec.Second, spec.Part)
		}
		buf.WriteString(" ===\n")
		src, err := Compile(spec, n)
		if err != nil {
			fmt.Fprintf(&buf, "error: %v\n", err)
			continue
		}
		Print(&buf, src.Levels(rng.New(1, uint64(n)), nil), name)
	}
	return buf.Bytes()
}

// TestGolden compares the printed patterns with testdata/golden/*.txt.
func TestGolden(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]bool{}
	for _, c := range goldenCases() {
		path := filepath.Join(dir, c.file+".txt")
		want[c.file+".txt"] = true
		got := goldenOutput(c)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (run go test ./patterns/ -run TestGolden -update to create it)", err)
			continue
		}
		if !bytes.Equal(got, old) {
			t.Errorf("%s: output differs from the golden file (first difference: %s); if the change is intended, run go test ./patterns/ -run TestGolden -update",
				path, firstDiff(old, got))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			if *update {
				os.Remove(filepath.Join(dir, e.Name()))
				continue
			}
			t.Errorf("stale golden file %s has no test case", filepath.Join(dir, e.Name()))
		}
	}
}

// firstDiff describes the first line where want and got differ.
func firstDiff(want, got []byte) string {
	w := strings.Split(string(want), "\n")
	g := strings.Split(string(got), "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d: golden %q, got %q", i+1, wl, gl)
		}
	}
	return "none"
}

// TestGoldenCoversRegistry makes sure a newly registered pattern gets a
// golden file.
func TestGoldenCoversRegistry(t *testing.T) {
	var covered []string
	for _, c := range goldenCases() {
		covered = append(covered, c.spec(4).Name)
	}
	for _, name := range Names() {
		if !slices.Contains(covered, name) {
			t.Errorf("pattern %s has no golden case", name)
		}
	}
}
