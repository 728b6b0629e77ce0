package regions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"orcs/infile"
	"orcs/lft"
	"orcs/samplingsim"
)

// samplingsimRowBytes bounds a link row of samplingsim's JSON (about 450
// bytes with its indentation and names of 20 bytes) with room to spare.
const samplingsimRowBytes = 1 << 10

// samplingsimLimit bounds the bytes of samplingsim JSON read for fabric f:
// a link row per link and window for at most MaxCells of them, and 256 MiB
// for the rest of the run (jobs, diagnosis).
func samplingsimLimit(f *lft.Fabric) infile.Limit {
	return infile.Limit{Bytes: 256<<20 + MaxCells*(samplingsimRowBytes+2*longestName(f)),
		Why: fmt.Sprintf("a samplingsim run of at most %d link rows (windows × links that one extraction holds)", MaxCells)}
}

// ReadSamplingsimJSON reads the windows of a run that `orcs samplingsim
// --json FILE` wrote for fabric f (a samplingsim.RunFile; one of a newer
// format_version is refused): per window and link, 100 ·
// truth_stalled_ns / window length (links without a row stalled 0). A
// link whose index names other nodes than the row's (a run of another
// fabric) is an error. The JSON is read one window at a time (the other
// fields are skipped token by token), and more windows than MaxCells
// values of the fabric's links are refused as they come.
func ReadSamplingsimJSON(r io.Reader, file string, f *lft.Fabric) (Series, error) {
	dec := json.NewDecoder(r)
	notJSON := func(err error) error {
		var pe *infile.ParseError
		if errors.As(err, &pe) {
			return pe
		}
		return infile.Errorf(file, 0, "not samplingsim JSON: %v", err)
	}
	if err := delim(dec, '{'); err != nil {
		return Series{}, notJSON(err)
	}
	s := Series{Source: SourceSamplingsim}
	found := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return Series{}, notJSON(err)
		}
		if key == "format_version" {
			var v int
			if err := dec.Decode(&v); err != nil {
				return Series{}, notJSON(fmt.Errorf("format_version: %w", err))
			}
			if err := infile.CheckVersion(file, "samplingsim run", v, samplingsim.RunFileVersion); err != nil {
				return Series{}, err
			}
			continue
		}
		if key != "windows" {
			if err := skipValue(dec); err != nil {
				return Series{}, notJSON(err)
			}
			continue
		}
		if found {
			return Series{}, infile.Errorf(file, 0, "windows given twice")
		}
		found = true
		if err := delim(dec, '['); err != nil {
			return Series{}, notJSON(fmt.Errorf("windows: %w", err))
		}
		for dec.More() {
			var w samplingsim.RunFileWindow
			if err := dec.Decode(&w); err != nil {
				return Series{}, notJSON(err)
			}
			if err := CheckCells("", len(s.Values)+1, len(f.Links)); err != nil {
				return Series{}, infile.Errorf(file, 0, "window %d: %v", w.Index, err).With(infile.ErrTooLarge)
			}
			vals, err := samplingsimValues(w, file, f)
			if err != nil {
				return Series{}, err
			}
			s.Times = append(s.Times, w.StartUs)
			s.Values = append(s.Values, vals)
		}
		if err := delim(dec, ']'); err != nil {
			return Series{}, notJSON(err)
		}
	}
	if len(s.Values) == 0 {
		return Series{}, infile.Errorf(file, 0, "no windows: want the output of orcs samplingsim --json")
	}
	return s, nil
}

// samplingsimValues turns one window into stall percentages per link.
func samplingsimValues(w samplingsim.RunFileWindow, file string, f *lft.Fabric) ([]float64, error) {
	span := (w.EndUs - w.StartUs) * 1e3
	if !(span > 0) || math.IsInf(span, 0) {
		return nil, infile.Errorf(file, 0, "window %d: bad span %v–%v µs", w.Index, w.StartUs, w.EndUs)
	}
	if len(w.Links) > len(f.Links) {
		return nil, infile.Errorf(file, 0, "window %d: %d link rows, but the fabric has %d links (a run of another fabric?)", w.Index, len(w.Links), len(f.Links))
	}
	vals := make([]float64, len(f.Links))
	for _, l := range w.Links {
		if l.Link < 0 || int(l.Link) >= len(f.Links) {
			return nil, infile.Errorf(file, 0, "window %d: link %d: the fabric has %d links (a run of another fabric?)", w.Index, l.Link, len(f.Links))
		}
		lk := f.Links[l.Link]
		if f.Nodes[lk.From].Name != l.From || f.Nodes[lk.To].Name != l.To {
			return nil, infile.Errorf(file, 0, "window %d: link %d is %s, the run says %s -> %s (a run of another fabric?)",
				w.Index, l.Link, f.LinkName(l.Link), short(l.From), short(l.To))
		}
		if !(l.StalledNs >= 0) || math.IsInf(l.StalledNs, 0) {
			return nil, infile.Errorf(file, 0, "window %d: link %d: bad truth_stalled_ns %v", w.Index, l.Link, l.StalledNs)
		}
		vals[l.Link] = 100 * l.StalledNs / span
	}
	return vals, nil
}

// delim reads the delimiter want.
func delim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %q, got %v", want, tok)
	}
	return nil
}

// skipValue skips one JSON value token by token, holding no more than one
// token in memory.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
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
		if err := CheckCells("", len(in.Perfquery)-1, len(f.Links)); err != nil {
			return Series{}, nil, fmt.Errorf("--perfquery: %d snapshots: %w", len(in.Perfquery), err)
		}
		var snaps []*Snapshot
		for _, p := range in.Perfquery {
			s, err := ReadPerfqueryFile(p, len(f.Links)+len(f.Nodes))
			if err != nil {
				return Series{}, nil, err
			}
			snaps = append(snaps, s)
		}
		return CounterWindows(f, snaps)
	}
	// Each source's bytes are bounded by what it can hold for f.
	name := 2 * longestName(f)
	path, rd := in.CSV, ReadCSV
	lim := infile.Limit{Bytes: 1<<20 + MaxCells*(64+name),
		Why: fmt.Sprintf("a stall CSV of at most %d rows (windows × cables that one extraction holds)", MaxCells)}
	switch {
	case in.Samplingsim != "":
		path, rd, lim = in.Samplingsim, ReadSamplingsimJSON, samplingsimLimit(f)
	case in.Analyzer != "":
		path, rd = in.Analyzer, ReadAnalyzerCSV
		lim = infile.Limit{Bytes: 1<<20 + int64(len(f.Links)+1)*(128+name),
			Why: fmt.Sprintf("the get_cable_cong CSV of a fabric of %d links (a row per link)", len(f.Links))}
	}
	r, file, done, err := openFile(path, lim)
	if err != nil {
		return Series{}, nil, err
	}
	defer done()
	s, err := rd(r, file, f)
	return s, nil, err
}
