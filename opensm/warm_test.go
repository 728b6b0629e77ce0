package opensm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"orcs/gen"
	"orcs/lft"
)

// startMinhop starts a minhop session on the 4-host 2-ary 2-tree (the
// caller closes it) and returns it, its first routing and the fabric.
func startMinhop(t *testing.T) (*Session, *Result, *lft.Fabric) {
	t.Helper()
	tl := needTools(t)
	n, err := gen.Build("kary:k=2,n=2")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Engine: "minhop", KeepPorts: true, AllowFallback: true, Tools: tl, Timeout: time.Minute}
	s, res, err := StartSession(context.Background(), n.Fabric, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s, res, n.Fabric
}

// A session's OpenSM writes the tables (opensm-lfts.dump) and none of the
// dumps orcs does not read (opensm.fdbs, the LID matrix, ...): the
// installed OpenSM skips a dump it cannot create. Its log says so, and
// the session's notes do not.
func TestSessionSkipsUnreadDumps(t *testing.T) {
	s, res, _ := startMinhop(t)
	defer s.Close()
	dump := s.r.path("dump")
	if st, err := os.Stat(filepath.Join(dump, "opensm-lfts.dump")); err != nil || !st.Mode().IsRegular() {
		t.Fatalf("opensm-lfts.dump: %v", err)
	}
	for _, name := range []string{"opensm.fdbs", "opensm-lid-matrix.dump", "opensm.mcfdbs", "opensm-subnet.lst"} {
		if st, err := os.Lstat(filepath.Join(dump, name)); err == nil && st.Mode().IsRegular() {
			t.Errorf("OpenSM wrote %s (%d bytes)", name, st.Size())
		}
	}
	log, err := os.ReadFile(s.r.path("opensm.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "cannot create file") {
		t.Errorf("OpenSM's log does not say it skipped the dumps")
	}
	for _, note := range res.Log.Notes {
		if strings.Contains(note, "cannot create file") {
			t.Errorf("note %q", note)
		}
	}
}

func TestUnreadDumpNote(t *testing.T) {
	for _, c := range []struct {
		msg  string
		note bool
	}{
		{"osm_dump_qmap_to_file: cannot create file '/x/dump/opensm.fdbs': Is a directory", false},
		{"osm_dump_qmap_to_file: cannot create file '/x/dump/opensm-lid-matrix.dump': Is a directory", false},
		{"osm_dump_qmap_to_file: cannot create file '/x/dump/opensm-lfts.dump': No space left on device", true},
		{"osm_dump_qmap_to_file: cannot create file '/x/dump/opensm.fdbs", true},
	} {
		if got := isNote(c.msg); got != c.note {
			t.Errorf("isNote(%q) = %v, want %v", c.msg, got, c.note)
		}
	}
}

// A set routed on a session costs one sweep of OpenSM, also for the
// engines that must route from scratch (minhop: OpenSM's cable bounced in
// the set's console batch), and never one with OpenSM's port down (which
// drops and rediscovers every node).
func TestSessionOneSweepPerSet(t *testing.T) {
	s, _, f := startMinhop(t)
	defer s.Close()
	ctx := context.Background()
	logPath := s.r.path("opensm.log")
	for i := range 3 {
		st, err := os.Stat(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Route(ctx, f); err != nil {
			t.Fatal(err)
		}
		if err := s.waitIdle(ctx); err != nil {
			t.Fatal(err)
		}
		seg := string(readFrom(logPath, st.Size()))
		if k := strings.Count(seg, string(sweepSignal)); k != 1 {
			t.Errorf("set %d: %d sweeps, want 1", i, k)
		}
		if strings.Contains(seg, "SM port is down") {
			t.Errorf("set %d: OpenSM swept with its port down", i)
		}
	}
}
