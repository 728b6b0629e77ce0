package ib

import (
	"fmt"
	"strconv"
	"strings"

	"orcs/lft"
)

// NameStyle chooses how Build names the nodes of a fabric read from
// InfiniBand dumps.
type NameStyle uint8

const (
	// NamesGUID names nodes after their node GUID, 16 lower-case hex
	// digits, as ORCS's get_network_graph did: hosts H<guid>, switches
	// S<guid>, routers R<guid>. A host of a CA with several connected ports
	// gets the port number after a colon: H<guid>:<port>.
	NamesGUID NameStyle = iota
	// NamesDesc names nodes after their node description, made safe: every
	// byte other than letters, digits and . _ - + / becomes '_' (runs of
	// them one '_'). Host names that do not start with H get "H-" in front,
	// switch and router names that do get "S-" or "R-" (a name starting with
	// H is a host). A multi-port CA's hosts get ":<port>" as above. Nodes
	// whose safe descriptions coincide get "@<guid>" appended; an empty
	// description falls back to the GUID name.
	NamesDesc
	// NamesHost names hosts after the host name that their CA's node
	// description carries, its first word ("node017" of
	// "node017 mlx5_0"), and switches and routers after their GUID as
	// NamesGUID does. A host name keeps letters, digits and . _ - + / :
	// (any other byte becomes '_'), at most 40 of them, and gets "H-" in
	// front unless it starts with H: in ORCS dot a node whose name starts
	// with H is a host, and a name that already does is kept as it is, so
	// that names survive a round trip through dot, an ibsim net file and
	// ibnetdiscover. CAs whose host names coincide (two CAs of one
	// machine, or descriptions that carry no host name) are named after
	// their whole description, and if that coincides too, get
	// "_<16 hex digit node GUID>" appended. The hosts of a multi-port CA
	// get ":<port>" (node017:1, node017:2). A CA without a description
	// ("", or "<unknown>" and "UNKNOWN" that OpenSM and ibdiagnet write for
	// a node that did not answer) keeps its GUID name. Names are unique,
	// at most 64 bytes (an ibsim node id), and hold no blank, comma, quote,
	// '#' or '@'.
	NamesHost
)

// String returns the style's flag value: guid, desc or host.
func (s NameStyle) String() string {
	switch s {
	case NamesDesc:
		return "desc"
	case NamesHost:
		return "host"
	}
	return "guid"
}

// ParseNameStyle parses "guid", "desc" or "host" ("" is guid).
func ParseNameStyle(s string) (NameStyle, error) {
	switch s {
	case "guid", "":
		return NamesGUID, nil
	case "desc":
		return NamesDesc, nil
	case "host":
		return NamesHost, nil
	}
	return 0, fmt.Errorf("unknown name style %q (want host, guid or desc)", s)
}

// ibNamed is a node to name: what kind, its GUID and description, and the
// CA port for hosts of multi-port CAs (0 otherwise).
type ibNamed struct {
	kind lft.NodeKind
	guid uint64
	desc string
	port int
}

// ibNames returns a unique name for every node.
func ibNames(nodes []ibNamed, style NameStyle) []string {
	if style == NamesHost {
		return hostNames(nodes)
	}
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = baseName(n, style)
	}
	if style == NamesDesc {
		// Nodes (not ports) that share a base name get their GUID.
		owners := map[string]uint64{}
		shared := map[string]bool{}
		for i, n := range nodes {
			if g, ok := owners[names[i]]; ok && g != n.guid {
				shared[names[i]] = true
			}
			owners[names[i]] = n.guid
		}
		for i, n := range nodes {
			if shared[names[i]] {
				names[i] += "@" + guidHex(n.guid)
			}
		}
	}
	// Last resort for pathological inputs (equal GUIDs of different kinds,
	// or descriptions that look like GUID suffixes): number the repeats.
	return numberRepeats(addPorts(nodes, names), "#")
}

// baseName is a node's name before the port suffix and before duplicates
// are told apart.
func baseName(n ibNamed, style NameStyle) string {
	prefix := "S"
	switch n.kind {
	case lft.Host:
		prefix = "H"
	case lft.Router:
		prefix = "R"
	}
	if style == NamesDesc {
		if s := safeDesc(n.desc); s != "" {
			switch {
			case n.kind == lft.Host && s[0] != 'H':
				return "H-" + s
			case n.kind != lft.Host && s[0] == 'H':
				return prefix + "-" + s
			}
			return s
		}
	}
	return prefix + guidHex(n.guid)
}

// hostNames names nodes in the NamesHost style.
func hostNames(nodes []ibNamed) []string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = baseName(n, NamesGUID)
		if n.kind != lft.Host {
			continue
		}
		word := n.desc
		if k := strings.IndexAny(word, " \t"); k >= 0 {
			word = word[:k]
		}
		if w := hostWord(word); w != "" && !NoDesc(n.desc) {
			names[i] = w
		}
	}
	// CAs (not ports of one CA) that share a host name: their whole
	// description, and then their GUID.
	for level := 0; level < 2; level++ {
		for _, i := range sharedNames(nodes, names) {
			n := nodes[i]
			if level == 0 {
				if w := hostWord(n.desc); w != "" {
					names[i] = w
				}
			} else {
				names[i] += "_" + guidHex(n.guid)
			}
		}
	}
	// Last resort (a description that looks like another's name with a
	// GUID or port suffix): number the repeats.
	return numberRepeats(addPorts(nodes, names), "_")
}

// addPorts appends ":<port>" to the names of the ports of multi-port CAs.
func addPorts(nodes []ibNamed, names []string) []string {
	for i, n := range nodes {
		if n.port > 0 {
			names[i] += ":" + strconv.Itoa(n.port)
		}
	}
	return names
}

// numberRepeats makes names unique by appending sep and 2, 3, … to the
// second and later uses of a name.
func numberRepeats(names []string, sep string) []string {
	seen := make(map[string]bool, len(names))
	for i := range names {
		if seen[names[i]] {
			for k := 2; ; k++ {
				alt := names[i] + sep + strconv.Itoa(k)
				if !seen[alt] {
					names[i] = alt
					break
				}
			}
		}
		seen[names[i]] = true
	}
	return names
}

// NoDesc reports whether a node description stands for none: OpenSM
// writes "<unknown>" and ibdiagnet "UNKNOWN" for a node that did not answer.
func NoDesc(d string) bool { return d == "" || d == "<unknown>" || d == "UNKNOWN" }

// sharedNames returns the hosts whose name is also that of another node
// (a different GUID).
func sharedNames(nodes []ibNamed, names []string) []int {
	owner := map[string]uint64{}
	shared := map[string]bool{}
	for i, n := range nodes {
		if g, ok := owner[names[i]]; ok && g != n.guid {
			shared[names[i]] = true
		}
		owner[names[i]] = n.guid
	}
	var out []int
	for i, n := range nodes {
		if shared[names[i]] && n.kind == lft.Host {
			out = append(out, i)
		}
	}
	return out
}

// maxHostWord is the longest host name taken from a description, before
// the "H-" prefix and the suffixes: with "_<guid>" and ":<port>" a name
// stays within the 64 bytes of an ibsim node id.
const maxHostWord = 40

// hostWord makes a host name of s: letters, digits and . _ - + / : kept,
// runs of other bytes one '_', at most maxHostWord bytes, and "H-" in
// front unless it starts with H. It returns "" when nothing is left.
func hostWord(s string) string {
	out := make([]byte, 0, len(s))
	under := false
	for i := 0; i < len(s) && len(out) < maxHostWord; i++ {
		c := s[i]
		if isNameByte(c) && c != '_' || c == '+' || c == '/' || c == ':' {
			out = append(out, c)
			under = false
			continue
		}
		if !under && len(out) > 0 {
			out = append(out, '_')
		}
		under = true
	}
	for len(out) > 0 && out[len(out)-1] == '_' {
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return ""
	}
	if out[0] != 'H' {
		return "H-" + string(out)
	}
	return string(out)
}

// guidHex formats a GUID as 16 lower-case hex digits.
func guidHex(g uint64) string {
	var b [16]byte
	return string(appendHex(b[:0], g, 16))
}

// safeDesc makes a node description safe as a node name in ORCS dot: no
// blanks, commas, quotes or other separators.
func safeDesc(d string) string {
	out := make([]byte, 0, len(d))
	under := false
	for i := 0; i < len(d); i++ {
		c := d[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '.' || c == '_' || c == '-' || c == '+' || c == '/'
		if !ok || c == '_' {
			if !under && len(out) > 0 {
				out = append(out, '_')
			}
			under = true
			continue
		}
		out = append(out, c)
		under = false
	}
	for len(out) > 0 && out[len(out)-1] == '_' {
		out = out[:len(out)-1]
	}
	return string(out)
}
