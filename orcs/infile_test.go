package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryInputThroughInfile reads every file a user names on the command
// line in the three forms that infile accepts and a plain os.Open does not
// — gzip'd under the same name, from standard input ("-"), and refused as
// binary when it holds a NUL byte, with the file's name — and checks that
// the gzip'd and the piped input give the output of the plain file. A
// reader that opens its file by itself fails here.
func TestEveryInputThroughInfile(t *testing.T) {
	dir := t.TempDir()
	ft16, err := os.ReadFile("../testdata/ft16.dot")
	if err != nil {
		t.Fatal(err)
	}
	// Two shards of a split run, for merge.
	var shards []string
	for _, s := range []string{"0/2", "1/2"} {
		p := filepath.Join(dir, "shard"+s[:1]+".json")
		runBin(t, "-i", "../testdata/ft16.dot", "-p", "rand", "--metric", "hist_acc_band", "-n", "4", "--seed", "9", "--shard", s, "-o", p)
		shards = append(shards, p)
	}
	shard0, err := os.ReadFile(shards[0])
	if err != nil {
		t.Fatal(err)
	}
	const stdin = "\x00stdin" // stands for the argument that names standard input
	for _, c := range []struct {
		name    string
		content string
		// args builds the command line for the input at path (stdin:
		// the way the command names standard input).
		args func(path string) []string
	}{
		{"analyze -i", string(ft16), func(p string) []string {
			return []string{"-i", or(p, "-"), "-p", "bisect", "-n", "1", "--metric", "sum_max_cong", "--seed", "1"}
		}},
		{"analyze -p file:", "0 1\n1 2\n\n2 3\n", func(p string) []string {
			return []string{"-i", "../testdata/ft16.dot", "-p", "file:" + or(p, "-"), "-n", "1", "--metric", "sum_max_cong", "--seed", "1"}
		}},
		{"analyze --hosts @", "H0\nH8\nH1\nH9\n", func(p string) []string {
			return []string{"-i", "../testdata/ft16.dot", "--hosts", "@" + or(p, "-"), "-p", "ring", "-n", "1", "--metric", "sum_max_cong", "--seed", "1"}
		}},
		{"map -p file:", "0 1\n1 2\n\n2 3\n", func(p string) []string {
			return []string{"map", "-i", "../testdata/ft16.dot", "-p", "file:" + or(p, "-")}
		}},
		{"map --hosts @", "H0\nH8\nH1\nH9\n", func(p string) []string {
			return []string{"map", "-i", "../testdata/ft16.dot", "-p", "bisect", "--hosts", "@" + or(p, "-")}
		}},
		{"map --traffic", "0,1,100\n1,2,50\n2,3,25\n", func(p string) []string {
			return []string{"map", "-i", "../testdata/ft16.dot", "--traffic", or(p, "-")}
		}},
		{"samplingsim --mapping", "H3\nH2\nH1\nH0\n", func(p string) []string {
			return []string{"samplingsim", "--gen", "kary:k=2,n=2", "--workload", "naive-reduce:arrays=50", "--seed", "1", "--mapping", or(p, "-")}
		}},
		{"merge", string(shard0), func(p string) []string {
			return []string{"merge", or(p, "-"), shards[1]}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// A short name, which messages show whole.
			sub, err := os.MkdirTemp("", "in")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(sub)
			path := filepath.Join(sub, "in")
			write := func(data []byte) {
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write([]byte(c.content))
			plain, err := runInput(t, c.args(path), "")
			if err != nil {
				t.Fatalf("plain file: %v", err)
			}
			var zb bytes.Buffer
			zw := gzip.NewWriter(&zb)
			zw.Write([]byte(c.content))
			zw.Close()
			write(zb.Bytes())
			if got, err := runInput(t, c.args(path), ""); err != nil {
				t.Errorf("gzip'd file: %v", err)
			} else if got != plain {
				t.Errorf("gzip'd file: output\n%s\nwant (plain file)\n%s", got, plain)
			}
			if got, err := runInput(t, c.args(stdin), c.content); err != nil {
				t.Errorf("standard input: %v", err)
			} else if got != plain {
				t.Errorf("standard input: output\n%s\nwant (plain file)\n%s", got, plain)
			}
			write([]byte(c.content[:2] + "\x00" + c.content[2:]))
			if _, err := runInput(t, c.args(path), ""); err == nil || !strings.Contains(err.Error(), path+": a NUL byte at offset 2: binary data") {
				t.Errorf("a file with a NUL byte: %v, want the file named and refused as binary", err)
			}
		})
	}
}

// or returns alt for the stand-in of standard input, else path.
func or(path, alt string) string {
	if path == "\x00stdin" {
		return alt
	}
	return path
}

// runInput runs orcs with args and stdin, and returns its output file
// without the lines that measure wall time, or an error with its stderr.
func runInput(t *testing.T, args []string, stdin string) (string, error) {
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(orcsBin, append(args, "-o", out)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("orcs %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return "", err
	}
	var keep []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.Contains(l, " s wall") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n"), nil
}
