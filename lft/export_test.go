package lft

// SetSpreadEntry overwrites entry (switch index s, host index d) of the
// LMC spread table of offset k, to give tests a fabric whose spread tables
// went wrong after Build checked them.
func SetSpreadEntry(f *Fabric, k int, s, d, link int32) {
	if err := f.setSwitchLink(k*len(f.switches)*len(f.hosts), s, d, link); err != nil {
		panic(err)
	}
	f.compileLinkTables()
}

// SetLinkTablesUpTo sets the size up to which fabrics built from now on
// keep link tables, and returns a function that restores it.
func SetLinkTablesUpTo(n int) (restore func()) {
	old := linkTablesUpTo
	linkTablesUpTo = n
	return func() { linkTablesUpTo = old }
}

// HasLinkTables reports whether f keeps link tables.
func HasLinkTables(f *Fabric) bool { return f.linkTab != nil }

// SetRoundsAbove sets the table size above which RouteBatch walks in
// rounds, and returns a function that restores it.
func SetRoundsAbove(n int) (restore func()) {
	old := roundsAbove
	roundsAbove = n
	return func() { roundsAbove = old }
}
