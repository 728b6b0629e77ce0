package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orcs/infile"
)

// TestLoadRefusesHostileAnalysis alters the real ft64 analysis the way
// issue 22 (items 2 and 11) found the report to panic, allocate gigabytes
// or draw nonsense: Load must refuse each with the file and the problem,
// and what Load accepts must draw without a panic.
func TestLoadRefusesHostileAnalysis(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "analysis-ft64.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	cases := []struct {
		name, old, new, want string
	}{
		{"a switch on level 101", `"switch": true,
        "level": 1`, `"switch": true,
        "level": 101`, "topology: 3 levels, but its highest switch is on level 101"},
		{"10⁹ levels", `"levels": 3,`, `"levels": 1000000000,`, "topology: 1000000000 levels, but its highest switch is on level 3"},
		{"a host on level 2", `"switch": false,
        "level": 0`, `"switch": false,
        "level": 2`, "node 0 (H0): a host on level 2, want 0"},
		{"a switch on level −5", `"switch": true,
        "level": 1`, `"switch": true,
        "level": -5`, "a switch on level -5"},
		{"more hosts than nodes", `"hosts": 64,
    "switches": 48`, `"hosts": 65,
    "switches": 48`, "topology: 65 hosts and 48 switches, but its nodes are 64 hosts and 48 switches"},
		{"10¹⁸ runs beside 200 values", `"runs": 200,`, `"runs": 1000000000000000000,`, "runs 1000000000000000000 with 200 values and a summary of 200"},
		{"a value too few", `"values": [
    0.625,`, `"values": [`, "runs 200 with 199 values"},
		{"a negative bandwidth", `"values": [
    0.625,`, `"values": [
    -7.5,`, "values[0] = -7.5: a bandwidth, from 0 to 1"},
		{"a negative histogram count", `"count": 0`, `"count": -1`, "histogram bin 0: 0–0.05 of -1 runs"},
		{"a histogram of other runs", `"count": 0`, `"count": 5`, "the histogram counts 205 runs of 200"},
		{"negative route errors", `"route_errors": 0`, `"route_errors": -1`, "route_errors -1: a count, want ≥ 0"},
		{"an unknown metric", `"metric": "hist_acc_band"`, `"metric": "hist"`, `unknown metric "hist"`},
		{"another value name", `"value_name": "bandwidth"`, `"value_name": "delay"`, `value_name "delay", but metric hist_acc_band writes "bandwidth"`},
		{"mean bandwidth above 1", `"mean_bandwidth": 0.6415104166666667`, `"mean_bandwidth": 7`, "mean_bandwidth 7: from 0 to 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(text, c.old) {
				t.Fatalf("the fixture has no %q", c.old)
			}
			p := writeTemp(t, "a.json", strings.Replace(text, c.old, c.new, 1))
			in, err := Load([]string{p})
			if err == nil {
				var b bytes.Buffer
				err = Write(&b, in, Options{})
				t.Fatalf("Load accepted it (Write: %v)", err)
			}
			var pe *infile.ParseError
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), p+": ") || !errors.As(err, &pe) || !errors.Is(err, ErrInput) {
				t.Errorf("%v\nwant %q", err, c.want)
			}
		})
	}
}

// TestLoadBoundsStreams: a stream of blank space or of a JSON array that
// never ends is refused at a bound, not read until memory runs out (issue
// 22, item 4: yes ' ' | orcs report /dev/stdin grew to 8 GB).
func TestLoadBoundsStreams(t *testing.T) {
	blank := writeTemp(t, "blank.json", strings.Repeat(" \n", 600<<10))
	if _, err := Load([]string{blank}); err == nil || !strings.Contains(err.Error(), blank+":1: more than 1048576 bytes (1 MiB) of blank space") {
		t.Errorf("blank: %v", err)
	}
	saved := maxInputBytes
	maxInputBytes = 1 << 16
	defer func() { maxInputBytes = saved }()
	long := writeTemp(t, "long.json", `{"metric": "x", "summary": {}, "values": [`+strings.Repeat("0.5, ", 1<<14)+"0.5]}")
	_, err := Load([]string{long})
	want := long + ": more than 65536 bytes (64 KiB), the most a result orcs report reads (an analysis of about ten million runs, read whole) can hold"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, infile.ErrTooLarge) {
		t.Errorf("long: %v\nwant %s", err, want)
	}
}
