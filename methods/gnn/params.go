package gnn

import (
	"math"

	"github.com/ugbench/ugbench/suite"
)

// The hyper-parameters that every GNN row shares (the supervised rows, the
// semi-supervised baselines and UGNN), declared once with the protocol's
// defaults (docs/protocol.md §5). A method adds them to its
// suite.ParamSet, with its own range or legacy value where it differs.
var (
	// ParamSteps is the supervised step budget.
	ParamSteps = suite.Int(suite.StepsParam, 0, suite.NonNegative,
		"optimizer steps on labelled batches (0 = the dataset's protocol budget, which the grid writes into every spec)")
	// ParamBatchSize is the labelled batch of a step.
	ParamBatchSize = suite.Int("batch_size", 64, suite.AtLeastOne, "labelled graphs per optimizer step")
	// ParamUnlabelledBatchSize is the batch of the unsupervised part (the
	// semi-supervised rows and UGNN).
	ParamUnlabelledBatchSize = suite.Int("unlabelled_batch_size", 256, suite.Range{Min: 2, Max: math.Inf(1)},
		"unlabelled graphs per step of the unsupervised part")
	// ParamLR is Adam's learning rate.
	ParamLR = suite.Float("lr", 1e-3, suite.Positive, "Adam learning rate")
	// ParamHidden is the encoder's width (EncoderConfig.Hidden).
	ParamHidden = suite.Int("hidden", 128, suite.AtLeastOne, "hidden width of the encoder")
	// ParamLayers is the number of message-passing layers per stage
	// (EncoderConfig.LayersPerStage).
	ParamLayers = suite.Int("layers", 2, suite.AtLeastOne, "message-passing layers per stage (before and after pooling)")
	// ParamPoolRatio is the pooling ratio ρ (EncoderConfig.PoolRatio).
	ParamPoolRatio = suite.Float("pool_ratio", 0.8, suite.Ratio, "pooling ratio ρ: the fraction of nodes kept")
	// SizeChunks splits every training batch into size-sorted chunks
	// padded separately (SizeChunks: same loss and gradient, less
	// padding).
	ParamSizeChunks = suite.Int("size_chunks", 3, suite.AtLeastOne,
		"size-sorted chunks each training batch is padded as (same gradient, less padding)")
	// CurveEvery reports the classes predicted for D^u every that many
	// passes (Task.ReportClasses); it changes nothing a run computes.
	ParamCurveEvery = suite.Int("curve_every", 0, suite.NonNegative,
		"report D^u's closed-set accuracy every N passes over D^l (0 = never); changes nothing computed")
	// ParamLayout is the batch layout (Layout, resolved by ChooseLayout):
	// edges, dense or auto. Its default is the edge list, the faster layout
	// at every size measured (CPU s per gin-topk epoch, edges vs dense:
	// Letter-high 0.083 vs 0.100, COIL-DEL 1.57 vs 1.83, COLORS-3 5.4 vs
	// 9.6; docs/speed.md "Large graphs"); ASAP, whose pooling has no
	// edge-list path, defaults to auto, which is dense for it. Its legacy
	// value is auto: auto picks the dense layout for every dataset of the
	// runs stored before the edge list became the default (Letter-*,
	// COIL-DEL: DenseMaxNodes), the layout those runs used, so it hashes
	// as if absent and they keep their hashes and numbers.
	ParamLayout = suite.Enum("layout", string(LayoutEdges),
		"batch layout (time and memory only): edges, dense or auto (dense up to 100 nodes, the legacy rule)",
		string(LayoutAuto), string(LayoutDense), string(LayoutEdges)).WithLegacy(string(LayoutAuto))
)
