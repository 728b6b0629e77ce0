package deadlock

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"orcs/lft"
)

// ibdmchkVerdict runs ibdmchk (Debian package ibutils) in verification
// mode on a fixture run: the subnet list and unicast tables OpenSM dumped,
// an empty multicast table, and for runs with lanes the path SLs (one
// "0x<source node GUID> <DLID> <SL>" line per host pair, written from the
// lanes read here) and OpenSM's opensm-sl2vl.dump, which ibdmchk reads as
// it is (runs without one use the switches' identity tables, as ibdmchk
// does without -d). It returns whether ibdmchk found a credit loop, the loop it
// reports (channels from the "Found credit loop on" line through the back
// trace to the same channel), and its output.
func ibdmchkVerdict(t *testing.T, bin, run string, f *lft.Fabric, lanes *Lanes) (bool, []Channel, string) {
	t.Helper()
	dir := filepath.Join(ibFixtures, run)
	abs := func(name string) string {
		p, err := filepath.Abs(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	work := t.TempDir()
	mcfdbs := filepath.Join(work, "empty.mcfdbs")
	if err := os.WriteFile(mcfdbs, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-s", abs("opensm-subnet.lst"), "-f", abs("opensm.fdbs"), "-m", mcfdbs}
	if lanes.SLSource != "" {
		var b strings.Builder
		for s := int32(0); s < int32(f.NumHosts()); s++ {
			for d := int32(0); d < int32(f.NumHosts()); d++ {
				if s != d {
					fmt.Fprintf(&b, "0x%016x %d %d\n", f.Nodes[f.HostNode(int(s))].GUID, f.Nodes[f.HostNode(int(d))].LID, lanes.SL(s, d))
				}
			}
		}
		psl := filepath.Join(work, "path-sl.txt")
		if err := os.WriteFile(psl, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-c", psl)
		if _, err := os.Stat(abs("opensm-sl2vl.dump")); err == nil {
			args = append(args, "-d", abs("opensm-sl2vl.dump"))
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	text := string(out)
	loop := strings.Contains(text, "-E- credit loops in routing")
	if !loop && !strings.Contains(text, "no credit loops found") {
		t.Fatalf("ibdmchk %s on %s: no verdict (%v):\n%s", strings.Join(args, " "), run, err, text)
	}
	// Channels are printed as S<node GUID>/U1/P<output port> VL: <vl>.
	channel := func(s string) Channel {
		i := strings.Index(s, "S")
		j := strings.Index(s, "/U1/P")
		k := strings.Index(s, " VL: ")
		if i < 0 || j < i || k < j {
			t.Fatalf("ibdmchk channel %q", s)
		}
		guid, err1 := strconv.ParseUint(s[i+1:j], 16, 64)
		port, err2 := strconv.Atoi(s[j+5 : k])
		vl, err3 := strconv.Atoi(strings.TrimSpace(s[k+5:]))
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("ibdmchk channel %q", s)
		}
		for l, k := range f.Links {
			if n := f.Nodes[k.From]; n.GUID == guid && int(k.FromPort) == port {
				return Channel{Link: int32(l), VL: uint8(vl)}
			}
		}
		t.Fatalf("ibdmchk channel %q: no such link", s)
		return Channel{}
	}
	var found []Channel
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		l := sc.Text()
		if rest, ok := strings.CutPrefix(l, "Found credit loop on: "); ok {
			found = append(found, channel(rest))
			continue
		}
		if rest, ok := strings.CutPrefix(l, "  - BT credit loop through: "); ok && len(found) > 0 {
			c := channel(rest)
			if len(found) > 1 && found[len(found)-1] == found[0] {
				continue // the back trace goes on to the start of the search
			}
			found = append(found, c)
		}
	}
	return loop, found, text
}

// TestIbdmchkAgrees compares the verdicts with ibdmchk's credit-loop check
// on the fixtures, and checks that the loop ibdmchk reports is a cycle of
// this package's dependency graph.
func TestIbdmchkAgrees(t *testing.T) {
	bin, err := exec.LookPath("ibdmchk")
	if err != nil {
		t.Skip("ibdmchk not installed (Debian package ibutils)")
	}
	for _, run := range []string{
		"torus/minhop", "torus/updn", "torus/dor", "torus/torus-2QoS", "torus/updn-roots", "mesh/dor",
		"ft16/minhop", "ft16/updn", "ft16/ftree", "ft16/lash", "ft16/dfsssp", "ft64/updn", "ft64/ftree",
		"dualport/minhop", "torus/lash-sl", "torus/dfsssp-sl", "torus/nue-sl", "torus/torus-2QoS-sl",
		"sharp-spines/minhop", // a loop only through the aggregation nodes' paths
	} {
		for _, lanes := range []string{"", "none"} {
			f, l := loadRun(t, run, lanes)
			if lanes == "none" && l.SLSource == "" {
				continue // no lanes to leave out
			}
			r := check(t, f, l)
			loop, found, out := ibdmchkVerdict(t, bin, run, f, l)
			if loop == r.Free() {
				t.Errorf("%s (lanes %q): ibdmchk finds a loop: %v; here: %s\n%s", run, lanes, loop, r.Verdict(), out)
				continue
			}
			if !loop {
				continue
			}
			// found[0] is where ibdmchk closed the loop; the back trace
			// walks the dependencies backwards to it.
			if len(found) < 2 || found[len(found)-1] != found[0] {
				t.Errorf("%s: ibdmchk's loop does not close: %v\n%s", run, found, out)
				continue
			}
			for i := 1; i < len(found); i++ {
				if !r.dependsOn(found[i], found[i-1]) {
					t.Errorf("%s: ibdmchk's dependency %s -> %s is not in the graph", run,
						r.Cable(found[i].Link), r.Cable(found[i-1].Link))
				}
			}
			if len(found)-1 < len(r.Loop) {
				t.Errorf("%s: ibdmchk's loop (%d cables) is shorter than the shortest found here (%d)", run, len(found)-1, len(r.Loop))
			}
		}
	}
}
