package deadlock

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"orcs/internal/plural"
)

// vlCount says "1 VL" or "K VLs".
func vlCount(k int) string {
	if k == 1 {
		return "1 VL"
	}
	return fmt.Sprintf("%d VLs", k)
}

// Verdict is the first line of the report: "deadlock-free (K VLs)" or
// "credit loop on VL v: N cables" (or "across VLs"). On a fabric with
// SHARP aggregation nodes a loop's verdict says whether it needs their
// paths: "...; the loop needs paths to/from aggregation nodes (without the
// 4 aggregation nodes: deadlock-free (1 VL))", or that the compute hosts'
// paths alone loop too.
func (r *Result) Verdict() string {
	if r.Free() {
		return fmt.Sprintf("deadlock-free (%s)", vlCount(len(r.VLs)))
	}
	v := fmt.Sprintf("credit loop %s: %s", r.loopVLs(), plural.N(len(r.Loop), "cable"))
	switch {
	case r.Without == nil:
	case r.NeedsAggregation:
		v += fmt.Sprintf("; the loop needs paths to/from aggregation nodes (without the %d aggregation nodes: %s)", r.Aggregation, r.Without.Verdict())
	default:
		v += fmt.Sprintf("; the compute hosts' paths alone loop too (without the %d aggregation nodes: %s)", r.Aggregation, r.Without.Verdict())
	}
	return v
}

// Checked says what the check walked: the routes (every ordered pair of
// hosts, aggregation nodes among them), the switches and cables, the VLs
// the routes use, and where the SLs and SL2VL tables came from when given
// (LeftOut says when they were not).
func (r *Result) Checked() string {
	agg := ""
	if r.Aggregation > 0 {
		agg = fmt.Sprintf(", %d of them SHARP aggregation nodes", r.Aggregation)
	}
	vls := make([]string, len(r.VLs))
	for i, v := range r.VLs {
		vls[i] = fmt.Sprint(v)
	}
	s := fmt.Sprintf("%d routes (every ordered pair of %d hosts%s) through %d switches and %d directed cables, on %s %s",
		r.Routes, r.Hosts, agg, r.Switches, r.Links, plural.Noun(len(r.VLs), "VL"), strings.Join(vls, ", "))
	sl, vl := r.sources()
	if !strings.HasPrefix(sl, "not given") {
		s += "; SLs: " + sl
	}
	if !strings.HasPrefix(vl, "not given") {
		s += "; SL2VL: " + vl
	}
	return s
}

// LeftOut lists what the check did not take into account: the paths' SLs
// or the SL2VL tables when they were not given (every path on SL 0, VL =
// SL), the host pairs that do not route (Unrouted), and the routes to the
// switches' own LIDs, which no check walks.
func (r *Result) LeftOut() []string {
	sl, vl := r.sources()
	var out []string
	if strings.HasPrefix(sl, "not given") {
		out = append(out, "the paths' SLs (not given: every path on SL 0; an engine that separates paths by SL may avoid a loop found so)")
	}
	if strings.HasPrefix(vl, "not given") {
		out = append(out, "the switches' SL2VL tables (not given: VL = SL)")
	}
	if r.Unrouted > 0 {
		out = append(out, fmt.Sprintf("%d host %s that do not route (orcs --checkinputfile lists them)", r.Unrouted, plural.Noun(int(r.Unrouted), "pair")))
	}
	return append(out, "routes to and from the switches' own LIDs (management traffic)")
}

// Statement is the verdict with what was checked and what was left out,
// the last line of the text report: "Deadlock-free (1 VL). Checked: …. Left
// out: …." The check walks every route: it is exact for what it checked.
func (r *Result) Statement() string {
	v := r.Verdict()
	return strings.ToUpper(v[:1]) + v[1:] + ". Checked: " + r.Checked() + ". Left out: " + strings.Join(r.LeftOut(), "; ") + "."
}

// Short is the verdict in a word or two, for tables: "free (K VLs)" or
// "loop".
func (r *Result) Short() string {
	if r.Free() {
		return fmt.Sprintf("free (%s)", vlCount(len(r.VLs)))
	}
	return "loop"
}

// loopVLs says on which VL the loop lies: "on VL 0" or "across VLs 0, 1".
func (r *Result) loopVLs() string {
	var seen uint16
	var list []string
	for _, c := range r.Loop {
		if seen&(1<<c.VL) == 0 {
			seen |= 1 << c.VL
			list = append(list, fmt.Sprint(c.VL))
		}
	}
	if len(list) == 1 {
		return "on VL " + list[0]
	}
	return "across VLs " + strings.Join(list, ", ")
}

// Cable names link l with its ends' node names and ports: "S1:3 -> S2:1"
// (a port is left out when unknown).
func (r *Result) Cable(l int32) string { return r.f.Cable(l) }

// flow names a flow "H1 -> H2".
func (r *Result) flow(fl Flow) string {
	return r.f.HostName(int(fl.Src)) + " -> " + r.f.HostName(int(fl.Dst))
}

// notes are the findings about the input printed below the report.
func (r *Result) notes() []string {
	var out []string
	if r.lanes != nil {
		out = append(out, r.lanes.Notes...)
	}
	return out
}

// incompleteTables is Check's refusal of SL2VL tables that lack entries
// some route needs: the count of hops and ports, and the first ports.
func (r *Result) incompleteTables() error {
	var first []string
	for _, l := range r.MissingPorts[:min(3, len(r.MissingPorts))] {
		k := r.f.Links[l]
		if r.f.HostIndex(k.From) >= 0 {
			first = append(first, fmt.Sprintf("CA port %s", r.f.Cable(l)))
		} else {
			first = append(first, fmt.Sprintf("%s out port %d", r.f.Cable(l), k.FromPort))
		}
	}
	src := "the SL2VL tables"
	if r.lanes.VLSource != "" {
		src = r.lanes.VLSource
	}
	return fmt.Errorf("%s: %d hops of the routes leave %d ports whose SL2VL table is missing or lacks the hop's input port and SL (first: %s): "+
		"the tables are incomplete (cut short, or of part of the fabric) and VL = SL there would change the verdict; "+
		"give the tables of every port, or --sl2vl none for VL = SL everywhere: %w",
		src, r.MissingVL, len(r.MissingPorts), strings.Join(first, "; "), ErrIncomplete)
}

// sources describes where the SLs and SL2VL tables came from.
func (r *Result) sources() (sl, vl string) {
	sl, vl = "not given: every path on SL 0", "not given: VL = SL"
	l := r.lanes
	switch {
	case l == nil:
	case l.SLSource != "":
		sl = l.SLSource
	case l.sl != nil:
		sl = "given per path"
	}
	switch {
	case l == nil:
	case l.VLSource != "":
		vl = l.VLSource
	case l.hasTables():
		vl = "given per switch"
	}
	return sl, vl
}

// WriteText writes the report: the verdict, the graph's size per VL, the
// number of loops (strongly connected components with a cycle), a
// shortest credit loop with flows that create its dependencies, and as the
// last line the Statement (the verdict, what was checked and left out).
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintln(&b, r.Verdict())
	sl, vl := r.sources()
	fmt.Fprintf(&b, "routes: %s of %s (%s, %s)\n", plural.N(r.Routes, "ordered pair"), plural.N(r.Hosts, "host"), plural.N(r.Switches, "switch"), plural.N(r.Links, "directed cable"))
	if r.Aggregation > 0 {
		fmt.Fprintf(&b, "aggregation nodes: %d of the hosts are SHARP aggregation nodes; their paths are checked as well (SHARP sends traffic to and from them)\n", r.Aggregation)
	}
	fmt.Fprintf(&b, "SLs: %s\nSL2VL: %s\n", sl, vl)
	vls := make([]string, len(r.VLs))
	for i, v := range r.VLs {
		vls[i] = fmt.Sprint(v)
	}
	fmt.Fprintf(&b, "VLs used: %s\n", strings.Join(vls, ", "))
	fmt.Fprintf(&b, "dependency graph: %s (cable, VL), %s, %d of them between VLs\n", plural.N(r.Channels, "channel"), plural.N(r.Dependencies, "dependency"), r.CrossVL)
	for _, l := range r.Layers {
		loops := "no loop"
		if l.Loops > 0 {
			loops = plural.N(l.Loops, "loop component")
		}
		fmt.Fprintf(&b, "  VL %d: %s, %s, %s\n", l.VL, plural.N(l.Channels, "channel"), plural.N(l.Dependencies, "dependency"), loops)
	}
	if !r.Free() {
		across := ""
		if r.MixedLoops > 0 {
			across = fmt.Sprintf(", %d of them across VLs", r.MixedLoops)
		}
		fmt.Fprintf(&b, "loops: %s of the dependency graph %s a cycle (%s%s); elementary cycles are not counted\n",
			plural.N(r.LoopComponents, "strongly connected component"), plural.Verb(r.LoopComponents, "holds", "hold"), plural.N(r.LoopChannels, "channel"), across)
		mixed := strings.HasPrefix(r.loopVLs(), "across")
		fmt.Fprintf(&b, "shortest credit loop (%s %s):\n", plural.N(len(r.Loop), "cable"), r.loopVLs())
		for _, c := range r.Loop {
			if mixed {
				fmt.Fprintf(&b, "  %s  VL %d\n", r.Cable(c.Link), c.VL)
			} else {
				fmt.Fprintf(&b, "  %s\n", r.Cable(c.Link))
			}
		}
		if len(r.Examples) > 0 {
			fmt.Fprintln(&b, "flows that create its dependencies (source -> destination host):")
			for i, fl := range r.Examples {
				names := make([]string, len(fl))
				for j, x := range fl {
					names[j] = r.flow(x)
				}
				next := r.Loop[(i+1)%len(r.Loop)]
				fmt.Fprintf(&b, "  %s then %s: %s\n", r.Cable(r.Loop[i].Link), r.Cable(next.Link), strings.Join(names, ", "))
			}
		}
	}
	for _, n := range r.notes() {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	fmt.Fprintf(&b, "\n%s\n", r.Statement())
	_, err := io.WriteString(w, b.String())
	return err
}

// FileVersion is the format version of File: a reader refuses a file of
// a newer one. Raise it when a field changes its meaning or goes away;
// added fields keep it.
const FileVersion = 1

// File is the JSON document of orcs deadlock --format json, written by
// Result.WriteJSON and read by orcs report; see doc/file-contracts.md.
type File struct {
	// FormatVersion is FileVersion when written (0 in files written
	// before the field existed).
	FormatVersion  int         `json:"format_version"`
	Verdict        string      `json:"verdict"`
	DeadlockFree   bool        `json:"deadlock_free"`
	Hosts          int         `json:"hosts"`
	Switches       int         `json:"switches"`
	Links          int         `json:"directed_cables"`
	Routes         int64       `json:"routes"`
	Aggregation    int         `json:"aggregation_nodes"`
	NeedsAgg       *bool       `json:"loop_needs_aggregation_nodes,omitempty"`
	Without        string      `json:"verdict_without_aggregation_nodes,omitempty"`
	SLs            string      `json:"sls"`
	SL2VL          string      `json:"sl2vl"`
	VLs            []int       `json:"vls"`
	Channels       int         `json:"channels"`
	Dependencies   int         `json:"dependencies"`
	CrossVL        int         `json:"cross_vl_dependencies"`
	Layers         []FileLayer `json:"layers"`
	LoopComponents int         `json:"loop_components"`
	LoopChannels   int         `json:"loop_channels"`
	MixedLoops     int         `json:"loop_components_across_vls"`
	// Loop is a shortest credit loop, each cable with the flows that
	// create its dependency on the next one.
	Loop    []FileCable `json:"loop,omitempty"`
	Notes   []string    `json:"notes,omitempty"`
	Counted string      `json:"loops_counted_as"`
	// Checked says what the check covered (routes, VLs, SLs); LeftOut
	// what it did not (see Result.Checked and Result.LeftOut).
	Checked string   `json:"checked"`
	LeftOut []string `json:"left_out"`
}

// FileLayer is one VL's part of the dependency graph in a File.
type FileLayer struct {
	VL           uint8 `json:"vl"`
	Channels     int   `json:"channels"`
	Dependencies int   `json:"dependencies"`
	Loops        int   `json:"loop_components"`
}

// FileCable is a cable of a File's credit loop: its ends with their
// ports, its VL, and the flows that make it depend on the next cable.
type FileCable struct {
	From     string     `json:"from"`
	FromPort int32      `json:"from_port"`
	To       string     `json:"to"`
	ToPort   int32      `json:"to_port"`
	VL       uint8      `json:"vl"`
	Flows    []FileFlow `json:"flows_to_next"`
}

// FileFlow is a flow of a File: source and destination host names.
type FileFlow struct {
	Src string `json:"src"`
	Dst string `json:"dst"`
}

// WriteJSON writes the report as indented JSON. Each cable of the loop
// lists the flows that create its dependency on the next cable.
func (r *Result) WriteJSON(w io.Writer) error {
	sl, vl := r.sources()
	out := File{FormatVersion: FileVersion, Verdict: r.Verdict(), DeadlockFree: r.Free(), Hosts: r.Hosts, Switches: r.Switches,
		Links: r.Links, Routes: r.Routes, SLs: sl, SL2VL: vl, Channels: r.Channels,
		Dependencies: r.Dependencies, CrossVL: r.CrossVL, LoopComponents: r.LoopComponents,
		LoopChannels: r.LoopChannels, MixedLoops: r.MixedLoops, Notes: r.notes(),
		Counted:     "strongly connected components of the dependency graph that hold a cycle (not elementary cycles)",
		Aggregation: r.Aggregation, Checked: r.Checked(), LeftOut: r.LeftOut()}
	if r.Without != nil {
		needs := r.NeedsAggregation
		out.NeedsAgg, out.Without = &needs, r.Without.Verdict()
	}
	out.VLs = []int{}
	for _, v := range r.VLs {
		out.VLs = append(out.VLs, int(v))
	}
	for _, l := range r.Layers {
		out.Layers = append(out.Layers, FileLayer(l))
	}
	for i, c := range r.Loop {
		k := r.f.Links[c.Link]
		jc := FileCable{From: r.f.Nodes[k.From].Name, FromPort: k.FromPort, To: r.f.Nodes[k.To].Name,
			ToPort: k.ToPort, VL: c.VL, Flows: []FileFlow{}}
		if i < len(r.Examples) {
			for _, fl := range r.Examples[i] {
				jc.Flows = append(jc.Flows, FileFlow{Src: r.f.HostName(int(fl.Src)), Dst: r.f.HostName(int(fl.Dst))})
			}
		}
		out.Loop = append(out.Loop, jc)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Help describes the check for the command's help text.
const Help = "Builds the channel dependency graph of the forwarding tables (a channel is a directed cable on a\n" +
	"VL; a route from cable a on to cable b makes a depend on b; every ordered host pair counts) and looks\n" +
	"for cycles: credit loops. Prints \"deadlock-free (K VLs)\", or a shortest credit loop (cables with\n" +
	"node names and ports), its VL, the number of loops (strongly connected components of the graph with\n" +
	"a cycle; elementary cycles are not counted) and flows that create the loop's dependencies.\n" +
	"SHARP aggregation nodes (with --topo) are endpoints like the hosts, as SHARP sends traffic to and from\n" +
	"them; a loop is checked again without their paths and the verdict says whether it needs them.\n" +
	"A hop's VL is the switch's SL2VL[in port][out port][SL of the path]: --sl takes saquery PR output\n" +
	"(the SA's PathRecords, with OpenSM running) or OpenSM's log of dfsssp's path layers (debug level\n" +
	"for osm_ucast_dfsssp.c), --sl2vl opensm-sl2vl.dump or smpquery sl2vl output; with --lfts both are\n" +
	"also looked for beside the tables (saquery-pr.txt, dfsssp-sl.txt.gz, dfsssp-sl.txt;\n" +
	"opensm-sl2vl.dump, smpquery-sl2vl.txt). Without them every path is on SL 0 and VL = SL; \"none\"\n" +
	"turns the search off. Files that lack a pair or a port the routes need are refused.\n" +
	"Exit status: 0 deadlock-free, 2 credit loop, 1 error."

// CheckFormat accepts the report formats of Write: text and json.
func CheckFormat(format string) error {
	if format != "text" && format != "json" {
		return fmt.Errorf("unknown format %q (known: text, json)", format)
	}
	return nil
}

// Write writes the report in format text (WriteText) or json (WriteJSON).
func (r *Result) Write(w io.Writer, format string) error {
	if err := CheckFormat(format); err != nil {
		return err
	}
	if format == "json" {
		return r.WriteJSON(w)
	}
	return r.WriteText(w)
}
