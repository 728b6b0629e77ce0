// Package patterns generates the communication patterns that ORCS simulates.
//
// A pattern is a list of levels and a level is a set of (source rank,
// destination rank) pairs that are in flight together; level k starts after
// level k−1 has finished. Ranks are 0 … n−1 for a communicator of size n;
// the mapping of ranks to hosts is done elsewhere.
//
// Patterns are looked up by name in a registry (see Names and Register).
// The built-in ones are those of the original ORCS (null, rand, bisect,
// bisect_fb_sym, tree, bruck, gather, scatter, ring, recdbl, 2neighbor,
// 4neighbor, 6neighbor, ptrnvsptrn) plus alltoall, neighbor2d and neighbor3d.
// A pattern can also be read from a file with the name "file:PATH" (see
// Parse for the format).
//
// Rules common to all generators: a level never contains a pair whose source
// equals its destination; a generator keeps the number of levels its
// definition gives even when a level ends up empty for a small n (for
// example bisect with n = 1 has one empty level).
//
// Typical use:
//
//	src, err := patterns.Compile(patterns.Spec{Name: "rand"}, 64)
//	if err != nil { ... }
//	var scratch []patterns.Level
//	for run := range runs {
//		scratch = src.Levels(rng.New(seed, uint64(run)), scratch)
//		// simulate scratch ...
//	}
package patterns

import (
	"fmt"

	"orcs/rng"
)

// Pair is one message: rank Src sends to rank Dst.
type Pair struct{ Src, Dst int32 }

// Level is a set of pairs that are in flight together.
type Level []Pair

// Spec selects a pattern.
type Spec struct {
	Name   string // registry name, or "file:PATH" (empty = "bisect")
	First  string // ptrnvsptrn -f/--frstptrn (empty = "bisect")
	Second string // ptrnvsptrn -c/--secptrn (empty = "bisect")
	Part   int    // ptrnvsptrn -z/--part_commsize
	// ORCS2 selects ORCS 2.0's own generator where it differs from the
	// corrected one: the rand derangement algorithm and the pair order of
	// the Xneighbor patterns (see genRandORCS2 and genNeighbor).
	// ptrnvsptrn's number of levels is ORCS 2.0's either way (pvpLevels).
	ORCS2 bool
	// Rails is the number of GPUs (one HCA each) per node for the NCCL
	// collectives (see Collective): rank r is GPU r mod Rails of node
	// r / Rails. Other patterns ignore it.
	Rails int
}

// DefaultName is the pattern used when a name in a Spec is empty, as in ORCS.
const DefaultName = "bisect"

// filePrefix introduces a pattern read from a file.
const filePrefix = "file:"

// Source is a compiled pattern for one communicator size. A Source is
// immutable and safe for concurrent use.
type Source struct {
	n      int
	first  int                                          // FirstRanks
	random bool                                         // levels differ between runs
	fixed  []Level                                      // levels of a deterministic pattern
	gen    func(r *rng.Stream, scratch []Level) []Level // levels of a random pattern
}

// Compile validates spec for commsize n and prepares the pattern.
// Deterministic patterns are generated once, here.
func Compile(spec Spec, n int) (*Source, error) {
	if n < 1 {
		return nil, fmt.Errorf("commsize %d: a pattern needs at least 1 rank", n)
	}
	name := spec.Name
	if name == "" {
		name = DefaultName
	}
	if path, ok := FilePath(name); ok {
		return compileFile(path, n)
	}
	e, err := lookup(name)
	if err != nil {
		return nil, err
	}
	if e.compile != nil {
		return e.compile(spec, n)
	}
	gen := e.gen
	if spec.ORCS2 && e.orcs2 != nil {
		gen = e.orcs2
	}
	if e.random {
		return &Source{n: n, first: n, random: true,
			gen: func(r *rng.Stream, scratch []Level) []Level { return gen(n, r, scratch) }}, nil
	}
	return fixedSource(gen(n, nil, nil), n), nil
}

// fixedSource returns a Source of a deterministic pattern.
func fixedSource(levels []Level, n int) *Source {
	if levels == nil {
		levels = []Level{}
	}
	return &Source{n: n, first: n, fixed: levels}
}

// Random reports whether levels differ from run to run (rand, or ptrnvsptrn
// with rand inside).
func (s *Source) Random() bool { return s.random }

// Commsize returns the number of ranks n the pattern was compiled for.
func (s *Source) Commsize() int { return s.n }

// FirstRanks is the number of ranks of the first pattern: z for ptrnvsptrn,
// else n. (dep_max_delay counts only messages between ranks < FirstRanks.)
func (s *Source) FirstRanks() int { return s.first }

// Levels returns the levels of one run.
//
// Deterministic patterns return a cached, shared, read-only slice (r and
// scratch are ignored and may be nil). Random patterns are generated from r,
// which must not be nil, reusing the capacity of scratch (typically the
// previous result of Levels) where possible, so that a worker calling it
// once per run does not allocate much; the result may share memory with
// scratch. Levels is safe for concurrent use by goroutines that pass
// distinct r and scratch.
func (s *Source) Levels(r *rng.Stream, scratch []Level) []Level {
	if !s.random {
		return s.fixed
	}
	if r == nil {
		panic("patterns: Levels of a random pattern needs a random stream")
	}
	return s.gen(r, scratch)
}

// reuse returns scratch resized to k empty levels, keeping the capacity of
// the levels scratch already holds (also beyond its length).
func reuse(scratch []Level, k int) []Level {
	if cap(scratch) < k {
		scratch = append(scratch[:cap(scratch)], make([]Level, k-cap(scratch))...)
	}
	scratch = scratch[:k]
	for i := range scratch {
		scratch[i] = scratch[i][:0]
	}
	return scratch
}

// builder accumulates the levels of a deterministic pattern in one backing
// array.
type builder struct {
	pairs []Pair
	ends  []int
}

// add appends the pair src → dst to the current level.
func (b *builder) add(src, dst int) {
	b.pairs = append(b.pairs, Pair{int32(src), int32(dst)})
}

// end closes the current level (which may be empty).
func (b *builder) end() { b.ends = append(b.ends, len(b.pairs)) }

// levels returns the closed levels. Each level's capacity is capped at its
// length so that appending to one cannot overwrite the next.
func (b *builder) levels() []Level {
	out := make([]Level, len(b.ends))
	start := 0
	for i, e := range b.ends {
		out[i] = Level(b.pairs[start:e:e])
		start = e
	}
	return out
}

// ceilLog2 returns ⌈log2 n⌉ for n ≥ 1.
func ceilLog2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	return l
}
