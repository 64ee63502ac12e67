package ugnn

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/methods/gnn"
)

// view is a perturbed copy of one graph with its (standardised) features.
type view struct {
	g     datasets.Graph
	nodes []float32 // [g.NumNodes, dim]
}

// DropNodes returns the subgraph of g induced by ⌈(1−ratio)·n⌉ nodes
// drawn uniformly without replacement (at least one), with their feature
// rows: the paper's node-deletion perturbation (§4.2, after You et al.
// 2020). Node ids are renumbered in ascending original order, and exactly
// the edges between kept nodes remain. feats is [n, dim].
func DropNodes(g *datasets.Graph, feats []float32, dim int, ratio float64, rng *rand.Rand) (datasets.Graph, []float32) {
	n := g.NumNodes
	keep := max(1, gnn.KeepCount(1-ratio, n))
	perm := rng.Perm(n)[:keep]
	slices.Sort(perm)
	newID := make([]int32, n)
	for i := range newID {
		newID[i] = -1
	}
	out := datasets.Graph{NumNodes: keep, Features: make([]float32, 0, keep*dim), Directed: g.Directed}
	for i, v := range perm {
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

// DropEdges returns g without each undirected edge independently with
// probability ratio (i.i.d. edge deletion, §4.2); both directions of an
// edge go together. Nodes and features are unchanged. A Directed graph
// (the superpixel kNN graphs) is treated the same way: each node pair
// joined in either direction is one draw, and its edges (one or both
// directions) go together; edge weights follow their edges.
func DropEdges(g *datasets.Graph, feats []float32, ratio float64, rng *rand.Rand) (datasets.Graph, []float32) {
	out := datasets.Graph{NumNodes: g.NumNodes, Features: feats, Directed: g.Directed}
	// One draw per pair, at its first edge in (Src, Dst) order: for an
	// undirected graph that is the (low, high) direction, as before.
	drop := map[[2]int32]bool{}
	for e := range g.Src {
		s, d := g.Src[e], g.Dst[e]
		key := [2]int32{min(s, d), max(s, d)}
		if _, seen := drop[key]; !seen {
			drop[key] = rng.Float64() < ratio
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

// streamRNG is a generator for one (seed, purpose, a, b, c) stream, so that
// every subgraph draw is deterministic given the run seed and independent of
// batch order or parallelism.
func streamRNG(seed int64, purpose string, a, b, c int) *rand.Rand {
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
