package report

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTimelineWhereAndWhen: the regions timeline says its time unit (the
// fixture is a samplingsim result: µs) and where each track is, at its
// largest region. By hand from testdata/regions-ft64.json: region 1 is
// largest at time 500 (32 cables, 15 switches S0_0, S0_1, …, hosts H0,
// H1, H2, H3), region 2 at 750 (27 cables, 10 switches S0_12, S0_13, …,
// hosts H60 … H63).
func TestTimelineWhereAndWhen(t *testing.T) {
	in, err := Load([]string{filepath.Join("testdata", "regions-ft64.json")})
	if err != nil {
		t.Fatal(err)
	}
	svg, _ := timeline(in.Regions)
	for _, want := range []string{
		">window start time (µs; box height",
		">S0_0, S0_1 +13 switches; H0, H1 +2 hosts</text>",
		">S0_12, S0_13 +8 switches; H60, H61 +2 hosts</text>",
	} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("timeline lacks %q:\n%s", want, svg)
		}
	}
	// One window: the picture is still wide enough for its legend and
	// caption (0.62 em a character, 9 px caption from x = 80).
	in.Regions.Windows = in.Regions.Windows[:1]
	svg, _ = timeline(in.Regions)
	m := regexp.MustCompile(`<svg width="([0-9]+)"`).FindStringSubmatch(string(svg))
	if m == nil {
		t.Fatalf("no width in %s", svg)
	}
	width, _ := strconv.Atoi(m[1])
	caption := "window start time (µs; box height: region size relative to the track's largest)"
	if min := 80 + 0.62*9*float64(len([]rune(caption))); float64(width) < min {
		t.Errorf("one-window timeline %d px wide, want ≥ %.0f for its caption", width, min)
	}
}
