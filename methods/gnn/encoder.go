package gnn

import (
	"fmt"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/ml/model"
)

// Conv names a message-passing layer type.
type Conv string

// ConvGIN is GIN-ε (Xu et al. 2019), the paper's default convolution.
const ConvGIN Conv = "gin"

// EncoderConfig is the shared backbone of the paper's GNN rows: message
// passing → TopK pooling (ratio ρ) → message passing → readout mean‖max.
type EncoderConfig struct {
	// Conv is the convolution of both stages.
	Conv Conv
	// Hidden is the width of every node representation.
	Hidden int
	// LayersPerStage is the number of convolutions before and after pooling.
	LayersPerStage int
	// PoolRatio is ρ: pooling keeps ⌈ρn⌉ nodes of an n-node graph.
	PoolRatio float64
}

// Validate reports a bad configuration, naming the field.
func (c EncoderConfig) Validate() error {
	switch {
	case c.Conv != ConvGIN:
		return fmt.Errorf("conv %q: unknown (want %q)", c.Conv, ConvGIN)
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
	}
	panic(fmt.Sprintf("gnn: unknown conv %q", c.Conv)) // Validate catches this first
}

// Encode is Φ: x [B, N, D], adj [B, N, N], mask [B, N] → z [B, 2·Hidden].
// Pooling scores are TopKScore of the first stage's output.
func Encode(scope *model.Scope, cfg EncoderConfig, x, adj, mask *Node) *Node {
	h := x
	for l := 0; l < cfg.LayersPerStage; l++ {
		h = cfg.conv(scope.In("conv1_%d", l), h, adj, mask)
	}
	p := TopKPool(h, adj, mask, TopKScore(scope.In("pool"), h), cfg.PoolRatio)
	h = p.H
	for l := 0; l < cfg.LayersPerStage; l++ {
		h = cfg.conv(scope.In("conv2_%d", l), h, p.Adj, p.Mask)
	}
	return MeanMaxReadout(h, p.Mask)
}

// MaskedCrossEntropy is the mean softmax cross-entropy over graph slots with
// weight > 0: logits [B, C], labels [B] int32, weight [B] → scalar.
func MaskedCrossEntropy(logits, labels, weight *Node) *Node {
	logp := LogSoftmax(logits, -1)
	onehot := OneHot(labels, logits.Shape().Dim(-1), logits.DType())
	nll := Neg(ReduceSum(Mul(onehot, logp), -1))
	return Div(ReduceAllSum(Mul(nll, weight)), Max(ReduceAllSum(weight), OnesLike(ReduceAllSum(weight))))
}
