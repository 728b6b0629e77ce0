package ib

// ReadDumpFTS parses the output of dump_fts or ibroute (infiniband-diags):
// the tables read back from the switches,
//
//	Unicast lids [0x0-0x<top>] of switch DR path slid 0; dlid 0; <path> guid 0x<guid> (<desc>):
//	  Lid  Out   Destination
//	       Port     Info
//	0x<lid> <port> : (<Channel Adapter|Switch|Router> portguid 0x<guid>: '<desc>')
//	0x<lid> <port> : (path #2 out of 2: portguid 0x<guid>)
//	<n> valid lids dumped
//
// (ibroute names the switch by "Lid <n>" instead of the DR path). The
// grammar and its checks are those of ReadLFTDump, with the trailer
// counting the entries; Routing.Format is FormatLFTDump if the first
// header gives its range in decimal, as opensm-lfts.dump does.
//
// infiniband-diags 44.0 skips the last LID of a switch whose LinearFDBTop
// is a multiple of 64. The table then lacks an entry for the top of its
// header's range; Build reports that clearly when the LID is a host's,
// and a topology with opensm-lfts.dump should be used instead.
func ReadDumpFTS(data []byte, file string) (*Routing, error) {
	return readUnicast(newLines(data, file))
}
