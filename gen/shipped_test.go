package gen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"orcs/dot"
)

var update = flag.Bool("update", false, "rewrite the shipped fabrics in ../testdata")

// shipped lists the fabrics committed in ../testdata that this package
// generates; testdata/README-fabrics.md describes them.
var shipped = []struct{ file, spec string }{
	{"ft16.dot", "kary:k=4,n=2"},
	{"ft64.dot", "kary:k=4,n=3"},
	{"torus4x4.dot", "torus:dims=4x4,hosts=1"},
}

// TestShippedFabrics regenerates the committed fabrics and compares them
// byte for byte; go test ./gen -run ShippedFabrics -update rewrites them.
func TestShippedFabrics(t *testing.T) {
	for _, sf := range shipped {
		f, err := Generate(sf.spec)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := dot.Write(&buf, f, dot.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("..", "testdata", sf.file)
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./gen -run ShippedFabrics -update to write it)", err)
		}
		if !bytes.Equal(old, buf.Bytes()) {
			t.Errorf("%s differs from what %s generates now; if the change is intended, run go test ./gen -run ShippedFabrics -update", path, sf.spec)
		}
		// The committed file routes every pair.
		g, err := dot.Read(old, path, dot.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if c := g.CheckRoutes(allHosts(g), 1, 1); !c.OK() {
			t.Errorf("%s: %d unroutable pairs, %d loops", path, c.Unroutable, c.Loops)
		}
	}
}
