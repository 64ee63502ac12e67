package gnn

import (
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX's idiom for graph-building code
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/nn"
)

// ParamSeed is the store parameter holding the run's seed; every variable's
// initial value is drawn from a generator seeded by (seed, variable path),
// so initialisation does not depend on the order layers are built in.
const ParamSeed = "ugbench_seed"

// SetSeed records the run's seed in the store's root scope (see ParamSeed)
// and seeds the store's RNG (dropout, random ops).
func SetSeed(store *model.Store, seed int64) error {
	store.RootScope().SetParam(ParamSeed, seed)
	return store.SetRNGStateFromSeed(seed)
}

func varRNG(scope *model.Scope, name string) *rand.Rand {
	seed := model.GetParamOr(scope, ParamSeed, int64(0))
	h := fnv.New64a()
	h.Write([]byte(model.JoinPath(scope.Scope(), name)))
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}

// uniformVariable returns the variable name of shape dims, created with
// values ~ U(−bound, bound) on first use.
func uniformVariable(scope *model.Scope, g *Graph, name string, bound float64, dims ...int) *Node {
	if v := scope.GetVariable(name); v != nil {
		return v.NodeValue(g)
	}
	size := 1
	for _, d := range dims {
		size *= d
	}
	r := varRNG(scope, name)
	data := make([]float32, size)
	for i := range data {
		data[i] = float32((2*r.Float64() - 1) * bound)
	}
	return scope.VariableWithValue(name, tensors.FromFlatDataAndDimensions(data, dims...)).NodeValue(g)
}

// Linear is y = x·W + b over the last axis of x: x [..., in] → y [..., out].
// W [in, out] and b [out] are initialised ~ U(−1/√in, 1/√in), PyTorch's
// nn.Linear default (GoMLX's He init made readouts over large graphs start
// at huge losses, GOMLX-NOTES). It runs as one fused dense op (nn.Dense):
// the pure-Go backend computes its gradient in one pass (blocked transpose
// of x, two matmuls, bias sum) where MatMul's generic gradient made
// element-by-element transposes of x, W and the output gradient.
func Linear(scope *model.Scope, x *Node, out int) *Node {
	return linear(scope, x, out, activation.TypeNone)
}

// LinearReLU is ReLU(x·W + b), Linear with the ReLU fused into the same
// backend op (one pass forward, one backward). Its gradient is 0 where
// x·W + b ≤ 0 (at exactly 0 too, as PyTorch's; ReLU's is 1 there).
// x [..., in] → [..., out].
func LinearReLU(scope *model.Scope, x *Node, out int) *Node {
	return linear(scope, x, out, activation.TypeRelu)
}

func linear(scope *model.Scope, x *Node, out int, act activation.Type) *Node {
	g := x.Graph()
	in := x.Shape().Dim(-1)
	bound := 1 / math.Sqrt(float64(in))
	w := uniformVariable(scope, g, "weights", bound, in, out)
	b := uniformVariable(scope, g, "biases", bound, out)
	return nn.Dense(x, w, b, compute.DenseLayoutInputOutputs, act)
}

// ReLU is max(x, 0), written as Where(x < 0, 0, x): the same values as
// GoMLX's activation.Relu (Max(x, 0)), NaN included — a NaN input stays NaN,
// so a diverged run still surfaces as a NaN loss — and the same gradient
// (0 at x < 0, 1 at x ≥ 0). activation.Relu's gradient costs two Sign passes
// over x in the Go backend (~3% of a training step).
func ReLU(x *Node) *Node {
	return Where(LessThan(x, ScalarZero(x.Graph(), x.DType())), ScalarZero(x.Graph(), x.DType()), x)
}

// MLP is LinearReLU → … → LinearReLU → Linear with the given layer widths;
// the last layer has no activation.
func MLP(scope *model.Scope, x *Node, widths ...int) *Node {
	return mlp(scope, x, false, widths...)
}

// mlp is MLP, with a ReLU after the last layer too when reluLast.
func mlp(scope *model.Scope, x *Node, reluLast bool, widths ...int) *Node {
	for i, w := range widths {
		if i < len(widths)-1 || reluLast {
			x = LinearReLU(scope.In("layer_%d", i), x, w)
		} else {
			x = Linear(scope.In("layer_%d", i), x, w)
		}
	}
	return x
}

// maskNodes zeroes the padding rows of h [B, N, D] with mask [B, N].
func maskNodes(h, mask *Node) *Node {
	return Mul(h, InsertAxes(mask, -1))
}

// GINConv is one GIN-ε layer (Xu et al. 2019, "How Powerful are Graph Neural
// Networks?", eq. 4.1): h'_i = MLP((1+ε)·h_i + Σ_{j∈N(i)} h_j) with learnable
// ε (initialised 0) and a two-layer MLP (Linear–ReLU–Linear) followed by
// ReLU. The official code's BatchNorm (in the MLP and after it) is left
// out here; GINConvBN is the layer with it.
//
// h [B, N, Din], adj [B, N, N], mask [B, N] → [B, N, hidden], padding rows 0.
func GINConv(scope *model.Scope, h, adj, mask *Node, hidden int) *Node {
	g := h.Graph()
	eps := scope.VariableWithValue("eps", float32(0)).NodeValue(g)
	z := GINAggregate(h, adj, eps)
	z = mlp(scope.In("mlp"), z, true, hidden, hidden)
	return maskNodes(z, mask)
}

// GINConvBN is GINConv with BatchNorm as the official GIN code has it
// (github.com/weihua916/powerful-gnns, models/mlp.py:48 and
// models/graphcnn.py:163-167): h'_i = ReLU(BN(W₂·ReLU(BN(W₁·z_i + b₁)) +
// b₂)) with z_i = (1+ε)·h_i + Σ_{j∈N(i)} h_j, over the size chunks of one
// batch, normalised together (BatchNorm: masked statistics over the real
// nodes of all parts in a training graph, the running statistics in an
// inference graph). The same variables as GINConv, plus BatchNorm's
// "mlp/bn_0" and "bn".
//
// Per part i: hs[i] [B, N, Din], adjs[i] [B, N, N], masks[i] [B, N], and
// ws[i] [B, N] the nodes' weights in the statistics (RealNodes: the mask
// without the padding slots' zero nodes) → [B, N, hidden], padding rows 0.
func GINConvBN(scope *model.Scope, hs, adjs, masks, ws []*Node, hidden int) []*Node {
	eps := scope.VariableWithValue("eps", float32(0)).NodeValue(hs[0].Graph())
	zs := make([]*Node, len(hs))
	for i, h := range hs {
		zs[i] = GINAggregate(h, adjs[i], eps)
	}
	zs = ginMLPBN(scope, zs, ws, hidden)
	for i := range zs {
		zs[i] = maskNodes(zs[i], masks[i])
	}
	return zs
}

// TopKScore is the node score of TopK pooling (Gao & Ji 2019, "Graph
// U-Nets"; PyG TopKPooling): s = h·p/‖p‖ with a learnable projection p.
// h [B, N, D] → s [B, N].
func TopKScore(scope *model.Scope, h *Node) *Node {
	g := h.Graph()
	d := h.Shape().Dim(-1)
	p := uniformVariable(scope, g, "projection", 1/math.Sqrt(float64(d)), d)
	norm := Sqrt(AddScalar(ReduceAllSum(Square(p)), 1e-12))
	return Div(Einsum("bnd,d->bn", h, p), norm)
}

// Pooled is a pooled batch: at most K = ⌈ρN⌉ node slots per graph.
type Pooled struct {
	// H [B, K, D], Adj [B, K, K], Mask [B, K].
	H, Adj, Mask *Node
	// Select [B, K, N] is the one-hot selection matrix S (no gradient):
	// slot k of graph b holds node argmax S[b,k,:].
	Select *Node
}

// KeepCount is ⌈ρ·n⌉, the number of nodes TopK-style pooling keeps of a
// graph of n nodes (computed with a tolerance so that 0.8·5 keeps 4).
func KeepCount(ratio float64, n int) int {
	return int(math.Ceil(ratio*float64(n) - 1e-6))
}

// TopKPool keeps the ⌈ρ·n_b⌉ highest-scoring nodes of every graph b and gates
// them by tanh(score): h'_k = h_{idx_k}·tanh(s_{idx_k}), A' = A[idx, idx]
// (Gao & Ji 2019; Cangea et al. 2018; the same selection serves SAGPool and
// UGNN with other scores). Padding nodes are never selected; the induced
// adjacency keeps exactly the edges between kept nodes.
//
// h [B, N, D], adj [B, N, N], mask [B, N], score [B, N] → Pooled with
// K = KeepCount(ratio, N). The selection is TopKSelection's (no gradient);
// gradients flow into h and score through the products with it (h·sel and
// the tanh(score) gate).
func TopKPool(h, adj, mask, score *Node, ratio float64) Pooled {
	sel, newMask := topKSelect(score, mask, ratio)
	hSel := Einsum("bkn,bnd->bkd", sel, h)
	sSel := Einsum("bkn,bn->bk", sel, score)
	hNew := maskNodes(Mul(hSel, InsertAxes(Tanh(sSel), -1)), newMask)
	aNew := Einsum("bkn,bnm->bkm", sel, adj)
	aNew = Einsum("bkm,bjm->bkj", aNew, sel)
	aNew = Mul(aNew, Mul(InsertAxes(newMask, -1), InsertAxes(newMask, 1)))
	return Pooled{H: hNew, Adj: aNew, Mask: newMask, Select: sel}
}

// topKSelect is TopKPool's selection: the one-hot selection sel [B, K, N]
// of the ⌈ρ·n_b⌉ highest scores among the real nodes of each graph (ties
// to the lower index) and the pooled mask [B, K], both without gradient.
// score, mask [B, N].
func topKSelect(score, mask *Node, ratio float64) (sel, newMask *Node) {
	g := score.Graph()
	n := score.Shape().Dim(1)
	k := KeepCount(ratio, n)
	masked := Where(GreaterThan(mask, ZerosLike(mask)), score, MulScalar(OnesLike(score), -1e30))
	sel = StopGradient(TopKSelection(StopGradient(masked), k))
	keep := Ceil(AddScalar(MulScalar(ReduceSum(mask, 1), ratio), -1e-6))
	slots := Iota(g, shapes.Make(mask.DType(), score.Shape().Dim(0), k), 1)
	newMask = StopGradient(ConvertDType(LessThan(slots, InsertAxes(keep, -1)), mask.DType()))
	return sel, newMask
}

// TopKSelection is OneHot(TopK(s, k)) without a sort: the one-hot
// selection sel [B, K, N] (s's dtype) whose row k marks the node of rank k
// in s [B, N] (descending; ties to the lower index, as TopK orders them).
// A node's rank is the number of nodes before it, from an [B, N, N]
// pairwise comparison: the Go backend runs TopK as a sort that interprets
// every comparison (40–100 ms per COIL-DEL batch), the comparison takes
// 2–6 ms. The index tie-break and the slot numbers are [1, N, N] and
// [1, K, 1] temporaries broadcast over the batch, so only the comparison
// itself scales with B. No gradient. k ≤ N.
func TopKSelection(s *Node, k int) *Node {
	g := s.Graph()
	n := s.Shape().Dim(1)
	si := InsertAxes(s, -1) // [B, N(i), 1]
	sj := InsertAxes(s, 1)  // [B, 1, N(j)]
	ii := Iota(g, shapes.Make(dtypes.Int32, 1, n, 1), 1)
	jj := Iota(g, shapes.Make(dtypes.Int32, 1, 1, n), 2)
	lower := LessThan(jj, ii)                                         // [1, N, N]: j < i
	before := Or(GreaterThan(sj, si), And(Equal(sj, si), lower))      // [B, N, N]: j ranks before i
	rank := ReduceSum(ConvertDType(before, dtypes.Int32), -1)         // [B, N]
	slots := Iota(g, shapes.Make(dtypes.Int32, 1, k, 1), 1)           // [1, K, 1]
	return ConvertDType(Equal(slots, InsertAxes(rank, 1)), s.DType()) // [B, K, N]
}

// L2NormalizeEps is x/(‖x‖₂ + eps) over the last axis, x [..., D] → same
// shape: the value of GoMLX's L2NormalizeWithEpsilon, bit for bit, and the
// same gradient wherever ‖x‖ > 0. Where a row is exactly zero it returns 0
// with the finite gradient v/(1+eps), as GoMLX's L2Normalize does
// (dividing by 1 there): L2NormalizeWithEpsilon takes √0
// there, whose gradient 0.5/√0 = +Inf times a zero cotangent is NaN, and
// one zero row (a graph whose ReLU activations are all dead, or a padding
// slot that the loss weights by 0) turns every weight into NaN at the next
// optimiser step.
func L2NormalizeEps(x *Node, eps float64) *Node {
	sq := L2NormSquare(x, -1)
	zero := IsZero(sq)
	norm := Sqrt(Where(zero, OnesLike(sq), sq)) // a zero row divides by 1 + eps
	return Div(x, AddScalar(norm, eps))
}

// MeanMaxReadout is the graph readout mean‖max over real nodes:
// h [B, N, D], mask [B, N] → [B, 2D]. Every graph has ≥ 1 real node (padding
// slots hold one zero node), so neither reduction is empty. The max runs
// over h + (mask − 1)·10³⁰: real rows are h exactly, padding rows −10³⁰, so
// the max and its gradient are MaskedReduceMax's, without its Where over
// [B, N, D] (whose gradient adds two more in the Go backend's generic,
// element-by-element broadcast path).
func MeanMaxReadout(h, mask *Node) *Node {
	m := InsertAxes(mask, -1)
	count := ReduceSum(m, 1) // [B, 1]
	mean := Div(ReduceSum(Mul(h, m), 1), count)
	penalty := StopGradient(MulScalar(OneMinus(m), -1e30)) // [B, N, 1]
	maxv := ReduceMax(Add(h, penalty), 1)
	return Concatenate([]*Node{mean, maxv}, -1)
}

// GINAggregate is GIN's combine step (1+ε)·h + A·h: h [B, N, D],
// adj [B, N, N], eps scalar → [B, N, D].
func GINAggregate(h, adj, eps *Node) *Node {
	return Add(Mul(OnePlus(eps), h), Propagate(adj, h))
}

// Propagate is the neighbourhood sum A·h: adj [B, N, N], h [B, N, D] →
// [B, N, D], out[b,i,:] = Σ_j adj[b,i,j]·h[b,j,:]. Its value is
// Einsum("bij,bjd->bid", adj, h); its gradient with respect to h is
// computed as Aᵀ·v in the forward pass's batched-matmul layout instead of
// GoMLX's generic dot-product gradient, which makes three [B, N, D]
// transposes (element-by-element copies in the Go backend, ~5% of a GIN
// training step). The gradient with respect to adj (ASAP's pooled
// adjacency has one) is the Einsum's own. Directed graphs are fine: Aᵀ is
// taken in the graph, once per call that needs the gradient.
func Propagate(adj, h *Node) *Node {
	y := Einsum("bij,bjd->bid", adj, StopGradient(h))
	hh := IdentityWithCustomGradient(h, func(_, v *Node) *Node {
		return Einsum("bij,bjd->bid", StopGradient(TransposeAllAxes(adj, 0, 2, 1)), v)
	})
	// hh − SG(hh) is exactly 0 and carries h's gradient through the
	// custom function.
	return Add(y, Sub(hh, StopGradient(hh)))
}
