package gnn

import (
	"math"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/ml/model"
)

// linearNoBias is y = x·W over the last axis, W [in, out] ~ U(−1/√in, 1/√in)
// (PyTorch's nn.Linear initialisation, bias=False).
func linearNoBias(scope *model.Scope, x *Node, out int) *Node {
	in := x.Shape().Dim(-1)
	w := uniformVariable(scope, x.Graph(), "weights", 1/math.Sqrt(float64(in)), in, out)
	dims := x.Shape().Clone().Dimensions
	dims[len(dims)-1] = out
	return Reshape(MatMul(Reshape(x, -1, in), w), dims...)
}

// SAGEMean is GraphSAGE's mean aggregator (Hamilton et al. 2017):
// mean_{j∈N(i)} h_j = Σ_j A_ij h_j / Σ_j A_ij, and 0 for a node without
// neighbours (PyG's scatter-mean of an empty set). With a weighted
// adjacency (after ASAP) it is the weighted mean.
// h [B, N, D], adj [B, N, N] (row = receiver) → [B, N, D].
func SAGEMean(h, adj *Node) *Node {
	deg := InsertAxes(ReduceSum(adj, -1), -1) // [B, N, 1]
	pos := GreaterThan(deg, ZerosLike(deg))
	inv := Where(pos, Inverse(Where(pos, deg, OnesLike(deg))), ZerosLike(deg))
	return Mul(Propagate(adj, h), inv)
}

// SAGEConv is one GraphSAGE layer with the mean aggregator (Hamilton et al.
// 2017, "Inductive Representation Learning on Large Graphs"), as PyG's
// SAGEConv: h'_i = ReLU(W_neigh·mean_{j∈N(i)} h_j + b + W_self·h_i), with
// W_neigh and its bias in "lin_neigh" (PyG lin_l) and the bias-free W_self
// in "lin_self" (PyG lin_r), PyTorch-initialised. With normalize the
// pre-activation output is L2-normalised per node (PyG normalize=True; its
// default, and ours, is false). No self-loops are added (PyG's default).
// h [B, N, Din], adj [B, N, N], mask [B, N] → [B, N, hidden], padding rows 0.
func SAGEConv(scope *model.Scope, h, adj, mask *Node, hidden int, normalize bool) *Node {
	z := Add(Linear(scope.In("lin_neigh"), SAGEMean(h, adj), hidden), linearNoBias(scope.In("lin_self"), h, hidden))
	if normalize {
		z = L2Normalize(z, -1)
	}
	return maskNodes(ReLU(z), mask)
}
