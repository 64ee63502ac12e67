package gnn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

// SupervisedConfig configures a GNN classifier trained with cross-entropy on
// the labelled graphs only (the paper's convolution and pooling baselines).
type SupervisedConfig struct {
	Encoder EncoderConfig
	// Steps is the number of optimizer steps (the protocol's supervised
	// step budget, docs/protocol.md §5), taken as passes over the labelled
	// set (epochs) of BatchSize graphs a step, the last pass cut short.
	Steps, BatchSize int
	// CurveEvery, if > 0, reports the classes predicted for D^u to the
	// suite every CurveEvery epochs and after the last (curve
	// du_closed_acc); it does not change training.
	CurveEvery int
	// LR is Adam's learning rate.
	LR float64
	// Batching is how an epoch is cut into batches: BatchingRandom
	// (default, also for "") or BatchingSize.
	Batching Batching
	// Chunks splits every batch into at most this many size-sorted chunks
	// padded separately (SizeChunks); the gradient is unchanged, the
	// padding shrinks. 0 or 1: no split.
	Chunks int
	// Layout is the batch layout: LayoutAuto (also "") picks one by graph
	// size (ChooseLayout); LayoutDense or LayoutEdges force one. Both
	// compute the same function; only time and memory differ.
	Layout Layout
}

// Batching names an epoch's batching strategy.
type Batching string

const (
	// BatchingRandom is plain uniform shuffling, the default: every batch is
	// a uniform sample and is padded to its largest graph.
	BatchingRandom Batching = "random"
	// BatchingSize sorts the shuffled graphs by node count, cuts them into
	// batches and shuffles the batch order (bucket-by-length, as in sequence
	// models): every graph is seen once per epoch with little padding —
	// a COIL-DEL epoch takes 6.2 s instead of 36 s (plain build) — but a
	// batch holds graphs of similar size, and where size correlates with
	// the class the batches are nearly single-class: on Letter-high (15
	// epochs, batch 32) known-class accuracy fell from 0.31 to 0.14.
	BatchingSize Batching = "size"
)

// EpochBatches cuts a shuffled copy of idx into batches of at most
// batchSize graphs according to strategy.
func EpochBatches(graphs []datasets.Graph, idx []int, batchSize int, strategy Batching, rng *rand.Rand) ([][]int, error) {
	order := slices.Clone(idx)
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	switch strategy {
	case BatchingRandom, "":
	case BatchingSize:
		slices.SortStableFunc(order, func(a, b int) int { return graphs[a].NumNodes - graphs[b].NumNodes })
	default:
		return nil, fmt.Errorf("batching %q: want %q or %q", strategy, BatchingSize, BatchingRandom)
	}
	var batches [][]int
	for start := 0; start < len(order); start += batchSize {
		batches = append(batches, order[start:min(start+batchSize, len(order))])
	}
	rng.Shuffle(len(batches), func(i, j int) { batches[i], batches[j] = batches[j], batches[i] })
	return batches, nil
}

// Classifier is a trained-or-training encoder Φ plus MLP head ψ on one
// backend. It is not safe for concurrent use.
type Classifier struct {
	cfg      SupervisedConfig
	layout   Layout // resolved: LayoutDense or LayoutEdges
	classes  int
	backend  compute.Backend
	store    *model.Store
	execs    *Execs
	train    *Executable
	predict  *Executable
	features *Features
	task     *suite.Task
	labelOf  map[int]int32 // labelled graph → known class
}

// NewClassifier builds the model for task (features standardised over all
// graphs) on the backend task.Backend, seeded with task.Seed.
func NewClassifier(task *suite.Task, cfg SupervisedConfig) (*Classifier, error) {
	if err := cfg.Encoder.Validate(); err != nil {
		return nil, err
	}
	if cfg.Steps < 0 || cfg.BatchSize < 1 || !(cfg.LR > 0) {
		return nil, fmt.Errorf("steps %d, batch_size %d, lr %g: need steps ≥ 0, batch_size ≥ 1, lr > 0", cfg.Steps, cfg.BatchSize, cfg.LR)
	}
	backend, err := NewBackend(BackendConfig(task.Backend))
	if err != nil {
		return nil, err
	}
	layout, err := ChooseLayout(cfg.Layout, cfg.Encoder, task.Graphs)
	if err != nil {
		return nil, err
	}
	c := &Classifier{cfg: cfg, layout: layout, classes: task.NumKnown, backend: backend, store: model.NewStore(), task: task}
	if err := SetSeed(c.store, task.Seed); err != nil {
		return nil, err
	}
	c.features = StandardizeFeatures(task.Graphs, task.FeatureDim, task.TrainPool())
	c.labelOf = make(map[int]int32, len(task.Labelled))
	for i, g := range task.Labelled {
		c.labelOf[g] = int32(task.Labels[i])
	}
	opt := optimizer.Adam().LearningRate(cfg.LR).Done()
	// Inputs per chunk: the layout's batch inputs (3 dense: x, adj, mask;
	// 6 edge-list: EdgeBatch.Tensors), then labels and weight.
	per := c.numInputs() + 2
	c.execs = NewExecs(backend, c.store)
	c.train, err = c.execs.Step(func(scope *model.Scope, in []*Node) []*Node {
		var logits, labels, weights []*Node
		for s := 0; s+per-1 < len(in); s += per {
			logits = append(logits, c.logits(scope, in[s:s+per-2], in[s+per-1].Shape().Dim(0)))
			labels, weights = append(labels, in[s+per-2]), append(weights, in[s+per-1])
		}
		loss := ChunkedCrossEntropy(logits, labels, weights)
		opt.UpdateGraph(scope, in[0].Graph(), loss)
		return []*Node{loss}
	})
	if err != nil {
		return nil, err
	}
	c.predict, err = c.execs.Infer(func(scope *model.Scope, in []*Node) []*Node {
		logits, z := c.forward(scope, in, 0)
		return []*Node{logits, z}
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Close releases the compiled executables (the backend is shared).
func (c *Classifier) Close() { c.execs.Close() }

// Layout returns the batch layout the classifier resolved (LayoutDense or
// LayoutEdges).
func (c *Classifier) Layout() Layout { return c.layout }

// numInputs is the number of batch inputs of c's layout.
func (c *Classifier) numInputs() int { return NumBatchInputs(c.layout) }

// logits encodes one batch and applies the head: → [B, classes] (forward
// without the readout).
func (c *Classifier) logits(scope *model.Scope, in []*Node, numGraphs int) *Node {
	logits, _ := c.forward(scope, in, numGraphs)
	return logits
}

// forward encodes one batch and applies the head: the class logits
// [B, classes] and the readout z [B, 2·Hidden] the head reads (Encode's
// output). in are the layout's numInputs batch inputs; in the edge-list
// layout B is numGraphs, or, if numGraphs is 0 (the predictor), the length
// of one more trailing [B] input. The dense layout ignores numGraphs.
func (c *Classifier) forward(scope *model.Scope, in []*Node, numGraphs int) (logits, z *Node) {
	if c.layout == LayoutEdges {
		if numGraphs == 0 {
			numGraphs = in[len(in)-1].Shape().Dim(0) // predictor: a trailing [B] slot input
			in = in[:len(in)-1]
		}
		z = EncodeEdges(scope.At("encoder"), c.cfg.Encoder, NewEdgeInputs(in, numGraphs))
	} else {
		z = Encode(scope.At("encoder"), c.cfg.Encoder, in[0], in[1], in[2]) // At: one step encodes several chunks
	}
	return MLP(scope.At("head"), z, c.cfg.Encoder.Hidden, c.classes), z
}

// batchArgs lays the graphs idx out in c's layout: the batch inputs as
// GoMLX tensors, the slot count B and the slots' weights [B].
func (c *Classifier) batchArgs(idx []int) (args []any, slots int, weight []float32) {
	return BatchInputs(c.layout, c.task.Graphs, c.features, idx, c.cfg.BatchSize)
}

// TrainEpoch runs one epoch over the labelled graphs (shuffled by rng) and
// returns the mean loss. A NaN or infinite loss is an error.
func (c *Classifier) TrainEpoch(ctx context.Context, rng *rand.Rand) (float64, error) {
	loss, _, err := c.TrainSteps(ctx, rng, -1)
	return loss, err
}

// TrainSteps runs one epoch over the labelled graphs (shuffled by rng),
// stopping after maxSteps optimizer steps if maxSteps ≥ 0, and returns the
// mean loss over the graphs it trained on and the steps taken. A NaN or
// infinite loss is an error.
func (c *Classifier) TrainSteps(ctx context.Context, rng *rand.Rand, maxSteps int) (float64, int, error) {
	batches, err := EpochBatches(c.task.Graphs, c.task.Labelled, c.cfg.BatchSize, c.cfg.Batching, rng)
	if err != nil {
		return 0, 0, err
	}
	if maxSteps >= 0 && maxSteps < len(batches) {
		batches = batches[:maxSteps]
	}
	loss, err := Pass(ctx, batches, func(_ int, idx []int) (float64, error) { return c.step(idx) })
	return loss, len(batches), err
}

// step takes one optimizer step on the labelled graphs idx (split into
// size chunks, SizeChunks) and returns the batch's loss; a NaN or
// infinite loss is an error.
func (c *Classifier) step(idx []int) (float64, error) {
	var args []any
	for _, chunk := range SizeChunks(c.task.Graphs, idx, c.cfg.Chunks) {
		in, slots, weight := c.batchArgs(chunk)
		y := make([]int32, slots)
		for s, g := range chunk {
			y[s] = c.labelOf[g]
		}
		args = append(append(args, in...), tensors.FromFlatDataAndDimensions(y, slots), tensors.FromFlatDataAndDimensions(weight, slots))
	}
	out, err := c.train.Exec(args...)
	if err != nil {
		return 0, fmt.Errorf("train step: %w", err)
	}
	return CheckedScalar(out[0], "loss")
}

// Logits returns the classifier's logits over known classes of every graph
// in idx, shape [len(idx)][NumKnown] (the softmax's input; MaxSoftmax turns
// a row into a class and an unknown score). Graphs are batched by size to
// keep padding small; the output follows idx's order.
func (c *Classifier) Logits(ctx context.Context, idx []int) ([][]float32, error) {
	logits, _, err := c.Predict(ctx, idx)
	return logits, err
}

// Predict returns, for every graph in idx, the logits over known classes
// [len(idx)][NumKnown] and the readout embedding the head reads
// [len(idx)][Encoder.EmbeddingDim()] (mean‖max of the last stage), both
// in idx's order, from one pass of the prediction graph batched by size.
func (c *Classifier) Predict(ctx context.Context, idx []int) (logits, emb [][]float32, err error) {
	logits, emb = make([][]float32, len(idx)), make([][]float32, len(idx))
	err = BySize(ctx, len(idx), c.cfg.BatchSize, func(i int) int { return c.task.Graphs[idx[i]].NumNodes }, func(pos []int) error {
		part := make([]int, len(pos))
		for s, p := range pos {
			part[s] = idx[p]
		}
		in, slots, weight := c.batchArgs(part)
		if c.layout == LayoutEdges {
			in = append(in, tensors.FromFlatDataAndDimensions(weight, slots)) // carries B
		}
		out, err := c.predict.Exec(in...)
		if err != nil {
			return fmt.Errorf("predict: %w", err)
		}
		Rows(logits, out[0], pos)
		Rows(emb, out[1], pos)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return logits, emb, nil
}

// MaxSoftmax returns, for one graph's logits [C] (C ≥ 1), the arg-max class
// (the first on ties) and the unknown score 1 − max softmax probability
// (Hendrycks & Gimpel 2017, the confidence baseline of docs/protocol.md §3).
// The score is computed in float64 from the logits as S/(1+S), with
// S = Σ_{j≠c} exp(l_j − l_c) ≤ C−1, never as 1 − softmax: a float32
// softmax rounds the max probability to exactly 1 once S < 2⁻²⁴ (logit
// gaps above ~17 with few classes), and every such graph then scores 0,
// a tie that the protocol's threshold (the lowest declared D^u score)
// turns into declaring all of them unknown. S/(1+S) keeps full relative
// precision down to gaps of ~745 (where exp underflows).
func MaxSoftmax(logits []float32) (class int, unknown float64) {
	for c := range logits {
		if logits[c] > logits[class] {
			class = c
		}
	}
	top := float64(logits[class])
	var s float64
	for c, l := range logits {
		if c != class {
			s += math.Exp(float64(l) - top)
		}
	}
	return class, s / (1 + s)
}

// MaxSoftmaxPredictions turns logits [n][C] into Predictions with
// MaxSoftmax: class = argmax, unknown score = 1 − max softmax.
func MaxSoftmaxPredictions(logits [][]float32) *suite.Predictions {
	p := &suite.Predictions{Class: make([]int, len(logits)), UnknownScore: make([]float64, len(logits))}
	for i, row := range logits {
		p.Class[i], p.UnknownScore[i] = MaxSoftmax(row)
	}
	return p
}

// EpochsFor is the number of passes over n labelled graphs that steps
// optimizer steps of batchSize graphs take (the last pass may be cut
// short): ⌈steps / ⌈n/batchSize⌉⌉.
func EpochsFor(steps, n, batchSize int) int {
	perEpoch := max((n+batchSize-1)/batchSize, 1)
	return (steps + perEpoch - 1) / perEpoch
}

// FitSupervised trains a classifier on task's labelled graphs for cfg.Steps
// optimizer steps, logging per epoch (pass over D^l) the mean loss and the
// epoch's steps (curve "steps", as UGNN logs it), and predicts task.Eval with the maximum-softmax unknown
// score; the predictions carry the logits and the readout embeddings the
// head reads (Predictions.Embeddings, EmbeddingDim() wide) of task.Eval
// and of task.Labelled, for the post-hoc scorers. It saves its state after
// an epoch when task.Resume says a save is due (RunState), and an
// interrupted run continues from the last save.
func FitSupervised(ctx context.Context, task *suite.Task, cfg SupervisedConfig) (*suite.Predictions, error) {
	c, err := NewClassifier(task, cfg)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	t := &Trainer{Task: task, Store: c.store, Total: EpochsFor(cfg.Steps, len(task.Labelled), cfg.BatchSize),
		CurveEvery: cfg.CurveEvery, Logits: c.Logits}
	rng := t.State.TrackRNG("batches", NewPCG(task.Seed, StreamBatches))
	// at is the progress saved after every epoch but the last when a save
	// is due (task.Resume) and restored by an interrupted run.
	var at struct{ Epochs, Steps int }
	if _, err := t.Restore(&at); err != nil {
		return nil, err
	}
	t.Epoch = at.Epochs
	loop := Passes{Graphs: task.Graphs, Idx: task.Labelled, Batch: cfg.BatchSize, Batching: cfg.Batching, Steps: cfg.Steps, Rand: rng,
		Step: func(_ int, idx []int) (float64, error) { return c.step(idx) },
		End: func(p PassesAt, values map[string]float64) error {
			if err := t.EndEpoch(ctx, values); err != nil {
				return err
			}
			if p.Steps < cfg.Steps {
				at.Epochs, at.Steps = p.Passes, p.Steps
				t.Save(at)
			}
			return nil
		}}
	if err := loop.Run(ctx, PassesAt{Passes: at.Epochs, Steps: at.Steps}); err != nil {
		return nil, err
	}
	logits, emb, err := c.Predict(ctx, task.Eval)
	if err != nil {
		return nil, err
	}
	p := MaxSoftmaxPredictions(logits)
	p.Embeddings, p.Logits = emb, logits
	// D^l in a pass of its own, so that the Eval graphs' batches (and
	// their floating-point results) are those of a run without it.
	if p.LabelledLogits, p.LabelledEmbeddings, err = c.Predict(ctx, task.Labelled); err != nil {
		return nil, err
	}
	return p, nil
}
