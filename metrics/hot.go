package metrics

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"orcs/internal/plural"
	"orcs/lft"
)

// HotCable is one of the most loaded cables of a simulation (a directed
// link), with the flows that load it.
type HotCable struct {
	// Rank is 1 for the most loaded cable.
	Rank int `json:"rank"`
	// Link is the link's id; From, To and the ports name it.
	Link     int32  `json:"link"`
	From     string `json:"from"`
	FromPort int32  `json:"from_port"`
	To       string `json:"to"`
	ToPort   int32  `json:"to_port"`
	// MeanPeak is the mean over runs of the cable's largest load in any
	// level of the run (the number of routes that share it at once).
	MeanPeak float64 `json:"mean_peak_load"`
	// MaxLoad is the largest load in any level of any run, first reached in
	// run MaxRun, level MaxLevel.
	MaxLoad  int32 `json:"max_load"`
	MaxRun   int   `json:"max_run"`
	MaxLevel int   `json:"max_level"`
	// PeakFlows are the flows that loaded the cable in run MaxRun, level
	// MaxLevel: MaxLoad of them (a route that crosses the cable twice
	// counts twice), in the level's order, with the hosts of that run.
	PeakFlows []HotFlow `json:"peak_flows"`
	// Flows are every flow over the cable in any level of any run, most
	// frequent first; DistinctFlows counts them.
	Flows         []HotFlow `json:"flows"`
	DistinctFlows int       `json:"distinct_flows"`
}

// HotFlow is a message that crosses a hot cable: its level, its ranks and
// the hosts they were mapped to in run Run, and in how many runs the rank
// pair of that level crossed the cable. Run is the first such run for
// HotCable.Flows, the peak's run for HotCable.PeakFlows.
type HotFlow struct {
	Level   int    `json:"level"`
	SrcRank int32  `json:"src_rank"`
	DstRank int32  `json:"dst_rank"`
	SrcHost string `json:"src_host"`
	DstHost string `json:"dst_host"`
	Run     int    `json:"run"`
	Runs    int    `json:"runs"`
}

// maxTextPeakFlows bounds the peak flows the text lists per cable; CSV and
// JSON carry them all.
const maxTextPeakFlows = 32

// WriteHotText prints the hot cables as a table, each followed by its
// flows.
func WriteHotText(w io.Writer, hot []HotCable, runs int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\nHot cables: the %d most loaded (mean over %s of the largest load in a level)\n", len(hot), plural.N(runs, "run"))
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rank\tcable\tmean peak\tmax\tat run/level\tflows")
	for _, h := range hot {
		fmt.Fprintf(tw, "%d\t%s\t%.3f\t%d\t%d/%d\t%d\n", h.Rank, cableName(h), h.MeanPeak, h.MaxLoad, h.MaxRun, h.MaxLevel, h.DistinctFlows)
	}
	tw.Flush()
	for _, h := range hot {
		fmt.Fprintf(bw, "\n%d. %s: %s over %s; at its peak (load %d, run %d, level %d):\n",
			h.Rank, cableName(h), plural.N(h.DistinctFlows, "flow"), plural.N(runs, "run"), h.MaxLoad, h.MaxRun, h.MaxLevel)
		for _, fl := range h.PeakFlows[:min(len(h.PeakFlows), maxTextPeakFlows)] {
			fmt.Fprintf(bw, "  rank %d -> %d (%s -> %s)\n", fl.SrcRank, fl.DstRank, fl.SrcHost, fl.DstHost)
		}
		if more := len(h.PeakFlows) - maxTextPeakFlows; more > 0 {
			fmt.Fprintf(bw, "  … and %d more (every flow: --hot-csv, --format json)\n", more)
		}
	}
	fmt.Fprintf(bw, "\n%s\n", HotVerdict(hot, runs))
	return bw.Flush()
}

// maxVerdictFlows bounds the flows the verdict names.
const maxVerdictFlows = 4

// HotVerdict answers --hot's question, which cable is the hottest and
// whose traffic loads it, in one or two sentences: the hottest cable by
// name, the flows it carries at once at its peak (level and run), those
// flows (ranks and hosts, the first maxVerdictFlows), and how typical the
// peak is: its mean over the runs.
func HotVerdict(hot []HotCable, runs int) string {
	if len(hot) == 0 {
		return "No cable carried a route: nothing is hot."
	}
	h := hot[0]
	s := fmt.Sprintf("The hottest cable is %s, carrying %d %s at once in level %d of run %d (its peak load averages %s over %d %s)",
		cableName(h), h.MaxLoad, plural.Noun(int(h.MaxLoad), "flow"), h.MaxLevel, h.MaxRun,
		strconv.FormatFloat(h.MeanPeak, 'g', 3, 64), runs, plural.Noun(runs, "run"))
	if len(h.PeakFlows) == 0 {
		return s + "."
	}
	flows := make([]string, len(h.PeakFlows))
	for i, fl := range h.PeakFlows {
		flows[i] = fmt.Sprintf("rank %d -> %d (%s -> %s)", fl.SrcRank, fl.DstRank, fl.SrcHost, fl.DstHost)
	}
	return s + "; its flows: " + plural.Some(flows, maxVerdictFlows) + "."
}

// cableName names a hot cable with its ports (lft.CableName).
func cableName(h HotCable) string {
	return lft.CableName(h.From, int(h.FromPort), h.To, int(h.ToPort))
}

// WriteHotCSV writes one row per flow of every hot cable: first the flows
// of its peak (set "peak": run MaxRun, level MaxLevel), then every flow of
// any level and run (set "all", with the hosts of its first run). A cable
// without flows gets one row with empty flow columns.
func WriteHotCSV(w io.Writer, hot []HotCable) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "rank,link,from,from_port,to,to_port,mean_peak_load,max_load,max_run,max_level,distinct_flows,set,run,level,src_rank,dst_rank,src_host,dst_host,runs")
	for _, h := range hot {
		head := fmt.Sprintf("%d,%d,%s,%d,%s,%d,%s,%d,%d,%d,%d", h.Rank, h.Link, csvField(h.From), h.FromPort,
			csvField(h.To), h.ToPort, ftoa(h.MeanPeak), h.MaxLoad, h.MaxRun, h.MaxLevel, h.DistinctFlows)
		if len(h.Flows) == 0 && len(h.PeakFlows) == 0 {
			fmt.Fprintf(bw, "%s,,,,,,,,\n", head)
		}
		for set, flows := range [2][]HotFlow{h.PeakFlows, h.Flows} {
			name := [2]string{"peak", "all"}[set]
			for _, fl := range flows {
				fmt.Fprintf(bw, "%s,%s,%d,%d,%d,%d,%s,%s,%d\n", head, name, fl.Run, fl.Level, fl.SrcRank, fl.DstRank,
					csvField(fl.SrcHost), csvField(fl.DstHost), fl.Runs)
			}
		}
	}
	return bw.Flush()
}

// hotAttrs returns the dot attributes of link l when it is a hot cable.
func hotAttrs(hot []HotCable, l int32) []lft.Attr {
	for _, h := range hot {
		if h.Link != l {
			continue
		}
		flows := make([]string, len(h.PeakFlows))
		for i, fl := range h.PeakFlows {
			flows[i] = fmt.Sprintf("%s->%s@%d×%d", fl.SrcHost, fl.DstHost, fl.Level, fl.Runs)
		}
		return []lft.Attr{
			{Key: "hot_rank", Value: strconv.Itoa(h.Rank)},
			{Key: "hot_mean_peak", Value: fmt.Sprintf("%f", h.MeanPeak)},
			{Key: "hot_max", Value: strconv.Itoa(int(h.MaxLoad))},
			{Key: "hot_peak_at", Value: fmt.Sprintf("%d/%d", h.MaxRun, h.MaxLevel)},
			{Key: "hot_flows", Value: strings.Join(flows, " ")},
		}
	}
	return nil
}
