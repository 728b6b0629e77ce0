package deadlock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/fabricarg"
	"orcs/infile"
)

// TestSL2VLBounded: an SL2VL file larger than the tables of its fabric
// can be (here OpenSM's real dump of the 4x4 torus followed by 2 MiB of
// comment lines) is refused at a bound its error names, not read whole
// whatever its size (issue 22, item 4: deadlock --sl2vl of an endless
// stream), and the real dump alone is read.
func TestSL2VLBounded(t *testing.T) {
	dir := filepath.Join(ibFixtures, "torus", "lash-sl")
	lfts := filepath.Join(dir, "opensm-lfts.dump")
	src, err := fabricarg.Load(fabricarg.Args{Topo: filepath.Join(dir, "opensm-subnet.lst"), LFTs: lfts, Names: "desc"})
	if err != nil {
		t.Fatal(err)
	}
	dump, err := os.ReadFile(filepath.Join(dir, "opensm-sl2vl.dump"))
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(t.TempDir(), "sl2vl.dump")
	if err := os.WriteFile(big, append(dump, strings.Repeat("# a comment line\n", 2<<20/17)...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(src.Fabric, Files{LFTs: lfts, SL2VL: big})
	if err == nil || !errors.Is(err, infile.ErrTooLarge) || !strings.HasPrefix(err.Error(), big+": more than ") ||
		!strings.Contains(err.Error(), "the most the SL2VL tables of a fabric of 32 nodes (a line per pair of a node's ports) can hold") {
		t.Errorf("%v", err)
	}
	if _, err := Load(src.Fabric, Files{LFTs: lfts, SL2VL: filepath.Join(dir, "opensm-sl2vl.dump")}); err != nil {
		t.Errorf("the real dump: %v", err)
	}
}
