package mapping

import (
	"fmt"
	"sort"

	"orcs/patterns"
)

// Message is one message of a Comm: rank Src sends Weight units to rank Dst
// in level Level.
type Message struct {
	Src, Dst int32
	Level    int32
	Weight   int64
}

// Comm is the communication of a job: Ranks ranks exchanging Msgs, in
// Levels levels (messages of one level are in flight together). Messages
// are sorted by level; a rank never sends to itself.
type Comm struct {
	Ranks  int
	Levels int
	Msgs   []Message
	// Unit names the unit of Weight in output: "routes" for patterns
	// (weight 1), "bytes" for traffic matrices.
	Unit string
	// MaxRankAt is where a traffic matrix names its largest rank first
	// ("file:line"), for errors; "" for patterns.
	MaxRankAt string
}

// FromLevels turns the levels of a pattern for n ranks into a Comm of
// unit-weight messages. Messages of a rank to itself are dropped (they use
// no cable).
func FromLevels(levels []patterns.Level, n int) (*Comm, error) {
	c := &Comm{Ranks: n, Levels: len(levels), Unit: "routes"}
	for li, lv := range levels {
		for _, p := range lv {
			if p.Src < 0 || p.Dst < 0 || int(p.Src) >= n || int(p.Dst) >= n {
				return nil, fmt.Errorf("level %d: pair %d→%d outside ranks 0…%d", li, p.Src, p.Dst, n-1)
			}
			if p.Src != p.Dst {
				c.Msgs = append(c.Msgs, Message{Src: p.Src, Dst: p.Dst, Level: int32(li), Weight: 1})
			}
		}
	}
	return c, nil
}

// PatternComm compiles an ORCS pattern spec (a name or file:PATH) for n
// ranks into a Comm. A random pattern (rand) uses its levels for seed.
func PatternComm(spec patterns.Spec, n int) (*Comm, error) {
	src, err := patterns.Compile(spec, n)
	if err != nil {
		return nil, err
	}
	if src.Random() {
		return nil, fmt.Errorf("pattern %s is drawn anew for every run: a placement needs a fixed pattern (give it as a pattern file or traffic matrix)", spec.Name)
	}
	return FromLevels(src.Levels(nil, nil), n)
}

// incidence returns, in CSR form, the messages each rank sends or receives:
// rank r's are ids[start[r]:start[r+1]], each message once per end.
func (c *Comm) incidence() (start, ids []int32) {
	start = make([]int32, c.Ranks+1)
	for _, m := range c.Msgs {
		start[m.Src+1]++
		start[m.Dst+1]++
	}
	for r := 0; r < c.Ranks; r++ {
		start[r+1] += start[r]
	}
	ids = make([]int32, start[c.Ranks])
	pos := append([]int32(nil), start[:c.Ranks]...)
	for i, m := range c.Msgs {
		ids[pos[m.Src]] = int32(i)
		pos[m.Src]++
		ids[pos[m.Dst]] = int32(i)
		pos[m.Dst]++
	}
	return start, ids
}

// Graph is the undirected communication graph of a Comm in CSR form:
// rank r's neighbours are Adj[Start[r]:Start[r+1]] with the weights W
// (both directions and all levels summed), sorted by neighbour.
type Graph struct {
	Start []int32
	Adj   []int32
	W     []int64
}

// Graph builds the communication graph.
func (c *Comm) Graph() *Graph {
	type edge struct {
		a, b int32
		w    int64
	}
	es := make([]edge, 0, 2*len(c.Msgs))
	for _, m := range c.Msgs {
		es = append(es, edge{m.Src, m.Dst, m.Weight}, edge{m.Dst, m.Src, m.Weight})
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].a != es[j].a {
			return es[i].a < es[j].a
		}
		return es[i].b < es[j].b
	})
	g := &Graph{Start: make([]int32, c.Ranks+1)}
	for i, e := range es {
		if i > 0 && es[i-1].a == e.a && es[i-1].b == e.b {
			g.W[len(g.W)-1] += e.w
			continue
		}
		g.Adj = append(g.Adj, e.b)
		g.W = append(g.W, e.w)
		g.Start[e.a+1]++
	}
	for r := 0; r < c.Ranks; r++ {
		g.Start[r+1] += g.Start[r]
	}
	return g
}

// Volume returns every rank's total traffic (sent and received).
func (g *Graph) Volume() []int64 {
	n := len(g.Start) - 1
	v := make([]int64, n)
	for r := range n {
		for k := g.Start[r]; k < g.Start[r+1]; k++ {
			v[r] += g.W[k]
		}
	}
	return v
}
