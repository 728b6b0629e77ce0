package samplingsim

import (
	"strings"
	"testing"
)

// TestConfigParse checks that Config.parse turns every plug-in spec into
// the typed value a run is set up from (newSim used to parse the strings
// again and drop the errors).
func TestConfigParse(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Buffers, cfg.InputBuffer = "hashed:j=3", 8
	cfg.Marking = "queue:threshold=3"
	cfg.Scheme, cfg.Hash, cfg.Restrict, cfg.PacketIDs = "onebit", "crc", "all", "global"
	cfg.Routing, cfg.BackgroundRouting = "adaptive:bias=2", "static"
	pl, err := cfg.parse()
	if err != nil {
		t.Fatal(err)
	}
	if pl.buffers.Name != "hashed" || pl.buffers.FIFO() {
		t.Errorf("buffers = %q (FIFO %v), want hashed", pl.buffers.Name, pl.buffers.FIFO())
	}
	if pl.marker.congested == nil || pl.marker.lo != 3 {
		t.Errorf("marker threshold = %g, want 3", pl.marker.lo)
	}
	if pl.scheme == nil || pl.scheme.name != "onebit" || pl.hash != hashCRC || pl.restrict != restrictAll || pl.ids != idsGlobal {
		t.Errorf("scheme %v, hash %v, restrict %v, ids %v; want onebit, crc, all, global", pl.scheme, pl.hash, pl.restrict, pl.ids)
	}
	if pl.routing.Mode != ModeAdaptive || pl.routing.Bias != 2 || pl.background.Mode != ModeStatic {
		t.Errorf("routings %+v, %+v; want adaptive with bias 2, static", pl.routing, pl.background)
	}
	// The background routing defaults to the primary's.
	cfg.BackgroundRouting = ""
	if pl, err = cfg.parse(); err != nil || pl.background != pl.routing {
		t.Errorf("background routing %+v, want job 0's %+v (%v)", pl.background, pl.routing, err)
	}
	// Every bad spec is named, once.
	cfg.Buffers, cfg.Marking, cfg.Scheme = "hashed:j=9", "queue:threshold=x", "resevoir"
	_, err = cfg.parse()
	for _, want := range []string{"j=9 must not exceed the 8 buffers per port", `marking policy "queue:threshold=x"`, `unknown sampling scheme "resevoir"`} {
		if err == nil || strings.Count(err.Error(), want) != 1 {
			t.Errorf("parse() = %v; want %q once", err, want)
		}
	}
}
