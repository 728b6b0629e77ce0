package gen_test

import (
	"testing"

	"orcs/dot"
	"orcs/gen"
)

// TestRecognize checks that a dot written by orcs gen gives the generator's
// network back, and that a hand-written or edited dot does not.
func TestRecognize(t *testing.T) {
	for _, c := range []struct {
		file string
		want bool
	}{
		{"../testdata/torus4x4.dot", true},
		{"../testdata/ft64.dot", true},
		{"../testdata/manual4.dot", false},
	} {
		f, err := dot.ReadFile(c.file, dot.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := gen.Recognize(f) != nil; got != c.want {
			t.Errorf("%s: recognised %v, want %v", c.file, got, c.want)
		}
	}
	// Same graph name, one link fewer: not the generated topology.
	n, err := gen.Generate("kary:k=2,n=2")
	if err != nil {
		t.Fatal(err)
	}
	m, err := gen.Generate("kary:k=2,n=2")
	if err != nil {
		t.Fatal(err)
	}
	m.Links = m.Links[:len(m.Links)-1]
	if !gen.SameTopology(n, n) || gen.SameTopology(n, m) {
		t.Error("SameTopology")
	}
}
