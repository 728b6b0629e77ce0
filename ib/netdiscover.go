package ib

// ReadNetDiscover parses the output of ibnetdiscover, plain, with -s (the
// DR-path discovery trace that -s prints first is skipped) or with -g (the
// chassis and "Non-Chassis Nodes" headers are skipped, "[ext N]" external
// port numbers ignored), and the ibnetdiscover file of ibdiagnet. Node ids
// are those of the output ("S-<guid>", "H-<guid>"), descriptions the quoted
// text after '#'; node GUIDs come from the ids (ibdiagnet's switchguid=
// gives a chassis switch's chassis GUID, the same for all its ASICs) or
// else from the switchguid=/caguid=/rtguid= lines, port GUIDs from the
// port lines (a switch's from the parentheses of switchguid=), a switch's
// LID and LMC from its node line ("base port 0 lid L lmc M") and a CA
// port's from its port line ("# lid L lmc M ..."). The grammar is that of
// ReadSimNet (ibnetdiscover output is valid ibsim input), but lines that
// ibnetdiscover does not write are errors here, and `# ""` is an empty
// description (a node that did not answer), not the node id.
func ReadNetDiscover(data []byte, file string) (*Topology, error) {
	return readNet(newLines(data, file), FormatIBNetDiscover, nil)
}
