// Package supervised holds the paper's graph-convolution and graph-pooling
// baseline rows: GNN classifiers trained with cross-entropy on the labelled
// graphs only, whose unknown score is 1 − max softmax (PROTOCOL §3). They
// share one backbone (methods/gnn: message passing → pooling → message
// passing → mean‖max readout → MLP), so two rows differ only in what their
// names say.
package supervised

import (
	"context"

	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

func init() {
	suite.Register(ginTopK{})
}

// ginTopK is "GIN" of the paper's Table 2: GIN-ε convolutions (Xu et al.
// 2019) with TopK pooling (Gao & Ji 2019; PyG TopKPooling) between two
// message-passing stages.
type ginTopK struct{}

func (ginTopK) Name() string { return "gin-topk" }

func (ginTopK) Doc() string {
	return "GIN-ε convolutions + TopK pooling, supervised on labelled graphs (Xu et al. 2019; Gao & Ji 2019)"
}

// Defaults follow PROTOCOL §5: Adam lr 1e-3, batch 256, 100 epochs, TopK
// ratio 0.8, hidden 128. Two GIN layers per stage is our choice (the paper
// does not say). Each uniformly sampled batch is split into size_chunks
// size-sorted chunks padded separately (gnn.SizeChunks: same gradient, about
// half the time on COIL-DEL); batching=size trades fidelity for more speed
// (gnn.BatchingSize).
func (ginTopK) Defaults() suite.Params {
	return suite.Params{
		"epochs":      100,
		"batch_size":  256,
		"lr":          1e-3,
		"hidden":      128,
		"layers":      2,
		"pool_ratio":  0.8,
		"batching":    string(gnn.BatchingRandom),
		"size_chunks": 3,
	}
}

func (m ginTopK) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	p := task.Params
	return gnn.FitSupervised(ctx, task, gnn.SupervisedConfig{
		Encoder: gnn.EncoderConfig{
			Conv:           gnn.ConvGIN,
			Hidden:         p.Int("hidden"),
			LayersPerStage: p.Int("layers"),
			PoolRatio:      p.Float("pool_ratio"),
		},
		Epochs:    p.Int("epochs"),
		BatchSize: p.Int("batch_size"),
		LR:        p.Float("lr"),
		Batching:  gnn.Batching(p.Str("batching")),
		Chunks:    p.Int("size_chunks"),
	})
}
