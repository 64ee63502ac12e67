package gnn

import (
	"math"
	"math/bits"
	"slices"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
)

// The edge-list layout (gather/scatter) holds a batch as one disjoint union
// of graphs instead of padded per-graph blocks:
//
//   - X [Nodes, D]: the nodes of graph slot 0, then slot 1, …, then padding
//     nodes up to Nodes (BucketTotal of the real count + 1, so there is
//     always at least one padding node);
//   - Src, Dst [Edges] int32: directed edges as node indices into X (Dst
//     receives, as the dense adjacency's row), padded to Edges =
//     BucketTotal(edge count) with edges from the last padding node to itself;
//   - EdgeWeight [Edges]: 1 for a real edge, 0 for a padding edge (after
//     pooling, the product of both end nodes' pooled masks);
//   - Graph [Nodes] int32: the slot of every node, B for padding nodes;
//   - Mask [Nodes]: 1 for a real node, 0 for a padding node.
//
// Memory is O(Nodes·D + Edges·D) instead of the dense layout's
// O(B·N·N + B·N·D), so graphs of thousands of nodes fit. Like NewBatch, a
// graph slot beyond the batch's graphs (up to B = BucketGraphs) holds one
// zero node with weight 0, so both layouts compute the same function on the
// same slots. Compiled shapes are (B, Nodes, Edges): B a power of two and
// Nodes, Edges on BucketTotal's grid of four sizes per doubling, so a run
// compiles a few dozen shapes at most.

// BucketTotal rounds a node or edge count of a whole batch up to its padding
// bucket: 64 for n ≤ 64, else the next multiple of 2^(⌊log₂(n−1)⌋−2), i.e.
// four sizes per doubling (≤ 25% padding, ~4 compiled sizes per octave).
func BucketTotal(n int) int {
	if n <= 64 {
		return 64
	}
	step := 1 << (bits.Len(uint(n-1)) - 3)
	return (n + step - 1) / step * step
}

// EdgeBatch is a batch in the edge-list layout (see the comment above
// BucketTotal). Slot s < len(Index) holds graph Index[s].
type EdgeBatch struct {
	// Index are the graphs of the batch, as indices into the graph list.
	Index []int
	// B is the padded number of graph slots, Nodes and Edges the padded
	// totals, D the feature width.
	B, Nodes, Edges, D int
	// X [Nodes, D], Mask [Nodes], EdgeWeight [Edges], Weight [B] (1 for a
	// real graph slot), all row-major.
	X, Mask, EdgeWeight, Weight []float32
	// Src, Dst [Edges] and Graph [Nodes], as described above.
	Src, Dst, Graph []int32
	// Offset [B+1]: slot s holds nodes Offset[s] ≤ v < Offset[s+1].
	Offset []int
}

// NewEdgeBatch lays the graphs idx (indices into graphs and feats) out as
// one edge-list batch of BucketGraphs(len(idx), maxBatch) slots. Duplicate
// edges of a graph are kept once, as the dense 0/1 adjacency of NewBatch
// holds them, so both layouts see the same graph.
func NewEdgeBatch(graphs []datasets.Graph, feats *Features, idx []int, maxBatch int) *EdgeBatch {
	B, D := BucketGraphs(len(idx), maxBatch), feats.Dim
	total, edges := 0, 0
	for s := 0; s < B; s++ {
		if s < len(idx) {
			total += graphs[idx[s]].NumNodes
			edges += len(graphs[idx[s]].Src)
		} else {
			total++
		}
	}
	nodes, nEdges := BucketTotal(total+1), BucketTotal(max(edges, 1))
	b := &EdgeBatch{
		Index: idx, B: B, Nodes: nodes, Edges: nEdges, D: D,
		X: make([]float32, nodes*D), Mask: make([]float32, nodes),
		EdgeWeight: make([]float32, nEdges), Weight: make([]float32, B),
		Src: make([]int32, 0, nEdges), Dst: make([]int32, 0, nEdges),
		Graph: make([]int32, nodes), Offset: make([]int, B+1),
	}
	v := 0
	var pairs []int64
	for s := 0; s < B; s++ {
		b.Offset[s] = v
		if s >= len(idx) {
			b.Graph[v], b.Mask[v] = int32(s), 1
			v++
			continue
		}
		g := &graphs[idx[s]]
		b.Weight[s] = 1
		copy(b.X[v*D:], feats.Nodes[idx[s]])
		pairs = pairs[:0]
		for e := range g.Src {
			pairs = append(pairs, int64(g.Dst[e])<<32|int64(g.Src[e]))
		}
		slices.Sort(pairs)
		pairs = slices.Compact(pairs)
		for _, p := range pairs {
			b.Dst = append(b.Dst, int32(v)+int32(p>>32))
			b.Src = append(b.Src, int32(v)+int32(p&math.MaxUint32))
			b.EdgeWeight[len(b.Src)-1] = 1
		}
		for k := 0; k < g.NumNodes; k++ {
			b.Graph[v+k], b.Mask[v+k] = int32(s), 1
		}
		v += g.NumNodes
	}
	b.Offset[B] = v
	for ; v < nodes; v++ {
		b.Graph[v] = int32(B)
	}
	for len(b.Src) < nEdges {
		b.Src, b.Dst = append(b.Src, int32(nodes-1)), append(b.Dst, int32(nodes-1))
	}
	return b
}

// Tensors returns X, Src, Dst, EdgeWeight, Graph and Mask as GoMLX
// tensors, in that order (EdgeInputs's order).
func (b *EdgeBatch) Tensors() []*tensors.Tensor {
	return []*tensors.Tensor{
		tensors.FromFlatDataAndDimensions(b.X, b.Nodes, b.D),
		tensors.FromFlatDataAndDimensions(b.Src, b.Edges),
		tensors.FromFlatDataAndDimensions(b.Dst, b.Edges),
		tensors.FromFlatDataAndDimensions(b.EdgeWeight, b.Edges),
		tensors.FromFlatDataAndDimensions(b.Graph, b.Nodes),
		tensors.FromFlatDataAndDimensions(b.Mask, b.Nodes),
	}
}

// EdgeGraph is the structure of an edge-list batch inside a GoMLX graph.
type EdgeGraph struct {
	// Src, Dst [E, 1] int32 (node indices, gather/scatter form);
	// Weight [E] (no gradient).
	Src, Dst, Weight *Node
	// Graph [Nodes, 1] int32: every node's graph slot (B for padding).
	Graph *Node
	// NumGraphs is B.
	NumGraphs int
}

// NewEdgeGraph wraps the inputs src, dst [E] int32, weight [E], graph
// [Nodes] int32 of a batch of numGraphs slots (EdgeBatch.Tensors).
func NewEdgeGraph(src, dst, weight, graph *Node, numGraphs int) EdgeGraph {
	return EdgeGraph{Src: InsertAxes(src, -1), Dst: InsertAxes(dst, -1), Weight: StopGradient(weight), Graph: InsertAxes(graph, -1), NumGraphs: numGraphs}
}

// WithWeight returns e with edge weights w [E].
func (e EdgeGraph) WithWeight(w *Node) EdgeGraph {
	e.Weight = StopGradient(w)
	return e
}

// segmentSum is Σ over rows of x [N, ...] with the same segment id in seg
// [N, 1] (ids < n): → [n, ...].
func segmentSum(x, seg *Node, n int) *Node {
	dims := x.Shape().Clone().Dimensions
	dims[0] = n
	return ScatterSum(Zeros(x.Graph(), shapes.Make(x.DType(), dims...)), seg, x, false, false)
}

// EdgePropagate is the weighted neighbourhood sum, the edge-list A·h:
// out_i = Σ_{e: dst_e = i} w_e·h_{src_e}. h [Nodes, D] → [Nodes, D].
func EdgePropagate(h *Node, e EdgeGraph) *Node {
	m := Mul(Gather(h, e.Src), InsertAxes(e.Weight, -1)) // [E, D]
	return segmentSum(m, e.Dst, h.Shape().Dim(0))
}

// inDegree is Σ_{e: dst_e = i} w_e, the dense adjacency's row sum: [Nodes].
func inDegree(e EdgeGraph, nodes int) *Node {
	return segmentSum(e.Weight, e.Dst, nodes)
}

// GINConvEdges is GINConv in the edge-list layout:
// h [Nodes, Din], mask [Nodes] → [Nodes, hidden], padding rows 0. Same
// variables (eps, mlp/layer_{0,1}) as GINConv.
func GINConvEdges(scope *model.Scope, h *Node, e EdgeGraph, mask *Node, hidden int) *Node {
	g := h.Graph()
	eps := scope.VariableWithValue("eps", float32(0)).NodeValue(g)
	z := Add(Mul(OnePlus(eps), h), EdgePropagate(h, e))
	z = mlp(scope.In("mlp"), z, true, hidden, hidden)
	return maskNodes2(z, mask)
}

// GINConvBNEdges is GINConvBN in the edge-list layout (same variables):
// per part i, hs[i] [Nodes, Din], es[i], masks[i] [Nodes] and ws[i]
// [Nodes] the nodes' weights in BatchNorm's statistics (RealNodesEdges)
// → [Nodes, hidden], padding rows 0.
func GINConvBNEdges(scope *model.Scope, hs []*Node, es []EdgeGraph, masks, ws []*Node, hidden int) []*Node {
	eps := scope.VariableWithValue("eps", float32(0)).NodeValue(hs[0].Graph())
	zs := make([]*Node, len(hs))
	for i, h := range hs {
		zs[i] = Add(Mul(OnePlus(eps), h), EdgePropagate(h, es[i]))
	}
	zs = ginMLPBN(scope, zs, ws, hidden)
	for i := range zs {
		zs[i] = maskNodes2(zs[i], masks[i])
	}
	return zs
}

// maskNodes2 zeroes the padding rows of h [Nodes, D] with mask [Nodes].
func maskNodes2(h, mask *Node) *Node { return Mul(h, InsertAxes(mask, -1)) }

// GCNPropagateEdges is GCNPropagate in the edge-list layout:
// D̂^{-1/2}(A + remaining self-loops)D̂^{-1/2}h with A the weighted edges;
// a node's existing self-loop weight is Σ of its src = dst edges.
// h [Nodes, D], mask [Nodes] → [Nodes, D], padding rows 0.
func GCNPropagateEdges(h *Node, e EdgeGraph, mask *Node) *Node {
	n := h.Shape().Dim(0)
	loopW := Mul(e.Weight, Reshape(ConvertDType(Equal(e.Src, e.Dst), e.Weight.DType()), -1))
	diag := segmentSum(loopW, e.Dst, n)
	fill := Where(Equal(diag, ZerosLike(diag)), mask, ZerosLike(mask))
	deg := Add(inDegree(e, n), fill)
	pos := GreaterThan(deg, ZerosLike(deg))
	dinv := Where(pos, Inverse(Sqrt(Where(pos, deg, OnesLike(deg)))), ZerosLike(deg))
	d := InsertAxes(dinv, -1)
	x := Mul(h, d)
	return Mul(Add(EdgePropagate(x, e), Mul(x, InsertAxes(fill, -1))), d)
}

// GCNLayerEdges is GCNLayer in the edge-list layout (same variables, no
// activation): h [Nodes, Din], mask [Nodes] → [Nodes, out], padding rows 0.
func GCNLayerEdges(scope *model.Scope, h *Node, e EdgeGraph, mask *Node, out int) *Node {
	g := h.Graph()
	in := h.Shape().Dim(-1)
	w := uniformVariable(scope, g, "weights", math.Sqrt(6/float64(in+out)), in, out)
	b := uniformVariable(scope, g, "biases", 0, out)
	var z *Node
	if in < out {
		z = MatMul(GCNPropagateEdges(h, e, mask), w)
	} else {
		z = GCNPropagateEdges(MatMul(h, w), e, mask)
	}
	return maskNodes2(Add(z, InsertAxes(b, 0)), mask)
}

// GCNConvEdges is GCNConv in the edge-list layout (same variables):
// h [Nodes, Din], mask [Nodes] → [Nodes, hidden], padding rows 0.
func GCNConvEdges(scope *model.Scope, h *Node, e EdgeGraph, mask *Node, hidden int) *Node {
	return maskNodes2(ReLU(GCNLayerEdges(scope, h, e, mask, hidden)), mask)
}

// SAGScoreEdges is SAGScore in the edge-list layout (same variables): the
// one-channel GCN layer of SAGPool (Lee et al. 2019, eq. 3).
// h [Nodes, D], mask [Nodes] → [Nodes] (0 on padding).
func SAGScoreEdges(scope *model.Scope, h *Node, e EdgeGraph, mask *Node) *Node {
	return Reshape(GCNLayerEdges(scope, h, e, mask, 1), h.Shape().Dim(0))
}

// SAGEConvEdges is SAGEConv in the edge-list layout (same variables): the
// mean over in-neighbours weighted by the edge weights, 0 without any.
// h [Nodes, Din], mask [Nodes] → [Nodes, hidden], padding rows 0.
func SAGEConvEdges(scope *model.Scope, h *Node, e EdgeGraph, mask *Node, hidden int, normalize bool) *Node {
	deg := InsertAxes(inDegree(e, h.Shape().Dim(0)), -1)
	pos := GreaterThan(deg, ZerosLike(deg))
	inv := Where(pos, Inverse(Where(pos, deg, OnesLike(deg))), ZerosLike(deg))
	mean := Mul(EdgePropagate(h, e), inv)
	z := Add(Linear(scope.In("lin_neigh"), mean, hidden), linearNoBias(scope.In("lin_self"), h, hidden))
	if normalize {
		z = L2Normalize(z, -1)
	}
	return maskNodes2(ReLU(z), mask)
}

// TopKScoreEdges is TopKScore in the edge-list layout (same variable):
// h [Nodes, D] → s [Nodes].
func TopKScoreEdges(scope *model.Scope, h *Node) *Node {
	g := h.Graph()
	d := h.Shape().Dim(-1)
	p := uniformVariable(scope, g, "projection", 1/math.Sqrt(float64(d)), d)
	norm := Sqrt(AddScalar(ReduceAllSum(Square(p)), 1e-12))
	return Div(Einsum("nd,d->n", h, p), norm)
}

// TopKSelectEdges marks the ⌈ρ·n_g⌉ highest scores among the real nodes
// (mask 1) of every graph slot g (ties to the lower node index, as
// topKSelect): score, mask [Nodes] → keep [Nodes] (mask's dtype, no
// gradient). n_g and the keep count are computed in float32 exactly as
// topKSelect does.
//
// There is no per-segment sort: every node gets a unique int64 key, its
// score's order-preserving integer image times 2^24 plus the
// complement of its index (so a tie ranks the lower index first; Nodes <
// 2^24), and the k_g-th largest key of each graph is found by a 56-step
// bitwise search (radix select): per step one Gather of the graphs'
// candidate thresholds to the nodes, one comparison and one ScatterSum of
// the counts back. 56·O(Nodes) element operations, against GoMLX's Sort,
// whose pure-Go kernel calls an interpreted comparator closure
// O(Nodes·log Nodes) times.
func TopKSelectEdges(score, mask *Node, e EdgeGraph, ratio float64) *Node {
	g := score.Graph()
	nodes := score.Shape().Dim(0)
	if nodes >= 1<<24 {
		panic("gnn: TopKSelectEdges: more than 2^24 nodes in a batch")
	}
	nseg := e.NumGraphs + 1
	s := StopGradient(score)
	s = Where(Equal(s, ZerosLike(s)), ZerosLike(s), s) // −0 → +0: float comparison sees them equal
	b32 := Bitcast(s, dtypes.Int32)
	neg := LessThan(b32, ScalarZero(g, dtypes.Int32))
	ord := Where(neg, BitwiseXor(b32, Scalar(g, dtypes.Int32, int32(math.MaxInt32))), b32) // signed order = float order
	hi := AddScalar(ConvertDType(ord, dtypes.Int64), 1<<31)                                // [0, 2^32)
	idx := Iota(g, shapes.Make(dtypes.Int64, nodes), 0)
	key := Add(MulScalar(hi, 1<<24), Sub(Scalar(g, dtypes.Int64, int64(1<<24-1)), idx))
	valid := GreaterThan(mask, ZerosLike(mask))
	key = Where(valid, key, Scalar(g, dtypes.Int64, int64(-1)))
	count := segmentSum(mask, e.Graph, nseg)                // [B+1] real nodes per slot
	keep := Ceil(AddScalar(MulScalar(count, ratio), -1e-6)) // as topKSelect
	t := Zeros(g, shapes.Make(dtypes.Int64, nseg))          // per-slot threshold
	for bit := 55; bit >= 0; bit-- {
		cand := AddScalar(t, float64(int64(1)<<bit))
		above := ConvertDType(GreaterOrEqual(key, Reshape(Gather(cand, e.Graph), nodes)), mask.DType())
		t = Where(GreaterOrEqual(segmentSum(above, e.Graph, nseg), keep), cand, t)
	}
	sel := And(valid, GreaterOrEqual(key, Reshape(Gather(t, e.Graph), nodes)))
	return StopGradient(ConvertDType(sel, mask.DType()))
}

// TopKPoolEdges is TopKPool in the edge-list layout. Nodes are not
// compacted: a dropped node keeps its row with mask 0 (and state 0), and an
// edge survives with weight w_e·keep_src·keep_dst, so the pooled batch has
// the input's shapes and the next convolutions and the readout see exactly
// the dense path's pooled graph. h [Nodes, D], mask, score [Nodes] →
// (h' [Nodes, D] = h·tanh(s) on kept rows, 0 elsewhere; e with pooled
// weights; mask' [Nodes]).
func TopKPoolEdges(h *Node, e EdgeGraph, mask, score *Node, ratio float64) (*Node, EdgeGraph, *Node) {
	keep := TopKSelectEdges(score, mask, e, ratio)
	hNew := maskNodes2(Mul(h, InsertAxes(Tanh(score), -1)), keep)
	w := Mul(e.Weight, Mul(Reshape(Gather(keep, e.Src), -1), Reshape(Gather(keep, e.Dst), -1)))
	return hNew, e.WithWeight(w), keep
}

// MeanMaxReadoutEdges is MeanMaxReadout in the edge-list layout: the mean
// and the max of h over the real nodes (mask 1) of every graph slot.
// h [Nodes, D], mask [Nodes] → [B, 2D]. Every slot has ≥ 1 real node. The
// max is a ScatterMax of h + (mask − 1)·10³⁰ (whose gradient, like
// ReduceMax's, goes to every tied maximum).
func MeanMaxReadoutEdges(h, mask *Node, e EdgeGraph) *Node {
	g := h.Graph()
	nseg, d := e.NumGraphs+1, h.Shape().Dim(-1)
	m := InsertAxes(mask, -1)
	sum := segmentSum(Mul(h, m), e.Graph, nseg)
	count := segmentSum(m, e.Graph, nseg)
	mean := Div(sum, Max(count, OnesLike(count)))
	penalty := StopGradient(MulScalar(OneMinus(m), -1e30))
	init := BroadcastToDims(Scalar(g, h.DType(), -math.MaxFloat32), nseg, d)
	maxv := ScatterMax(init, e.Graph, Add(h, penalty), false, false)
	out := Concatenate([]*Node{mean, maxv}, -1)
	return Slice(out, AxisRange(0, e.NumGraphs))
}
