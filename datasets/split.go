package datasets

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Class-split names of SplitConfig.ClassSplit.
const (
	// ClassSplitFirst makes the first Known class ids the known classes.
	ClassSplitFirst = "first"
	// ClassSplitRandom draws the known classes with the seed.
	ClassSplitRandom = "random"
)

// SplitConfig holds the inputs of the protocol split (docs/protocol.md §2) besides
// the labels.
type SplitConfig struct {
	// Known is |C^l|, the number of known classes, in 1..numClasses-1.
	Known int
	// Ratio is the labelled fraction of each known class, in (0, 1].
	Ratio float64
	// Seed makes the random draws; equal seeds give equal splits on every
	// machine.
	Seed int64
	// ClassSplit is ClassSplitFirst ("first"; also used when empty) or
	// ClassSplitRandom ("random").
	ClassSplit string
	// TestFrac is the held-out test fraction in [0, 1); 0 means no test set.
	TestFrac float64
}

// Split is one protocol split of a dataset. Every index list holds graph
// indices into Dataset.Graphs, sorted ascending; Labelled, Unlabelled and
// Test are disjoint and together hold every graph.
type Split struct {
	// KnownClasses are the known classes C^l as class ids of the dataset
	// (0..NumClasses-1), sorted ascending, shape [Known].
	KnownClasses []int
	// Labelled is the labelled set D^l.
	Labelled []int
	// LabelledY holds the known-class index (0..Known-1, an index into
	// KnownClasses) of each graph of Labelled, shape [len(Labelled)].
	LabelledY []int
	// Unlabelled is D^u: every graph not labelled and not in Test, of
	// known and unknown classes alike.
	Unlabelled []int
	// Test is the held-out test set (empty when TestFrac is 0).
	Test []int
}

// KnownIndex returns the index of class in KnownClasses (0..Known-1), or -1
// if class is unknown.
func (s *Split) KnownIndex(class int) int {
	if i, ok := slices.BinarySearch(s.KnownClasses, class); ok {
		return i
	}
	return -1
}

// MakeSplit builds the split of docs/protocol.md §2 for the given per-graph labels
// (class ids in 0..numClasses-1), as a pure function of (labels,
// numClasses, cfg):
//
//  1. Known classes: the first cfg.Known class ids, or with
//     ClassSplit "random" cfg.Known ids drawn without replacement.
//  2. If cfg.TestFrac > 0, a test set is drawn first, stratified over all
//     classes: round(TestFrac × n_c) graphs of each class c, capped at
//     n_c − 1 so that every class keeps at least one graph (ours).
//  3. From each known class, round(Ratio × m_c) graphs are labelled, at
//     least 1, where m_c is the number of graphs of c outside the test set
//     (m_c = n_c without a test set). Exactly as docs/protocol.md §2 says, there is
//     no upper cap below m_c: a high ratio on a tiny class may label all of
//     it. Unknown-class graphs are never labelled.
//  4. Unlabelled is every other graph outside the test set.
//
// round is math.Round (halves away from zero), e.g. round(0.5 × 39) = 20.
//
// The three random draws (class choice, test set, labelled set) use
// independent PCG streams seeded by cfg.Seed, and our own bounded-integer
// and partial Fisher–Yates code, so the result depends only on the inputs,
// not on the machine or the Go release. Classes are processed in ascending
// id order and each class's graphs in ascending index order.
//
// Errors name the offending field: Known outside 1..numClasses-1, Ratio
// outside (0, 1], an unknown ClassSplit, TestFrac outside [0, 1), a label
// outside 0..numClasses-1, or a known class with no graphs left to label.
func MakeSplit(labels []int, numClasses int, cfg SplitConfig) (*Split, error) {
	if numClasses < 2 {
		return nil, fmt.Errorf("split: numClasses = %d, need at least 2 (some known, some unknown)", numClasses)
	}
	if cfg.Known < 1 || cfg.Known > numClasses-1 {
		return nil, fmt.Errorf("split: Known = %d, want 1..%d", cfg.Known, numClasses-1)
	}
	if !(cfg.Ratio > 0 && cfg.Ratio <= 1) {
		return nil, fmt.Errorf("split: Ratio = %v, want a number in (0, 1]", cfg.Ratio)
	}
	classSplit := cfg.ClassSplit
	if classSplit == "" {
		classSplit = ClassSplitFirst
	}
	if classSplit != ClassSplitFirst && classSplit != ClassSplitRandom {
		return nil, fmt.Errorf("split: ClassSplit = %q, want %q or %q", cfg.ClassSplit, ClassSplitFirst, ClassSplitRandom)
	}
	if !(cfg.TestFrac >= 0 && cfg.TestFrac < 1) {
		return nil, fmt.Errorf("split: TestFrac = %v, want a number in [0, 1)", cfg.TestFrac)
	}
	byClass := make([][]int, numClasses)
	for i, y := range labels {
		if y < 0 || y >= numClasses {
			return nil, fmt.Errorf("split: labels[%d] = %d, want 0..%d", i, y, numClasses-1)
		}
		byClass[y] = append(byClass[y], i)
	}
	seed := uint64(cfg.Seed)

	// 1. Known classes.
	var known []int
	if classSplit == ClassSplitFirst {
		known = make([]int, cfg.Known)
		for i := range known {
			known[i] = i
		}
	} else {
		all := make([]int, numClasses)
		for i := range all {
			all[i] = i
		}
		known = pick(rand.NewPCG(seed, streamClasses), all, cfg.Known)
		slices.Sort(known)
	}

	// 2. Test set, stratified over all classes.
	const (
		free = iota
		inTest
		inLabelled
	)
	state := make([]uint8, len(labels))
	if cfg.TestFrac > 0 {
		r := rand.NewPCG(seed, streamTest)
		for _, idx := range byClass {
			t := min(int(math.Round(cfg.TestFrac*float64(len(idx)))), len(idx)-1)
			if t <= 0 {
				continue
			}
			for _, i := range pick(r, idx, t) {
				state[i] = inTest
			}
		}
	}

	// 3. Labelled set from the known classes.
	r := rand.NewPCG(seed, streamLabelled)
	pool := make([]int, 0, len(labels))
	for _, c := range known {
		pool = pool[:0]
		for _, i := range byClass[c] {
			if state[i] == free {
				pool = append(pool, i)
			}
		}
		if len(pool) == 0 {
			return nil, fmt.Errorf("split: known class %d has no graphs to label", c)
		}
		k := max(int(math.Round(cfg.Ratio*float64(len(pool)))), 1)
		for _, i := range pick(r, pool, k) {
			state[i] = inLabelled
		}
	}

	// 4. Collect, ascending.
	knownIdx := make([]int, numClasses)
	for i := range knownIdx {
		knownIdx[i] = -1
	}
	for j, c := range known {
		knownIdx[c] = j
	}
	s := &Split{KnownClasses: known, Labelled: []int{}, LabelledY: []int{}, Unlabelled: []int{}, Test: []int{}}
	for i, st := range state {
		switch st {
		case inLabelled:
			s.Labelled = append(s.Labelled, i)
			s.LabelledY = append(s.LabelledY, knownIdx[labels[i]])
		case inTest:
			s.Test = append(s.Test, i)
		default:
			s.Unlabelled = append(s.Unlabelled, i)
		}
	}
	return s, nil
}

// MakeSplit is MakeSplit(d.Labels, d.NumClasses, cfg).
func (d *Dataset) MakeSplit(cfg SplitConfig) (*Split, error) {
	return MakeSplit(d.Labels, d.NumClasses, cfg)
}

// Second PCG seeds of the three independent random streams of MakeSplit.
// Changing them changes every split.
const (
	streamClasses  = 0x7567622d636c6173 // "ugb-clas"
	streamTest     = 0x7567622d74657374 // "ugb-test"
	streamLabelled = 0x7567622d6c61626c // "ugb-labl"
)

// uintn returns a uniform integer in [0, n) from r (Lemire's multiply-shift
// with rejection); n > 0.
func uintn(r *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// pick draws k distinct elements of items without replacement (a partial
// Fisher–Yates shuffle of a copy) and returns them in draw order.
func pick(r *rand.PCG, items []int, k int) []int {
	a := slices.Clone(items)
	for i := 0; i < k; i++ {
		j := i + int(uintn(r, uint64(len(a)-i)))
		a[i], a[j] = a[j], a[i]
	}
	return a[:k]
}
