package main

import (
	"fmt"
	"strings"
	"testing"
)

// The cases of this file were worked out on paper from the routing
// comments of the shipped fabrics, not taken from the program's output.
// Every run is deterministic: --subset linear_bfs -d -n 1, so rank i is
// the i-th host of the breadth-first search from the file's first node.
//
// ft16.dot (4-ary 2-tree, d-mod-k): hosts H0 … H15, leaf S0_y holds
// H4y … H4y+3. The BFS from H0 visits H0, S0_0, H1 … H3, the spines, then
// the leaves S0_1 … S0_3 with their hosts, so rank i = Hi. A leaf sends
// traffic for an off-leaf host d up to spine S1_(d mod 4) (its comment
// lists exactly those d), the spine sends it down to d's leaf, the leaf
// to d. Intra-leaf traffic never leaves the leaf.
//
// manual4.dot (ORCS manual, Listing 1): one switch S1 with hosts H1 … H4
// (H5 … H8 are named in comments only, they are not nodes). The BFS
// starts at S1: rank i = H(i+1).
//
// torus4x4.dot: host Hi on switch S<x>_<y>, x = i mod 4, y = i div 4.
// Every switch lists its host edge first, so hosts come in the BFS order
// of their switches. The BFS from H0 (out-edges in file order):
//
//	S0_0 → S1_0 S0_1 S3_0 S0_3
//	S1_0 → S2_0 S1_1 S1_3;  S0_1 → S0_2 S3_1;  S3_0 → S3_3
//	S2_0 → S2_1 S2_3;  S1_1 → S1_2;  S0_2 → S3_2;  S2_1 → S2_2
//
// gives switches S0_0 S1_0 S0_1 S3_0 S0_3 S2_0 S1_1 S1_3 S0_2 S3_1 S3_3
// S2_1 S2_3 S1_2 S3_2 S2_2, so ranks 0 … 15 are the hosts
//
//	r0 H0 (0,0)   r4 H12 (0,3)  r8  H8 (0,2)   r12 H14 (2,3)
//	r1 H1 (1,0)   r5 H2 (2,0)   r9  H7 (3,1)   r13 H9 (1,2)
//	r2 H4 (0,1)   r6 H5 (1,1)   r10 H15 (3,3)  r14 H11 (3,2)
//	r3 H3 (3,0)   r7 H13 (1,3)  r11 H6 (2,1)   r15 H10 (2,2)
//
// A route corrects x first, then y, each the shorter way round; a tie
// (distance 2) goes the positive way.

// handRun runs orcs deterministically on a shipped fabric.
func handRun(t *testing.T, fabric string, args ...string) string {
	t.Helper()
	return mustRun(t, append([]string{"-i", "../testdata/" + fabric + ".dot",
		"--subset", "linear_bfs", "-d", "-n", "1"}, args...)...)
}

// oneRunStats is the sum_max_cong (or dep_max_delay) text of a single run
// with value v.
func oneRunStats(metric string, v int) string {
	labels := [4]string{"Minimal Maximal Congestion:", "Maximal Maximal Congestion:",
		"Average Maximal Congestion:", "Maximal Congestion Variance:"}
	count := "Congestion sum of %d occured 1 times.\n"
	if metric == "dep_max_delay" {
		labels = [4]string{"Minimal Delay:", "Maximal Delay:", "Average Delay:", "Delay Variance:"}
		count = "Delay of %d occured 1 times.\n"
	}
	return fmt.Sprintf("Statistical Results\n===================\n\n"+
		"%s %d.000000\n%s %d.000000\n%s %d.000000\n%s 0.000000\n"+
		"===================\n\n"+count,
		labels[0], v, labels[1], v, labels[2], v, labels[3], v)
}

// oneRunHistogram is the hist_acc_band text of a single run falling into
// bin [lo, lo+0.05).
func oneRunHistogram(lo string) string {
	var b strings.Builder
	b.WriteString("Histogramm bin width: 0.050000\nFraction of full bandwidt | Number of occurences\n")
	for i := 0; i < 20; i++ {
		edge := fmt.Sprintf("%12.8f", float64(i)/20)
		n := 0
		if strings.TrimSpace(edge) == lo {
			n = 1
		}
		fmt.Fprintf(&b, "%s %12.8f %5d\n", edge, float64(i+1)/20, n)
	}
	return b.String()
}

func TestHandDerivedMetrics(t *testing.T) {
	cases := []struct {
		name   string
		fabric string
		args   []string
		want   string
	}{
		// bisect_fb_sym on 16 ranks pairs 2i ↔ 2i+1, i.e. H2i ↔ H2i+1,
		// always two hosts of one leaf: route Hs → S0_y → Hd. Each host
		// sends one message (up-link load 1) and receives one (down-link
		// load 1), no switch-to-switch cable is used: w = 1 for all 16.
		{"ft16 bisect_fb_sym hist_max_cong", "ft16",
			[]string{"-p", "bisect_fb_sym", "--metric", "hist_max_cong"},
			"weight 1: 16 of the 16 connections (100.00%)\n\nBW: 1.000000\n"},
		// One level whose largest w is 1.
		{"ft16 bisect_fb_sym sum_max_cong", "ft16",
			[]string{"-p", "bisect_fb_sym", "--metric", "sum_max_cong"},
			oneRunStats("sum_max_cong", 1)},
		// 2neighbor on 16 ranks: groups {0,1,2} {3,4,5} {6,7,8} {9,10,11}
		// {12,13,14}, rank 15 idle; inside a group every rank sends to and
		// receives from the two others: 30 messages. Every host up- and
		// down-link of a group member carries 2, so w ≥ 2. No cable
		// carries 3:
		//   {3,4,5}: H3→H4 over S0_0→S1_0→S0_1, H3→H5 over S0_0→S1_1→S0_1,
		//     H4→H3 and H5→H3 both over S0_1→S1_3→S0_0 (load 2), H4↔H5
		//     inside S0_1.
		//   {6,7,8}: H6→H8 and H7→H8 both over S0_1→S1_0→S0_2 (load 2),
		//     H8→H6 over S1_2, H8→H7 over S1_3, H6↔H7 inside S0_1.
		//   the other groups stay inside one leaf.
		// So w = 2 for all 30, BW = 1/2.
		{"ft16 2neighbor hist_max_cong", "ft16",
			[]string{"-p", "2neighbor", "--metric", "hist_max_cong"},
			"weight 2: 30 of the 30 connections (100.00%)\n\nBW: 0.500000\n"},
		{"ft16 2neighbor sum_max_cong", "ft16",
			[]string{"-p", "2neighbor", "--metric", "sum_max_cong"},
			oneRunStats("sum_max_cong", 2)},
		// ring on 16 ranks: 16 levels of one message each, w = 1 each.
		{"ft16 ring sum_max_cong", "ft16",
			[]string{"-p", "ring", "--metric", "sum_max_cong"},
			oneRunStats("sum_max_cong", 16)},
		// ptrnvsptrn -f ring -c scatter -z 6: ring on ranks 0…5 (H0…H5,
		// 6 levels: l → l+1 mod 6), scatter on ranks 6…15 (H6 → H7…H15,
		// one level, repeated in each of the 6 levels).
		//   scatter: 9 messages leave over H6→S0_1 (load 9): w = 9 each.
		//     H6→H8 and H6→H12 go up S0_1→S1_0 (8, 12 ≡ 0 mod 4).
		//   ring levels 0…4: H0→H1, H1→H2, H2→H3 inside S0_0; H3→H4 over
		//     S0_0→S1_0→S0_1 (no scatter traffic there); H4→H5 inside
		//     S0_1: w = 1.
		//   ring level 5: H5→H0 over S0_1→S1_0 (0 ≡ 0 mod 4), which also
		//     carries H6→H8 and H6→H12: load 3, w = 3.
		// hist_max_cong: 6 × 10 = 60 connections: w=1 five, w=3 one, w=9
		// 54; BW = (5 + 1/3 + 54/9)/60 = 17/90 = 0.188889.
		{"ft16 ring vs scatter hist_max_cong", "ft16",
			[]string{"-p", "ptrnvsptrn", "-f", "ring", "-c", "scatter", "-z", "6", "--metric", "hist_max_cong"},
			"weight 1: 5 of the 60 connections (8.33%)\n" +
				"weight 3: 1 of the 60 connections (1.67%)\n" +
				"weight 9: 54 of the 60 connections (90.00%)\n\nBW: 0.188889\n"},
		// 17/90 lies in [0.15, 0.20).
		{"ft16 ring vs scatter hist_acc_band", "ft16",
			[]string{"-p", "ptrnvsptrn", "-f", "ring", "-c", "scatter", "-z", "6", "--metric", "hist_acc_band"},
			oneRunHistogram("0.15000000")},
		// The largest w of every level is scatter's 9: 6 × 9 = 54.
		{"ft16 ring vs scatter sum_max_cong", "ft16",
			[]string{"-p", "ptrnvsptrn", "-f", "ring", "-c", "scatter", "-z", "6", "--metric", "sum_max_cong"},
			oneRunStats("sum_max_cong", 54)},
		// Only the ring counts; each rank sends once it has received:
		// ready(1) = 1, ready(2) = 2, …, ready(5) = 5, then H5→H0 with
		// w = 3 arrives at 5 + 3 = 8.
		{"ft16 ring vs scatter dep_max_delay", "ft16",
			[]string{"-p", "ptrnvsptrn", "-f", "ring", "-c", "scatter", "-z", "6", "--metric", "dep_max_delay"},
			oneRunStats("dep_max_delay", 8)},
		// gather on manual4: H2, H3, H4 → H1, all three over S1→H1 (load
		// 3): w = 3, bandwidth 1/3, in [0.30, 0.35).
		{"manual4 gather hist_acc_band", "manual4",
			[]string{"-p", "gather", "--metric", "hist_acc_band"},
			oneRunHistogram("0.30000000")},
		// tree on manual4: level 0 H1→H2, level 1 H1→H3 and H2→H4, no
		// cable shared inside a level: w = 1; H4 has its data at 1 + 1 = 2.
		{"manual4 tree dep_max_delay", "manual4",
			[]string{"-p", "tree", "--metric", "dep_max_delay"},
			oneRunStats("dep_max_delay", 2)},
		// tree on the torus (ranks as in the table above), routes x first:
		//   level 0: r0→r1 H0→H1: S0_0→S1_0. w = 1.
		//   level 1: r0→r2 H0→H4: S0_0→S0_1; r1→r3 H1(1,0)→H3(3,0):
		//     dx = 2, tie, positive: S1_0→S2_0→S3_0. w = 1, 1.
		//   level 2: r0→r4 H0→H12: y 0→3 wraps, S0_0→S0_3;
		//     r1→r5 H1→H2: S1_0→S2_0; r2→r6 H4→H5: S0_1→S1_1;
		//     r3→r7 H3(3,0)→H13(1,3): dx = 2, positive over the wrap
		//     S3_0→S0_0→S1_0, then y 0→3: S1_0→S1_3. Nothing shared: w = 1.
		//   level 3: r0→r8 H0→H8: S0_0→S0_1→S0_2;
		//     r1→r9 H1→H7(3,1): S1_0→S2_0→S3_0→S3_1;
		//     r2→r10 H4(0,1)→H15(3,3): S0_1→S3_1 (wrap), S3_1→S3_2→S3_3;
		//     r3→r11 H3→H6(2,1): S3_0→S2_0→S2_1;
		//     r4→r12 H12(0,3)→H14(2,3): S0_3→S1_3→S2_3;
		//     r5→r13 H2(2,0)→H9(1,2): S2_0→S1_0→S1_1→S1_2;
		//     r6→r14 H5(1,1)→H11(3,2): S1_1→S2_1→S3_1→S3_2;
		//     r7→r15 H13(1,3)→H10(2,2): S1_3→S2_3→S2_2.
		//     S3_1→S3_2 carries r2→r10 and r6→r14, S1_3→S2_3 carries
		//     r4→r12 and r7→r15: these four have w = 2, the others 1.
		// 15 connections: w=1 11, w=2 4; BW = (11 + 4/2)/15 = 13/15.
		{"torus4x4 tree hist_max_cong", "torus4x4",
			[]string{"-p", "tree", "--metric", "hist_max_cong"},
			"weight 1: 11 of the 15 connections (73.33%)\n" +
				"weight 2: 4 of the 15 connections (26.67%)\n\nBW: 0.866667\n"},
		// 13/15 = 0.8667 lies in [0.85, 0.90).
		{"torus4x4 tree hist_acc_band", "torus4x4",
			[]string{"-p", "tree", "--metric", "hist_acc_band"},
			oneRunHistogram("0.85000000")},
		// Level maxima 1, 1, 1, 2.
		{"torus4x4 tree sum_max_cong", "torus4x4",
			[]string{"-p", "tree", "--metric", "sum_max_cong"},
			oneRunStats("sum_max_cong", 5)},
		// Ready times: level 0 r1 = 1; level 1 r2 = 1, r3 = 1+1 = 2;
		// level 2 r4 = 1, r5 = 2, r6 = 2, r7 = 3; level 3 r15 = r7 + 2 = 5
		// (r14 = r6 + 2 = 4, r12 = r4 + 2 = 3, the rest ≤ 3).
		{"torus4x4 tree dep_max_delay", "torus4x4",
			[]string{"-p", "tree", "--metric", "dep_max_delay"},
			oneRunStats("dep_max_delay", 5)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := handRun(t, c.fabric, c.args...); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestHandDerivedCableLoads checks get_cable_cong loads of named cables.
func TestHandDerivedCableLoads(t *testing.T) {
	in := []string{"-i", "../testdata/ft16.dot", "--subset", "linear_bfs", "-d", "-n", "1"}
	// gather on ft16: H1 … H15 → H0. Every sender's up-link carries 1.
	// H1…H3 reach H0 inside S0_0. From the other leaves H0 (0 ≡ 0 mod 4)
	// goes up to S1_0: S0_1→S1_0, S0_2→S1_0, S0_3→S1_0 carry 4 each,
	// S1_0→S0_0 carries those 12, S0_0→H0 all 15. Scaled by the maximum
	// 15: 12/15 = 0.8, 4/15, 1/15.
	want := map[string]string{
		"S0_0->H0":   "15/1",
		"S1_0->S0_0": "12/0.8",
		"S0_1->S1_0": "4/0.26666666666666666",
		"S0_2->S1_0": "4/0.26666666666666666",
		"S0_3->S1_0": "4/0.26666666666666666",
	}
	for h := 1; h < 16; h++ {
		want[fmt.Sprintf("H%d->S0_%d", h, h/4)] = "1/0.06666666666666667"
	}
	sameLoads(t, linkLoads(t, append(in, "-p", "gather")...), want)
	// The same map printed as ORCS's coloured dot: hue (1 − scaled) × 0.4.
	dotOut := mustRun(t, append(in, "-p", "gather", "--metric", "get_cable_cong")...)
	for _, line := range []string{
		`  "S0_0" -> "H0" [comment="H0", congestion="1.000000", color="0.000000 0.900000 0.900000"];`,
		`  "S1_0" -> "S0_0" [comment="H0,H1,H2,H3", congestion="0.800000", color="0.080000 0.900000 0.900000"];`,
		`  "S0_2" -> "S1_0" [comment="H0,H4,H12", congestion="0.266667", color="0.293333 0.900000 0.900000"];`,
		`  "H7" -> "S0_1" [comment="*", congestion="0.066667", color="0.373333 0.900000 0.900000"];`,
		`  "S1_1" -> "S0_0" [comment="H0,H1,H2,H3", congestion="0.000000", color="0.400000 0.900000 0.900000"];`,
	} {
		if !strings.Contains(dotOut, line+"\n") {
			t.Errorf("get_cable_cong dot lacks %s", line)
		}
	}

	// tree on the torus (routes in TestHandDerivedMetrics), summed over
	// the four levels: r0 = H0 sends in every level (H0→S0_0: 4, the
	// maximum); S1_0→S2_0 carries r1→r3 (level 1), r1→r5 (level 2) and
	// r1→r9 (level 3): 3; S0_0→S1_0 carries r0→r1 (level 0) and r3→r7
	// (level 2): 2; S0_0→S0_1 carries r0→r2 and r0→r8: 2; S3_1→S3_2 and
	// S1_3→S2_3 carry two level-3 routes each: 2; S0_0→S0_3 carries r0→r4
	// only: 1; the y− cable S1_0→S1_3 carries r3→r7 only: 1.
	torus := linkLoads(t, "-i", "../testdata/torus4x4.dot", "--subset", "linear_bfs", "-d", "-n", "1", "-p", "tree")
	for link, load := range map[string]string{
		"H0->S0_0":   "4/1",
		"H1->S1_0":   "3/0.75",
		"S1_0->S2_0": "3/0.75",
		"S0_0->S1_0": "2/0.5",
		"S0_0->S0_1": "2/0.5",
		"S3_1->S3_2": "2/0.5",
		"S1_3->S2_3": "2/0.5",
		"S0_0->S0_3": "1/0.25",
		"S1_0->S1_3": "1/0.25",
	} {
		if torus[link] != load {
			t.Errorf("torus tree %s: %q, want %s", link, torus[link], load)
		}
	}
	// Cables no route of the tree uses: the x− way from S0_0 (S0_0→S3_0)
	// and the y− way from S0_1 back to S0_0.
	for _, link := range []string{"S0_0->S3_0", "S0_1->S0_0"} {
		if l, ok := torus[link]; ok {
			t.Errorf("torus tree %s: load %s, want none", link, l)
		}
	}
}

// TestLevelsDoNotShareLoad: a pattern file on manual4 whose two levels
// both end at H1 (rank 0). Level 1: H2→H1 and H3→H1 share S1→H1 (load 2,
// w = 2 each); level 2: H4→H1 alone on S1→H1 (w = 1, not 3: level 1's
// load is gone). BW = (1/2 + 1/2 + 1)/3 = 2/3.
func TestLevelsDoNotShareLoad(t *testing.T) {
	file := writeFile(t, t.TempDir(), "two.ptrn", "1 0\n2 0\n\n3 0\n")
	got := handRun(t, "manual4", "-p", "file:"+file, "--metric", "hist_max_cong")
	want := "weight 1: 1 of the 3 connections (33.33%)\nweight 2: 2 of the 3 connections (66.67%)\n\nBW: 0.666667\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := handRun(t, "manual4", "-p", "file:"+file, "--metric", "sum_max_cong"); got != oneRunStats("sum_max_cong", 3) {
		t.Errorf("sum_max_cong:\n%s", got)
	}
}
