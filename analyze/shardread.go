package analyze

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"orcs/infile"
	"orcs/metrics"
)

// shardHeaderBytes bounds the bytes of a shard file before its runs are
// known: the format, the shard and the meta are a few hundred bytes.
const shardHeaderBytes = 1 << 20

// Bytes a shard file's entries take at most, as NewShardFile writes them
// (with room to spare): a run's value {"run":134217727,"value":-2.2250738585072014e-308},
// and an integer of an accumulator.
const (
	shardValueBytes = 64
	shardIntBytes   = 24
)

// maxWeightClass is the largest congestion a connection can have: w is an
// int32 in the simulation.
const maxWeightClass = math.MaxInt32

// DecodeShard reads a shard file from r, name naming it in errors, and
// validates it field by field against the rules NewShardFile writes it
// by: the fields in the writer's order, none unknown or twice; a known
// format, metric, subset, bin convention and compat; 0 ≤ shard < shards;
// 2 ≤ commsize ≤ hosts; at least one run and at most MaxStoredRuns of the
// shard's own; exactly the shard's runs, in order; the weight histogram
// non-negative with weights[0] = 0 and no trailing zero, at most
// commsize² + 1 classes; link loads (get_cable_cong only) non-negative,
// one per link of the fabric (links, when ≥ 0); route errors ≥ 0; and every
// run's value in the metric's range (a bandwidth in [1/w_max, 1] or 0,
// congestion counts whole and consistent with the weights). The bytes read
// are bounded by what a shard of its runs can hold, known after its meta.
func DecodeShard(r io.Reader, name string, links int) (*ShardFile, error) {
	meter := &meter{r: r, name: name, limit: shardHeaderBytes, why: "a shard file's header (format, shard, shards, meta)"}
	d := &shardDecoder{dec: json.NewDecoder(meter), name: name, meter: meter, links: links}
	d.dec.DisallowUnknownFields()
	sf, err := d.decode()
	if err != nil {
		var pe *infile.ParseError
		if errors.As(err, &pe) {
			return nil, pe
		}
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syn) || errors.As(err, &typ) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, infile.Errorf(name, 0, "not a shard file: %w", err)
		}
		return nil, infile.Errorf(name, 0, "shard file: %w", err)
	}
	return sf, nil
}

// meter fails a read past limit bytes with the limit and why.
type meter struct {
	r     io.Reader
	n     int64
	limit int64
	why   string
	name  string
}

func (m *meter) Read(p []byte) (int, error) {
	if m.n > m.limit {
		return 0, m.tooLarge()
	}
	// One byte past the limit tells a file at the limit from a longer one.
	if room := m.limit - m.n + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := m.r.Read(p)
	m.n += int64(n)
	if m.n > m.limit {
		return 0, m.tooLarge()
	}
	return n, err
}

func (m *meter) tooLarge() error {
	return infile.Errorf(m.name, 0, "more than %d bytes, the most %s can hold", m.limit, m.why).With(infile.ErrTooLarge)
}

// shardDecoder reads one shard file token by token, so that no array is
// held before its length is checked.
type shardDecoder struct {
	dec   *json.Decoder
	name  string
	meter *meter
	links int
}

// fieldOrder is the writer's order of the fields (link_load only for
// get_cable_cong).
var fieldOrder = []string{"format", "shard", "shards", "meta", "values", "weights", "link_load", "route_errors"}

func (d *shardDecoder) decode() (*ShardFile, error) {
	if err := d.delim('{', "a JSON object"); err != nil {
		return nil, err
	}
	sf := &ShardFile{}
	next := 0 // index in fieldOrder of the next field expected
	var own int64
	var m *metrics.Metric
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		at := -1
		for i, f := range fieldOrder {
			if f == key {
				at = i
			}
		}
		switch {
		case at < 0:
			return nil, fmt.Errorf("unknown field %q", infile.ShortenTokens(key))
		case at < next:
			return nil, fmt.Errorf("field %q given twice or out of the writer's order (%v)", key, fieldOrder)
		case at > 3 && next <= 3:
			return nil, fmt.Errorf("field %q before the meta: the writer puts format, shard, shards and meta first", key)
		}
		next = at + 1
		switch key {
		case "format":
			err = d.dec.Decode(&sf.Format)
			if err == nil && sf.Format != ShardFormat {
				err = fmt.Errorf("format %q, want %q", infile.ShortenTokens(sf.Format), ShardFormat)
			}
		case "shard":
			err = d.dec.Decode(&sf.Shard)
		case "shards":
			err = d.dec.Decode(&sf.Shards)
		case "meta":
			if err = d.dec.Decode(&sf.Meta); err == nil {
				own, m, err = d.header(sf)
			}
		case "values":
			sf.Values = make([]RunValue, 0, own)
			err = d.array(own, fmt.Sprintf("shard %d/%d of %d runs owns %d", sf.Shard, sf.Shards, sf.Meta.Runs, own), func(k int64) error {
				var rv RunValue
				if err := d.dec.Decode(&rv); err != nil {
					return err
				}
				if want := (Shard{Index: sf.Shard, Count: sf.Shards}).Run(int(k)); rv.Run != want {
					return fmt.Errorf("values[%d]: run %d, want %d (shard %d/%d holds its runs in order)", k, rv.Run, want, sf.Shard, sf.Shards)
				}
				sf.Values = append(sf.Values, rv)
				return nil
			})
			if err == nil && int64(len(sf.Values)) != own {
				err = fmt.Errorf("%d values, but shard %d/%d of %d runs owns %d", len(sf.Values), sf.Shard, sf.Shards, sf.Meta.Runs, own)
			}
		case "weights":
			sf.Weights = []int64{}
			err = d.array(maxWeights(sf.Meta.Commsize), fmt.Sprintf("a connection's congestion is at most the connections of a level, commsize² = %d", int64(sf.Meta.Commsize)*int64(sf.Meta.Commsize)), func(k int64) error {
				var c int64
				if err := d.dec.Decode(&c); err != nil {
					return err
				}
				if c < 0 || (k == 0 && c != 0) {
					return fmt.Errorf("weights[%d] = %d: a count of connections of congestion %d, want ≥ 0 (and 0 for congestion 0)", k, c, k)
				}
				sf.Weights = append(sf.Weights, c)
				return nil
			})
		case "link_load":
			if !m.NeedsLinkLoad {
				return nil, fmt.Errorf("link_load in a shard of metric %s: only get_cable_cong writes link loads", m.Name)
			}
			sf.LinkLoad = []int64{}
			err = d.array(int64(d.links), fmt.Sprintf("one load per link, and the fabric given has %d links", d.links), func(k int64) error {
				var c int64
				if err := d.dec.Decode(&c); err != nil {
					return err
				}
				if c < 0 {
					return fmt.Errorf("link_load[%d] = %d: a sum of loads, want ≥ 0", k, c)
				}
				sf.LinkLoad = append(sf.LinkLoad, c)
				return nil
			})
		case "route_errors":
			if err = d.dec.Decode(&sf.RouteErrors); err == nil && sf.RouteErrors < 0 {
				err = fmt.Errorf("route_errors %d: a count, want ≥ 0", sf.RouteErrors)
			}
		}
		if err != nil {
			return nil, d.wrap(key, err)
		}
	}
	if err := d.delim('}', "the end of the object"); err != nil {
		return nil, err
	}
	if _, err := d.dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the shard's JSON object")
	}
	for _, f := range []string{"format", "meta", "values", "weights", "route_errors"} {
		if i := indexOf(f); i >= next {
			return nil, fmt.Errorf("no field %q", f)
		}
	}
	if m.NeedsLinkLoad && sf.LinkLoad == nil {
		return nil, fmt.Errorf("no field \"link_load\": a get_cable_cong shard holds the loads of every link")
	}
	if m.NeedsLinkLoad && len(sf.LinkLoad) != d.links {
		return nil, fmt.Errorf("%d link loads, but the fabric given has %d links: it is not the fabric the shards were computed on, or the shard was altered", len(sf.LinkLoad), d.links)
	}
	if n := len(sf.Weights); n > 0 && sf.Weights[n-1] == 0 {
		return nil, fmt.Errorf("weights: %d classes ending in 0: the writer stops at the largest congestion counted", n)
	}
	return sf, checkValues(sf, m)
}

// header checks the fields before the runs and raises the byte bound to
// what a shard of its runs can hold; it returns the shard's own runs.
func (d *shardDecoder) header(sf *ShardFile) (int64, *metrics.Metric, error) {
	if sf.Format != ShardFormat {
		return 0, nil, fmt.Errorf("no format %q before the meta", ShardFormat)
	}
	if sf.Shards < 1 || sf.Shard < 0 || sf.Shard >= sf.Shards {
		return 0, nil, fmt.Errorf("bad shard %d/%d: want 0 ≤ shard < shards", sf.Shard, sf.Shards)
	}
	mt := &sf.Meta
	m, err := metrics.Lookup(mt.Metric)
	if err != nil {
		return 0, nil, err
	}
	if mt.Runs < 1 {
		return 0, nil, fmt.Errorf("runs %d: want at least 1", mt.Runs)
	}
	own := Shard{Index: sf.Shard, Count: sf.Shards}.Runs(int64(mt.Runs))
	if own > MaxStoredRuns {
		return 0, nil, fmt.Errorf("shard %d/%d of %d runs owns %d, more than the %d one process keeps", sf.Shard, sf.Shards, mt.Runs, own, MaxStoredRuns)
	}
	if mt.Hosts < 2 || mt.Commsize < 2 || mt.Commsize > mt.Hosts {
		return 0, nil, fmt.Errorf("commsize %d of %d hosts: want 2 ≤ commsize ≤ hosts", mt.Commsize, mt.Hosts)
	}
	if mt.Level < -1 {
		return 0, nil, fmt.Errorf("level %d: want −1 (all) or a level", mt.Level)
	}
	if mt.Subset != SubsetLinearBFS && mt.Subset != SubsetRand {
		return 0, nil, fmt.Errorf("subset %q, want %s or %s", infile.ShortenTokens(mt.Subset), SubsetLinearBFS, SubsetRand)
	}
	if mt.FabricDigest == "" {
		return 0, nil, fmt.Errorf("no fabric digest")
	}
	if m.Name == "hist_acc_band" {
		// Shards written before the field existed were binned with exact
		// edges.
		if mt.BinEdges == "" {
			mt.BinEdges = string(metrics.EdgesExact)
		}
		if _, err := metrics.ParseBinEdges(mt.BinEdges); err != nil {
			return 0, nil, err
		}
	} else if mt.BinEdges != "" {
		return 0, nil, fmt.Errorf("bin_edges %q in a shard of metric %s: only hist_acc_band has bins", infile.ShortenTokens(mt.BinEdges), m.Name)
	}
	if c := mt.Compat; c != "" && c != metrics.CompatORCS2 {
		return 0, nil, fmt.Errorf("unknown compat %q (known: %s)", infile.ShortenTokens(c), metrics.CompatORCS2)
	}
	links := int64(0)
	if m.NeedsLinkLoad {
		if d.links < 0 {
			return 0, nil, fmt.Errorf("metric %s prints the fabric and its shards hold a load per link of it: give the fabric with -i (or --topo/--lfts)", m.Name)
		}
		links = int64(d.links)
	}
	d.meter.limit = d.dec.InputOffset() + shardHeaderBytes + own*shardValueBytes + (maxWeights(mt.Commsize)+links)*shardIntBytes
	d.meter.why = fmt.Sprintf("shard %d/%d of %d runs (%d values)", sf.Shard, sf.Shards, mt.Runs, own)
	return own, m, nil
}

// maxWeights bounds the classes of the weight histogram: a connection's
// congestion is at most the number of connections of its level, at most
// commsize² (and an int32).
func maxWeights(commsize int) int64 {
	c := int64(commsize)
	if c > 1<<16 {
		return maxWeightClass + 1
	}
	return min(c*c, maxWeightClass) + 1
}

// checkValues checks every run's value against the metric's range and the
// shard's weight histogram, whose largest class wmax is the largest
// congestion of the shard's runs.
func checkValues(sf *ShardFile, m *metrics.Metric) error {
	wmax := len(sf.Weights) - 1
	var top float64
	for k, rv := range sf.Values {
		v := rv.Value
		top = max(top, v)
		switch {
		case m.ValueName == "bandwidth":
			// the mean of 1/w over the run's connections, 0 without any
			if v != 0 && (wmax < 1 || v > 1 || v < 1/float64(wmax)*(1-1e-12)) {
				return fmt.Errorf("values[%d]: run %d has bandwidth %v, want 0 or a mean of 1/w for w in 1…%d: from %v to 1",
					k, rv.Run, v, max(wmax, 0), 1/float64(max(wmax, 1)))
			}
		case m.Discrete:
			if v < 0 || v != math.Trunc(v) || v > 1<<53 {
				return fmt.Errorf("values[%d]: run %d has %s %v, want a whole number ≥ 0", k, rv.Run, m.ValueName, v)
			}
			if m.Name == "get_cable_cong" && v > float64(max(wmax, 0)) {
				return fmt.Errorf("values[%d]: run %d has max_congestion %v, above the largest weight class %d", k, rv.Run, v, wmax)
			}
		}
	}
	// The largest congestion of every run is a weight class, and a run's sum
	// of level maxima is at least its largest one.
	if (m.Name == "get_cable_cong" || m.Name == "sum_max_cong") && len(sf.Values) > 0 && wmax > 0 && top < float64(wmax) {
		return fmt.Errorf("weights: a connection of congestion %d, but no run's %s reaches it (the largest is %v)", wmax, m.ValueName, top)
	}
	return nil
}

func indexOf(field string) int {
	for i, f := range fieldOrder {
		if f == field {
			return i
		}
	}
	return -1
}

// array reads a JSON array of at most bound elements, each by elem; why
// says where the bound comes from.
func (d *shardDecoder) array(bound int64, why string, elem func(k int64) error) error {
	if err := d.delim('[', "an array"); err != nil {
		return err
	}
	var k int64
	for ; d.dec.More(); k++ {
		if k >= bound {
			return fmt.Errorf("more than %d entries: %s", bound, why)
		}
		if err := elem(k); err != nil {
			return err
		}
	}
	return d.delim(']', "the end of the array")
}

// delim reads the delimiter want.
func (d *shardDecoder) delim(want json.Delim, what string) error {
	tok, err := d.dec.Token()
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != want {
		return fmt.Errorf("want %s (%q), got %v", what, want, tokenText(tok))
	}
	return nil
}

func tokenText(tok json.Token) string {
	switch t := tok.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", infile.ShortenTokens(t))
	}
	return fmt.Sprint(tok)
}

// wrap names the field of an error.
func (d *shardDecoder) wrap(field string, err error) error {
	return fmt.Errorf("%s: %w", field, err)
}
