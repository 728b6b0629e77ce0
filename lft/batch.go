package lft

// RouteBatch walks the routes of many host pairs together. A route is a
// chain of dependent table loads, so one route at a time leaves the
// processor waiting on each load. Once the fabric has entry routes
// (Fabric.PrepareWalks) the batch reads each route whole from them;
// otherwise it advances every unfinished route by one hop per round, and
// the loads of different routes overlap.
// The zero value is ready to use; a RouteBatch keeps its buffers between
// calls and is not safe for concurrent use.
type RouteBatch struct {
	stride int     // room per route in the strided buffer
	lanes  []lane  // per pair
	hops   []int32 // per pair: links walked
	active []int32 // pairs still walking
	buf    []int32 // route i at buf[i*stride : i*stride+lanes[i].hops]
	status []uint8 // per pair: RouteStatus
	path   []int32 // the routes of the last Walk, in pair order
	ends   []int32 // ends[i]: end of pair i's route in path
	// entry route walks (see entry.go), per pair: where its entry is, its
	// first link, and its entry
	at    []int32
	first []int32
	words []uint64
	links [][8]uint16
}

// lane is the state of one route of a batch.
type lane struct {
	slot int32 // slot of the link to take next
	dst  int32 // destination host
	off  int32 // the pair's block number of switch 0's row (see tables)
}

// minStride is the room per route a batch starts with: a 3-level fat tree
// route has at most 6 links.
const minStride = 8

// Walk walks the routes of the pairs (src[i], dst[i]) and returns the
// number of pairs whose route fails (no table entry, or a loop). Route(i)
// then gives pair i's links, those AppendRoute gives; a failed route and a
// route from a host to itself have none. With a non-nil load, Walk also
// adds 1 to load[l] for every link l of every route that does not fail.
// It reads entry routes when the fabric has them (see PrepareWalks);
// tables too large for the processor's caches are walked in rounds.
func (b *RouteBatch) Walk(f *Fabric, src, dst []int32, load []int32) int {
	if r := f.entry.Load(); r != nil {
		return b.walkEntry(f, r, src, dst, load)
	}
	path, ends := b.path[:0], b.ends[:0]
	failed := 0
	if f.tab.bytes() <= roundsAbove {
		for i := range src {
			start := len(path)
			var st RouteStatus
			if path, st = f.AppendRoute(path, src[i], dst[i]); st != RouteOK {
				path = path[:start]
				failed++
			}
			ends = append(ends, int32(len(path)))
		}
		if load != nil {
			for _, l := range path {
				load[l]++
			}
		}
		b.path, b.ends = path, ends
		return failed
	}
	if b.stride == 0 {
		b.stride = minStride
	}
	for {
		var ok bool
		if f.tab.narrow != nil {
			ok = walkBatch(f, f.tab.narrow, b, src, dst, load)
		} else {
			ok = walkBatch(f, f.tab.wide, b, src, dst, load)
		}
		if ok {
			break
		}
	}
	for i, st := range b.status[:len(src)] {
		route := b.buf[i*b.stride : i*b.stride+int(b.hops[i])]
		if st != uint8(RouteOK) {
			failed++
			if load != nil {
				for _, l := range route {
					load[l]--
				}
			}
			route = nil
		}
		path = append(path, route...)
		ends = append(ends, int32(len(path)))
	}
	b.path, b.ends = path, ends
	return failed
}

// Route returns the links of pair i's route of the last Walk. The slice is
// overwritten by the next Walk.
func (b *RouteBatch) Route(i int) []int32 {
	start := int32(0)
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.path[start:b.ends[i]]
}

// Path returns the routes of the last Walk one after the other, in pair
// order; Ends()[i] is where pair i's route ends in it.
func (b *RouteBatch) Path() []int32 { return b.path }

// Ends returns the end of each pair's route in Path.
func (b *RouteBatch) Ends() []int32 { return b.ends }

// Hops returns the number of links of the routes of the last Walk.
func (b *RouteBatch) Hops() int64 { return int64(len(b.path)) }

// roundsAbove is the table size (bytes) above which Walk advances the
// routes in rounds; smaller tables stay in the processor's fastest caches,
// where walking one route after the other costs less (measured on the walk
// of bisect_fb_sym: 121 against 110 M hops/s with the 98 KB table of 512
// hosts; 100 against 90 with the 746 KB table of 1728 hosts the other way
// round). A variable for tests.
var roundsAbove = 256 << 10

// walkBatch walks the pairs in rounds of one hop each. A route longer than
// the stride is finished alone; if it routes, the stride grows to fit it
// and walkBatch reports false so that the batch is walked again (a fabric
// needs this once: the stride stays with the batch).
func walkBatch[T portEntry](f *Fabric, pool []T, b *RouteBatch, src, dst, load []int32) bool {
	n, stride := len(src), b.stride
	idx, blocks := f.tab.idx, f.tab.blocks
	if cap(b.lanes) < n {
		b.lanes = make([]lane, n)
		b.hops = make([]int32, n)
		b.status = make([]uint8, n)
		b.active = make([]int32, 0, n)
	}
	lanes, hops, status := b.lanes[:n], b.hops[:n], b.status[:n]
	if need := n * stride; cap(b.buf) < need {
		b.buf = make([]int32, need)
	}
	buf := b.buf[:n*stride]
	active := b.active[:0]
	for i := range lanes {
		s, d := src[i], dst[i]
		hops[i], status[i] = 0, uint8(RouteOK)
		if s == d {
			continue
		}
		l := f.hostLink(s, d)
		if l < 0 {
			status[i] = uint8(Unroutable)
			continue
		}
		lanes[i] = lane{slot: f.linkSlot[l], dst: d, off: int32(f.lidOffset(s, d)*len(f.switches)*blocks) + d>>blockBits}
		active = append(active, int32(i))
	}
	outLinks, slotNext, swBase := f.outLinks, f.slotNext, f.swBase
	// Every route still walking has taken round links: route i's link of
	// this round goes to buf[i*stride+round].
	round := 0
	for ; len(active) > 0 && round < stride; round++ {
		k := 0
		for _, i := range active {
			ln := &lanes[i]
			slot := ln.slot
			l := outLinks[slot]
			buf[int(i)*stride+round] = l
			if load != nil {
				load[l]++
			}
			nx := slotNext[slot]
			if nx >= 0 {
				p := pool[int(idx[int(ln.off)+int(nx)*blocks])<<blockBits|int(ln.dst&blockMask)]
				if p == noPort[T]() {
					status[i], hops[i] = uint8(Unroutable), int32(round+1)
					continue
				}
				ln.slot = swBase[nx] + int32(p)
				active[k] = i
				k++
				continue
			}
			if ^nx == ln.dst {
				hops[i] = int32(round + 1) // arrived
				continue
			}
			l = f.hostLink(^nx, ln.dst)
			if l < 0 {
				status[i], hops[i] = uint8(Unroutable), int32(round+1)
				continue
			}
			ln.slot = f.linkSlot[l]
			active[k] = i
			k++
		}
		active = active[:k]
	}
	b.active = active
	grow := 0
	var route []int32
	for _, i := range active { // routes that outgrow the stride
		hops[i] = int32(stride)
		var st RouteStatus
		route, st = f.AppendRoute(route[:0], src[i], dst[i])
		status[i] = uint8(st)
		if st == RouteOK {
			grow = max(grow, len(route))
		}
	}
	if grow == 0 {
		return true
	}
	if load != nil { // walked again: take back what this walk counted
		for i := range hops {
			for _, l := range buf[i*stride : i*stride+int(hops[i])] {
				load[l]--
			}
		}
	}
	b.stride = max(2*stride, grow)
	return false
}

// Congestion returns, for every pair of the last Walk, the largest
// load[l] over the links l of its route (0 for a route without links),
// in w (reused when it has room) or a new slice. Routes of up to 8 links,
// the most an entry route has, are read by a switch on their length
// whose cases load every link at once (a fat tree's routes have 2, 4 or
// 6 links, so the branch is well predicted): measured 1.5× faster than
// eight masked loads per route, which took no branch but read eight links
// whatever the route's length.
func (b *RouteBatch) Congestion(load, w []int32) []int32 {
	path, ends := b.path, b.ends
	if cap(w) < len(ends) {
		w = make([]int32, len(ends))
	}
	w = w[:len(ends)]
	start := int32(0)
	for i, end := range ends {
		var m int32
		switch r := path[start:end]; len(r) {
		case 0:
		case 1:
			m = load[r[0]]
		case 2:
			m = max(load[r[0]], load[r[1]])
		case 3:
			m = max(load[r[0]], load[r[1]], load[r[2]])
		case 4:
			m = max(load[r[0]], load[r[1]], load[r[2]], load[r[3]])
		case 5:
			m = max(load[r[0]], load[r[1]], load[r[2]], load[r[3]], load[r[4]])
		case 6:
			m = max(load[r[0]], load[r[1]], load[r[2]], load[r[3]], load[r[4]], load[r[5]])
		case 7:
			m = max(load[r[0]], load[r[1]], load[r[2]], load[r[3]], load[r[4]], load[r[5]], load[r[6]])
		case 8:
			m = max(load[r[0]], load[r[1]], load[r[2]], load[r[3]], load[r[4]], load[r[5]], load[r[6]], load[r[7]])
		default:
			for _, l := range r {
				m = max(m, load[l])
			}
		}
		w[i] = m
		start = end
	}
	return w
}
