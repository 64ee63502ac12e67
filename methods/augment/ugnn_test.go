package augment

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/methods/gnn"
)

// randomGraph is an undirected graph on n nodes with about m distinct
// edges (each listed in both directions, in random order, direction pairs
// not adjacent) and features of width 3 whose row v is (v, −v, v + 0.5), so
// that a node's original id can be read back from its row.
func randomGraph(rng *rand.Rand, n, m int) (datasets.Graph, []float32) {
	g := datasets.Graph{NumNodes: n}
	seen := map[[2]int32]bool{}
	type arc struct{ s, d int32 }
	var arcs []arc
	for tries := 0; len(seen) < m && tries < 20*m+10 && n > 1; tries++ {
		a, b := int32(rng.IntN(n)), int32(rng.IntN(n))
		if a == b {
			continue
		}
		key := [2]int32{min(a, b), max(a, b)}
		if seen[key] {
			continue
		}
		seen[key] = true
		arcs = append(arcs, arc{a, b}, arc{b, a})
	}
	rng.Shuffle(len(arcs), func(i, j int) { arcs[i], arcs[j] = arcs[j], arcs[i] })
	for _, e := range arcs {
		g.Src = append(g.Src, e.s)
		g.Dst = append(g.Dst, e.d)
	}
	feats := make([]float32, 3*n)
	for v := 0; v < n; v++ {
		feats[3*v], feats[3*v+1], feats[3*v+2] = float32(v), -float32(v), float32(v)+0.5
	}
	g.Features = feats
	return g, feats
}

// originalIDs reads back the original node id of each row of a subgraph's
// features (row v of the original is (v, −v, v + 0.5)).
func originalIDs(t *testing.T, feats []float32, n int) []int {
	t.Helper()
	if len(feats) != 3*n {
		t.Fatalf("features have %d values for %d nodes of width 3", len(feats), n)
	}
	ids := make([]int, n)
	for i := range ids {
		v := feats[3*i]
		if feats[3*i+1] != -v || feats[3*i+2] != v+0.5 {
			t.Fatalf("row %d = %v is not a row of the original features", i, feats[3*i:3*i+3])
		}
		ids[i] = int(v)
	}
	return ids
}

type arcKey struct{ s, d int32 }

func arcMultiset(src, dst []int32) map[arcKey]int {
	m := map[arcKey]int{}
	for e := range src {
		m[arcKey{src[e], dst[e]}]++
	}
	return m
}

func sameMultiset(a, b map[arcKey]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestDropNodesInduced: ⌈0.8n⌉ nodes are kept, in ascending original
// order, with their own feature rows, and the edges are exactly the induced
// ones (brute force over the original edge list through the kept-node map).
func TestDropNodesInduced(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{1, 2, 3, 5, 10, 77} {
		for rep := 0; rep < 5; rep++ {
			g, feats := randomGraph(rng, n, 2*n)
			orig := slices.Clone(feats)
			origSrc, origDst := slices.Clone(g.Src), slices.Clone(g.Dst)
			sg, sf := DropNodes(&g, feats, 3, 0.2, Stream(int64(rep), "test", n, 0, 0))
			keep := gnn.KeepCount(0.8, n)
			if sg.NumNodes != keep {
				t.Fatalf("n = %d: kept %d nodes, want ⌈0.8n⌉ = %d", n, sg.NumNodes, keep)
			}
			if !slices.Equal(sg.Features, sf) {
				t.Fatalf("n = %d: returned features differ from the subgraph's", n)
			}
			ids := originalIDs(t, sf, keep)
			for i := 1; i < len(ids); i++ {
				if ids[i] <= ids[i-1] {
					t.Fatalf("n = %d: kept ids %v not strictly ascending", n, ids)
				}
			}
			if ids[0] < 0 || ids[len(ids)-1] >= n {
				t.Fatalf("n = %d: kept ids %v out of range", n, ids)
			}
			newID := map[int32]int32{}
			for i, v := range ids {
				newID[int32(v)] = int32(i)
			}
			var ws, wd []int32
			for e := range g.Src {
				s, okS := newID[g.Src[e]]
				d, okD := newID[g.Dst[e]]
				if okS && okD {
					ws, wd = append(ws, s), append(wd, d)
				}
			}
			if len(sg.Src) != len(sg.Dst) || !sameMultiset(arcMultiset(sg.Src, sg.Dst), arcMultiset(ws, wd)) {
				t.Fatalf("n = %d: edges %v→%v, want the induced %v→%v", n, sg.Src, sg.Dst, ws, wd)
			}
			if !slices.Equal(feats, orig) || !slices.Equal(g.Src, origSrc) || !slices.Equal(g.Dst, origDst) {
				t.Fatalf("n = %d: DropNodes modified its input", n)
			}
		}
	}
}

// TestDropNodesUniform: over many draws every node of a 10-node graph is
// kept with probability 8/10 (within 4 standard errors).
func TestDropNodesUniform(t *testing.T) {
	g, feats := randomGraph(rand.New(rand.NewPCG(1, 1)), 10, 15)
	const draws = 4000
	kept := make([]int, 10)
	for d := 0; d < draws; d++ {
		_, sf := DropNodes(&g, feats, 3, 0.2, Stream(5, "uniform", d, 0, 0))
		for _, v := range originalIDs(t, sf, 8) {
			kept[v]++
		}
	}
	se := math.Sqrt(0.8 * 0.2 / draws)
	for v, k := range kept {
		if p := float64(k) / draws; math.Abs(p-0.8) > 4*se {
			t.Errorf("node %d kept in %.3f of draws, want 0.8 ± %.3f", v, p, 4*se)
		}
	}
}

// TestSubgraphDeterminism: one (seed, purpose, a, b, c) stream gives one
// subgraph; changing any of the five gives another (77 nodes: C(77, 62)
// possible node sets, 300 edges: 2^300 edge subsets).
func TestSubgraphDeterminism(t *testing.T) {
	g, feats := randomGraph(rand.New(rand.NewPCG(2, 2)), 77, 300)
	type key struct {
		seed    int64
		purpose string
		a, b, c int
	}
	base := key{7, "ood", 1, 2, 3}
	nodes := func(k key) []int {
		_, sf := DropNodes(&g, feats, 3, 0.2, Stream(k.seed, k.purpose, k.a, k.b, k.c))
		return originalIDs(t, sf, gnn.KeepCount(0.8, 77))
	}
	edges := func(k key) []int32 {
		sg, _ := DropEdges(&g, feats, 0.2, Stream(k.seed, k.purpose, k.a, k.b, k.c))
		return append(slices.Clone(sg.Src), sg.Dst...)
	}
	if !slices.Equal(nodes(base), nodes(base)) || !slices.Equal(edges(base), edges(base)) {
		t.Fatal("the same stream gave two different subgraphs")
	}
	for _, other := range []key{
		{8, "ood", 1, 2, 3}, {-7, "ood", 1, 2, 3}, {7, "view2", 1, 2, 3},
		{7, "ood", 2, 2, 3}, {7, "ood", 1, 3, 3}, {7, "ood", 1, 2, 4}, {7, "ood", 2, 1, 3},
	} {
		if slices.Equal(nodes(base), nodes(other)) {
			t.Errorf("streams %+v and %+v dropped the same nodes", base, other)
		}
		if slices.Equal(edges(base), edges(other)) {
			t.Errorf("streams %+v and %+v dropped the same edges", base, other)
		}
	}
}

// TestDropEdges: both directions of an edge go together, nodes and
// features are untouched, ratio 0 drops nothing, and on a 2,000-edge graph
// the drop rate is within 3 standard errors of 0.2 (for several streams).
func TestDropEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	g, feats := randomGraph(rng, 400, 2000)
	if g.NumEdges() != 2000 {
		t.Fatalf("test graph has %d edges, want 2000", g.NumEdges())
	}
	sg, sf := DropEdges(&g, feats, 0, Stream(0, "e", 0, 0, 0))
	if !slices.Equal(sg.Src, g.Src) || !slices.Equal(sg.Dst, g.Dst) || sg.NumNodes != g.NumNodes || !slices.Equal(sf, feats) {
		t.Fatal("ratio 0 changed the graph")
	}
	se := math.Sqrt(0.2 * 0.8 / 2000)
	for s := 0; s < 5; s++ {
		sg, sf := DropEdges(&g, feats, 0.2, Stream(int64(s), "e", 1, 2, 3))
		if sg.NumNodes != g.NumNodes || !slices.Equal(sf, feats) || !slices.Equal(sg.Features, feats) {
			t.Fatal("DropEdges changed nodes or features")
		}
		arcs := arcMultiset(sg.Src, sg.Dst)
		all := arcMultiset(g.Src, g.Dst)
		for a, k := range arcs {
			if all[a] != k {
				t.Fatalf("arc %v appears %d times, %d in the original", a, k, all[a])
			}
			if arcs[arcKey{a.d, a.s}] != k {
				t.Fatalf("arc %d→%d kept without its reverse", a.s, a.d)
			}
		}
		rate := 1 - float64(len(sg.Src))/float64(len(g.Src))
		if math.Abs(rate-0.2) > 3*se {
			t.Errorf("stream %d: dropped %.4f of the edges, want 0.2 ± %.4f", s, rate, 3*se)
		}
	}
	if sg, _ := DropEdges(&g, feats, 1, Stream(0, "e", 0, 0, 0)); len(sg.Src) != 0 {
		t.Errorf("ratio 1 kept %d arcs", len(sg.Src))
	}
}

// TestDropEdgesDirected: on a directed graph (a superpixel kNN graph) every
// edge can be dropped, whichever way it points, edges of one node pair go
// together, and weights follow their edges.
func TestDropEdgesDirected(t *testing.T) {
	// 0→1, 1→0 (a pair), 2→0 and 3→1 (one direction each, high → low).
	g := datasets.Graph{NumNodes: 4, Directed: true,
		Src: []int32{0, 1, 2, 3}, Dst: []int32{1, 0, 0, 1}, EdgeWeight: []float32{0.5, 0.25, 0.125, 1}}
	if sg, _ := DropEdges(&g, nil, 1, Stream(0, "e", 0, 0, 0)); len(sg.Src) != 0 || !sg.Directed {
		t.Errorf("ratio 1 kept %d of the directed edges (%v→%v)", len(sg.Src), sg.Src, sg.Dst)
	}
	dropped := map[[2]int32]int{}
	for s := range 400 {
		sg, _ := DropEdges(&g, nil, 0.5, Stream(int64(s), "e", 1, 2, 3))
		kept := map[[2]int32]float32{}
		for e := range sg.Src {
			kept[[2]int32{sg.Src[e], sg.Dst[e]}] = sg.EdgeWeight[e]
		}
		if _, a := kept[[2]int32{0, 1}]; a != func() bool { _, b := kept[[2]int32{1, 0}]; return b }() {
			t.Fatalf("stream %d: 0→1 and 1→0 not kept or dropped together: %v", s, kept)
		}
		for e := range g.Src {
			k := [2]int32{g.Src[e], g.Dst[e]}
			w, ok := kept[k]
			if !ok {
				dropped[k]++
			} else if w != g.EdgeWeight[e] {
				t.Fatalf("edge %v kept with weight %g, want %g", k, w, g.EdgeWeight[e])
			}
		}
	}
	for _, k := range [][2]int32{{2, 0}, {3, 1}, {0, 1}} {
		if dropped[k] < 150 || dropped[k] > 250 {
			t.Errorf("edge %v dropped %d of 400 times at ratio 0.5", k, dropped[k])
		}
	}
}
