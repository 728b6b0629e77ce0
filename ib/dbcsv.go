package ib

import (
	"bytes"

	"orcs/infile"
	"orcs/lft"
)

// ReadDBCSV parses the topology in ibdiagnet's ibdiagnet2.db_csv: CSV
// tables between START_<NAME> and END_<NAME> lines, each headed by its
// column names ('#' lines are comments). Three tables are read, the others
// skipped:
//
//	START_NODES
//	NodeDesc,NumPorts,NodeType,...,NodeGUID,PortGUID,...     NodeType 1 CA, 2 switch, 3 router
//	START_PORTS
//	NodeGuid,PortGuid,PortNum,...,LID,...,LMC,...            port 0 of a switch gives its LID
//	START_LINKS
//	NodeGuid1,PortNum1,NodeGuid2,PortNum2                     one row per cable
//
// Columns are found by name, values are decimal or 0x-hexadecimal, "N/A"
// is no value. The PORTS table gives LIDs and LMCs; ibdiagnet's
// ibdiagnet2.fdbs (the grammar of ReadFDBs) holds the forwarding tables.
func ReadDBCSV(data []byte, file string) (*Topology, error) {
	return readDBCSV(newLines(data, file))
}

// csvRow is a row of one of the tables the reader needs.
type csvRow struct {
	f    [][]byte
	line int
}

// csvTable is a table of the file: its columns and rows.
type csvTable struct {
	line int            // line of START_
	cols map[string]int // column name → index
	rows []csvRow
}

// col returns the named column of row, or nil when the table lacks it.
func (tb *csvTable) col(row csvRow, name string) []byte {
	i, ok := tb.cols[name]
	if !ok || i >= len(row.f) {
		return nil
	}
	return row.f[i]
}

// dbcsvTables are the tables ReadDBCSV reads, and the columns each needs.
var dbcsvTables = map[string][]string{
	"NODES": {"NodeDesc", "NumPorts", "NodeType", "NodeGUID"},
	"PORTS": {"NodeGuid", "PortGuid", "PortNum", "LID"},
	"LINKS": {"NodeGuid1", "PortNum1", "NodeGuid2", "PortNum2"},
}

func readDBCSV(r *lines) (topo *Topology, err error) {
	defer func() {
		if e := r.readErr(); e != nil {
			topo, err = nil, e
		}
	}()
	tables := map[string]*csvTable{}
	section, sectionLine := "", 0
	var cur *csvTable // the open table if it is one the reader needs
	header := false   // the next line is the open table's header
	for {
		l, ok := r.next()
		if !ok {
			break
		}
		t := trimBlank(l)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		if name, ok := bytes.CutPrefix(t, []byte("START_")); ok && section == "" {
			section, sectionLine, header = string(name), r.n, true
			cur = nil
			if _, need := dbcsvTables[section]; need {
				if prev, dup := tables[section]; dup {
					return nil, r.errorf("second START_%s (first at line %d)", section, prev.line)
				}
				cur = &csvTable{line: r.n, cols: map[string]int{}}
				tables[section] = cur
			}
			continue
		}
		if name, ok := bytes.CutPrefix(t, []byte("END_")); ok && section != "" {
			if string(name) != section {
				return nil, r.errorf("END_%s closes START_%s of line %d", name, section, sectionLine)
			}
			section, cur = "", nil
			continue
		}
		if section == "" {
			return nil, r.errorf("unexpected line %s outside a START_/END_ table", tok(t))
		}
		if cur == nil {
			continue // a table the reader does not need
		}
		f, ok := csvFields(t)
		if !ok {
			return nil, r.errorf("unterminated quoted field in %s", tok(t))
		}
		if header {
			header = false
			for i, name := range f {
				cur.cols[string(name)] = i
			}
			for _, name := range dbcsvTables[section] {
				if _, ok := cur.cols[name]; !ok {
					return nil, r.errorf("START_%s table without a %s column", section, name)
				}
			}
			continue
		}
		if len(f) != len(cur.cols) {
			return nil, r.errorf("%d fields, the header of START_%s (line %d) has %d", len(f), section, cur.line, len(cur.cols))
		}
		cur.rows = append(cur.rows, csvRow{f: f, line: r.n})
	}
	if section != "" {
		return nil, r.errorf("START_%s of line %d has no END_%s: truncated file", section, sectionLine, section).With(ErrTruncated)
	}
	for _, name := range []string{"NODES", "LINKS"} {
		if tables[name] == nil {
			return nil, infile.Errorf(r.file, 0, "no START_%s table: ibdiagnet2.db_csv lists the nodes (NODES) and cables (LINKS) of the fabric", name).With(ErrFormat)
		}
	}
	if tables["PORTS"] == nil {
		tables["PORTS"] = &csvTable{cols: map[string]int{}}
	}
	t, err := dbcsvTopology(r.file, tables)
	if err != nil {
		return nil, err
	}
	t.Warnings = r.warnings()
	return t, nil
}

// csvFields splits a CSV line into its fields, without the quotes of
// quoted fields ("" in a quoted field is one quote). It reports false for
// an unterminated quote.
func csvFields(l []byte) ([][]byte, bool) {
	var f [][]byte
	for i := 0; ; {
		if i < len(l) && l[i] == '"' {
			var v []byte
			j := i + 1
			for {
				k := bytes.IndexByte(l[j:], '"')
				if k < 0 {
					return nil, false
				}
				v = append(v, l[j:j+k]...)
				j += k + 1
				if j < len(l) && l[j] == '"' {
					v = append(v, '"')
					j++
					continue
				}
				break
			}
			f = append(f, v)
			i = j
			if i < len(l) && l[i] != ',' {
				return nil, false
			}
		} else {
			k := bytes.IndexByte(l[i:], ',')
			if k < 0 {
				k = len(l) - i
			}
			f = append(f, trimBlank(l[i:i+k]))
			i += k
		}
		if i >= len(l) {
			return f, true
		}
		i++ // the comma
		if i == len(l) {
			return append(f, nil), true
		}
	}
}

// csvNumber parses a decimal or 0x-hexadecimal value; "N/A" and empty
// fields are no value.
func csvNumber(b []byte) (v uint64, present, ok bool) {
	if len(b) == 0 || string(b) == "N/A" {
		return 0, false, true
	}
	c := cursor{b: b}
	v, ok = c.number()
	return v, true, ok && c.done()
}

// dbcsvTopology assembles the topology from the three tables.
func dbcsvTopology(file string, tables map[string]*csvTable) (*Topology, error) {
	t := &Topology{File: file, Format: FormatIBDiagCSV}
	byGUID := map[uint64]int{}
	num := func(tb *csvTable, row csvRow, name string, limit uint64) (uint64, error) {
		v, present, ok := csvNumber(tb.col(row, name))
		if !ok || !present || v > limit {
			return 0, infile.Errorf(file, row.line, "bad %s %s", name, tok(tb.col(row, name)))
		}
		return v, nil
	}
	nodes := tables["NODES"]
	for _, row := range nodes.rows {
		guid, err := num(nodes, row, "NodeGUID", 1<<64-1)
		if err != nil {
			return nil, err
		}
		nports, err := num(nodes, row, "NumPorts", MaxPorts)
		if err != nil {
			return nil, err
		}
		typ, err := num(nodes, row, "NodeType", 3)
		if err != nil {
			return nil, err
		}
		kinds := [...]lft.NodeKind{1: lft.Host, 2: lft.Switch, 3: lft.Router}
		if typ == 0 || guid == 0 || nports == 0 {
			return nil, infile.Errorf(file, row.line, "node 0x%016x: NodeType %d, NumPorts %d", guid, typ, nports)
		}
		n := TopoNode{Kind: kinds[typ], GUID: guid, Desc: string(nodes.col(row, "NodeDesc")), NPorts: int(nports), Line: row.line, File: file}
		if i, dup := byGUID[guid]; dup {
			if o := &t.Nodes[i]; o.Kind != n.Kind || o.NPorts != n.NPorts || o.Desc != n.Desc {
				return nil, infile.Errorf(file, row.line, "node 0x%016x differs from its row at line %d", guid, o.Line)
			}
			continue
		}
		n.Port0 = TopoPort{GUID: guid, Peer: -1}
		byGUID[guid] = len(t.Nodes)
		t.Nodes = append(t.Nodes, n)
	}
	if len(t.Nodes) == 0 {
		return nil, infile.Errorf(file, nodes.line, "the START_NODES table is empty").With(ErrFormat)
	}
	// Ports: GUID, LID and LMC of every port (port 0 of switches).
	type portKey struct {
		node uint64
		port int
	}
	ports := map[portKey]TopoPort{}
	pt := tables["PORTS"]
	_, hasLMC := pt.cols["LMC"]
	for _, row := range pt.rows {
		node, err := num(pt, row, "NodeGuid", 1<<64-1)
		if err != nil {
			return nil, err
		}
		port, err := num(pt, row, "PortNum", MaxPorts)
		if err != nil {
			return nil, err
		}
		guid, _, ok := csvNumber(pt.col(row, "PortGuid"))
		lid, _, ok2 := csvNumber(pt.col(row, "LID"))
		lmc, _, ok3 := csvNumber(pt.col(row, "LMC"))
		if !ok || !ok2 || !ok3 || lid > maxUnicastLID || lmc > 7 {
			return nil, infile.Errorf(file, row.line, "node 0x%016x port %d: bad PortGuid, LID or LMC", node, port)
		}
		ports[portKey{node, int(port)}] = TopoPort{GUID: guid, LID: uint16(lid), LMC: uint8(lmc), LMCKnown: hasLMC && lid != 0, Line: row.line}
	}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if p, ok := ports[portKey{n.GUID, 0}]; ok && n.Kind == lft.Switch {
			n.Port0.LID, n.Port0.LMC, n.Port0.LMCKnown = p.LID, p.LMC, p.LMCKnown
			if p.GUID != 0 {
				n.Port0.GUID = p.GUID
			}
		}
	}
	// Cables.
	links := tables["LINKS"]
	for _, row := range links.rows {
		var g [2]uint64
		var p [2]int
		var idx [2]int
		for e, suffix := range []string{"1", "2"} {
			v, err := num(links, row, "NodeGuid"+suffix, 1<<64-1)
			if err != nil {
				return nil, err
			}
			pn, err := num(links, row, "PortNum"+suffix, MaxPorts)
			if err != nil {
				return nil, err
			}
			i, ok := byGUID[v]
			if !ok {
				return nil, infile.Errorf(file, row.line, "node 0x%016x is not in the START_NODES table (line %d)", v, nodes.line)
			}
			if pn < 1 || int(pn) > t.Nodes[i].NPorts {
				return nil, infile.Errorf(file, row.line, "port %d of %s: the node has ports 1-%d", pn, nodeName(&t.Nodes[i]), t.Nodes[i].NPorts)
			}
			g[e], p[e], idx[e] = v, int(pn), i
		}
		for e := 0; e < 2; e++ {
			n := &t.Nodes[idx[e]]
			if n.Port(p[e]) != nil {
				return nil, infile.Errorf(file, row.line, "port %d of %s is in two START_LINKS rows", p[e], nodeName(n))
			}
		}
		for e := 0; e < 2; e++ {
			n := &t.Nodes[idx[e]]
			tp := TopoPort{Num: p[e], Peer: idx[1-e], PeerPort: p[1-e], Line: row.line}
			if info, ok := ports[portKey{g[e], p[e]}]; ok && n.Kind != lft.Switch {
				tp.GUID, tp.LID, tp.LMC, tp.LMCKnown = info.GUID, info.LID, info.LMC, info.LMCKnown
			} else if n.Kind == lft.Switch {
				tp.GUID = n.Port0.GUID
			}
			n.Ports = append(n.Ports, tp)
			sortPorts(n)
		}
	}
	if err := checkCables(t); err != nil {
		return nil, err
	}
	return t, nil
}

// sortPorts keeps a node's ports sorted while they are added (so that
// TopoNode.Port finds them).
func sortPorts(n *TopoNode) {
	for k := len(n.Ports) - 1; k > 0 && n.Ports[k].Num < n.Ports[k-1].Num; k-- {
		n.Ports[k], n.Ports[k-1] = n.Ports[k-1], n.Ports[k]
	}
}
