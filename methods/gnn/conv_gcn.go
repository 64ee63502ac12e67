package gnn

import (
	"math"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/ml/model"
)

// eyeLike returns the identity [N, N] in x's dtype, for x [..., N, N].
func eyeLike(x *Node) *Node {
	n := x.Shape().Dim(-1)
	return ConvertDType(Diagonal(x.Graph(), n), x.DType())
}

// SelfLoopFill is the weight that adding the remaining self-loops puts on
// the diagonal of adj (PyG add_remaining_self_loops with fill value 1, as
// GCNConv and ASAPooling do): mask_i where A_ii = 0, else 0 (an existing
// self-loop keeps its weight; padding nodes get none).
// adj [B, N, N], mask [B, N] → [B, N].
func SelfLoopFill(adj, mask *Node) *Node {
	diag := ReduceSum(Mul(adj, InsertAxes(eyeLike(adj), 0)), -1) // [B, N]
	return Where(Equal(diag, ZerosLike(diag)), mask, ZerosLike(mask))
}

// GCNDegreeInvSqrt is D̂^{-1/2} of Kipf & Welling (2017): the row sums of
// Â = A + remaining self-loops over real nodes, raised to −1/2, and 0 where
// the degree is 0 (padding nodes, whose degree stays 0 because they get no
// self-loop). adj [B, N, N], mask [B, N] → (fill, dinv) both [B, N], fill
// as in SelfLoopFill.
//
// GoMLX's Rsqrt has no gradient, so this uses 1/Sqrt behind a Where that
// guards 1/√0: for the input adjacency and TopK/SAG-pooled adjacencies the
// normalisation is a constant of the input, but after ASAP the pooled
// adjacency depends on learned attention, and this way its gradient is
// still exact.
func GCNDegreeInvSqrt(adj, mask *Node) (fill, dinv *Node) {
	fill = SelfLoopFill(adj, mask)
	deg := Add(ReduceSum(adj, -1), fill)
	pos := GreaterThan(deg, ZerosLike(deg))
	safe := Where(pos, deg, OnesLike(deg))
	dinv = Where(pos, Inverse(Sqrt(safe)), ZerosLike(deg))
	return fill, dinv
}

// GCNPropagate is the parameter-free GCN propagation
// D̂^{-1/2} Â D̂^{-1/2} H with Â = A + I over real nodes (Kipf & Welling
// 2017, eq. 2; PyG gcn_norm with add_remaining_self_loops). Â is never
// built: Â·X = A·X + fill ⊙ X. h [B, N, D], adj [B, N, N] (row = receiver),
// mask [B, N] → [B, N, D]; padding rows are 0.
func GCNPropagate(h, adj, mask *Node) *Node {
	fill, dinv := GCNDegreeInvSqrt(adj, mask)
	d := InsertAxes(dinv, -1)
	x := Mul(h, d)
	ax := Add(Propagate(adj, x), Mul(x, InsertAxes(fill, -1)))
	return Mul(ax, d)
}

// GCNLayer is one graph convolution of Kipf & Welling (2017, "Semi-Supervised
// Classification with Graph Convolutional Networks") without activation, as
// PyG's GCNConv: D̂^{-1/2} Â D̂^{-1/2} H W + b, W glorot-uniform, b zero
// (PyG's initialisation). The propagation runs on the narrower side of W
// (before W if Din < out), which is the same function.
// h [B, N, Din], adj [B, N, N], mask [B, N] → [B, N, out], padding rows 0.
func GCNLayer(scope *model.Scope, h, adj, mask *Node, out int) *Node {
	g := h.Graph()
	in := h.Shape().Dim(-1)
	w := uniformVariable(scope, g, "weights", math.Sqrt(6/float64(in+out)), in, out)
	b := uniformVariable(scope, g, "biases", 0, out) // bound 0: zeros
	var z *Node
	if in < out {
		z = Einsum("bnd,de->bne", GCNPropagate(h, adj, mask), w)
	} else {
		z = GCNPropagate(Einsum("bnd,de->bne", h, w), adj, mask)
	}
	return maskNodes(Add(z, Reshape(b, 1, 1, out)), mask)
}

// GCNConv is GCNLayer followed by ReLU: H' = ReLU(D̂^{-1/2}(A+I)D̂^{-1/2} H W + b)
// (Kipf & Welling 2017). h [B, N, Din], adj [B, N, N], mask [B, N] →
// [B, N, hidden], padding rows 0.
func GCNConv(scope *model.Scope, h, adj, mask *Node, hidden int) *Node {
	return maskNodes(ReLU(GCNLayer(scope, h, adj, mask, hidden)), mask)
}
