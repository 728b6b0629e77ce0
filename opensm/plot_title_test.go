package opensm

import "testing"

// TestPlotTitleBaseName: the compare plot's title names a fabric file by
// its base name (a directory pushed the title off the picture) and a
// generated fabric by its spec.
func TestPlotTitleBaseName(t *testing.T) {
	for _, c := range []struct{ fabric, want string }{
		{"/srv/fabrics/site-a/ft16.dot", "ft16.dot, hist_acc_band: 50 runs of bisect on 16 hosts"},
		{"ft16.dot", "ft16.dot, hist_acc_band: 50 runs of bisect on 16 hosts"},
		{"gen:kary:k=4,n=2", "gen:kary:k=4,n=2, hist_acc_band: 50 runs of bisect on 16 hosts"},
	} {
		cmp := &Comparison{Fabric: c.fabric, Metric: "hist_acc_band", Runs: 50, Pattern: "bisect", Commsize: 16}
		if got := cmp.Plot().Title; got != c.want {
			t.Errorf("%s: title %q, want %q", c.fabric, got, c.want)
		}
	}
}
