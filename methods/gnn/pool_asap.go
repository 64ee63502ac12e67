package gnn

import (
	"math"
	"slices"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
)

// ASAPOptions are ASAP's settings beyond the pooling ratio.
type ASAPOptions struct {
	// Dropout is the dropout rate on the attention scores during training
	// (the scores are dropped, then used both for the cluster features and
	// for the assignment matrix S, as in PyG's ASAPooling).
	Dropout float64
	// Edges bounds the edges of a batch, for the static capacity of the
	// master query's edge list (EdgeBudget.Capacity); nil means N(N−1) per
	// graph, always enough.
	Edges EdgeBudget
	// DenseClusterMax is the largest B·N·N·D for which the master query
	// uses ClusterMaxDense (ClusterMax). The default 0 — always the edge
	// list — is the rows' setting: the edge list was as fast even where
	// the dense tensor is small (a gin-asap epoch on Letter-high,
	// B·N·N·D = 4.7M: 0.26–0.37 s with edges, 0.34–0.59 s dense, on a
	// loaded 2-core machine). Tests and benchmarks set it to compare the
	// two exact paths.
	DenseClusterMax int
}

// EdgeBudget bounds how many edges a batch of distinct graphs can hold:
// EdgeBudget[r] is the largest total number of directed non-self-loop
// edges of any r graphs of the run (the sum of the r largest edge
// counts), so EdgeBudget[0] = 0 and it has one entry per graph plus one.
type EdgeBudget []int

// NewEdgeBudget is the EdgeBudget of graphs (the graph list a run batches
// from; batches hold distinct graphs, as EpochBatches and Probabilities
// make them). On COIL-DEL 256 graphs hold at most 77,530 edges, where
// 256 × the largest graph's 444 would be 113,664.
func NewEdgeBudget(graphs []datasets.Graph) EdgeBudget {
	counts := make([]int, len(graphs))
	for i := range graphs {
		for e := range graphs[i].Src {
			if graphs[i].Src[e] != graphs[i].Dst[e] {
				counts[i]++
			}
		}
	}
	slices.SortFunc(counts, func(a, b int) int { return b - a })
	budget := make(EdgeBudget, len(graphs)+1)
	for i, c := range counts {
		budget[i+1] = budget[i] + c
	}
	return budget
}

// Capacity is the static edge-list size for a batch of b graph slots of n
// nodes: the budget of b graphs (padding slots have no edges), at most
// b·n(n−1), and at least 1. A nil budget gives b·n(n−1).
func (e EdgeBudget) Capacity(b, n int) int {
	c := b * n * (n - 1)
	if len(e) > 0 {
		c = min(c, e[min(b, len(e)-1)])
	}
	return max(c, 1)
}

// ASAPooled is ASAPool's output: the pooled batch and ASAP's internals.
type ASAPooled struct {
	Pooled
	// Alpha [B, N, N] is the attention α[b,c,j] of member j in cluster c
	// (0 outside the cluster; each real cluster's row sums to 1, before
	// dropout). S of the paper is its transpose: S[j, c] = α[c, j].
	Alpha *Node
	// Fitness [B, N] is every cluster's LEConv fitness φ ∈ (0, 1).
	Fitness *Node
	// AHat [B, N, N] is A + remaining self-loops (no gradient).
	AHat *Node
}

// ASAPool is ASAP, Adaptive Structure Aware Pooling (Ranjan, Sanyal &
// Talukdar 2020, AAAI), following PyG's ASAPooling (GNN=None,
// add_self_loops=False, LeakyReLU slope 0.2):
//
//   - Clusters are the 1-hop neighbourhoods with self-loop: cluster i holds
//     j iff Â_ij ≠ 0, Â = A + remaining self-loops (SelfLoopFill).
//   - Master query m_i = W_q·max_{j∈c_i} h_j + b_q (ClusterMax, then
//     Linear "lin", D → D).
//   - Attention α_ij = softmax_{j∈c_i} LeakyReLU_{0.2}(w·[m_i ‖ h_j] + b)
//     (Linear "att", 2D → 1). As w·[m_i ‖ h_j] = w_m·m_i + w_h·h_j, the
//     logits are a [B, N, N] sum of two [B, N] vectors: no per-edge
//     feature vector is ever built. Dropout on α while training.
//   - Cluster features h^c_i = Σ_j α_ij h_j (a batched matmul).
//   - Cluster fitness by LEConv (Ranjan et al. 2020, eq. 6; PyG LEConv,
//     "le"): φ_i = σ(Σ_{j∈c_i} (W1 h^c_i + b1 − W2 h^c_j) + W3 h^c_i + b3),
//     unweighted over the self-looped clusters, as PyG calls it.
//   - Keep the ⌈ρ·n_b⌉ fittest clusters of each graph b; their features
//     are gated: h'_k = h^c_{idx_k} · φ_{idx_k}.
//   - Pooled adjacency A' = Sᵀ Â S with S[j, c] = α_cj restricted to kept
//     clusters c, then self-loops removed. In our row = receiver layout
//     that is A' = P Â Pᵀ with P = Select·α [B, K, N]. A' is weighted, and
//     the next convolution uses the weights.
//
// The authors' code (malllabiisc/ASAP) differs from PyG's defaults, which
// this follows: it computes the query and attention on a GCN of h (PyG:
// GNN=None), detaches S's values and keeps self-loops in A'.
//
// h [B, N, D], adj [B, N, N], mask [B, N] → ASAPooled with K =
// KeepCount(ratio, N); Pooled.Select is the one-hot selection of the kept
// cluster centres.
//
// Memory: no [B, N, N, D] tensor. Per-edge quantities (logits, α, the
// memberships) are [B, N, N] scalars — for COIL-DEL (B = 256, N = 80,
// D = 128) 1.6M floats, 6.5 MB each, the size of the adjacency itself —
// and the master query's max runs on an edge list (ClusterMaxEdges):
// E·D = 77,530 × 128 = 9.9M floats (40 MB), where the dense broadcast
// would be 210M (840 MB).
func ASAPool(scope *model.Scope, h, adj, mask *Node, ratio float64, opt ASAPOptions) ASAPooled {
	g := h.Graph()
	dt := h.DType()
	d := h.Shape().Dim(-1)
	fill := SelfLoopFill(adj, mask)
	eye := InsertAxes(eyeLike(adj), 0)
	ahat := StopGradient(Add(adj, Mul(eye, InsertAxes(fill, -1)))) // A + I over real nodes
	// member[b,i,j]: j belongs to cluster i. Padding nodes form the
	// singleton cluster {i}, so no softmax row is empty (an empty masked
	// softmax divides 0 by 0 in the gradient); they are never selected.
	member := StopGradient(LogicalOr(GreaterThan(ahat, ZerosLike(ahat)), GreaterThan(BroadcastToShape(eye, ahat.Shape()), ZerosLike(ahat))))

	// Master query and attention.
	xq := ClusterMax(h, member, mask, opt.Edges, opt.DenseClusterMax)
	q := Linear(scope.In("lin"), xq, d)
	att := scope.In("att")
	bound := 1 / math.Sqrt(float64(2*d))
	w := uniformVariable(att, g, "weights", bound, 2*d, 1)
	b := uniformVariable(att, g, "biases", bound, 1)
	wq := Reshape(Slice(w, AxisRange(0, d)), d)
	wh := Reshape(Slice(w, AxisRange(d, 2*d)), d)
	u := Add(Einsum("bnd,d->bn", q, wq), Reshape(b)) // [B, N]: the cluster (query) part
	v := Einsum("bnd,d->bn", h, wh)                  // [B, N]: the member part
	logits := activation.LeakyReluWith(Add(InsertAxes(u, -1), InsertAxes(v, 1)), 0.2)
	alpha := MaskedSoftmax(logits, member, -1) // [B, N(cluster), N(member)]
	if opt.Dropout > 0 && !IsInference(g) {    // DropoutNormalize: only in graphs marked as training
		alpha = layers.DropoutNormalize(scope, alpha, Scalar(g, dt, opt.Dropout), true)
	}
	xc := maskNodes(Einsum("bij,bjd->bid", alpha, h), mask)

	// Cluster fitness (LEConv with one output channel).
	le := scope.In("le")
	memberF := ConvertDType(member, dt)
	a1 := Linear(le.In("lin1"), xc, 1)
	a2 := linearNoBias(le.In("lin2"), xc, 1)
	a3 := Linear(le.In("lin3"), xc, 1)
	deg := InsertAxes(ReduceSum(memberF, -1), -1) // [B, N, 1]
	fit := Sigmoid(Add(Sub(Mul(deg, a1), Einsum("bij,bjo->bio", memberF, a2)), a3))
	fit = Reshape(fit, h.Shape().Dim(0), h.Shape().Dim(1)) // [B, N]

	// Cluster selection and coarsening.
	sel, newMask := topKSelect(fit, mask, ratio)
	hNew := maskNodes(Einsum("bkn,bnd->bkd", sel, Mul(xc, InsertAxes(fit, -1))), newMask)
	p := Einsum("bkn,bnm->bkm", sel, alpha) // rows of α of the kept clusters
	aNew := Einsum("bkm,bjm->bkj", Einsum("bkn,bnm->bkm", p, ahat), p)
	k := newMask.Shape().Dim(1)
	offDiag := OneMinus(ConvertDType(Diagonal(g, k), dt))
	aNew = Mul(aNew, Mul(InsertAxes(offDiag, 0), Mul(InsertAxes(newMask, -1), InsertAxes(newMask, 1))))
	return ASAPooled{
		Pooled: Pooled{H: hNew, Adj: aNew, Mask: newMask, Select: sel},
		Alpha:  alpha, Fitness: fit, AHat: ahat,
	}
}

// ClusterMax is ASAP's master-query aggregation, the feature-wise max over
// each cluster: out[b,i,:] = max_{j: member[b,i,j]} h[b,j,:], and 0 for
// padding nodes. h [B, N, D], member [B, N, N] bool (every real node in its
// own cluster), mask [B, N] → [B, N, D].
//
// It uses ClusterMaxEdges with capacity edges.Capacity(B, N), or
// ClusterMaxDense when B·N·N·D ≤ denseMax (ASAPOptions.DenseClusterMax).
// Both are exact.
func ClusterMax(h, member, mask *Node, edges EdgeBudget, denseMax int) *Node {
	b, n, d := h.Shape().Dim(0), h.Shape().Dim(1), h.Shape().Dim(2)
	if b*n*n*d <= denseMax {
		return ClusterMaxDense(h, member, mask)
	}
	return ClusterMaxEdges(h, member, mask, edges.Capacity(b, n))
}

// ClusterMaxDense is ClusterMax through a masked max over a [B, N, N, D]
// broadcast: memory B·N²·D floats (840 MB for COIL-DEL's B = 256,
// N = 80, D = 128), so only for small batches.
func ClusterMaxDense(h, member, mask *Node) *Node {
	b, n, d := h.Shape().Dim(0), h.Shape().Dim(1), h.Shape().Dim(2)
	x := BroadcastToDims(InsertAxes(h, 1), b, n, n, d) // x[b,i,j,:] = h[b,j,:]
	m := BroadcastToDims(InsertAxes(member, -1), b, n, n, d)
	out := MaskedReduceMax(x, m, 2)
	return Where(GreaterThan(mask, ZerosLike(mask)), out, ZerosLike(out)) // [B, N] condition: a prefix
}

// ClusterMaxEdges is ClusterMax through an edge list (PyG's
// scatter(x_j, edge_index[1], reduce='max')): EdgeList compacts the
// off-diagonal memberships (the edges j → i, i ≠ j) into capacity
// (dst, src) pairs, the members' features are gathered ([E, D]) and
// ScatterMax-ed into their cluster, then each node whose own cluster holds
// it takes the max with its own features. capacity must be at least the
// batch's off-diagonal memberships (EdgeBudget.Capacity), else edges are
// dropped. Memory: E·D floats for the gathered features — COIL-DEL,
// B = 256, D = 128: E = 77,530, 9.9M floats (40 MB), against 210M
// (840 MB) for the dense [B, N, N, D] — plus a few B·N² int32 tensors for
// the compaction (1.6M each, the size of the adjacency itself).
func ClusterMaxEdges(h, member, mask *Node, capacity int) *Node {
	g := h.Graph()
	b, n, d := h.Shape().Dim(0), h.Shape().Dim(1), h.Shape().Dim(2)
	diag := BroadcastToShape(InsertAxes(Diagonal(g, n), 0), shapes.Make(dtypes.Bool, b, n, n))
	if member.DType() != dtypes.Bool {
		member = GreaterThan(member, ZerosLike(member))
	}
	self := ReduceMax(ConvertDType(LogicalAnd(member, diag), dtypes.Int32), -1) // [B, N]: i ∈ cluster(i)
	dst, src := EdgeList(LogicalAnd(member, LogicalNot(diag)), capacity)
	flat := Concatenate([]*Node{Reshape(h, b*n, d), Zeros(g, shapes.Make(h.DType(), 1, d))}, 0) // row B·N: dump
	xj := Gather(flat, InsertAxes(src, -1))                                                     // [E, D]
	init := BroadcastToDims(Infinity(g, h.DType(), -1), b*n+1, d)
	out := ScatterMax(init, InsertAxes(dst, -1), xj, false, false)
	out = Reshape(Slice(out, AxisRange(0, b*n)), b, n, d) // −∞ where no neighbour
	out = Where(GreaterThan(self, ZerosLike(self)), Max(out, h), out)
	return Where(GreaterThan(mask, ZerosLike(mask)), out, ZerosLike(out)) // [B, N] condition: a prefix
}

// EdgeList derives, inside the graph, a flat edge list of static capacity
// E from the dense membership member [B, N, N] (bool or 0/1; entry (b,i,j)
// is the pair j → i): dst and src [E] int32 index the flattened node axis
// (b·N + i and b·N + j), in row-major order of (b, i, j); unused slots
// point both to the dump node B·N. If the batch has more than E
// non-zeros, the last ones are dropped. No gradient.
//
// Cost: a log-step prefix sum over each row (⌈log₂N⌉ passes over B·N²
// int32), one over the B·N row degrees, and one scatter of B·N² scalars —
// no sort (the pure-Go backend's Sort calls a compiled comparator per
// comparison).
func EdgeList(member *Node, capacity int) (dst, src *Node) {
	g := member.Graph()
	b, n := member.Shape().Dim(0), member.Shape().Dim(1)
	var m *Node
	if member.DType() == dtypes.Bool {
		m = ConvertDType(member, dtypes.Int32)
	} else {
		m = ConvertDType(GreaterThan(member, ZerosLike(member)), dtypes.Int32)
	}
	m = StopGradient(Reshape(m, b*n, n))
	rank := prefixSum(m, 1)                                // [B·N, N], inclusive
	deg := Reshape(SliceAxis(rank, 1, AxisElem(n-1)), b*n) // [B·N]
	rowStart := Sub(prefixSum(deg, 0), deg)                // exclusive
	pos := Sub(Add(InsertAxes(rowStart, -1), rank), OnesLike(rank))
	e := Scalar(g, dtypes.Int32, capacity)
	ok := LogicalAnd(GreaterThan(m, ZerosLike(m)), LessThan(pos, BroadcastToShape(e, pos.Shape())))
	pos = Where(ok, pos, BroadcastToShape(e, pos.Shape()))
	idShape := shapes.Make(dtypes.Int32, b*n, n)
	id := Add(MulScalar(Iota(g, idShape, 0), n), Iota(g, idShape, 1)) // row·N + j
	slots := ScatterSum(Zeros(g, shapes.Make(dtypes.Int32, capacity+1)),
		Reshape(pos, b*n*n, 1), Reshape(AddScalar(id, 1), b*n*n), false, false)
	slots = Slice(slots, AxisRange(0, capacity)) // 0 = empty, else id + 1
	empty := Equal(slots, ZerosLike(slots))
	f := Sub(slots, OnesLike(slots))
	row := DivScalar(f, n)                                         // b·N + i
	srcID := Add(MulScalar(DivScalar(row, n), n), ModScalar(f, n)) // b·N + j
	dump := BroadcastToShape(Scalar(g, dtypes.Int32, b*n), slots.Shape())
	return StopGradient(Where(empty, dump, row)), StopGradient(Where(empty, dump, srcID))
}

// prefixSum is the inclusive prefix sum of x along axis (Hillis–Steele:
// ⌈log₂L⌉ shifted adds). GoMLX's CumSum is a window sum, O(L²) per row.
func prefixSum(x *Node, axis int) *Node {
	l := x.Shape().Dim(axis)
	for s := 1; s < l; s *= 2 {
		zdims := x.Shape().Clone().Dimensions
		zdims[axis] = s
		shifted := Concatenate([]*Node{Zeros(x.Graph(), shapes.Make(x.DType(), zdims...)), SliceAxis(x, axis, AxisRange(0, l-s))}, axis)
		x = Add(x, shifted)
	}
	return x
}
