package gnn

import (
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// PyTorch's BatchNorm1d defaults, which BatchNorm uses: the running
// statistics move by BatchNormMomentum towards every training batch's
// (running ← (1 − momentum)·running + momentum·batch), and BatchNormEps is
// added to the variance before its square root.
const (
	BatchNormMomentum = 0.1
	BatchNormEps      = 1e-5
)

// maskedMoments returns the weighted mean and biased variance [D] of the
// rows of the parts xs[i] [..., D] (every axis but the last is a row axis)
// under the weights ws[i] (xs[i]'s shape without its last axis; 0 leaves a
// row out), pooled over all parts, the total weight n = Σ w (a scalar, at
// least 1 so that an empty batch divides by 1), and the centred parts
// xs[i] − mean. The variance is the weighted mean of the squared centred
// rows (two passes, as PyTorch computes it).
func maskedMoments(xs, ws []*Node) (mean, variance, n *Node, centred []*Node) {
	g := xs[0].Graph()
	sumRows := func(acc, x *Node) *Node {
		axes := make([]int, x.Rank()-1)
		for i := range axes {
			axes[i] = i
		}
		t := ReduceSum(x, axes...)
		if acc == nil {
			return t
		}
		return Add(acc, t)
	}
	w := make([]*Node, len(ws))
	var tot *Node
	for i, wi := range ws {
		w[i] = InsertAxes(wi, -1)
		if t := ReduceAllSum(wi); tot != nil {
			tot = Add(tot, t)
		} else {
			tot = t
		}
	}
	n = Max(tot, ScalarOne(g, xs[0].DType()))
	var sum, sq *Node
	for i, x := range xs {
		sum = sumRows(sum, Mul(x, w[i]))
	}
	mean = Div(sum, n)
	centred = make([]*Node, len(xs))
	for i, x := range xs {
		centred[i] = Sub(x, ExpandLeftToRank(mean, x.Rank()))
		sq = sumRows(sq, Mul(Square(centred[i]), w[i]))
	}
	return mean, Div(sq, n), n, centred
}

// batchNormAffine creates (or reads) the learnt scale γ ("gamma", [D],
// initialised to 1) and shift β ("beta", [D], initialised to 0) in scope:
// PyTorch's BatchNorm1d weight and bias.
func batchNormAffine(scope *model.Scope, g *Graph, d int) (gamma, beta *Node) {
	ones := make([]float32, d)
	for i := range ones {
		ones[i] = 1
	}
	gamma = scope.VariableWithValue("gamma", tensors.FromFlatDataAndDimensions(ones, d)).NodeValue(g)
	beta = scope.VariableWithValue("beta", tensors.FromFlatDataAndDimensions(make([]float32, d), d)).NodeValue(g)
	return gamma, beta
}

// normalize is γ ⊙ c/√(σ² + BatchNormEps) + β over the last axis of the
// centred c = x − μ [..., D], with variance, gamma and beta [D].
func normalize(c, variance, gamma, beta *Node) *Node {
	r := c.Rank()
	y := Div(c, ExpandLeftToRank(Sqrt(AddScalar(variance, BatchNormEps)), r))
	return Add(Mul(y, ExpandLeftToRank(gamma, r)), ExpandLeftToRank(beta, r))
}

// MaskedBatchNorm is training-mode batch normalisation over the real rows
// of x (weight > 0): y = γ ⊙ (x − μ)/√(σ² + 1e-5) + β, with μ and σ² the
// weighted mean and biased variance over every axis but the last, and γ
// ("gamma", initialised to 1) and β ("beta", 0) learnt in scope: PyTorch's
// BatchNorm1d in training mode. It keeps no running statistics, so it
// normalises with the batch's in inference too: for layers used in
// training only (GLA's projection head, GLA res_gcn.py:270-277); BatchNorm
// is the layer with running statistics. Padding rows get finite values
// and must be masked downstream. x [..., D], weight x's shape without its
// last axis (e.g. x [B, D], weight [B]) → x's shape.
func MaskedBatchNorm(scope *model.Scope, x, weight *Node) *Node {
	_, variance, _, c := maskedMoments([]*Node{x}, []*Node{weight})
	gamma, beta := batchNormAffine(scope, x.Graph(), x.Shape().Dim(-1))
	return normalize(c[0], variance, gamma, beta)
}

// BatchNorm is PyTorch's BatchNorm1d (default momentum 0.1, eps 1e-5,
// learnt γ and β) over the real rows of one batch that comes in parts:
// xs[i] [..., D] (every axis but the last is a row axis: dense node states
// [B, N, D] or edge-list ones [Nodes, D]) with weights ws[i] (xs[i]'s
// shape without its last axis; 0 for a padding row, a node the pooling
// dropped, the zero node of a padding graph slot) → the normalised parts,
// xs's shapes. The parts are the size chunks of one batch (SizeChunks),
// normalised together: the statistics are the unsplit batch's.
//
// In a training graph it normalises with the batch's weighted mean μ and
// biased variance σ² and moves the running statistics, "running_mean"
// (initialised to 0) and "running_var" (1), non-trainable variables of
// scope: running_mean ← 0.9·running_mean + 0.1·μ and running_var ←
// 0.9·running_var + 0.1·σ²·n/(n − 1), n the number of real rows (the
// unbiased variance, as PyTorch keeps it; σ² itself when n = 1). Each call
// moves them once, as each forward pass of a PyTorch module in training
// mode does; a graph that calls it several times in one scope (several
// batches per step) chains the updates in call order. In an inference
// graph (Execs.Infer, IsInference) it normalises with the running
// statistics and moves nothing (PyTorch's eval mode), so a graph's output
// there does not depend on the other graphs of its batch. ws is read in
// training graphs only (nil entries are fine in inference). The
// statistics and γ, β are float32 [D]; the running statistics are saved
// with the store's other variables (checkpoints, resume).
func BatchNorm(scope *model.Scope, xs, ws []*Node) []*Node {
	g := xs[0].Graph()
	d := xs[0].Shape().Dim(-1)
	vec := func(v float32) *tensors.Tensor {
		data := make([]float32, d)
		for i := range data {
			data[i] = v
		}
		return tensors.FromFlatDataAndDimensions(data, d)
	}
	runMean := scope.VariableWithValue("running_mean", vec(0)).SetTrainable(false)
	runVar := scope.VariableWithValue("running_var", vec(1)).SetTrainable(false)
	var variance *Node
	var centred []*Node
	if IsInference(g) {
		mean := runMean.NodeValue(g)
		variance = runVar.NodeValue(g)
		for _, x := range xs {
			centred = append(centred, Sub(x, ExpandLeftToRank(mean, x.Rank())))
		}
	} else {
		var mean, n *Node
		mean, variance, n, centred = maskedMoments(xs, ws)
		unbiased := Mul(StopGradient(variance), Div(n, Max(SubScalar(n, 1), OnesLike(n))))
		keep := 1 - BatchNormMomentum
		runMean.SetNodeValue(Add(MulScalar(runMean.NodeValue(g), keep), MulScalar(StopGradient(mean), BatchNormMomentum)))
		runVar.SetNodeValue(Add(MulScalar(runVar.NodeValue(g), keep), MulScalar(unbiased, BatchNormMomentum)))
	}
	gamma, beta := batchNormAffine(scope, g, d)
	out := make([]*Node, len(xs))
	for i, c := range centred {
		out[i] = normalize(c, variance, gamma, beta)
	}
	return out
}

// ginMLPBN is the MLP of a GIN layer with BatchNorm as the official GIN
// code has it (Xu et al. 2019; github.com/weihua916/powerful-gnns,
// models/mlp.py:48, Linear → BatchNorm1d → ReLU for every hidden layer
// and a plain Linear last, and models/graphcnn.py:163-167, BatchNorm1d →
// ReLU after each layer's MLP): Linear → BatchNorm → ReLU → Linear →
// BatchNorm → ReLU over the parts zs[i] [..., Din] of one batch, with
// BatchNorm's row weights ws[i] → [..., hidden]. The Linear layers are
// GINConv's (scope "mlp/layer_0", "mlp/layer_1"); the BatchNorms are
// "mlp/bn_0" (the MLP's hidden layer) and "bn" (after the MLP).
func ginMLPBN(scope *model.Scope, zs, ws []*Node, hidden int) []*Node {
	mlp := scope.In("mlp")
	layer := func(scope *model.Scope, zs []*Node) []*Node {
		out := make([]*Node, len(zs))
		for i, z := range zs {
			out[i] = Linear(scope, z, hidden)
		}
		return out
	}
	relu := func(zs []*Node) []*Node {
		for i, z := range zs {
			zs[i] = ReLU(z)
		}
		return zs
	}
	zs = relu(BatchNorm(mlp.In("bn_0"), layer(mlp.In("layer_0"), zs), ws))
	return relu(BatchNorm(scope.In("bn"), layer(mlp.In("layer_1"), zs), ws))
}

// RealNodes is the weight of every node of a dense batch in BatchNorm's
// statistics: mask [B, N] times the slot's weight [B] (0 for a padding
// graph slot, whose one zero node has mask 1) → [B, N].
func RealNodes(mask, weight *Node) *Node {
	return Mul(mask, InsertAxes(weight, -1))
}

// RealNodesEdges is RealNodes in the edge-list layout: mask [Nodes] times
// the weight [B] of each node's slot (padding nodes, slot B, get 0) →
// [Nodes].
func RealNodesEdges(mask, weight *Node, e EdgeGraph) *Node {
	padded := Concatenate([]*Node{weight, ZerosLike(Slice(weight, AxisRange(0, 1)))}, 0) // [B+1]
	return Mul(mask, Reshape(Gather(padded, e.Graph), -1))
}
