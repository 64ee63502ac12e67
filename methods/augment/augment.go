// Package augment holds the graph perturbations of the suite's
// semi-supervised methods: pure Go functions on datasets.Graph and its
// (standardised) feature rows, run on the host before batching, with no
// autodiff. Every draw comes from one generator per (run seed, purpose,
// epoch, graph, view) (Stream), so a view does not depend on batch order
// or parallelism.
//
// Two families live here:
//   - UGNN's node and edge deletion (DropNodes, DropEdges; UGNN paper §4.2),
//     moved from methods/ugnn with their exact draws;
//   - GraphCL's augmentations as its official semi-supervised TU code does
//     them (DropN, PermE, Subgraph, MaskN, Random2; Shen-Lab/GraphCL
//     semisupervised_TU/pre-training/tu_dataset.py) and RGCL's rationale
//     and complement node sampling (lsh0520/RGCL unsupervised_TU/aug.py).
//
// A function returns a new graph whose Features field holds the view's
// feature rows [n', dim] (the same rows as the second return value); the
// input graph and features are never modified.
package augment

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/methods/gnn"
)

// Stream is the generator of one (seed, purpose, a, b, c) stream, e.g.
// (run seed, "view1", epoch, view, graph): every draw is deterministic
// given the run seed and independent of batch order or parallelism. The
// mapping is fixed (PCG seeded with the seed and an FNV-1a hash of the
// purpose and the three integers): changing it changes every stored UGNN
// run's views.
func Stream(seed int64, purpose string, a, b, c int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	var buf [24]byte
	for i, v := range []int{a, b, c} {
		for k := 0; k < 8; k++ {
			buf[i*8+k] = byte(uint64(v) >> (8 * k))
		}
	}
	h.Write(buf[:])
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}

// Induced returns the subgraph of g induced by the nodes keep (original
// ids, any order; duplicates are a programming error), renumbered in
// ascending original order, with their feature rows (feats is
// [g.NumNodes, dim]). Exactly the edges between kept nodes remain, in
// their original order.
func Induced(g *datasets.Graph, feats []float32, dim int, keep []int) (datasets.Graph, []float32) {
	keep = slices.Clone(keep)
	slices.Sort(keep)
	newID := make([]int32, g.NumNodes)
	for i := range newID {
		newID[i] = -1
	}
	out := datasets.Graph{NumNodes: len(keep), Features: make([]float32, 0, len(keep)*dim), Directed: g.Directed}
	for i, v := range keep {
		newID[v] = int32(i)
		out.Features = append(out.Features, feats[v*dim:(v+1)*dim]...)
	}
	for e := range g.Src {
		s, d := newID[g.Src[e]], newID[g.Dst[e]]
		if s >= 0 && d >= 0 {
			out.Src = append(out.Src, s)
			out.Dst = append(out.Dst, d)
			if g.EdgeWeight != nil {
				out.EdgeWeight = append(out.EdgeWeight, g.EdgeWeight[e])
			}
		}
	}
	return out, out.Features
}

// DropNodes is UGNN's node deletion (§4.2, after You et al. 2020): the
// subgraph of g induced by ⌈(1−ratio)·n⌉ nodes (gnn.KeepCount, at least
// one) drawn uniformly without replacement as a prefix of rng.Perm(n).
// Node ids are renumbered in ascending original order, and exactly the
// edges between kept nodes remain. feats is [n, dim].
func DropNodes(g *datasets.Graph, feats []float32, dim int, ratio float64, rng *rand.Rand) (datasets.Graph, []float32) {
	keep := max(1, gnn.KeepCount(1-ratio, g.NumNodes))
	return Induced(g, feats, dim, rng.Perm(g.NumNodes)[:keep])
}

// DropEdges is UGNN's edge deletion (§4.2): g without each undirected edge
// independently with probability ratio; both directions of an edge go
// together (one draw per edge, on its (low, high) direction, in edge-list
// order). Nodes and features are unchanged (the features are shared, not
// copied). A Directed graph (the superpixel kNN graphs) gets one draw per
// node pair joined in either direction, at the pair's first edge in
// edge-list order, and that pair's edges go together; on an undirected
// graph, whose every edge is stored both ways, this is the same as
// drawing on the (low, high) direction only if that direction comes
// first, so undirected graphs keep the rule above (and UGNN's stored
// views). Edge weights follow their edges.
func DropEdges(g *datasets.Graph, feats []float32, ratio float64, rng *rand.Rand) (datasets.Graph, []float32) {
	out := datasets.Graph{NumNodes: g.NumNodes, Features: feats, Directed: g.Directed}
	drop := map[[2]int32]bool{}
	for e := range g.Src {
		s, d := g.Src[e], g.Dst[e]
		key := [2]int32{min(s, d), max(s, d)}
		if g.Directed {
			if _, seen := drop[key]; !seen {
				drop[key] = rng.Float64() < ratio
			}
			continue
		}
		if s > d {
			continue // decide on the (low, high) direction
		}
		if rng.Float64() < ratio {
			drop[key] = true
		}
	}
	for e := range g.Src {
		s, d := g.Src[e], g.Dst[e]
		key := [2]int32{min(s, d), max(s, d)}
		if !drop[key] {
			out.Src = append(out.Src, s)
			out.Dst = append(out.Dst, d)
			if g.EdgeWeight != nil {
				out.EdgeWeight = append(out.EdgeWeight, g.EdgeWeight[e])
			}
		}
	}
	return out, feats
}

// FloorCount is int(n·r) computed in float64, the count every official
// augmentation uses (Python's int() truncation): e.g. 0 for n ≤ 4 at
// r = 0.2, and 0 for n ≤ 10 at r = 1 − 0.9 (10·0.09999999999999998 < 1).
func FloorCount(n int, r float64) int { return int(float64(n) * r) }

// DropN is GraphCL's node dropping dropN(r) (tu_dataset.py:139-163):
// delete FloorCount(n, r) nodes chosen uniformly (a prefix of a random
// permutation) and keep the subgraph induced by the others. It is a no-op
// on graphs with FloorCount(n, r) = 0 (n ≤ 4 at r = 0.2), and keeps at
// least one node.
func DropN(g *datasets.Graph, feats []float32, dim int, r float64, rng *rand.Rand) (datasets.Graph, []float32) {
	n := g.NumNodes
	drop := min(FloorCount(n, r), n-1)
	perm := rng.Perm(n)
	return Induced(g, feats, dim, perm[drop:])
}

// PermE is GraphCL's edge perturbation permE(r) (tu_dataset.py:211-227)
// on the directed edge list of E entries: keep E − FloorCount(E, r)
// entries chosen uniformly without replacement (in their original order),
// then append FloorCount(E, r) pairs (i, j) drawn uniformly with
// replacement from n×n — possibly self-loops or duplicates, one direction
// each. The node set and the entry count do not change. Duplicates count
// once in the suite's dense adjacency.
func PermE(g *datasets.Graph, feats []float32, r float64, rng *rand.Rand) (datasets.Graph, []float32) {
	e := len(g.Src)
	k := FloorCount(e, r)
	keep := rng.Perm(e)[:e-k]
	slices.Sort(keep)
	out := datasets.Graph{NumNodes: g.NumNodes, Features: feats,
		Src: make([]int32, 0, e), Dst: make([]int32, 0, e)}
	for _, i := range keep {
		out.Src = append(out.Src, g.Src[i])
		out.Dst = append(out.Dst, g.Dst[i])
	}
	for i := 0; i < k; i++ {
		out.Src = append(out.Src, int32(rng.IntN(g.NumNodes)))
		out.Dst = append(out.Dst, int32(rng.IntN(g.NumNodes)))
	}
	return out, feats
}

// Subgraph is GraphCL's subgraph(r) as its official code does it
// (tu_dataset.py:229-268), r being the fraction of nodes kept: draw a seed
// node uniformly; the candidates are the seed's out-neighbours only (the
// code discards the result of its set union, GraphCL issue #24, kept for
// reproduction); repeatedly draw a candidate uniformly and add it if not
// yet chosen, until FloorCount(n, r)+1 nodes are chosen, n draws were made,
// or the seed has no neighbour. The result is the induced subgraph on the
// chosen nodes plus a self-loop on every kept node (line 261). On n ≤ 4 at
// r = 0.2 it is the seed alone with its self-loop.
func Subgraph(g *datasets.Graph, feats []float32, dim int, r float64, rng *rand.Rand) (datasets.Graph, []float32) {
	n := g.NumNodes
	target := FloorCount(n, r)
	seed := rng.IntN(n)
	var cand []int
	seen := map[int]bool{}
	for e := range g.Src {
		if int(g.Src[e]) == seed && !seen[int(g.Dst[e])] {
			seen[int(g.Dst[e])] = true
			cand = append(cand, int(g.Dst[e]))
		}
	}
	slices.Sort(cand)
	chosen := []int{seed}
	in := map[int]bool{seed: true}
	for count := 0; len(chosen) <= target && len(cand) > 0; {
		count++
		if count > n {
			break
		}
		v := cand[rng.IntN(len(cand))]
		if in[v] {
			continue
		}
		in[v] = true
		chosen = append(chosen, v)
	}
	out, f := Induced(g, feats, dim, chosen)
	for v := 0; v < out.NumNodes; v++ {
		out.Src = append(out.Src, int32(v))
		out.Dst = append(out.Dst, int32(v))
	}
	return out, f
}

// MaskN is GraphCL's attribute masking maskN(r) of the semi-supervised TU
// code (tu_dataset.py:271-280): the feature rows of FloorCount(n, r) nodes,
// drawn uniformly without replacement, are replaced by the graph's mean
// feature row (over all its nodes, before masking). The structure is
// unchanged (shared, not copied).
func MaskN(g *datasets.Graph, feats []float32, dim int, r float64, rng *rand.Rand) (datasets.Graph, []float32) {
	n := g.NumNodes
	k := FloorCount(n, r)
	out := slices.Clone(feats[:n*dim])
	if k > 0 {
		mean := make([]float64, dim)
		for v := 0; v < n; v++ {
			for c := 0; c < dim; c++ {
				mean[c] += float64(feats[v*dim+c])
			}
		}
		for _, v := range rng.Perm(n)[:k] {
			for c := 0; c < dim; c++ {
				out[v*dim+c] = float32(mean[c] / float64(n))
			}
		}
	}
	return datasets.Graph{NumNodes: n, Src: g.Src, Dst: g.Dst, Features: out}, out
}

// Aug names one of GraphCL's augmentations for a view.
type Aug string

// GraphCL's augmentation names (pre/main.py --aug1/--aug2).
const (
	AugNone     Aug = "none"
	AugDropN    Aug = "dropN"
	AugPermE    Aug = "permE"
	AugSubgraph Aug = "subgraph"
	AugMaskN    Aug = "maskN"
	// AugRandom2 picks one of {dropN, subgraph} uniformly per graph and
	// view (tu_dataset.py:86-121), the README recipe.
	AugRandom2 Aug = "random2"
)

// Augs are the known augmentations.
var Augs = []Aug{AugNone, AugDropN, AugPermE, AugSubgraph, AugMaskN, AugRandom2}

// Valid reports whether a is a known augmentation.
func (a Aug) Valid() bool { return slices.Contains(Augs, a) }

// Apply runs augmentation a at ratio r on g (feats [n, dim]). random2's
// choice is the stream's first draw (rng.IntN(2): 0 dropN, 1 subgraph).
// An unknown a panics (callers check Valid first).
func (a Aug) Apply(g *datasets.Graph, feats []float32, dim int, r float64, rng *rand.Rand) (datasets.Graph, []float32) {
	switch a {
	case AugNone:
		return *g, feats
	case AugDropN:
		return DropN(g, feats, dim, r, rng)
	case AugPermE:
		return PermE(g, feats, r, rng)
	case AugSubgraph:
		return Subgraph(g, feats, dim, r, rng)
	case AugMaskN:
		return MaskN(g, feats, dim, r, rng)
	case AugRandom2:
		if rng.IntN(2) == 0 {
			return DropN(g, feats, dim, r, rng)
		}
		return Subgraph(g, feats, dim, r, rng)
	}
	panic("augment: unknown augmentation " + string(a))
}
