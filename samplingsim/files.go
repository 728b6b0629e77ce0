package samplingsim

import (
	"fmt"
	"io"
	"time"

	"orcs/internal/outfile"
	"orcs/internal/plural"
)

// Files names the output files of a run; empty names are not written.
type Files struct {
	// LinksCSV receives per-link truth and estimates per window, JSON the
	// run (config, jobs, links per window, diagnosis), Messages per-message
	// times as CSV.
	LinksCSV, JSON, Messages string
	// SVG is a prefix: PREFIX-all.svg and, with several windows,
	// PREFIX-wNNN.svg per window; PlotSource says what they show
	// ("estimate" or "truth").
	SVG, PlotSource string
}

// WriteFiles writes the files asked for, all together: a failure in any
// of them leaves none of them behind (see outfile.Set).
func (r *Result) WriteFiles(files Files, view View, diag *Diagnosis) error {
	set := &outfile.Set{}
	defer set.Abort()
	if err := r.WriteFilesInto(set, files, view, diag); err != nil {
		return err
	}
	return set.Commit()
}

// WriteFilesInto writes the files asked for as members of set, for a
// command that commits them together with its other outputs.
func (r *Result) WriteFilesInto(set *outfile.Set, files Files, view View, diag *Diagnosis) error {
	write := func(path string, fn func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		out, err := set.Create(path)
		if err != nil {
			return err
		}
		if err := fn(out); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	if err := write(files.LinksCSV, func(w io.Writer) error { return r.WriteLinksCSV(w, view, false) }); err != nil {
		return err
	}
	if err := write(files.JSON, func(w io.Writer) error { return r.WriteJSON(w, view, diag) }); err != nil {
		return err
	}
	if err := write(files.Messages, r.WriteMessagesCSV); err != nil {
		return err
	}
	if files.SVG == "" {
		return nil
	}
	var src PlotSource
	switch files.PlotSource {
	case "estimate", "":
		src = PlotEstimate
	case "truth":
		src = PlotTruth
	default:
		return fmt.Errorf("--plot-source %q: want estimate or truth", files.PlotSource)
	}
	if err := write(files.SVG+"-all.svg", func(w io.Writer) error { return r.WritePlotSVG(w, view, -1, src) }); err != nil {
		return err
	}
	if r.Windows() > 1 {
		for win := range r.Windows() {
			err := write(fmt.Sprintf("%s-w%03d.svg", files.SVG, win), func(w io.Writer) error { return r.WritePlotSVG(w, view, win, src) })
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteSummary prints what a run did: the fabric (its graph name, else
// name), the simulated time and the simulator's speed, and every job's
// completion time.
func (r *Result) WriteSummary(w io.Writer, name string) {
	f := r.Fabric
	if f.GraphName != "" {
		name = f.GraphName
	}
	fmt.Fprintf(w, "fabric %s: %s, %s, %s\n", name, plural.N(f.NumHosts(), "host"), plural.N(f.NumSwitches(), "switch"), plural.N(len(f.Links), "link"))
	if s := r.Config.LinkRatesLine(); s != "" {
		fmt.Fprintln(w, s)
	}
	speed := "too short to measure its speed"
	if r.CPU >= 10*time.Millisecond { // shorter runs measure their start more than their pace
		speed = fmt.Sprintf("%.2f M packet-hops per CPU second", float64(r.PacketHops)/r.CPU.Seconds()/1e6)
	}
	fmt.Fprintf(w, "simulated %s: %d packets, %d packet-hops, %d events in %.3f s wall, %.3f s CPU (%s)\n",
		FormatTime(r.End), r.Packets, r.PacketHops, r.Events, r.Wall.Seconds(), r.CPU.Seconds(), speed)
	for i, j := range r.Jobs() {
		fin := "finished after " + FormatTime(Time(j.FinishUs*1e6)-Time(j.StartUs*1e6))
		if j.FinishUs < 0 {
			fin = fmt.Sprintf("unfinished: %d delivered", r.delivered(i))
		}
		fmt.Fprintf(w, "job %s: %s, %s, %s\n", j.Name, plural.N(j.Hosts, "host"), plural.N(j.Messages, "message"), fin)
		r.writeNoise(w, j.Name)
	}
	if r.Buffers != nil {
		r.Buffers.Write(w)
	}
	r.WriteCC(w)
}

// delivered counts job j's messages that arrived.
func (r *Result) delivered(j int) int {
	n := 0
	for i, m := range r.Plan.Msgs {
		if int(m.Job) == j && r.MsgFinish[i] >= 0 {
			n++
		}
	}
	return n
}
