package regions

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"orcs/input"
	"orcs/lft"
	"orcs/samplingsim"
)

// FromSamplingsim returns the credit-stall percentages of every link in
// every window of a packet simulation (samplingsim.Result.StallPercent),
// the window start in µs as the time.
func FromSamplingsim(res *samplingsim.Result) Series {
	s := Series{Source: SourceSamplingsim}
	for w := range res.Windows() {
		from, _ := res.WindowSpan(w)
		s.Times = append(s.Times, float64(from)/float64(samplingsim.Microsecond))
		s.Values = append(s.Values, res.StallPercent(w))
	}
	return s
}

// samplingsimJSON is the part of `orcs samplingsim --json FILE` read here.
type samplingsimJSON struct {
	Windows []struct {
		Index   int     `json:"index"`
		StartUs float64 `json:"start_us"`
		EndUs   float64 `json:"end_us"`
		Links   []struct {
			Link      int32   `json:"link"`
			From      string  `json:"from"`
			To        string  `json:"to"`
			StalledNs float64 `json:"truth_stalled_ns"`
		} `json:"links"`
	} `json:"windows"`
}

// ReadSamplingsimJSON reads the windows of a run that `orcs samplingsim
// --json FILE` wrote for fabric f: per window and link, 100 ·
// truth_stalled_ns / window length (links without a row stalled 0). A
// link whose index names other nodes than the row's (a run of another
// fabric) is an error.
func ReadSamplingsimJSON(r io.Reader, file string, f *lft.Fabric) (Series, error) {
	var doc samplingsimJSON
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return Series{}, input.Errorf(file, 0, "not samplingsim JSON: %v", err)
	}
	if len(doc.Windows) == 0 {
		return Series{}, input.Errorf(file, 0, "no windows: want the output of orcs samplingsim --json")
	}
	s := Series{Source: SourceSamplingsim}
	for _, w := range doc.Windows {
		span := (w.EndUs - w.StartUs) * 1e3
		if !(span > 0) || math.IsInf(span, 0) {
			return Series{}, input.Errorf(file, 0, "window %d: bad span %v–%v µs", w.Index, w.StartUs, w.EndUs)
		}
		vals := make([]float64, len(f.Links))
		for _, l := range w.Links {
			if l.Link < 0 || int(l.Link) >= len(f.Links) {
				return Series{}, input.Errorf(file, 0, "window %d: link %d: the fabric has %d links (a run of another fabric?)", w.Index, l.Link, len(f.Links))
			}
			lk := f.Links[l.Link]
			if f.Nodes[lk.From].Name != l.From || f.Nodes[lk.To].Name != l.To {
				return Series{}, input.Errorf(file, 0, "window %d: link %d is %s, the run says %s -> %s (a run of another fabric?)",
					w.Index, l.Link, f.LinkName(l.Link), short(l.From), short(l.To))
			}
			if !(l.StalledNs >= 0) || math.IsInf(l.StalledNs, 0) {
				return Series{}, input.Errorf(file, 0, "window %d: link %d: bad truth_stalled_ns %v", w.Index, l.Link, l.StalledNs)
			}
			vals[l.Link] = 100 * l.StalledNs / span
		}
		s.Times = append(s.Times, w.StartUs)
		s.Values = append(s.Values, vals)
	}
	return s, nil
}

// Inputs name the files of the one source of a region extraction.
type Inputs struct {
	// CSV is the documented stall CSV (--counters).
	CSV string
	// Perfquery lists perfquery snapshot files in time order (--perfquery).
	Perfquery []string
	// Samplingsim is a samplingsim --json run (--samplingsim).
	Samplingsim string
	// Analyzer is get_cable_cong CSV output (--analyzer).
	Analyzer string
}

// Read reads the one source that in names, for fabric f, with warnings
// that do not stop the extraction (counter resets).
func (in Inputs) Read(f *lft.Fabric) (Series, []string, error) {
	n := 0
	for _, set := range []bool{in.CSV != "", len(in.Perfquery) > 0, in.Samplingsim != "", in.Analyzer != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return Series{}, nil, fmt.Errorf("give one source of stall values: --counters CSV, --perfquery SNAPSHOT… (two or more), --samplingsim RUN.json or --analyzer LOADS.csv (or --synthetic)")
	}
	if len(in.Perfquery) > 0 {
		var snaps []*Snapshot
		for _, p := range in.Perfquery {
			s, err := ReadPerfqueryFile(p)
			if err != nil {
				return Series{}, nil, err
			}
			snaps = append(snaps, s)
		}
		return CounterWindows(f, snaps)
	}
	path, rd := in.CSV, ReadCSV
	switch {
	case in.Samplingsim != "":
		path, rd = in.Samplingsim, ReadSamplingsimJSON
	case in.Analyzer != "":
		path, rd = in.Analyzer, ReadAnalyzerCSV
	}
	r, name, err := readFile(path)
	if err != nil {
		return Series{}, nil, err
	}
	s, err := rd(r, name, f)
	return s, nil, err
}
