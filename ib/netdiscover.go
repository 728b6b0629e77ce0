package ib

// ReadNetDiscover parses the output of ibnetdiscover, plain or with -s
// (the DR-path discovery trace that -s prints first is skipped). Node ids
// are those of the output ("S-<guid>", "H-<guid>"), descriptions the quoted
// text after '#'; the GUIDs come from the switchguid=/caguid=/rtguid= lines,
// port GUIDs from the port lines, a switch's LID and LMC from its node
// line ("base port 0 lid L lmc M") and a CA port's from its port line
// ("# lid L lmc M ..."). The grammar is that of ReadSimNet (ibnetdiscover
// output is valid ibsim input), but lines that ibnetdiscover does not
// write are errors here.
func ReadNetDiscover(data []byte, file string) (*Topology, error) {
	return readNet(newLines(data, file), FormatIBNetDiscover, nil)
}
