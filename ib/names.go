package ib

import (
	"fmt"
	"strconv"

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
)

// String returns the style's flag value: guid or desc.
func (s NameStyle) String() string {
	if s == NamesDesc {
		return "desc"
	}
	return "guid"
}

// ParseNameStyle parses "guid" or "desc".
func ParseNameStyle(s string) (NameStyle, error) {
	switch s {
	case "guid", "":
		return NamesGUID, nil
	case "desc":
		return NamesDesc, nil
	}
	return 0, fmt.Errorf("unknown name style %q (want guid or desc)", s)
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
	for i, n := range nodes {
		if n.port > 0 {
			names[i] += ":" + strconv.Itoa(n.port)
		}
	}
	// Last resort for pathological inputs (equal GUIDs of different kinds,
	// or descriptions that look like GUID suffixes): number the repeats.
	seen := make(map[string]bool, len(names))
	for i := range names {
		if seen[names[i]] {
			for k := 2; ; k++ {
				alt := names[i] + "#" + strconv.Itoa(k)
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

// guidHex formats a GUID as 16 lower-case hex digits.
func guidHex(g uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[g&15]
		g >>= 4
	}
	return string(b[:])
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
