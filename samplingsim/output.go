package samplingsim

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
)

// LinkRow is one link direction in one window with its truth and its
// estimate, as written to CSV and JSON.
type LinkRow struct {
	// Window is the window index (−1: the whole run).
	Window int `json:"window"`
	// Link is the link id; From, To and FromPort name its ends.
	Link     int32  `json:"link"`
	From     string `json:"from"`
	To       string `json:"to"`
	FromPort int32  `json:"from_port"`
	// Direction is "up" (towards the core), "down" (towards the hosts) or
	// "level".
	Direction string `json:"direction"`
	// Sampled says whether headers can see the link (it leaves a switch).
	Sampled bool `json:"sampled"`
	// Packets, Congested and Fraction are the ground truth: packets that
	// crossed, packets marked congested, and their ratio.
	Packets   int64   `json:"truth_packets"`
	Congested int64   `json:"truth_congested"`
	Fraction  float64 `json:"truth_fraction"`
	// StalledNs is the time stalled for credits, in ns.
	StalledNs float64 `json:"truth_stalled_ns"`
	// Utilisation is the busy time over the window length.
	Utilisation float64 `json:"truth_utilisation"`
	// QueueAvg and BufferAvg are the mean occupancies of the output queue
	// and of the downstream input buffer, in packets; QueueMax is the
	// longest output queue.
	QueueAvg  float64 `json:"truth_queue_avg"`
	QueueMax  int32   `json:"truth_queue_max"`
	BufferAvg float64 `json:"truth_buffer_avg"`
	// EstPackets, EstCongested and EstFraction are the receivers'
	// estimates (the view chosen for the output).
	EstPackets   float64 `json:"est_packets"`
	EstCongested float64 `json:"est_congested"`
	EstFraction  float64 `json:"est_fraction"`
	// EstHidden says the false-positive threshold zeroed the estimate.
	EstHidden bool `json:"est_hidden"`
}

// Rows returns the rows of every link that carried traffic or has an
// estimate, for a view: window by window, or (whole) once for the whole run
// with Window = −1.
func (r *Result) Rows(view View, whole bool) []LinkRow {
	f := r.Fabric
	level := NodeLevels(f)
	windows := []int{-1}
	if !whole {
		windows = windows[:0]
		for i := range r.Windows() {
			windows = append(windows, i)
		}
	}
	var rows []LinkRow
	for _, win := range windows {
		from, to := r.WindowSpan(max(win, 0))
		if win < 0 {
			from, to = 0, r.End
		}
		span := float64(max(to-from, 1))
		est := r.Estimates(view, win)
		for l := range f.Links {
			t := r.TruthOf(win, int32(l))
			e := est[l]
			if t.Packets == 0 && e.W == 0 && e.C == 0 && t.QueueArea == 0 {
				continue
			}
			lk := f.Links[l]
			rows = append(rows, LinkRow{
				Window: win, Link: int32(l), From: f.Nodes[lk.From].Name, To: f.Nodes[lk.To].Name,
				FromPort: lk.FromPort, Direction: linkDirection(f, level, int32(l)).String(),
				Sampled: r.Sampled(int32(l)), Packets: t.Packets, Congested: t.Congested, Fraction: t.Fraction(),
				StalledNs: float64(t.Stalled) / float64(Nanosecond), Utilisation: float64(t.Busy) / span,
				QueueAvg: float64(t.QueueArea) / span, QueueMax: t.QueueMax, BufferAvg: float64(t.BufferArea) / span,
				EstPackets: e.Packets, EstCongested: e.Congested, EstFraction: e.Fraction, EstHidden: e.Hidden,
			})
		}
	}
	return rows
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// WriteLinksCSV writes the link rows of a view, one window after the other
// (whole: the whole run as one window, numbered −1), with a header line.
func (r *Result) WriteLinksCSV(out io.Writer, view View, whole bool) error {
	cw := csv.NewWriter(out)
	cw.Write([]string{"window", "window_start_us", "window_end_us", "link", "from", "to", "from_port", "direction", "sampled",
		"truth_packets", "truth_congested", "truth_fraction", "truth_stalled_ns", "truth_utilisation",
		"truth_queue_avg", "truth_queue_max", "truth_buffer_avg",
		"est_packets", "est_congested", "est_fraction", "est_hidden"})
	for _, row := range r.Rows(view, whole) {
		from, to := r.WindowSpan(max(row.Window, 0))
		if row.Window < 0 {
			from, to = 0, r.End
		}
		cw.Write([]string{
			strconv.Itoa(row.Window), ftoa(float64(from) / 1e6), ftoa(float64(to) / 1e6),
			strconv.Itoa(int(row.Link)), row.From, row.To, strconv.Itoa(int(row.FromPort)), row.Direction,
			strconv.FormatBool(row.Sampled), strconv.FormatInt(row.Packets, 10), strconv.FormatInt(row.Congested, 10),
			ftoa(row.Fraction), ftoa(row.StalledNs), ftoa(row.Utilisation), ftoa(row.QueueAvg),
			strconv.Itoa(int(row.QueueMax)), ftoa(row.BufferAvg),
			ftoa(row.EstPackets), ftoa(row.EstCongested), ftoa(row.EstFraction), strconv.FormatBool(row.EstHidden),
		})
	}
	cw.Flush()
	return cw.Error()
}

// WriteMessagesCSV writes one line per message: id, job, hosts, size, when
// it became ready and when it finished (µs; empty if never).
func (r *Result) WriteMessagesCSV(out io.Writer) error {
	cw := csv.NewWriter(out)
	cw.Write([]string{"message", "job", "src", "dst", "bytes", "ready_us", "finish_us", "duration_us"})
	us := func(t Time) string {
		if t < 0 {
			return ""
		}
		return ftoa(float64(t) / 1e6)
	}
	for i, m := range r.Plan.Msgs {
		dur := Time(-1)
		if r.MsgFinish[i] >= 0 {
			dur = r.MsgFinish[i] - r.MsgReady[i]
		}
		cw.Write([]string{strconv.Itoa(i), r.jobName(int(m.Job)), r.Fabric.HostName(int(m.Src)), r.Fabric.HostName(int(m.Dst)),
			strconv.FormatInt(m.Bytes, 10), us(r.MsgReady[i]), us(r.MsgFinish[i]), us(dur)})
	}
	cw.Flush()
	return cw.Error()
}

func (r *Result) jobName(j int) string {
	if j < len(r.Plan.Jobs) {
		return r.Plan.Jobs[j].Name
	}
	return strconv.Itoa(j)
}

// JobSummary is a job's outcome.
type JobSummary struct {
	// Name is the job's name; Hosts and Messages count its hosts and
	// messages.
	Name     string `json:"name"`
	Hosts    int    `json:"hosts"`
	Messages int    `json:"messages"`
	// StartUs and FinishUs are when its first message was ready and its
	// last finished, in µs (finish −1: unfinished).
	StartUs  float64 `json:"start_us"`
	FinishUs float64 `json:"finish_us"`
}

// Jobs summarises every job.
func (r *Result) Jobs() []JobSummary {
	var out []JobSummary
	for j, job := range r.Plan.Jobs {
		n := 0
		for _, m := range r.Plan.Msgs {
			if int(m.Job) == j {
				n++
			}
		}
		start, end := r.JobFinish(j)
		fin := float64(end) / 1e6
		if end < 0 {
			fin = -1
		}
		out = append(out, JobSummary{Name: job.Name, Hosts: len(job.Hosts), Messages: n, StartUs: float64(start) / 1e6, FinishUs: fin})
	}
	return out
}

// RunFileVersion is the format version of RunFile: a reader refuses a
// file of a newer one. Raise it when a field changes its meaning or goes
// away; added fields keep it.
const RunFileVersion = 1

// RunFile is the JSON document of orcs samplingsim --json FILE, written by
// Result.WriteJSON and read by orcs regions --samplingsim and orcs report;
// see doc/file-contracts.md.
type RunFile struct {
	// FormatVersion is RunFileVersion when written (0 in files written
	// before the field existed).
	FormatVersion int             `json:"format_version"`
	Fabric        string          `json:"fabric"`
	Hosts         int             `json:"hosts"`
	Switches      int             `json:"switches"`
	Config        RunFileConfig   `json:"config"`
	View          string          `json:"view"`
	EndUs         float64         `json:"end_us"`
	Events        int64           `json:"events"`
	PacketHops    int64           `json:"packet_hops"`
	Packets       int64           `json:"packets"`
	WallS         float64         `json:"wall_s"`
	Jobs          []JobSummary    `json:"jobs"`
	Windows       []RunFileWindow `json:"windows"`
	Diagnosis     *Diagnosis      `json:"diagnosis,omitempty"`
	// CongestionControl is what congestion control did (only when it was on).
	CongestionControl *RunFileCC `json:"congestion_control,omitempty"`
}

// RunFileConfig is the configuration of a RunFile's run, in the units of
// its names.
type RunFileConfig struct {
	BandwidthGbps float64 `json:"bandwidth_gbps"`
	LatencyNs     float64 `json:"latency_ns"`
	RouterDelayNs float64 `json:"router_delay_ns"`
	MTU           int     `json:"mtu"`
	InputBuffer   int     `json:"input_buffer"`
	OutputQueue   int     `json:"output_queue"`
	Marking       string  `json:"marking"`
	MarkAt        string  `json:"mark_at"`
	Scheme        string  `json:"scheme"`
	HopBits       int     `json:"hop_bits"`
	TagFraction   float64 `json:"tag_fraction"`
	Hash          string  `json:"hash"`
	Restrict      string  `json:"restrict"`
	FPConfidence  float64 `json:"false_positive_confidence"`
	PacketIDs     string  `json:"packet_ids,omitempty"`
	WindowUs      float64 `json:"window_us"`
	Seed          uint64  `json:"seed"`
	// Adaptive routing (only when not static; see setRouting).
	Routing           string  `json:"routing,omitempty"`
	BackgroundRouting string  `json:"background_routing,omitempty"`
	GlobalLatencyNs   float64 `json:"global_latency_ns,omitempty"`
	// LinkRates groups the links by the rate the topology gives them
	// (only for a topology read with its link rates).
	LinkRates []LinkRateGroup `json:"link_rates,omitempty"`
}

// RunFileWindow is one window of a RunFile: its span in µs and the link
// rows of the view (links that carried traffic or have an estimate).
type RunFileWindow struct {
	Index   int       `json:"index"`
	StartUs float64   `json:"start_us"`
	EndUs   float64   `json:"end_us"`
	Links   []LinkRow `json:"links"`
}

// WriteJSON writes the run as one JSON document: configuration, summary,
// jobs, the link rows of every window for a view, and a diagnosis if d is
// not nil.
func (r *Result) WriteJSON(out io.Writer, view View, d *Diagnosis) error {
	c := r.Config
	name := r.Fabric.GraphName
	if name == "" {
		name = r.FabricName
	}
	rep := RunFile{
		FormatVersion: RunFileVersion, Fabric: name, Hosts: r.Fabric.NumHosts(), Switches: r.Fabric.NumSwitches(),
		Config: RunFileConfig{
			BandwidthGbps: c.Bandwidth / 1e9, LatencyNs: float64(c.Latency) / 1e3, RouterDelayNs: float64(c.RouterDelay) / 1e3,
			MTU: c.MTU, InputBuffer: c.InputBuffer, OutputQueue: c.OutputQueue, Marking: c.Marking, MarkAt: c.MarkAt.String(),
			Scheme: c.Scheme, HopBits: c.HopBits, TagFraction: c.TagFraction, Hash: c.Hash, Restrict: c.Restrict,
			FPConfidence: c.FalsePositiveConfidence, WindowUs: float64(c.Window) / 1e6, Seed: c.Seed,
		},
		View: r.ViewName(view), EndUs: float64(r.End) / 1e6, Events: r.Events, PacketHops: r.PacketHops,
		Packets: r.Packets, WallS: r.Wall.Seconds(), Jobs: r.Jobs(), Diagnosis: d,
	}
	if c.PacketIDs != DefaultConfig().PacketIDs {
		rep.Config.PacketIDs = c.PacketIDs
	}
	rep.Config.setRouting(&c)
	rep.Config.LinkRates = c.LinkRateGroups()
	rep.CongestionControl = r.ccFile()
	rows := r.Rows(view, false)
	byWindow := map[int][]LinkRow{}
	for _, row := range rows {
		byWindow[row.Window] = append(byWindow[row.Window], row)
	}
	for w := range r.Windows() {
		from, to := r.WindowSpan(w)
		links := byWindow[w]
		if links == nil {
			links = []LinkRow{}
		}
		rep.Windows = append(rep.Windows, RunFileWindow{Index: w, StartUs: float64(from) / 1e6, EndUs: float64(to) / 1e6, Links: links})
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", " ")
	return enc.Encode(sanitize(rep))
}

// sanitize replaces non-finite floats (which JSON cannot hold); rows never
// contain them, so it only guards the summary.
func sanitize(rep RunFile) RunFile {
	if math.IsNaN(rep.WallS) || math.IsInf(rep.WallS, 0) {
		rep.WallS = 0
	}
	return rep
}

// ViewName names a view: a job's name or "all".
func (r *Result) ViewName(view View) string {
	if view < 0 {
		return "all"
	}
	return r.jobName(view)
}

// FindView returns the view named name: "all" or a job's name.
func (r *Result) FindView(name string) (View, error) {
	if name == "" || name == "all" {
		return AllJobs, nil
	}
	for j, job := range r.Plan.Jobs {
		if job.Name == name {
			return j, nil
		}
	}
	return 0, fmt.Errorf("unknown view %q: want all or a job name", name)
}
