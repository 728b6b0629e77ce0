// Package ib reads the files of the InfiniBand tool chain and builds the
// routed fabric they describe.
//
// Topologies (ReadTopology, ReadTopologyFile, recognised by content with
// DetectFormat): ibnetdiscover output, plain, -s, -g (chassis grouping)
// and -p (ports report), and the ibnetdiscover file of ibdiagnet;
// iblinkinfo output, plain and -l; ibsim net files; OpenSM's
// opensm-subnet.lst and ibdiagnet's .lst; ibdiagnet's ibdiagnet2.db_csv.
// Forwarding tables (ReadRouting, ReadRoutingFile): opensm-lfts.dump,
// dump_fts and ibroute output (also with -a), opensm.fdbs and ibdiagnet's
// .fdbs. Build pairs a topology with the tables of the same fabric;
// BuildTopology takes a topology alone.
//
// Files pasted from a terminal are read too: a UTF-8 byte-order mark,
// shell prompt lines and the messages the tools print on standard error
// (ibwarn:, iberror:, libibnetdisc's "<file>.c:<line>; ...") are skipped,
// and listed in Topology.Warnings and Routing.Warnings, which Build passes
// to Options.Warn. Errors are *infile.ParseError values naming the file and
// line, classified by the sentinels of errors.go; a reader returns a
// complete result or an error, never part of one.
//
// Hosts are the connected ports of channel adapters, except SHARP
// aggregation nodes (see Options.IncludeAggregationNodes); NameStyle
// chooses their names.
package ib
