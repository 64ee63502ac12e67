package semisup

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

// backbone declares the parameters every row shares with gin-topk
// (methods/gnn, docs/protocol.md §5): `steps` supervised optimizer steps
// at `batch_size` 64 (0 = the dataset's protocol budget, which the grid
// writes into every spec; Fit takes it literally), the unsupervised
// part's batches of `unlabelled_batch_size` 256 graphs (pretraining,
// InfoGraph's and GLA's unlabelled batches), Adam lr 1e-3, hidden 128,
// two GIN layers per stage, TopK ratio 0.8, `curve_every` (if > 0, the
// classes predicted for D^u are reported every curve_every passes over
// D^l and after the last, as gin-topk does), and `size_chunks` 3 (every
// training batch is padded as that many size-sorted chunks, as gin-topk's
// batches are: see chunked) and `layout` edges (the edge list, or dense
// padded batches, as gin-topk's: paramLayout). The runs stored before
// size_chunks padded every batch whole: its legacy value is 1
// (suite.ParamSpec.Legacy); layout's is auto.
var backbone = suite.Declare(gnn.ParamSteps, gnn.ParamCurveEvery, gnn.ParamBatchSize, gnn.ParamLR,
	gnn.ParamUnlabelledBatchSize, gnn.ParamHidden, gnn.ParamLayers, gnn.ParamPoolRatio,
	gnn.ParamSizeChunks.WithLegacy(1), paramLayout)

// Parameters that several rows share, each with the default of the first
// row that declares it; the others set theirs (WithDefault).
var (
	paramTau           = suite.Float("tau", 0.5, suite.Positive, "temperature τ of the contrastive loss")
	paramPretrainEpoch = suite.Int("pretrain_epochs", 100, suite.NonNegative, "passes over D^l ∪ D^u of contrastive pretraining")
	paramPretrainLR    = suite.Float("pretrain_lr", 1e-3, suite.Positive, "Adam learning rate of pretraining")
	// paramPretrainCap is the protocol's rule for pretraining counted in
	// epochs over the pool (docs/protocol.md §5, "Unsupervised passes"):
	// see pretrainEpochs. Its legacy value is its default: at the
	// protocol's budgets it does not bind on the datasets of the stored
	// grids (Letter-high, COIL-DEL; TestPretrainCapKeepsOfficialRecipe),
	// so those runs computed what a capped run computes.
	paramPretrainCap = suite.Float("pretrain_step_cap", 2, suite.NonNegative,
		"cap on pretraining steps, as a multiple of the supervised steps (0 = no cap: every pretrain_epochs epoch)").WithLegacy(2)
)

// pretrainEpochs is the number of pretraining epochs over D^l ∪ D^u
// (poolSize graphs, ⌈poolSize/ubatch⌉ optimizer steps per epoch) that a
// run takes: all `epochs` when capFactor is 0 or when they fit within
// capFactor·steps optimizer steps, else the most whole epochs that fit,
// and at least one. This keeps the official recipe (GraphCL's 100 epochs,
// RGCL's 40) on pools of a few thousand graphs and bounds it on MNIST's
// and CIFAR10's tens of thousands, where 100 epochs are ~17,000 steps of
// 256 graphs (docs/protocol.md §5).
func pretrainEpochs(epochs int, capFactor float64, steps, poolSize, ubatch int) int {
	if capFactor == 0 || epochs == 0 || poolSize == 0 {
		return epochs
	}
	perEpoch := (poolSize + ubatch - 1) / ubatch
	fit := int(math.Floor(capFactor * float64(steps) / float64(perEpoch)))
	return max(1, min(epochs, fit))
}

// unlabelledBatchCap is the most batches of D^u (of ubatch graphs) that
// one of GLA's passes over D^u takes (docs/protocol.md §5): the whole
// batches that hold at most perLabelled unlabelled graphs per labelled
// one, ⌊perLabelled·labelled/ubatch⌋, at least one; 0 (no cap: every batch
// of D^u) when perLabelled is 0. The official code passes over all of D^u
// before every pass over D^l: 1.4–6.5 unlabelled graphs per labelled one
// on Letter-high, COIL-DEL, COLORS-3 and CIFAR10, but ~140 at MNIST's 1%
// labelled ratio.
func unlabelledBatchCap(perLabelled float64, labelled, ubatch int) int {
	if perLabelled == 0 {
		return 0
	}
	return max(1, int(math.Floor(perLabelled*float64(labelled)/float64(ubatch))))
}

// pretrainEpochsOf is pretrainEpochs with task's parameters and pool.
func pretrainEpochsOf(task *suite.Task) int {
	p := task.Params
	return pretrainEpochs(paramPretrainEpoch.Get(p), paramPretrainCap.Get(p), gnn.ParamSteps.Get(p),
		len(pool(task)), gnn.ParamUnlabelledBatchSize.Get(p))
}

// net is one run's model store, backend, standardised features and
// compiled executables.
type net struct {
	task    *suite.Task
	enc     gnn.EncoderConfig
	feats   *gnn.Features
	backend compute.Backend
	store   *model.Store
	batch   int // supervised batch
	ubatch  int // unsupervised batch
	chunks  int // size_chunks
	steps   int
	lr      float64
	// layout is the run's resolved layout (paramLayout): gnn.LayoutDense
	// or gnn.LayoutEdges.
	layout gnn.Layout
	// predict (one chunk, chunkAt → logits and the readout z the head
	// reads, gnn.Encode's output) is set by the method before
	// supervisedSteps and used for its curve (tr.Logits) and the final
	// prediction.
	predict *gnn.Executable
	label   map[int]int32
	// execs compiles the method's steps (Step) and inference graphs
	// (Infer).
	execs *gnn.Execs
	// tr logs, reports the curve du_closed_acc (curve_every) and saves;
	// tr.State is the host state a resumed run restores besides the store
	// (see restore); at is the progress it restored (zero for a fresh run).
	tr gnn.Trainer
	at progress
}

// newNet validates the shared parameters (backbone) and sets up the store, seeded
// with task.Seed, with features standardised over D^l ∪ D^u.
func newNet(task *suite.Task) (*net, error) {
	p := task.Params
	enc := gnn.EncoderConfig{Conv: gnn.ConvGIN, Pool: gnn.PoolTopK, Hidden: gnn.ParamHidden.Get(p),
		LayersPerStage: gnn.ParamLayers.Get(p), PoolRatio: gnn.ParamPoolRatio.Get(p)}
	if err := enc.Validate(); err != nil {
		return nil, err
	}
	if err := backbone.Check(p); err != nil {
		return nil, err
	}
	layout, err := gnn.ChooseLayout(gnn.Layout(paramLayout.Get(p)), enc, task.Graphs)
	if err != nil {
		return nil, err
	}
	n := &net{task: task, enc: enc, batch: gnn.ParamBatchSize.Get(p), ubatch: gnn.ParamUnlabelledBatchSize.Get(p),
		steps: gnn.ParamSteps.Get(p), lr: gnn.ParamLR.Get(p), chunks: gnn.ParamSizeChunks.Get(p), layout: layout}
	if len(task.Labelled) == 0 {
		return nil, fmt.Errorf("no labelled graphs")
	}
	backend, err := gnn.NewBackend(gnn.BackendConfig(task.Backend))
	if err != nil {
		return nil, err
	}
	n.backend, n.store = backend, model.NewStore()
	n.execs = gnn.NewExecs(backend, n.store)
	n.tr = gnn.Trainer{Task: task, Store: n.store, CurveEvery: gnn.ParamCurveEvery.Get(p),
		Logits: func(ctx context.Context, idx []int) ([][]float32, error) { return n.logits(ctx, n.predict, idx) }}
	if err := gnn.SetSeed(n.store, task.Seed); err != nil {
		return nil, err
	}
	n.feats = gnn.StandardizeFeatures(task.Graphs, task.FeatureDim, task.TrainPool())
	n.label = make(map[int]int32, len(task.Labelled))
	for i, g := range task.Labelled {
		n.label[g] = int32(task.Labels[i])
	}
	return n, nil
}

func (n *net) close() { n.execs.Close() }

// adam is an Adam optimiser whose moments and step counter live in their
// own scope (so two of them over the same variables share nothing) and
// whose learning rate is set from the host before every step (GoMLX keeps
// one learning-rate variable per optimised scope; setLR writes it).
type adam struct {
	opt    optimizer.Interface
	lrPath string
	lr     float64
}

// newAdam is Adam(lr) with its state under /name, optimising the
// variables under scopePath ("" = all).
func newAdam(name, scopePath string, lr float64) *adam {
	return &adam{opt: optimizer.Adam().Scope(name).LearningRate(lr).Done(),
		lrPath: scopePath + "/" + optimizer.Scope + "/" + optimizer.ParamLearningRate, lr: lr}
}

// minimise adds a's update of the variables under scope (the root scope:
// all) for loss to loss's graph (a gnn.Execs.Step graph).
func (a *adam) minimise(_ *model.Store, scope *model.Scope, loss *Node) {
	a.opt.UpdateGraph(scope, loss.Graph(), loss)
}

// setLR writes a's learning rate into the store before one of its steps
// (no-op before the first compilation, which creates the variable with
// a's own rate).
func (a *adam) setLR(store *model.Store) error {
	if v := store.GetVariable(a.lrPath); v != nil {
		return v.SetValue(tensors.FromScalar(float32(a.lr)))
	}
	return nil
}

// step runs one optimizer step: the learning rates of opts (setLR), then
// exec on args; it returns the checked loss, exec's first output
// (gnn.CheckedScalar).
func (n *net) step(exec *gnn.Executable, args []any, opts ...*adam) (float64, error) {
	for _, o := range opts {
		if err := o.setLR(n.store); err != nil {
			return 0, err
		}
	}
	out, err := exec.Exec(args...)
	if err != nil {
		return 0, err
	}
	return gnn.CheckedScalar(out[0], "loss")
}

// inputs lays graphs (with feature rows nodes) out as one chunk in n's
// layout (chunkOf) and returns its inputs and where its nodes are.
func (n *net) inputs(graphs []datasets.Graph, nodes [][]float32) ([]any, nodeRows) {
	idx := make([]int, len(graphs))
	for i := range idx {
		idx[i] = i
	}
	in, _, rows := n.chunkOf(graphs, nodes, idx)
	return in, rows
}

// chunked is one training batch padded as size chunks: the batch's
// positions are split by the node counts of their original graphs
// (gnn.SizeChunks, size_chunks of them) and each chunk is padded on its
// own, so a batch of mostly small graphs no longer pads every graph to the
// largest one. Every view of one batch is laid out by the same plan, so
// slot s holds the same graph in every view (row-aligned for the
// contrastive losses). Padding never changes a loss or its gradient, so
// the result is the unsplit batch's up to float rounding.
type chunked struct {
	// In are the inputs of every chunk s in slot order, in the run's
	// layout (chunkOf): dense x [B_s, N_s, D], adj [B_s, N_s, N_s] and
	// mask [B_s, N_s]; or the edge list's seven (gnn.EdgeBatch.Tensors
	// and the slot weight [B_s]).
	In []any
	// Weight [ΣB_s] is 1 on the slots of real graphs, 0 on padding.
	Weight *tensors.Tensor
	// Pos[s] is the batch position of slot s (−1 for padding).
	Pos []int
}

// plan is the chunks of batch positions of the graphs idx, by their
// original node counts.
func (n *net) plan(idx []int) [][]int {
	pos := make([]int, len(idx))
	sizes := make([]datasets.Graph, len(idx))
	for i, g := range idx {
		pos[i] = i
		sizes[i] = datasets.Graph{NumNodes: n.task.Graphs[g].NumNodes}
	}
	return gnn.SizeChunks(sizes, pos, n.chunks)
}

// lay pads graphs[i] (with feature rows nodes[i]), the view of batch
// position i, chunk by chunk as plan says.
func (n *net) lay(graphs []datasets.Graph, nodes [][]float32, plan [][]int) chunked {
	var c chunked
	var weight []float32
	for _, part := range plan {
		in, w, _ := n.chunkOf(graphs, nodes, part)
		c.In = append(c.In, in...)
		weight = append(weight, w...)
		for s := range w {
			if s < len(part) {
				c.Pos = append(c.Pos, part[s])
			} else {
				c.Pos = append(c.Pos, -1)
			}
		}
	}
	c.Weight = tensors.FromFlatDataAndDimensions(weight, len(weight))
	return c
}

// layOriginal is lay for the un-augmented graphs idx.
func (n *net) layOriginal(idx []int, plan [][]int) chunked {
	graphs := make([]datasets.Graph, len(idx))
	nodes := make([][]float32, len(idx))
	for i, g := range idx {
		graphs[i], nodes[i] = n.task.Graphs[g], n.feats.Nodes[g]
	}
	return n.lay(graphs, nodes, plan)
}

// labelsOf is the [ΣB_s] int32 label tensor of the labelled graphs idx
// laid out as c (padding slots 0).
func (n *net) labelsOf(idx []int, c chunked) *tensors.Tensor {
	y := make([]int32, len(c.Pos))
	for s, p := range c.Pos {
		if p >= 0 {
			y[s] = n.label[idx[p]]
		}
	}
	return tensors.FromFlatDataAndDimensions(y, len(y))
}

// args is c's inputs followed by its weight and extra.
func (c chunked) args(extra ...any) []any {
	return append(append(append([]any{}, c.In...), c.Weight), extra...)
}

// cursor reads a graph's inputs in order: chunked views (chunks in
// either layout, as chunked.In lays them and chunkAt reads them) and
// single inputs.
type cursor struct {
	in []*Node
	i  int
}

// chunks consumes the consecutive chunks at the cursor.
func (c *cursor) chunks() []graphIn {
	var out []graphIn
	for {
		g, k := chunkAt(c.in, c.i)
		if k == 0 {
			return out
		}
		out = append(out, g)
		c.i += k
	}
}

// views consumes k chunks: a view laid out by a plan of k chunks, when
// several views of one plan follow each other.
func (c *cursor) views(k int) []graphIn {
	out := make([]graphIn, k)
	for i := range out {
		g, n := chunkAt(c.in, c.i)
		if n == 0 {
			panic(fmt.Sprintf("semisup: input %d: no chunk of a %d-chunk view", c.i, k))
		}
		out[i] = g
		c.i += n
	}
	return out
}

// next consumes one input.
func (c *cursor) next() *Node {
	c.i++
	return c.in[c.i-1]
}

// concatChunks applies f to every chunk and concatenates the results
// along the first (slot) axis: [ΣB_s, ...].
func concatChunks(chunks []graphIn, f func(g graphIn) *Node) *Node {
	outs := make([]*Node, len(chunks))
	for i, c := range chunks {
		outs[i] = f(c)
	}
	if len(outs) == 1 {
		return outs[0]
	}
	return Concatenate(outs, 0)
}

// original is inputs for the un-augmented graphs idx.
func (n *net) original(idx []int) ([]any, nodeRows) {
	graphs := make([]datasets.Graph, len(idx))
	nodes := make([][]float32, len(idx))
	for i, g := range idx {
		graphs[i], nodes[i] = n.task.Graphs[g], n.feats.Nodes[g]
	}
	return n.inputs(graphs, nodes)
}

// head is the suite's MLP head in scope: h = ReLU(W0·z + b0) [.., H] and
// logits = W1·h + b1 [.., C] (the same variables as gnn.MLP(scope, z, H,
// C)). z may have any leading axes.
func head(scope *model.Scope, z *Node, hidden, classes int) (h, logits *Node) {
	h = gnn.ReLU(gnn.Linear(scope.At("layer_0"), z, hidden))
	return h, gnn.Linear(scope.At("layer_1"), h, classes)
}

// sizeBatches cuts idx into batches of similar graph size (gnn.BySize:
// sorted by node count, little padding) and calls fn with each batch's
// positions in idx, its graphs, its original-graph inputs (one chunk)
// and where their nodes are.
func (n *net) sizeBatches(ctx context.Context, idx []int, fn func(pos, part []int, in []any, rows nodeRows) error) error {
	return gnn.BySize(ctx, len(idx), n.batch, func(i int) int { return n.task.Graphs[idx[i]].NumNodes }, func(pos []int) error {
		part := make([]int, len(pos))
		for s, p := range pos {
			part[s] = idx[p]
		}
		in, rows := n.original(part)
		return fn(pos, part, in, rows)
	})
}

// logits runs predict (inputs: one chunk → logits [B, C] and,
// optionally, the readout the head reads [B, d]) over idx and returns the
// logit rows in idx's order.
func (n *net) logits(ctx context.Context, predict *gnn.Executable, idx []int) ([][]float32, error) {
	logits, _, err := n.predictions(ctx, predict, idx)
	return logits, err
}

// predictions is logits that also returns predict's second output,
// the embeddings [len(idx)][d] (nil if predict has one output).
func (n *net) predictions(ctx context.Context, predict *gnn.Executable, idx []int) (logits, emb [][]float32, err error) {
	logits = make([][]float32, len(idx))
	err = n.sizeBatches(ctx, idx, func(pos, _ []int, in []any, _ nodeRows) error {
		out, err := predict.Exec(in...)
		if err != nil {
			return fmt.Errorf("predict: %w", err)
		}
		gnn.Rows(logits, out[0], pos)
		if len(out) > 1 {
			if emb == nil {
				emb = make([][]float32, len(idx))
			}
			gnn.Rows(emb, out[1], pos)
		}
		return nil
	})
	return logits, emb, err
}

// pool is D^l ∪ D^u (Task.TrainPool), the graphs the unsupervised parts
// may use: never the held-out test graphs of Task.Eval.
func pool(task *suite.Task) []int { return task.TrainPool() }

// supervisedSteps runs the run's `steps` supervised steps: labelled batches
// from successive shuffled passes over D^l (gnn.Passes, random batches),
// calling step for each; step returns the batch loss, or NaN for a
// skipped step (no optimizer call; counted in the budget, left out of the
// pass's mean loss). beforePass (optional) runs at the start of every
// pass (e.g. GLA's unlabelled pass) and returns extra curve values. After
// every pass — and after the last, possibly partial, one — the mean loss
// of the pass and the extra values are logged as one curve point (n.tr:
// with the curve du_closed_acc every curve_every passes and after the
// last), and the run's state is saved when a save is due (net.save). A
// resumed run (net.restore) continues after the passes it restored.
func (n *net) supervisedSteps(ctx context.Context, rng *rand.Rand,
	step func(pass int, idx []int) (float64, error),
	beforePass func(pass int) (map[string]float64, error)) error {
	n.tr.Epoch, n.tr.Total = n.at.Passes, gnn.EpochsFor(n.steps, len(n.task.Labelled), n.batch)
	loop := gnn.Passes{Graphs: n.task.Graphs, Idx: n.task.Labelled, Batch: n.batch, Batching: gnn.BatchingRandom,
		Steps: n.steps, Rand: rng, Before: beforePass, Step: step,
		End: func(at gnn.PassesAt, values map[string]float64) error {
			if err := n.tr.EndEpoch(ctx, values); err != nil {
				return err
			}
			if at.Steps < n.steps {
				n.save(progress{Pretrain: n.at.Pretrain, Passes: at.Passes, Steps: at.Steps})
			}
			return nil
		}}
	return loop.Run(ctx, gnn.PassesAt{Passes: n.at.Passes, Steps: n.at.Steps})
}

// pretrain runs the contrastive pretraining of GraphCL and RGCL: passes
// (epochs) 1..epochs over D^l ∪ D^u (pool) in shuffled batches of
// unlabelled_batch_size graphs drawn from rng, from the epoch after the
// last one a resumed run restored. start (optional) runs at the start of
// every epoch, before its batches are drawn; step takes one optimizer
// step on a batch of at least two graphs and returns its loss (smaller
// batches, whose E1 denominator is empty, are skipped without an
// optimizer call and counted as pretrain_skipped); values (optional) adds
// to the epoch's logged values. After every epoch the run's state is
// saved when a save is due.
func (n *net) pretrain(ctx context.Context, epochs int, rng *rand.Rand, start func(ep int) error,
	step func(ep int, idx []int) (float64, error), values func(map[string]float64)) error {
	all := pool(n.task)
	suite.Phase(n.task.Log, "pretrain")
	for ep := n.at.Pretrain + 1; ep <= epochs; ep++ {
		if start != nil {
			if err := start(ep); err != nil {
				return err
			}
		}
		batches, err := gnn.EpochBatches(n.task.Graphs, all, n.ubatch, gnn.BatchingRandom, rng)
		if err != nil {
			return err
		}
		skipped := 0
		loss, err := gnn.Pass(ctx, batches, func(_ int, idx []int) (float64, error) {
			if len(idx) < 2 {
				skipped++
				return math.NaN(), nil
			}
			l, err := step(ep, idx)
			if err != nil {
				return 0, fmt.Errorf("pretrain epoch %d: %w", ep, err)
			}
			return l, nil
		})
		if err != nil {
			return err
		}
		v := map[string]float64{"pretrain_loss": loss, "pretrain_skipped": float64(skipped)}
		if values != nil {
			values(v)
		}
		n.task.Log.Epoch(ep, epochs, v)
		n.at.Pretrain = ep
		n.save(n.at)
	}
	return nil
}

// predictMaxSoftmax predicts task.Eval with n.predict (outputs: logits,
// readout) and the final weights: class = argmax, unknown score = 1 − max
// softmax from the logits (gnn.MaxSoftmax); the embeddings are n.predict's
// second output (the readout the head reads). Logits and embeddings of
// task.Eval and task.Labelled are handed over for the post-hoc scorers.
func (n *net) predictMaxSoftmax(ctx context.Context) (*suite.Predictions, error) {
	logits, emb, err := n.predictions(ctx, n.predict, n.task.Eval)
	if err != nil {
		return nil, err
	}
	p := gnn.MaxSoftmaxPredictions(logits)
	p.Embeddings, p.Logits = emb, logits
	// D^l in a pass of its own: Eval's batches stay those of a run
	// without it.
	if p.LabelledLogits, p.LabelledEmbeddings, err = n.predictions(ctx, n.predict, n.task.Labelled); err != nil {
		return nil, err
	}
	return p, nil
}
