package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// shardSet writes the two shards of a split run and returns their paths.
func shardSet(t *testing.T, dir, prefix string, args ...string) []string {
	t.Helper()
	var paths []string
	for i := 0; i < 2; i++ {
		p := filepath.Join(dir, prefix+strconv.Itoa(i))
		runBin(t, append(args, "--shard", strconv.Itoa(i)+"/2", "-o", p)...)
		paths = append(paths, p)
	}
	return paths
}

// TestMergeRefusesHostileShards alters one shard of a real split the way
// issue 22 (items 1 and 11) found merge to panic or accept nonsense: each
// must be refused with exit 1, a message naming the file and the problem,
// and no output file.
func TestMergeRefusesHostileShards(t *testing.T) {
	dir := t.TempDir()
	cong := shardSet(t, dir, "cong", "-i", "../testdata/ft16.dot", "-p", "gather", "--metric", "get_cable_cong", "-n", "4", "--seed", "9")
	band := shardSet(t, dir, "band", "-i", "../testdata/ft16.dot", "-p", "rand", "--metric", "hist_acc_band", "-n", "4", "--seed", "9")
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// The shards as written merge.
	for _, set := range [][]string{cong, band} {
		runBin(t, append([]string{"merge", "-i", "../testdata/ft16.dot"}, set...)...)
	}
	cases := []struct {
		name     string
		set      []string
		file     int // the shard altered
		old, new string
		want     string
	}{
		{"one link load too many", cong, 1, `"link_load":[`, `"link_load":[0,`, "link_load: more than 64 entries: one load per link, and the fabric given has 64 links"},
		{"one link load too few", cong, 1, `"link_load":[2,`, `"link_load":[`, "63 link loads, but the fabric given has 64 links"},
		{"negative link load", cong, 1, `"link_load":[2,`, `"link_load":[-2,`, "link_load[0] = -2: a sum of loads, want ≥ 0"},
		{"a 2⁴⁰-way split", cong, -1, `"shards":2`, `"shards":1099511627776`, "values: more than 1 entries: shard 0/1099511627776 of 4 runs owns 1"},
		{"negative bandwidth", band, 1, `"value":1}`, `"value":-7.5}`, "run 3 has bandwidth -7.5, want 0 or a mean of 1/w for w in 1…2: from 0.5 to 1"},
		{"bandwidth above 1", band, 1, `"value":1}`, `"value":1.5}`, "run 3 has bandwidth 1.5"},
		{"negative weight", band, 1, `"weights":[0,`, `"weights":[0,-4,`, "weights[1] = -4: a count of connections"},
		{"weight of congestion 0", band, 1, `"weights":[0,`, `"weights":[3,`, "weights[0] = 3"},
		{"trailing zero weights", band, 1, `],"route_errors"`, `,0,0],"route_errors"`, "classes ending in 0"},
		{"a weight above every run's congestion", cong, 1, `],"link_load"`, `,1],"link_load"`, "a connection of congestion 16, but no run's max_congestion reaches it (the largest is 15)"},
		{"negative route errors", band, 1, `"route_errors":0`, `"route_errors":-3`, "route_errors -3: a count, want ≥ 0"},
		{"a run too many", band, 1, `],"weights"`, `,{"run":5,"value":1}],"weights"`, "values: more than 2 entries"},
		{"a run twice", band, 1, `{"run":3,`, `{"run":1,`, "values[1]: run 1, want 3"},
		{"a run of another shard", band, 1, `{"run":3,`, `{"run":2,`, "values[1]: run 2, want 3"},
		{"unknown field", band, 1, `"route_errors"`, `"route_error"`, `unknown field "route_error"`},
		{"field twice", band, 1, `,"route_errors"`, `,"weights":[0],"route_errors"`, `field "weights" given twice`},
		{"values before meta", band, 1, `"meta"`, `"values":[],"meta"`, `field "values" before the meta`},
		{"a run count of 10¹⁸", band, -1, `"runs":4`, `"runs":1000000000000000000`, "owns 500000000000000000, more than the 67108864 one process keeps"},
		{"a 2 MB number", band, 1, `"value":1}`, `"value":1.` + strings.Repeat("0", 2<<20) + `}`, " bytes, the most shard 1/2 of 4 runs (2 values) can hold"},
		{"blank space", band, 1, `"value":1}`, `"value":1` + strings.Repeat(" \n", 1<<20) + `}`, "more than 1048576 bytes (1 MiB) of blank space"},
		{"commsize above hosts", band, -1, `"commsize":16`, `"commsize":17`, "commsize 17 of 16 hosts"},
		{"unknown metric", band, -1, `"metric":"hist_acc_band"`, `"metric":"hist"`, `unknown metric "hist"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var args []string
			for i, p := range c.set {
				if c.file < 0 || i == c.file {
					text := read(p)
					if !strings.Contains(text, c.old) {
						t.Fatalf("%s has no %s", p, c.old)
					}
					p = filepath.Join(t.TempDir(), filepath.Base(p))
					if err := os.WriteFile(p, []byte(strings.Replace(text, c.old, c.new, 1)), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				args = append(args, p)
			}
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command(orcsBin, append([]string{"merge", "-i", "../testdata/ft16.dot", "-o", out}, args...)...)
			msg, err := cmd.CombinedOutput()
			code := -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != 1 || !strings.Contains(string(msg), c.want) || strings.Contains(string(msg), "goroutine") {
				t.Errorf("exit %d (%v), want 1 and %q:\n%.600s", code, err, c.want, msg)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("an output file was written")
			}
		})
	}
}

// zeros is a stream of n bytes of one byte value (/dev/zero), or of
// " \n" (yes ' ') when b is ' ', counting what was read from it.
type zeros struct {
	b    byte
	n    int64
	read int64
}

func (z *zeros) Read(p []byte) (int, error) {
	if z.read >= z.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), z.n-z.read)]
	for i := range p {
		p[i] = z.b
		if z.b == ' ' && (z.read+int64(i))%2 == 1 {
			p[i] = '\n'
		}
	}
	z.read += int64(len(p))
	return len(p), nil
}

// TestMergeStreams: merge of /dev/zero or of a stream of blank space stops
// at the first 4 KiB (binary data) or after 1 MiB of blank space, however
// long the stream (issue 22, items 1 and 4).
func TestMergeStreams(t *testing.T) {
	for _, c := range []struct {
		b    byte
		want string
	}{
		{0, "/dev/stdin: a NUL byte at offset 0: binary data, not a text file"},
		{' ', "/dev/stdin:1: more than 1048576 bytes (1 MiB) of blank space"},
	} {
		src := &zeros{b: c.b, n: 64 << 20}
		cmd := exec.Command(orcsBin, "merge", "/dev/stdin")
		cmd.Stdin = src
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if err == nil || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("byte %q: %v %s", c.b, err, stderr.String())
		}
		if src.read > 8<<20 {
			t.Errorf("byte %q: read %d bytes of the stream before refusing it", c.b, src.read)
		}
	}
}

// TestStreamsBounded feeds 64 MiB of blank space (yes ' ') on standard
// input to every command that reads a text stream (issue 22, item 4):
// each must stop within the first few MiB with exit 1 and a message that
// names the input and the bound. (regions --analyzer refuses a blank
// first line at once: regions.TestSourcesBoundStreams gives it a header.)
func TestStreamsBounded(t *testing.T) {
	torus := "../testdata/ib/torus/lash-sl/"
	for _, args := range [][]string{
		{"report", "/dev/stdin"},
		{"merge", "/dev/stdin"},
		{"-i", "/dev/stdin"},
		{"regions", "-i", "../testdata/ft16.dot", "--counters", "/dev/stdin"},
		{"regions", "-i", "../testdata/ft16.dot", "--samplingsim", "/dev/stdin"},
		{"regions", "--topo", torus + "opensm-subnet.lst", "--perfquery", "/dev/stdin", "--perfquery", torus + "engine.txt"},
		{"deadlock", "--topo", torus + "opensm-subnet.lst", "--lfts", torus + "opensm-lfts.dump", "--sl2vl", "/dev/stdin"},
	} {
		src := &zeros{b: ' ', n: 64 << 20}
		cmd := exec.Command(orcsBin, args...)
		cmd.Stdin = src
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != 1 || !strings.Contains(stderr.String(), "/dev/stdin") || !strings.Contains(stderr.String(), "more than 1048576 bytes (1 MiB) of blank space") {
			t.Errorf("%v: exit %d: %s", args, code, stderr.String())
		}
		if src.read > 8<<20 {
			t.Errorf("%v: read %d MiB of the stream", args, src.read>>20)
		}
	}
}
