package hostile

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShortRound builds orcs and runs a short seeded round of the fuzzer,
// two inputs of every command × input,: no run may panic, hang past 10 s or peak
// over 1 GB. (The long round: scripts/hostile, doc/hostile-input.md.)
func TestShortRound(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit (util-linux) not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "orcs")
	if out, err := exec.Command("go", "build", "-o", bin, "../../orcs").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root, _ := filepath.Abs("../..")
	res, err := Run(Options{Bin: bin, Root: root, Work: filepath.Join(dir, "work"), N: 60, Seed: 22, Workers: 2,
		Timeout: 10 * time.Second, Recheck: 60 * time.Second, MaxRSS: 1 << 30, AddressSpace: 8 << 30})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Outcome >= Panic && r.Outcome != Slow {
			t.Errorf("%s: %s: orcs %q\n%s", r.Outcome, r.Template, r.Args, r.Stderr)
		}
	}
	var b bytes.Buffer
	WriteTable(&b, Summarize(res))
	if !strings.Contains(b.String(), "| **all** | 60 |") {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestMutationsDeterministic checks that the mutations depend on the seed
// only, and that they change the input.
func TestMutationsDeterministic(t *testing.T) {
	seed, err := os.ReadFile("../../testdata/ft16.dot")
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i := range uint64(50) {
		a := MutateBytes(rand.New(rand.NewPCG(1, i)), seed)
		b := MutateBytes(rand.New(rand.NewPCG(1, i)), seed)
		if !bytes.Equal(a, b) {
			t.Fatalf("input %d: two mutations of one seed differ", i)
		}
		if !bytes.Equal(a, seed) {
			changed++
		}
		if MutateValue(rand.New(rand.NewPCG(1, i)), "ring:iters=2") != MutateValue(rand.New(rand.NewPCG(1, i)), "ring:iters=2") {
			t.Fatalf("value %d: two mutations differ", i)
		}
	}
	if changed < 45 {
		t.Errorf("only %d of 50 mutations changed the input", changed)
	}
}

// TestClassify runs stand-ins for orcs that panic, hang, fail cleanly,
// succeed and peak, and checks each class (a classifier that never says
// panic or hang would pass every round).
func TestClassify(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit (util-linux) not installed")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		script string
		maxRSS int64
		want   Outcome
	}{
		{"echo 'panic: runtime error: index out of range [64] with length 64' >&2; echo 'goroutine 1 [running]:' >&2; exit 2", 1 << 30, Panic},
		{"echo 'fatal error: runtime: out of memory' >&2; exit 2", 1 << 30, Panic},
		{"sleep 60", 1 << 30, Hang},
		{"echo 'orcs: x.dot:3: malformed' >&2; exit 1", 1 << 30, CleanError},
		{"exit 0", 1 << 30, OK},
		{"exit 0", 1, Peak},
	} {
		bin := filepath.Join(dir, "stand-in")
		os.WriteFile(bin, []byte("#!/bin/sh\n"+c.script+"\n"), 0o755)
		r := runOne(Options{Bin: bin, MaxRSS: c.maxRSS, AddressSpace: 8 << 30}, 3*time.Second, "t", nil, dir)
		if r.Outcome != c.want {
			t.Errorf("%q: %s (status %d, %d bytes); want %s", c.script, r.Outcome, r.Status, r.RSS, c.want)
		}
	}
}
