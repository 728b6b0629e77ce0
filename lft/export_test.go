package lft

import (
	"sync"
	"unsafe"
)

// SetSpreadEntry overwrites entry (switch index s, host index d) of the
// LMC spread table of offset k, to give tests a fabric whose spread tables
// went wrong after Build checked them.
func SetSpreadEntry(f *Fabric, k int, s, d, link int32) {
	f.tab = expand(f.tab)
	if err := f.setSwitchLink(k, s, d, link); err != nil {
		panic(err)
	}
	f.tab.compact()
	f.compileLinkTables()
	f.entry.Store(nil) // compiled from the tables before
	f.entryOnce = sync.Once{}
}

// expand returns compacted tables with a block of its own for every row
// block again, so that they can be written.
func expand(t tables) tables {
	e := tables{rows: t.rows, blocks: t.blocks, idx: make([]uint32, len(t.idx))}
	for i := range e.idx {
		e.idx[i] = uint32(i)
	}
	if t.narrow != nil {
		e.narrow = expandPool(t.idx, t.narrow)
	} else {
		e.wide = expandPool(t.idx, t.wide)
	}
	return e
}

func expandPool[T portEntry](idx []uint32, pool []T) []T {
	out := make([]T, 0, len(idx)*blockLen)
	for _, b := range idx {
		out = append(out, pool[int(b)*blockLen:int(b+1)*blockLen]...)
	}
	return out
}

// TableBlocks returns the number of distinct table blocks of f and the
// number of row blocks they stand for.
func TableBlocks(f *Fabric) (distinct, rowBlocks int) {
	return (len(f.tab.narrow) + len(f.tab.wide)) / blockLen, len(f.tab.idx)
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

// UseWalk makes RouteBatch walks on f read the tables ("tables"), or entry
// routes of link words ("links"), inner words ("inner", where every route
// fits one, else link words) or position words ("words") compiled now; it
// reports whether f has entry routes of that kind.
func UseWalk(f *Fabric, kind string) bool {
	if kind == "tables" {
		f.entry.Store(nil)
		return true
	}
	oldLinks, oldInner := linkWordsBelow, innerWordsBelow
	defer func() { linkWordsBelow, innerWordsBelow = oldLinks, oldInner }()
	linkWordsBelow, innerWordsBelow = 0, 0
	switch kind {
	case "links":
		linkWordsBelow = 1 << 16
	case "inner":
		linkWordsBelow, innerWordsBelow = 1<<16, InnerMissing+1
	}
	r := f.compileEntryRoutes()
	f.entry.Store(r)
	if r == nil {
		return false
	}
	switch kind {
	case "links":
		return r.links != nil
	case "inner":
		return r.inner != nil
	}
	return r.words != nil
}

// SetEntryRoutesUpTo sets the memory up to which fabrics compile entry
// routes, and returns a function that restores it.
func SetEntryRoutesUpTo(n int) (restore func()) {
	old := entryRoutesUpTo
	entryRoutesUpTo = n
	return func() { entryRoutesUpTo = old }
}

// EntryRoutesLeftToTables returns how many entries of f's entry routes
// leave their route to the tables (zero entries), or -1 without them.
func EntryRoutesLeftToTables(f *Fabric) int {
	r := f.entry.Load()
	if r == nil {
		return -1
	}
	n := 0
	for i, b := range r.wordIdx {
		for d := i % r.blocks * blockLen; d < min(len(f.hosts), (i%r.blocks+1)*blockLen); d++ {
			if r.words[int(b)*blockLen+d%blockLen] == 0 {
				n++
			}
		}
	}
	for _, lw := range r.links {
		if lw[0] == 0 {
			n++
		}
	}
	for _, w := range r.inner {
		if w == InnerNone {
			n++
		}
	}
	return n
}

// EntryWordsAddr returns the address of f's compiled entry-route words,
// or 0 without them.
func EntryWordsAddr(f *Fabric) uintptr {
	r := f.entry.Load()
	switch {
	case r == nil:
		return 0
	case r.links != nil:
		return uintptr(unsafe.Pointer(&r.links[0]))
	case r.inner != nil:
		return uintptr(unsafe.Pointer(&r.inner[0]))
	case r.words != nil:
		return uintptr(unsafe.Pointer(&r.words[0]))
	}
	return 0
}

// SetLinkWordsBelow sets the number of links below which entry routes
// hold links, and returns a function that restores it.
func SetLinkWordsBelow(n int) (restore func()) {
	old := linkWordsBelow
	linkWordsBelow = n
	return func() { linkWordsBelow = old }
}
