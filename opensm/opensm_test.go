package opensm

import (
	"os"
	"strings"
	"testing"
	"time"

	"orcs/ib"
)

func TestParseLog(t *testing.T) {
	log := `Nov 22 13:41:48 100000 [30D936C0] 0x80 -> Entering MASTER state
Nov 22 13:41:48 120000 [30D936C0] 0x01 -> torus_build_lfts: ERR 4E44: Routing engine list contains torus-2QoS. Enable QoS for correct operation (-Q or 'qos TRUE' in opensm.conf).
Nov 22 13:41:48 130000 [30D936C0] 0x01 -> ucast_mgr_route: torus-2QoS: cannot build fwd tables
Nov 22 13:41:48 140000 [30D936C0] 0x02 -> print_network_node: 0x55d0 cannot be printed
Nov 22 13:41:48 150000 [30D936C0] 0x02 -> osm_ucast_mgr_process: minhop tables configured on all switches
Nov 22 13:41:49 050000 [30D936C0] 0x02 -> SUBNET UP
`
	s := ParseLog([]byte(log))
	if !s.SubnetUp || s.Used != "minhop" || s.NoEngine {
		t.Errorf("summary %+v", s)
	}
	if s.Sweep != 950*time.Millisecond {
		t.Errorf("sweep %v, want 950ms", s.Sweep)
	}
	if len(s.Notes) != 2 || !strings.HasPrefix(s.Notes[1], "ucast_mgr_route: torus-2QoS: cannot build") {
		t.Errorf("notes %q", s.Notes)
	}

	// The engine.txt form (no time stamps), and a day padded with a blank.
	s = ParseLog([]byte("Nov  2 01:00:00 000001 [AB] 0x80 -> Entering MASTER state\n" +
		"0x01 -> osm_ucast_mgr_process: No routing engine able to successfully configure  switch tables on current fabric\n"))
	if s.SubnetUp || s.Used != "" || !s.NoEngine || s.Sweep != 0 {
		t.Errorf("summary %+v", s)
	}
}

func TestParseLogFixtures(t *testing.T) {
	for _, c := range []struct{ dir, used string }{
		{"ft16/minhop", "minhop"},
		{"ft16/torus-2QoS", "minhop"},
		{"torus/torus-2QoS", "torus-2QoS"},
		{"torus/updn", "minhop"},
	} {
		data, err := os.ReadFile("../testdata/ib/" + c.dir + "/engine.txt")
		if err != nil {
			t.Fatal(err)
		}
		if s := ParseLog(data); s.Used != c.used || !s.SubnetUp {
			t.Errorf("%s: %+v, want used %s", c.dir, s, c.used)
		}
	}
}

func readRouting(t *testing.T, path string) *ib.Routing {
	t.Helper()
	r, err := ib.ReadRoutingFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCompareRoutingsFixtures(t *testing.T) {
	dir := "../testdata/ib/"
	want := readRouting(t, dir+"ft16/minhop/opensm-lfts.dump")
	skipped, err := CompareRoutings(want, readRouting(t, dir+"ft16/minhop/dump_fts.txt"))
	if err != nil || len(skipped) != 0 {
		t.Errorf("ft16: skipped %v, %v", skipped, err)
	}
	// dump_fts drops LID 64 of the 64-LID switch.
	skipped, err = CompareRoutings(readRouting(t, dir+"lid64/minhop/opensm-lfts.dump"),
		readRouting(t, dir+"lid64/minhop/dump_fts.txt"))
	if err != nil || len(skipped) != 1 || skipped[0] != "S-0" {
		t.Errorf("lid64: skipped %v, %v", skipped, err)
	}
	// Different engines give different tables.
	_, err = CompareRoutings(want, readRouting(t, dir+"ft16/updn/dump_fts.txt"))
	if err == nil || !strings.Contains(err.Error(), "the tables differ") {
		t.Errorf("minhop vs updn: %v", err)
	}
}

func TestTorusConfig(t *testing.T) {
	tr := &Torus{Dims: [3]int{4, 4, 1}, Seed: "S0_0", Plus: [3]string{"S1_0", "S0_1"}, Minus: [3]string{"S3_0", "S0_3"}}
	guids := map[string]uint64{"S0_0": 0x200000, "S1_0": 0x200001, "S3_0": 0x200003, "S0_1": 0x200004, "S0_3": 0x20000c}
	conf, err := tr.config(func(n string) (uint64, error) { return guids[n], nil })
	if err != nil {
		t.Fatal(err)
	}
	want := `# torus-2QoS seed written by orcs route
torus 4 4 1
xp_link 0x200000 0x200001  # S0_0 -> S1_0
xm_link 0x200000 0x200003  # S0_0 -> S3_0
yp_link 0x200000 0x200004  # S0_0 -> S0_1
ym_link 0x200000 0x20000c  # S0_0 -> S0_3
`
	if conf != want {
		t.Errorf("got\n%s\nwant\n%s", conf, want)
	}
}

func TestMissingError(t *testing.T) {
	err := &MissingError{Tool: "ibsim", Package: "ibsim-utils"}
	if msg := err.Error(); !strings.Contains(msg, "apt-get install opensm ibsim-utils infiniband-diags") ||
		!strings.Contains(msg, "ibsim-utils") {
		t.Errorf("message %q", msg)
	}
}
