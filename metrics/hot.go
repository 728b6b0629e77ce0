package metrics

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

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
	// Flows are the flows over the cable, most frequent first (at most the
	// number asked for); DistinctFlows counts them all.
	Flows         []HotFlow `json:"flows"`
	DistinctFlows int       `json:"distinct_flows"`
}

// HotFlow is a message that crosses a hot cable: its level, its ranks and
// the hosts they were mapped to, and in how many runs it did.
type HotFlow struct {
	Level   int    `json:"level"`
	SrcRank int32  `json:"src_rank"`
	DstRank int32  `json:"dst_rank"`
	SrcHost string `json:"src_host"`
	DstHost string `json:"dst_host"`
	Runs    int    `json:"runs"`
}

// WriteHotText prints the hot cables as a table, each followed by its
// flows.
func WriteHotText(w io.Writer, hot []HotCable, runs int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "\nHot cables: the %d most loaded (mean over %d runs of the largest load in a level)\n", len(hot), runs)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rank\tcable\tmean peak\tmax\tat run/level\tflows")
	for _, h := range hot {
		fmt.Fprintf(tw, "%d\t%s\t%.3f\t%d\t%d/%d\t%d\n", h.Rank, cableName(h), h.MeanPeak, h.MaxLoad, h.MaxRun, h.MaxLevel, h.DistinctFlows)
	}
	tw.Flush()
	for _, h := range hot {
		fmt.Fprintf(bw, "\n%d. %s: %d flows", h.Rank, cableName(h), h.DistinctFlows)
		if len(h.Flows) < h.DistinctFlows {
			fmt.Fprintf(bw, ", the %d most frequent", len(h.Flows))
		}
		fmt.Fprintln(bw)
		for _, fl := range h.Flows {
			fmt.Fprintf(bw, "  level %d: rank %d -> %d (%s -> %s) in %d runs\n", fl.Level, fl.SrcRank, fl.DstRank, fl.SrcHost, fl.DstHost, fl.Runs)
		}
	}
	return bw.Flush()
}

// cableName names a hot cable with its ports (lft.CableName).
func cableName(h HotCable) string {
	return lft.CableName(h.From, int(h.FromPort), h.To, int(h.ToPort))
}

// WriteHotCSV writes one row per flow of every hot cable (a cable without
// flows gets one row with empty flow columns).
func WriteHotCSV(w io.Writer, hot []HotCable) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "rank,link,from,from_port,to,to_port,mean_peak_load,max_load,max_run,max_level,distinct_flows,level,src_rank,dst_rank,src_host,dst_host,runs")
	for _, h := range hot {
		head := fmt.Sprintf("%d,%d,%s,%d,%s,%d,%s,%d,%d,%d,%d", h.Rank, h.Link, csvField(h.From), h.FromPort,
			csvField(h.To), h.ToPort, ftoa(h.MeanPeak), h.MaxLoad, h.MaxRun, h.MaxLevel, h.DistinctFlows)
		if len(h.Flows) == 0 {
			fmt.Fprintf(bw, "%s,,,,,,\n", head)
		}
		for _, fl := range h.Flows {
			fmt.Fprintf(bw, "%s,%d,%d,%d,%s,%s,%d\n", head, fl.Level, fl.SrcRank, fl.DstRank, csvField(fl.SrcHost), csvField(fl.DstHost), fl.Runs)
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
		flows := make([]string, len(h.Flows))
		for i, fl := range h.Flows {
			flows[i] = fmt.Sprintf("%s->%s@%d×%d", fl.SrcHost, fl.DstHost, fl.Level, fl.Runs)
		}
		return []lft.Attr{
			{Key: "hot_rank", Value: strconv.Itoa(h.Rank)},
			{Key: "hot_mean_peak", Value: fmt.Sprintf("%f", h.MeanPeak)},
			{Key: "hot_max", Value: strconv.Itoa(int(h.MaxLoad))},
			{Key: "hot_flows", Value: strings.Join(flows, " ")},
		}
	}
	return nil
}
