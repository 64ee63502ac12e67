package gnn

import (
	"fmt"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/ml/model"
)

// Conv names a message-passing layer type.
type Conv string

// The convolutions of the paper's Table 2 rows.
const (
	// ConvGIN is GIN-ε (Xu et al. 2019), the paper's default convolution.
	ConvGIN Conv = "gin"
	// ConvGCN is GCN (Kipf & Welling 2017): GCNConv.
	ConvGCN Conv = "gcn"
	// ConvSAGE is GraphSAGE with the mean aggregator (Hamilton et al.
	// 2017): SAGEConv.
	ConvSAGE Conv = "sage"
)

// Pool names the pooling between the two message-passing stages.
type Pool string

// The poolings of the paper's Table 2 rows.
const (
	// PoolTopK is TopK pooling (Gao & Ji 2019; TopKScore + TopKPool), the
	// paper's default; an empty Pool means PoolTopK.
	PoolTopK Pool = "topk"
	// PoolSAG is SAGPool (Lee et al. 2019): SAGPool.
	PoolSAG Pool = "sag"
	// PoolASAP is ASAP (Ranjan et al. 2020): ASAPool.
	PoolASAP Pool = "asap"
)

// EncoderConfig is the shared backbone of the paper's GNN rows: message
// passing → pooling (ratio ρ; TopK by default) → message passing → readout
// mean‖max.
type EncoderConfig struct {
	// Conv is the convolution of both stages.
	Conv Conv
	// Hidden is the width of every node representation.
	Hidden int
	// LayersPerStage is the number of convolutions before and after pooling.
	LayersPerStage int
	// PoolRatio is ρ: pooling keeps ⌈ρn⌉ nodes of an n-node graph.
	PoolRatio float64
	// Pool is the pooling between the stages ("" means PoolTopK).
	Pool Pool
	// SAGENormalize L2-normalises SAGEConv's outputs (PyG normalize;
	// default false).
	SAGENormalize bool
	// ASAPDropout is ASAP's attention dropout while training.
	ASAPDropout float64
	// ASAPEdges bounds the edges of a batch, for the capacity of ASAP's
	// edge list (ASAPOptions.Edges; NewEdgeBudget of the run's graphs);
	// nil means N(N−1) per graph. It changes memory and time, never
	// results, as long as it bounds the batches' edges.
	ASAPEdges EdgeBudget
	// ASAPDenseClusterMax is ASAPOptions.DenseClusterMax (0, every row's
	// setting: always the edge list).
	ASAPDenseClusterMax int
}

// Validate reports a bad configuration, naming the field.
func (c EncoderConfig) Validate() error {
	switch {
	case c.Conv != ConvGIN && c.Conv != ConvGCN && c.Conv != ConvSAGE:
		return fmt.Errorf("conv %q: unknown (want %q, %q or %q)", c.Conv, ConvGIN, ConvGCN, ConvSAGE)
	case c.Pool != "" && c.Pool != PoolTopK && c.Pool != PoolSAG && c.Pool != PoolASAP:
		return fmt.Errorf("pool %q: unknown (want %q, %q or %q)", c.Pool, PoolTopK, PoolSAG, PoolASAP)
	case c.ASAPDropout < 0 || c.ASAPDropout >= 1:
		return fmt.Errorf("att_dropout %g: must be in [0, 1)", c.ASAPDropout)
	case c.Hidden < 1:
		return fmt.Errorf("hidden %d: must be ≥ 1", c.Hidden)
	case c.LayersPerStage < 1:
		return fmt.Errorf("layers %d: must be ≥ 1", c.LayersPerStage)
	case c.PoolRatio <= 0 || c.PoolRatio > 1:
		return fmt.Errorf("pool_ratio %g: must be in (0, 1]", c.PoolRatio)
	}
	return nil
}

// EmbeddingDim is the width of Encode's output: 2·Hidden (mean‖max).
func (c EncoderConfig) EmbeddingDim() int { return 2 * c.Hidden }

func (c EncoderConfig) conv(scope *model.Scope, h, adj, mask *Node) *Node {
	switch c.Conv {
	case ConvGIN:
		return GINConv(scope, h, adj, mask, c.Hidden)
	case ConvGCN:
		return GCNConv(scope, h, adj, mask, c.Hidden)
	case ConvSAGE:
		return SAGEConv(scope, h, adj, mask, c.Hidden, c.SAGENormalize)
	}
	panic(fmt.Sprintf("gnn: unknown conv %q", c.Conv)) // Validate catches this first
}

func (c EncoderConfig) pool(scope *model.Scope, h, adj, mask *Node) Pooled {
	switch c.Pool {
	case PoolTopK, "":
		return TopKPool(h, adj, mask, TopKScore(scope, h), c.PoolRatio)
	case PoolSAG:
		return SAGPool(scope, h, adj, mask, c.PoolRatio)
	case PoolASAP:
		return ASAPool(scope, h, adj, mask, c.PoolRatio, ASAPOptions{Dropout: c.ASAPDropout, Edges: c.ASAPEdges, DenseClusterMax: c.ASAPDenseClusterMax}).Pooled
	}
	panic(fmt.Sprintf("gnn: unknown pool %q", c.Pool)) // Validate catches this first
}

// Encode is Φ: x [B, N, D], adj [B, N, N], mask [B, N] → z [B, 2·Hidden].
// The pooling (cfg.Pool, in scope "pool") sees the first stage's output;
// TopK's scores are TopKScore of it.
func Encode(scope *model.Scope, cfg EncoderConfig, x, adj, mask *Node) *Node {
	return EncodeNodes(scope, cfg, x, adj, mask, nil).Z
}

// Encoded is EncodeNodes's output.
type Encoded struct {
	// Z [B, 2·Hidden] is the readout mean‖max, Encode's output.
	Z *Node
	// H [B, K, Hidden] are the final-stage node states the readout sees,
	// Mask [B, K] their (pooled) mask: the "patches" of InfoGraph.
	H, Mask *Node
	// Select [B, K, N] is the pooling's one-hot selection (no gradient).
	Select *Node
}

// EncodeNodes is Encode that also returns the final-stage node states and
// their mask, and optionally weights nodes: with nodeWeight [B, N] non-nil,
// every first-stage convolution's output is multiplied row-wise by it, and
// every second-stage convolution's output by its gather through the
// pooling's selection, Select·nodeWeight [B, K] (RGCL's rationale weights,
// RGCL unsupervised_TU/gin.py:91-112, which multiply every GIN layer's
// node states). With nodeWeight nil the graph is exactly Encode's.
func EncodeNodes(scope *model.Scope, cfg EncoderConfig, x, adj, mask, nodeWeight *Node) Encoded {
	weigh := func(h, w *Node) *Node {
		if w == nil {
			return h
		}
		return Mul(h, InsertAxes(w, -1))
	}
	h := x
	for l := 0; l < cfg.LayersPerStage; l++ {
		h = weigh(cfg.conv(scope.In("conv1_%d", l), h, adj, mask), nodeWeight)
	}
	p := cfg.pool(scope.In("pool"), h, adj, mask)
	var w2 *Node
	if nodeWeight != nil {
		w2 = Einsum("bkn,bn->bk", p.Select, nodeWeight)
	}
	h = p.H
	for l := 0; l < cfg.LayersPerStage; l++ {
		h = weigh(cfg.conv(scope.In("conv2_%d", l), h, p.Adj, p.Mask), w2)
	}
	return Encoded{Z: MeanMaxReadout(h, p.Mask), H: h, Mask: p.Mask, Select: p.Select}
}

// MaskedCrossEntropy is the mean softmax cross-entropy over graph slots with
// weight > 0: logits [B, C], labels [B] int32, weight [B] → scalar.
func MaskedCrossEntropy(logits, labels, weight *Node) *Node {
	logp := LogSoftmax(logits, -1)
	onehot := OneHot(labels, logits.Shape().Dim(-1), logits.DType())
	nll := Neg(ReduceSum(Mul(onehot, logp), -1))
	return Div(ReduceAllSum(Mul(nll, weight)), Max(ReduceAllSum(weight), OnesLike(ReduceAllSum(weight))))
}

// EdgeInputs are the inputs of an edge-list batch (EdgeBatch.Tensors, in
// that order): x [Nodes, D], src, dst [E] int32, edge weight [E], graph
// [Nodes] int32, mask [Nodes]; NumGraphs is the batch's B.
type EdgeInputs struct {
	X, Src, Dst, EdgeWeight, Graph, Mask *Node
	NumGraphs                            int
}

// NewEdgeInputs takes the six inputs of EdgeBatch.Tensors, in order, for
// a batch of numGraphs slots.
func NewEdgeInputs(in []*Node, numGraphs int) EdgeInputs {
	return EdgeInputs{X: in[0], Src: in[1], Dst: in[2], EdgeWeight: in[3], Graph: in[4], Mask: in[5], NumGraphs: numGraphs}
}

// SupportsEdges reports whether the encoder has an edge-list path
// (EncodeEdges): every Conv, with TopK or SAG pooling (ASAP is dense only).
func (c EncoderConfig) SupportsEdges() bool {
	return c.Pool == "" || c.Pool == PoolTopK || c.Pool == PoolSAG
}

// autoEdges reports whether LayoutAuto may pick the edge list for the
// encoder: TopK pooling only, the poolings that had an edge-list path when
// auto was the default, so that a stored run under auto (SAG's on COLORS-3
// or CIFAR10: dense) keeps its layout and numbers.
func (c EncoderConfig) autoEdges() bool { return c.Pool == "" || c.Pool == PoolTopK }

// poolScoreEdges is the pooling's node score in the edge-list layout, in
// scope (the encoder's "pool"): TopKScoreEdges or SAGScoreEdges.
// h [Nodes, D], mask [Nodes] → [Nodes].
func (c EncoderConfig) poolScoreEdges(scope *model.Scope, h *Node, e EdgeGraph, mask *Node) *Node {
	switch c.Pool {
	case PoolTopK, "":
		return TopKScoreEdges(scope, h)
	case PoolSAG:
		return SAGScoreEdges(scope, h, e, mask)
	}
	panic(fmt.Sprintf("gnn: pool %q has no edge-list layout", c.Pool))
}

func (c EncoderConfig) convEdges(scope *model.Scope, h *Node, e EdgeGraph, mask *Node) *Node {
	switch c.Conv {
	case ConvGIN:
		return GINConvEdges(scope, h, e, mask, c.Hidden)
	case ConvGCN:
		return GCNConvEdges(scope, h, e, mask, c.Hidden)
	case ConvSAGE:
		return SAGEConvEdges(scope, h, e, mask, c.Hidden, c.SAGENormalize)
	}
	panic(fmt.Sprintf("gnn: unknown conv %q", c.Conv))
}

// EncodeEdges is Encode in the edge-list layout: the same function with the
// same variables (a store trained in one layout runs in the other), on
// in → z [B, 2·Hidden]. Only TopK and SAG pooling (SupportsEdges); it panics on
// another. Values agree with Encode's to float rounding; gradients too,
// except where nodes tie exactly in one layout and not in the other (nodes
// with equal closed neighbourhoods under GIN at ε = 0 or GCN, in the input
// graph or in the graph TopK leaves, which the two layouts sum in different
// orders): GoMLX's max gives every tied node the full gradient, so there the
// layouts take different valid subgradients.
func EncodeEdges(scope *model.Scope, cfg EncoderConfig, in EdgeInputs) *Node {
	return EncodeNodesEdges(scope, cfg, in, nil).Z
}
