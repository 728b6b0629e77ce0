package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostsPlacement checks --hosts on the 16-host fat tree (4 leaves of 4
// hosts: H0–H3 on leaf 0, H8–H11 on leaf 2).
func TestHostsPlacement(t *testing.T) {
	// As run (-d): rank i on the i-th host. ring on 5 ranks has 5 levels of
	// one message each; every message has congestion 1, so the sum is 5.
	out := mustRun(t, "-i", "../testdata/ft16.dot", "--hosts", "H[0-3],H8", "-d", "-p", "ring", "--metric", "sum_max_cong", "-n", "1")
	if !strings.Contains(out, "Congestion sum of 5 occured 1 times.") {
		t.Errorf("ring on 5 allocated hosts:\n%s", out)
	}
	// bisect_fb_sym on H0,H8,H1,H9 as run: pairs (H0,H8) and (H1,H9) cross
	// leaf 0 → spine → leaf 2. ft16 routes H8 and H9 from leaf 0 over
	// different spines (d-mod-k), and back likewise, so every connection has
	// congestion 1: bandwidth 1.
	out = mustRun(t, "-i", "../testdata/ft16.dot", "--hosts", "H0,H8,H1,H9", "-d", "-p", "bisect_fb_sym", "--metric", "hist_max_cong", "-n", "1")
	if !strings.Contains(out, "weight 1: 4 of the 4 connections (100.00%)") {
		t.Errorf("bisect_fb_sym as run:\n%s", out)
	}
	// The same list from a file, as scontrol show hostnames prints it.
	file := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(file, []byte("H0\nH8\nH1\nH9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := mustRun(t, "-i", "../testdata/ft16.dot", "--hosts", "@"+file, "-d", "-p", "bisect_fb_sym", "-n", "1"); got != out {
		t.Errorf("@FILE gives\n%s\nthe list gives\n%s", got, out)
	}
	// Random placement in the same allocation: every run's mapping uses the
	// allocated hosts only.
	ptrn := runBin(t, "-i", "../testdata/ft16.dot", "--hosts", "H[0-3],H[8-11]", "-p", "alltoall", "--printptrn", "--seed", "3", "-n", "2", "-o", "/dev/null")
	for _, line := range strings.Split(string(ptrn), "\n") {
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "H") && !map[string]bool{"H0": true, "H1": true, "H2": true, "H3": true, "H8": true, "H9": true, "H10": true, "H11": true}[f] {
				t.Fatalf("host %s outside the allocation in %q", f, line)
			}
		}
	}
}

// TestHostsErrors checks that unknown or repeated hosts are errors naming
// them.
func TestHostsErrors(t *testing.T) {
	for _, c := range []struct{ list, want string }{
		{"H[0-3],node7,S0_0", "2 of the 6 hosts given are not hosts of the fabric: node7, S0_0"},
		{"H1,H1", "host H1 is given twice"},
		{"H[3-1]", "runs backwards"},
		{"H[0-1]", "commsize"},
	} {
		args := []string{"-i", "../testdata/ft16.dot", "--hosts", c.list, "-n", "1"}
		if c.want == "commsize" {
			args = append(args, "-s", "4")
		}
		_, err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--hosts %s: %v, want %q", c.list, err, c.want)
		}
	}
}

// TestHostsShards checks that shards of an allocation merge into the
// unsplit result, and that shards of different allocations do not merge.
func TestHostsShards(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-i", "../testdata/ft16.dot", "--hosts", "H[0-11]", "-p", "bisect_fb_sym", "--metric", "hist_acc_band", "-n", "20", "--seed", "5"}
	whole := mustRun(t, args...)
	var shards []string
	for i := range 2 {
		p := filepath.Join(dir, "s"+string(rune('0'+i))+".json")
		runBin(t, append(args, "--shard", string(rune('0'+i))+"/2", "-o", p)...)
		shards = append(shards, p)
	}
	merged, err := runCmd(t, append([]string{"merge"}, shards...)...)
	if err != nil || merged != whole {
		t.Errorf("merge: %v\n%s\nwant\n%s", err, merged, whole)
	}
	other := filepath.Join(dir, "other.json")
	runBin(t, "-i", "../testdata/ft16.dot", "--hosts", "H[4-15]", "-p", "bisect_fb_sym", "--metric", "hist_acc_band", "-n", "20", "--seed", "5", "--shard", "1/2", "-o", other)
	if _, err := runCmd(t, "merge", shards[0], other); err == nil || !strings.Contains(err.Error(), "describes another simulation than "+shards[0]+": allocation 12 hosts ") {
		t.Errorf("shards of different allocations merged: %v", err)
	}
}

// TestHostsSlurmNames checks --hosts with the names Slurm knows on a fabric
// read from dumps, whose hosts are named after their descriptions
// (node001 → H-node001); a machine's name means all its HCA ports.
func TestHostsSlurmNames(t *testing.T) {
	dir := filepath.Join(ibFixtures, "cluster", "minhop")
	fab := []string{"--topo", filepath.Join(dir, "ibnetdiscover.txt"), "--lfts", filepath.Join(dir, "opensm-lfts.dump")}
	out := string(runBin(t, append(fab, "--hosts", "node00[1-2],node004,Hydra", "-d", "-p", "ring", "-n", "1", "--printnamelist", "-o", "/dev/null")...))
	if out != "H-node001\nH-node002\nH-node004\nHydra\n" {
		t.Errorf("hosts taking part:\n%s", out)
	}
	// A machine with two HCAs (node003) or one HCA of two ports (login01)
	// stands for all of them.
	out = string(runBin(t, append(fab, "--hosts", "node003,login01", "-d", "-p", "ring", "-n", "1", "--printnamelist", "-o", "/dev/null")...))
	if out != "H-node003_mlx5_0\nH-node003_mlx5_1\nH-login01:1\nH-login01:2\n" {
		t.Errorf("machines of two HCA ports:\n%s", out)
	}
}

// TestCheckInputHosts checks that --checkinputfile checks the allocation
// only: 4 hosts, 12 ordered pairs.
func TestCheckInputHosts(t *testing.T) {
	out := mustRun(t, "--checkinputfile", "-i", "../testdata/ft16.dot", "--hosts", "H[0-3]")
	if !strings.HasPrefix(out, "checked 12 ordered pairs of 4 hosts (8 switches, 64 links)\n") {
		t.Errorf("output:\n%s", out)
	}
}
