package ugnn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model/checkpoint"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/internal/cpukernels"
	"github.com/ugbench/ugbench/methods/augment"
	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

// run is one Fit: the task, the network and the per-run state.
type run struct {
	task  *suite.Task
	cfg   Config
	v     Variant
	net   *network
	feats *gnn.Features
	label map[int]int32 // labelled graph → known class
	// tr counts the epochs of the whole run (warm-up and cycles, Epoch
	// done of Total), logs them with the curve du_closed_acc, and saves:
	// tr.State is what a save (Task.Resume) keeps besides the store, the
	// cycles' generator semiRNG; at is where the cycles stood at the save
	// a resumed run restored (zero for a fresh run).
	tr      gnn.Trainer
	semiRNG *rand.Rand
	at      cyclesAt
}

// cyclesAt is where the curriculum cycles stand after an epoch, saved with
// the store when a save is due: the epochs done (warm-up included), the
// cycle, its steps done, and the prototypes as the last step left them
// (built at the cycle's start from weights that have moved on since, and
// moved by every step: Eq. 9).
type cyclesAt struct {
	Epoch  int         `json:"epoch"`
	Cycle  int         `json:"cycle"`
	Done   int         `json:"done"`
	Protos [][]float32 `json:"protos"`
}

// restore continues an interrupted run from its last save (made during
// the cycles, after the warm-up): the store's variables, the cycles'
// generator, the epoch count and where the cycles stood. It reports
// whether there was a save; without one the run starts afresh.
func (r *run) restore() (bool, error) {
	ok, err := r.tr.Restore(&r.at)
	if ok && err == nil {
		r.tr.Epoch = r.at.Epoch
	}
	return ok, err
}

// newRun sets up a Fit; cfg.Alpha is taken from the protocol (task.Alpha,
// 1 if unset), and cfg.Layout is resolved for task's graphs
// (gnn.ChooseLayout: gnn.LayoutDense or gnn.LayoutEdges).
func newRun(task *suite.Task, cfg Config, v Variant) (*run, error) {
	cfg.Alpha = task.Alpha
	if !(cfg.Alpha > 0) {
		cfg.Alpha = 1
	}
	var err error
	if cfg.Layout, err = gnn.ChooseLayout(cfg.Layout, cfg.encoder(), task.Graphs); err != nil {
		return nil, err
	}
	backend, err := gnn.NewBackend(gnn.BackendConfig(task.Backend))
	if err != nil {
		return nil, err
	}
	net, err := newNetwork(backend, cfg, task.Seed)
	if err != nil {
		return nil, err
	}
	r := &run{task: task, cfg: cfg, v: v, net: net, feats: gnn.StandardizeFeatures(task.Graphs, task.FeatureDim, task.TrainPool()),
		label: make(map[int]int32, len(task.Labelled))}
	if cfg.UnknownMass && v.Prototypes {
		net.marginal = PrototypeMarginal(cfg.Classes*boolInt(v.KnownPrototypes), cfg.UnknownPrototypes*boolInt(v.UnknownPrototypes),
			cfg.Alpha, task.NumUnknown, len(task.Unlabelled))
	}
	if v.Prototypes && v.KnownPrototypes {
		net.pseudoKnown = cfg.Classes
	}
	r.tr = gnn.Trainer{Task: task, Store: net.store, Total: totalEpochs(cfg, len(task.Labelled), len(task.Unlabelled)),
		CurveEvery: cfg.CurveEvery, Logits: r.wholeLogits}
	r.semiRNG = r.tr.State.TrackRNG("semi", gnn.NewPCG(task.Seed, gnn.StreamSemi))
	for i, g := range task.Labelled {
		r.label[g] = int32(task.Labels[i])
	}
	return r, nil
}

// labelledBatch lays the labelled graphs idx, split into size chunks
// (gnn.SizeChunks), out as step inputs in the run's layout: per chunk the
// batch's inputs (network.width()), then y and w [B]. It also returns the
// number of chunks. With the augment_labelled lever each graph is replaced
// by its view of step (r.tr.Epoch, step) (labelledView).
func (r *run) labelledBatch(idx []int, step int) ([]any, int) {
	chunks := gnn.SizeChunks(r.task.Graphs, idx, r.cfg.Chunks)
	var args []any
	for _, c := range chunks {
		var b laidOut
		if r.cfg.AugmentLabelled {
			views := make([]view, len(c))
			for i, g := range c {
				views[i] = r.labelledView(g, step)
			}
			b = r.viewBatch(views, r.cfg.BatchSize)
		} else {
			b = r.layOut(r.task.Graphs, r.feats, c, r.cfg.BatchSize)
		}
		y := make([]int32, b.slots)
		for s, g := range c {
			y[s] = r.label[g]
		}
		args = append(append(args, b.in...), tensors.FromFlatDataAndDimensions(y, b.slots), b.weights())
	}
	return args, len(chunks)
}

// laidOut is one batch in the run's layout (Config.Layout): its inputs as
// tensors (dense: x [B,N,D], adj [B,N,N], mask [B,N]; edge list:
// gnn.EdgeBatch.Tensors), its graph slots B and their weights [B] (1 for a
// real graph, 0 for a padding slot). Slot s holds the batch's s-th graph.
type laidOut struct {
	in     []any
	slots  int
	weight []float32
}

// weights returns the slot weights as a tensor [B].
func (b laidOut) weights() *tensors.Tensor {
	return tensors.FromFlatDataAndDimensions(b.weight, b.slots)
}

// layOut lays the graphs idx (indices into graphs and feats) out as one
// batch of at most maxBatch slots in the run's layout (gnn.BatchInputs).
func (r *run) layOut(graphs []datasets.Graph, feats *gnn.Features, idx []int, maxBatch int) laidOut {
	in, slots, weight := gnn.BatchInputs(r.cfg.Layout, graphs, feats, idx, maxBatch)
	return laidOut{in: in, slots: slots, weight: weight}
}

// viewBatch lays perturbed graphs out as one batch in the run's layout.
func (r *run) viewBatch(views []view, maxBatch int) laidOut {
	graphs := make([]datasets.Graph, len(views))
	nodes := make([][]float32, len(views))
	idx := make([]int, len(views))
	for i, v := range views {
		graphs[i], nodes[i], idx[i] = v.g, v.nodes, i
	}
	return r.layOut(graphs, &gnn.Features{Dim: r.feats.Dim, Nodes: nodes}, idx, maxBatch)
}

// labelledView is the augment_labelled lever's view of labelled graph g at
// step step of epoch r.tr.Epoch: node deletion or edge deletion, with equal
// chance, each from its own stream (augment.Stream), so the view depends
// on the run seed, the epoch, the step and the graph only.
func (r *run) labelledView(g, step int) view {
	if augment.Stream(r.task.Seed, "labelled", r.tr.Epoch, step, g).IntN(2) == 0 {
		return r.nodeDropView(g, "labelled-nodes", r.tr.Epoch, step)
	}
	return r.edgeDropView(g, "labelled-edges", r.tr.Epoch, step)
}

func (r *run) wholeView(g int) view {
	return view{g: r.task.Graphs[g], nodes: r.feats.Nodes[g]}
}

func (r *run) nodeDropView(g int, purpose string, a, b int) view {
	sg, f := augment.DropNodes(&r.task.Graphs[g], r.feats.Nodes[g], r.feats.Dim, r.cfg.NodeDrop, augment.Stream(r.task.Seed, purpose, a, b, g))
	return view{g: sg, nodes: f}
}

func (r *run) edgeDropView(g int, purpose string, a, b int) view {
	sg, f := augment.DropEdges(&r.task.Graphs[g], r.feats.Nodes[g], r.cfg.EdgeDrop, augment.Stream(r.task.Seed, purpose, a, b, g))
	return view{g: sg, nodes: f}
}

// predictViews runs the classifier on views, batched by size (results do
// not depend on batching: padding is masked), returning per view the
// logits [C] (gnn.MaxSoftmax reads class and 1 − max softmax from them)
// and the normalised embedding [2H].
func (r *run) predictViews(ctx context.Context, views []view) (logits, emb [][]float32, err error) {
	logits, emb = make([][]float32, len(views)), make([][]float32, len(views))
	size := max(r.cfg.BatchSize, r.cfg.UnlabelledBatch) // predictions do not depend on it
	err = gnn.BySize(ctx, len(views), size, func(i int) int { return views[i].g.NumNodes }, func(pos []int) error {
		batch := make([]view, len(pos))
		for i, j := range pos {
			batch[i] = views[j]
		}
		b := r.viewBatch(batch, size)
		in := b.in
		if r.cfg.Layout == gnn.LayoutEdges {
			in = append(in, b.weights()) // carries B (network.predict)
		}
		out, err := r.net.predict.Exec(in...)
		if err != nil {
			return fmt.Errorf("predict: %w", err)
		}
		gnn.Rows(logits, out[0], pos)
		gnn.Rows(emb, out[1], pos)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return logits, emb, nil
}

// oneMinusMaxProb is 1 − max softmax of one view's logits, in float64
// (gnn.MaxSoftmax: confident views keep distinct values).
func oneMinusMaxProb(logits []float32) float64 {
	_, q := gnn.MaxSoftmax(logits)
	return q
}

// Names of UGNN's unknown scores (higher = more likely unknown), as
// reported to the suite (Task.ReportScores, Predictions.ExtraScores), which
// logs the OOD AUROC of each as ood_auroc_<name>.
const (
	// ScoreSubgraph is 1 − s~ = (1 − μ) + σ over the I subgraphs, UGNN's
	// unknown score (paper §4.2, docs/protocol.md §3: −s~, shifted by 1 so that it
	// is computed without cancellation; its ranks and AUROC are −s~'s).
	ScoreSubgraph = "subgraph"
	// ScoreSubgraphMean is 1 − μ, the first part of ScoreSubgraph.
	ScoreSubgraphMean = "subgraph_mean"
	// ScoreSubgraphStd is σ, the second part of ScoreSubgraph.
	ScoreSubgraphStd = "subgraph_std"
	// ScoreMSP is 1 − max softmax of the whole graph, the unknown score of
	// "w/o S" (and a free by-product of UGNN's class prediction); the
	// baselines' score.
	ScoreMSP = "msp"
)

// confidence returns s~ for every graph of graphs (paper §4.2): μ − σ of
// the max softmax over I node-deleted subgraphs drawn for round, or, for
// "w/o S", the whole graph's max softmax. parts are the unknown scores it
// is made of, index-aligned with graphs: ScoreSubgraph, ScoreSubgraphMean
// and ScoreSubgraphStd, or ScoreMSP for "w/o S".
func (r *run) confidence(ctx context.Context, graphs []int, round int) (s []float64, parts map[string][]float64, err error) {
	s = make([]float64, len(graphs))
	if !r.v.SubgraphOOD {
		views := make([]view, len(graphs))
		for i, g := range graphs {
			views[i] = r.wholeView(g)
		}
		logits, _, err := r.predictViews(ctx, views)
		if err != nil {
			return nil, nil, err
		}
		msp := make([]float64, len(graphs))
		for i := range s {
			msp[i] = oneMinusMaxProb(logits[i])
			s[i] = 1 - msp[i]
		}
		return s, map[string][]float64{ScoreMSP: msp}, nil
	}
	conf := make([][]float64, len(graphs))
	for sub := 0; sub < r.cfg.Subgraphs; sub++ {
		views := make([]view, len(graphs))
		for i, g := range graphs {
			views[i] = r.nodeDropView(g, "ood", round, sub)
		}
		logits, _, err := r.predictViews(ctx, views)
		if err != nil {
			return nil, nil, err
		}
		for i := range graphs {
			conf[i] = append(conf[i], oneMinusMaxProb(logits[i]))
		}
	}
	parts = map[string][]float64{
		ScoreSubgraph:     make([]float64, len(graphs)),
		ScoreSubgraphMean: make([]float64, len(graphs)),
		ScoreSubgraphStd:  make([]float64, len(graphs)),
	}
	for i, c := range conf { // c: 1 − max softmax per subgraph
		q, sigma := MeanStd(c) // q = 1 − μ
		s[i] = (1 - q) - sigma
		parts[ScoreSubgraph][i] = q + sigma
		parts[ScoreSubgraphMean][i] = q
		parts[ScoreSubgraphStd][i] = sigma
	}
	return s, parts, nil
}

// cycleSteps is the number of semi-supervised steps of cycle t (1..T): the
// SemiSteps split evenly, the first SemiSteps mod T cycles one more.
func cycleSteps(c Config, t int) int {
	return c.SemiSteps/c.Cycles + boolInt(t <= c.SemiSteps%c.Cycles)
}

// warmupEpochs is the number of warm-up epochs (passes over the nl
// labelled graphs) of c.WarmupSteps steps.
func warmupEpochs(c Config, nl int) int {
	return gnn.EpochsFor(c.WarmupSteps, nl, c.BatchSize)
}

// totalEpochs is the number of epochs a run logs: warm-up passes over the
// nl labelled graphs, then per cycle the passes over the nu unlabelled
// graphs that its steps take.
func totalEpochs(c Config, nl, nu int) int {
	n := warmupEpochs(c, nl)
	if c.SemiSteps > 0 {
		for t := 1; t <= c.Cycles; t++ {
			n += gnn.EpochsFor(cycleSteps(c, t), nu, c.UnlabelledBatch)
		}
	}
	return n
}

// wholeLogits returns ψ's logits [len(idx)][C] of the whole graphs idx
// (Trainer.Logits: the curve du_closed_acc).
func (r *run) wholeLogits(ctx context.Context, idx []int) ([][]float32, error) {
	views := make([]view, len(idx))
	for i, g := range idx {
		views[i] = r.wholeView(g)
	}
	logits, _, err := r.predictViews(ctx, views)
	return logits, err
}

// warmupLoop is the warm-up's step loop: steps optimizer steps of the
// warm-up loss (labelledStep) in passes over D^l drawn from rng
// (gnn.Passes, random batches of BatchSize); end gets the values of every
// pass: loss and loss_ce (means over the pass's graphs) and steps.
func (r *run) warmupLoop(ctx context.Context, rng *rand.Rand, steps int, end func(values map[string]float64) error) *gnn.Passes {
	var ce float64
	n, step := 0, 0 // step: the pass's steps so far (augment_labelled's views)
	return &gnn.Passes{Graphs: r.task.Graphs, Idx: r.task.Labelled, Batch: r.cfg.BatchSize, Batching: gnn.BatchingRandom,
		Steps: steps, Rand: rng,
		Step: func(_ int, idx []int) (float64, error) {
			l, c, err := r.labelledStep(ctx, idx, step)
			step++
			ce += c * float64(len(idx))
			n += len(idx)
			return l, err
		},
		End: func(_ gnn.PassesAt, values map[string]float64) error {
			values["loss_ce"] = ce / float64(max(n, 1))
			ce, n, step = 0, 0, 0
			return end(values)
		}}
}

// labelledEpoch runs one epoch (pass over D^l) of the warm-up step,
// stopping after limit steps, and returns its values (warmupLoop).
func (r *run) labelledEpoch(ctx context.Context, rng *rand.Rand, limit int) (map[string]float64, error) {
	perPass := (len(r.task.Labelled) + r.cfg.BatchSize - 1) / r.cfg.BatchSize
	var values map[string]float64
	err := r.warmupLoop(ctx, rng, min(limit, perPass), func(v map[string]float64) error {
		values = v
		return nil
	}).Run(ctx, gnn.PassesAt{})
	return values, err
}

// labelledStep is one optimizer step of the warm-up loss (cross-entropy +
// supervised contrastive) on the labelled graphs idx; it returns the
// batch's loss and its cross-entropy part.
func (r *run) labelledStep(ctx context.Context, idx []int, step int) (loss, ce float64, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	args, _ := r.labelledBatch(idx, step)
	out, err := r.net.warm.Exec(args...)
	if err != nil {
		return 0, 0, err
	}
	if loss, err = gnn.CheckedScalar(out[0], "loss"); err != nil {
		return 0, 0, err
	}
	ce, _ = gnn.CheckedScalar(out[1], "cross-entropy")
	return loss, ce, nil
}

// warmupVersion is part of the warm-up cache key: bump it whenever the
// network or the warm-up changes, or old checkpoints would be reused.
// 3: gnn.Propagate's custom gradient (GIN/GCN/SAGE) changed float rounding.
// 4: protocol v2: a step budget, features standardised over D^l ∪ D^u.
const warmupVersion = 4

// warmupKey hashes everything the warm-up depends on: data (by content,
// datasets.Fingerprint, so edited or re-downloaded files never restore a
// stale checkpoint), split, seed, network and optimisation settings,
// backend and its CPU kernels, batch layout (the layouts round
// differently), code version.
// The five variants share it.
func (r *run) warmupKey() string {
	c := r.cfg
	b, _ := json.Marshal(struct {
		Version                       int
		Dataset, Graphs               string // Graphs: datasets.Fingerprint
		FeatureDim                    int
		Labelled, Labels, TrainPool   []int
		Seed                          int64
		Warmup, Batch, Hidden, Layers int
		Chunks                        int
		LR, Pool, SupTau, SupW        float64
		Classes                       int
		Backend                       string
		ProjHead                      bool   `json:",omitempty"` // levers: absent at their defaults
		Conv                          string `json:",omitempty"`
		AugmentLabelled               bool   `json:",omitempty"`
		BatchNorm                     bool   `json:",omitempty"`
		Layout                        string `json:",omitempty"` // resolved; absent for dense, the layout of the keys before it
		Kernels                       string `json:",omitempty"` // cpukernels.Of: the pure-Go backend's kernels round differently
	}{warmupVersion, r.task.Dataset, datasets.Fingerprint(r.task.Graphs), r.task.FeatureDim, r.task.Labelled, r.task.Labels, r.task.TrainPool(), r.task.Seed,
		c.WarmupSteps, c.BatchSize, c.Hidden, c.Layers, c.Chunks, c.LR, c.PoolRatio, c.SupConTau, c.SupConWeight,
		c.Classes, gnn.BackendConfig(r.task.Backend), c.ProjHead, nonDefault(string(c.Conv), string(gnn.ConvGIN)), c.AugmentLabelled,
		c.BatchNorm, nonDefault(string(c.Layout), string(gnn.LayoutDense)), cpukernels.Of(gnn.BackendConfig(r.task.Backend))})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// warmup trains WarmupSteps on the labelled graphs, or restores them from
// the checkpoint cache (Task.CacheDir/ugnn-warmup/KEY) that an earlier run
// with the same inputs wrote; its curves are replayed (marked with
// suite.CachedEpochCurve) so every run logs the same warm-up.
//
// Several processes (bench grid workers) may share the cache: the whole
// check → load-or-train → save sequence holds an exclusive file lock on
// KEY.lock (see lockWarmup), so one of them trains an entry and the others
// wait and load it. A complete entry is deleted only when it is damaged:
// its files do not match its checksum (suite.ChecksumFile, written last;
// entries of older binaries have none and are guarded by their
// checkpoint's gzip checksums only) or its checkpoint does not load. The
// run then warns naming it (Task.Warn) and trains the warm-up again, as
// if the entry had never been written; the store is untouched until a
// checkpoint loads whole. The cache is optional: an entry that cannot be
// written warns and the run goes on.
func (r *run) warmup(ctx context.Context) error {
	if r.cfg.WarmupSteps == 0 {
		return nil
	}
	suite.Phase(r.task.Log, "warmup")
	if r.task.CacheDir == "" {
		_, err := r.trainWarmup(ctx)
		return err
	}
	dir := filepath.Join(r.task.CacheDir, "ugnn-warmup", r.warmupKey())
	unlock, err := lockWarmup(ctx, dir)
	if err != nil {
		return err
	}
	defer unlock()
	suite.RemoveStaleTemps(filepath.Dir(dir)) // of killed writers
	if curves, ok := readWarmupCurves(dir, warmupEpochs(r.cfg, len(r.task.Labelled))); ok {
		err := suite.VerifyChecksum(dir)
		if errors.Is(err, suite.ErrNoChecksum) {
			err = nil // an older binary's entry
		}
		if err == nil {
			_, err = checkpoint.Load(r.net.store).Dir(dir).Done()
		}
		if err == nil {
			for _, values := range curves {
				values[suite.CachedEpochCurve] = 1
				if err := r.tr.EndEpoch(ctx, values); err != nil {
					return err
				}
			}
			return nil
		}
		r.task.Warnf("UGNN warm-up cache entry %s is damaged (%v); deleted it, training the warm-up again", dir, err)
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("delete damaged warm-up cache entry: %w", err)
		}
	}
	curves, err := r.trainWarmup(ctx)
	if err != nil {
		return err
	}
	if err := r.saveWarmup(dir, curves); err != nil {
		r.task.Warnf("UGNN warm-up cache entry %s not saved (%v); the run goes on, later runs of its key train the warm-up again", dir, err)
	}
	return nil
}

// warmupLocks serialises the goroutines of this process per cache entry
// (dir → chan struct{} of capacity 1), so they wait without polling the file
// lock; fcntl-based file locks (used by flock on some systems) do not
// exclude each other within one process either.
var warmupLocks sync.Map

// warmupLockRetry is how often a waiting run retries the file lock another
// process holds.
const warmupLockRetry = 200 * time.Millisecond

// lockWarmup takes the cache entry dir's process-local lock and then an
// exclusive file lock on dir + ".lock", both abandoned with ctx's error if
// ctx ends first. The lock file stays on disk: the lock itself is released
// by unlock or when the process exits, so a leftover file never blocks.
func lockWarmup(ctx context.Context, dir string) (unlock func(), err error) {
	ch, _ := warmupLocks.LoadOrStore(dir, make(chan struct{}, 1))
	sem := ch.(chan struct{})
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release := func() { <-sem }
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		release()
		return nil, err
	}
	fl := flock.New(dir+".lock", flock.SetPermissions(0o644))
	ok, err := fl.TryLockContext(ctx, warmupLockRetry)
	if err != nil || !ok {
		release()
		if err == nil {
			err = fmt.Errorf("lock %s: not acquired", fl.Path())
		}
		return nil, fmt.Errorf("warm-up cache lock: %w", err)
	}
	return func() {
		_ = fl.Unlock()
		release()
	}, nil
}

// readWarmupCurves reads a complete cache entry's curves: curves.json is
// written after the checkpoint (and before the checksum, which warmup
// checks before use), so an entry with a valid one holding all warm-up
// epochs is complete.
func readWarmupCurves(dir string, epochs int) ([]map[string]float64, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "curves.json"))
	if err != nil {
		return nil, false
	}
	var curves []map[string]float64
	if err := json.Unmarshal(data, &curves); err != nil || len(curves) != epochs {
		return nil, false
	}
	return curves, true
}

// saveWarmup stores the trained warm-up (the store's checkpoint and curves)
// as the cache entry dir. It writes a temporary directory and renames it, so
// a crash never leaves a half-written entry. If a complete entry dir exists
// already (a writer that did not take the lock), it is kept: the trained
// state is in memory already. Only an incomplete dir (never written by
// saveWarmup, whose renames are atomic) is replaced; the caller holds the
// entry's lock, so nobody is loading it.
func (r *run) saveWarmup(dir string, curves []map[string]float64) error {
	tmp, err := suite.MkdirCacheTemp(filepath.Dir(dir))
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	h, err := checkpoint.Build(r.net.store).Dir(tmp).Done()
	if err != nil {
		return err
	}
	if err := h.Save(); err != nil {
		return fmt.Errorf("save warm-up checkpoint: %w", err)
	}
	data, _ := json.Marshal(curves)
	if err := os.WriteFile(filepath.Join(tmp, "curves.json"), data, 0o644); err != nil {
		return err
	}
	if err := suite.WriteChecksum(tmp); err != nil {
		return err
	}
	err = os.Rename(tmp, dir)
	if errors.Is(err, fs.ErrExist) { // EEXIST or ENOTEMPTY: dir is taken
		if _, complete := readWarmupCurves(dir, len(curves)); complete {
			return nil
		}
		if err = os.RemoveAll(dir); err == nil {
			err = os.Rename(tmp, dir)
		}
	}
	if err != nil {
		return fmt.Errorf("store warm-up cache entry: %w", err)
	}
	return nil
}

// trainWarmup trains the warm-up steps and returns the logged values of
// its epochs.
func (r *run) trainWarmup(ctx context.Context) ([]map[string]float64, error) {
	var curves []map[string]float64
	loop := r.warmupLoop(ctx, gnn.NewRand(r.task.Seed, gnn.StreamWarmup), r.cfg.WarmupSteps, func(values map[string]float64) error {
		curves = append(curves, values)
		return r.tr.EndEpoch(ctx, values)
	})
	if err := loop.Run(ctx, gnn.PassesAt{}); err != nil {
		return nil, err
	}
	return curves, nil
}

// cycles runs the T curriculum cycles of Algorithm 1 over the SemiSteps
// left after the warm-up; an epoch is a pass over D^u (semiSchedule), the
// last of a cycle cut at the cycle's steps. After an epoch it saves the
// run when a save is due (Task.Resume); a resumed run continues from r.at.
func (r *run) cycles(ctx context.Context) error {
	if r.cfg.SemiSteps == 0 {
		return nil
	}
	suite.Phase(r.task.Log, "semi")
	rng := r.semiRNG
	for t := max(r.at.Cycle, 1); t <= r.cfg.Cycles; t++ {
		steps := cycleSteps(r.cfg, t)
		var protos [][]float32
		done := 0
		if t == r.at.Cycle {
			protos, done = r.at.Protos, r.at.Done
		} else {
			var err error
			if protos, err = r.cycleStart(ctx, t); err != nil {
				return fmt.Errorf("cycle %d: %w", t, err)
			}
		}
		for done < steps {
			var err error
			var values map[string]float64
			if r.v.Prototypes {
				values, err = r.semiEpoch(ctx, rng, protos, steps-done)
			} else {
				values, err = r.pairedLabelledEpoch(ctx, rng, steps-done)
			}
			if err != nil {
				return fmt.Errorf("epoch %d: %w", r.tr.Epoch+1, err)
			}
			done += int(values["steps"])
			values["cycle"] = float64(t)
			if err := r.tr.EndEpoch(ctx, values); err != nil {
				return err
			}
			if r.tr.Epoch < r.tr.Total {
				r.tr.Save(cyclesAt{r.tr.Epoch, t, done, protos})
			}
		}
	}
	return nil
}

// nonDefault is v, or "" when v is the default def (omitted from the
// warm-up key, which keeps the keys of the runs before the levers).
func nonDefault(v, def string) string {
	if v == def {
		return ""
	}
	return v
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cycleStart selects cycle t's OOD set (reported to the suite) and builds
// the prototypes H [E][2H] for the variant (nil for "w/o P").
func (r *run) cycleStart(ctx context.Context, t int) ([][]float32, error) {
	un := r.task.Unlabelled
	scores, parts, err := r.confidence(ctx, un, t)
	if err != nil {
		return nil, err
	}
	if err := r.task.ReportScores(r.tr.Epoch, un, parts); err != nil {
		return nil, err
	}
	var pos []int
	if r.cfg.Curriculum == CurriculumCount {
		pos = CountOODSet(scores, r.task.NumUnknown, r.cfg.Alpha, t, r.cfg.Cycles)
	} else {
		pos = OODSet(scores, CurriculumThreshold(scores, r.task.NumUnknown, r.cfg.Alpha, t, r.cfg.Cycles))
	}
	if len(pos) < r.cfg.UnknownPrototypes { // too few to cluster: take the least confident
		order := make([]int, len(scores))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] < scores[order[b]] })
		pos = order[:min(r.cfg.UnknownPrototypes, len(order))]
		slices.Sort(pos)
	}
	oodGraphs := make([]int, len(pos))
	for i, p := range pos {
		oodGraphs[i] = un[p]
	}
	r.task.ReportOODSet(r.tr.Epoch, oodGraphs)
	if !r.v.Prototypes {
		return nil, nil
	}
	var protos [][]float32
	if r.v.KnownPrototypes {
		views := make([]view, len(r.task.Labelled))
		for i, g := range r.task.Labelled {
			views[i] = r.wholeView(g)
		}
		_, emb, err := r.predictViews(ctx, views)
		if err != nil {
			return nil, err
		}
		protos = append(protos, ClassPrototypes(emb, r.task.Labels, r.cfg.Classes)...)
	}
	if r.v.UnknownPrototypes {
		views := make([]view, len(oodGraphs))
		for i, g := range oodGraphs {
			views[i] = r.wholeView(g)
		}
		_, emb, err := r.predictViews(ctx, views)
		if err != nil {
			return nil, err
		}
		cents, _ := KMeans(emb, r.cfg.UnknownPrototypes, r.cfg.KMeansIters, augment.Stream(r.task.Seed, "kmeans", t, 0, 0))
		for _, c := range cents {
			normalize(c)
		}
		protos = append(protos, cents...)
	}
	return protos, nil
}

// semiSchedule draws one epoch of the semi-supervised phase (Algorithm 1,
// lines 5–7): the unlabelled graphs in shuffled order, taken
// UnlabelledBatch at a time, one optimizer step each, and the labelled
// batches of BatchSize; step s pairs the s-th unlabelled batch with
// labelled batch s mod len(lab). An epoch thus has
// ⌈|D^u|/UnlabelledBatch⌉ steps, whatever |D^l|.
func (r *run) semiSchedule(rng *rand.Rand) (un []int, lab [][]int, err error) {
	un = slices.Clone(r.task.Unlabelled)
	rng.Shuffle(len(un), func(i, j int) { un[i], un[j] = un[j], un[i] })
	lab, err = gnn.EpochBatches(r.task.Graphs, r.task.Labelled, r.cfg.BatchSize, gnn.BatchingRandom, rng)
	return un, lab, err
}

// pairedLabelledEpoch is w/o P's epoch after the warm-up: semiEpoch's
// schedule with the warm-up step (L^l + supervised contrastive) on each
// step's labelled batch, and no unlabelled half. It draws the same random
// numbers as semiEpoch, so w/o P takes the same number of L^l steps on the
// same labelled batches as ugnn: the ablation removes L^u and the
// prototypes, not optimizer steps. (A pass over the labelled graphs would
// take ⌈|D^l|/B⌉ steps instead: 4× fewer on Letter-high low, ~100× on MNIST
// low.)
func (r *run) pairedLabelledEpoch(ctx context.Context, rng *rand.Rand, limit int) (map[string]float64, error) {
	un, lab, err := r.semiSchedule(rng)
	if err != nil {
		return nil, err
	}
	var loss, ce float64
	steps := 0
	for start := 0; start < len(un) && steps < limit; start += r.cfg.UnlabelledBatch {
		l, c, err := r.labelledStep(ctx, lab[steps%len(lab)], steps)
		if err != nil {
			return nil, err
		}
		loss, ce = loss+l, ce+c
		steps++
	}
	n := float64(max(steps, 1))
	return map[string]float64{"loss": loss / n, "loss_ce": ce / n, "steps": float64(steps)}, nil
}

// semiChunk is one size chunk of a semi step's unlabelled graphs: its
// graphs in row order, and the row of the first one in the step's view-1
// embeddings (network.semi's last output, padding slots included).
type semiChunk struct {
	first  int
	graphs []int
}

// semiInputs builds the inputs of one semi step (network.semi), in the
// run's layout: labelled batch lab as size chunks, then unlabelled graphs
// part as size chunks by the original graphs' size (so both views of a
// graph sit in the same chunk and row), each with view 1 (edge deletion)
// and view 2 (node deletion) drawn for the current epoch and the slots'
// weights, then the prototypes [E][2H]. It returns the
// inputs, the number of labelled chunks and the unlabelled chunks.
func (r *run) semiInputs(lab, part []int, protos [][]float32, step int) (args []any, kl int, chunks []semiChunk) {
	args, kl = r.labelledBatch(lab, step)
	offset := 0
	for _, c := range gnn.SizeChunks(r.task.Graphs, part, r.cfg.Chunks) {
		v1 := make([]view, len(c))
		v2 := make([]view, len(c))
		for i, g := range c {
			v1[i] = r.edgeDropView(g, "view1", r.tr.Epoch, 0)
			v2[i] = r.nodeDropView(g, "view2", r.tr.Epoch, 0)
		}
		b1 := r.viewBatch(v1, r.cfg.UnlabelledBatch)
		b2 := r.viewBatch(v2, r.cfg.UnlabelledBatch)
		args = append(append(append(args, b1.in...), b2.in...), b1.weights())
		chunks = append(chunks, semiChunk{first: offset, graphs: c})
		offset += b1.slots
	}
	return append(args, flatten2D(protos)), kl, chunks
}

// semiEpoch is one epoch of semiSchedule with the prototype-aware step,
// stopping after limit steps; prototypes are momentum-updated after every
// step (eq. 14).
func (r *run) semiEpoch(ctx context.Context, rng *rand.Rand, protos [][]float32, limit int) (map[string]float64, error) {
	un, lab, err := r.semiSchedule(rng)
	if err != nil {
		return nil, err
	}
	var loss, ce, lu, plSum, fracSum float64
	steps := 0
	for start := 0; start < len(un) && steps < limit; start += r.cfg.UnlabelledBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part := un[start:min(start+r.cfg.UnlabelledBatch, len(un))]
		args, kl, chunks := r.semiInputs(lab[steps%len(lab)], part, protos, steps)
		semi, err := r.net.semi(kl)
		if err != nil {
			return nil, err
		}
		out, err := semi.Exec(args...)
		if err != nil {
			return nil, err
		}
		l, err := gnn.CheckedScalar(out[0], "loss")
		if err != nil {
			return nil, err
		}
		c, _ := gnn.CheckedScalar(out[1], "cross-entropy")
		u, _ := gnn.CheckedScalar(out[2], "L^u")
		loss, ce, lu = loss+l, ce+c, lu+u
		if len(out) > 5 { // pseudo_label
			pl, _ := gnn.CheckedScalar(out[4], "pseudo-label loss")
			frac, _ := gnn.CheckedScalar(out[5], "pseudo-labelled share")
			plSum, fracSum = plSum+pl, fracSum+frac
		}
		steps++
		z := tensors.MustCopyFlatData[float32](out[3])
		d := out[3].Shape().Dim(1)
		emb := make([][]float32, 0, len(part))
		for _, c := range chunks {
			for i := range c.graphs {
				emb = append(emb, z[(c.first+i)*d:(c.first+i+1)*d])
			}
		}
		MomentumUpdate(protos, emb, r.cfg.Eta)
	}
	n := float64(max(steps, 1))
	values := map[string]float64{"loss": loss / n, "loss_ce": ce / n, "loss_u": lu / n, "steps": float64(steps)}
	if r.cfg.PseudoLabel > 0 && r.net.pseudoKnown > 0 {
		values["loss_pl"], values["pl_frac"] = plSum/n, fracSum/n
	}
	return values, nil
}

// predictions: class = argmax ψ on the whole graph; unknown score = 1 − s~
// over I fresh subgraphs (docs/protocol.md §3's −s~ shifted by 1, ScoreSubgraph), or
// 1 − max softmax for "w/o S".
// ExtraScores hold every named score of confidence (one of them equal to
// UnknownScore) and, for the subgraph variants, the whole graph's ScoreMSP,
// so that ood_auroc_msp and ood_auroc_subgraph compare all variants.
// Embeddings are Φ's readout of the whole graph, L2-normalised: the space
// of UGNN's prototypes and contrastive loss (the classifier ψ reads the
// same readout before normalisation); with the proj_head lever, the
// projection head's output, normalised, which is that space then. Logits (ψ on the whole graph) and
// embeddings of task.Eval and task.Labelled are handed over for the
// post-hoc scorers.
func (r *run) predictions(ctx context.Context) (*suite.Predictions, error) {
	eval := r.task.Eval
	views := make([]view, len(eval))
	for i, g := range eval {
		views[i] = r.wholeView(g)
	}
	logits, emb, err := r.predictViews(ctx, views)
	if err != nil {
		return nil, err
	}
	_, parts, err := r.confidence(ctx, eval, r.cfg.Cycles+1)
	if err != nil {
		return nil, err
	}
	p := &suite.Predictions{Class: make([]int, len(eval)), ExtraScores: parts, Embeddings: emb}
	if r.v.SubgraphOOD {
		p.UnknownScore = slices.Clone(parts[ScoreSubgraph])
		msp := make([]float64, len(eval))
		for i := range msp {
			msp[i] = oneMinusMaxProb(logits[i])
		}
		parts[ScoreMSP] = msp
	} else {
		p.UnknownScore = slices.Clone(parts[ScoreMSP])
	}
	for i := range eval {
		p.Class[i], _ = gnn.MaxSoftmax(logits[i])
	}
	p.Logits = logits
	lab := make([]view, len(r.task.Labelled))
	for i, g := range r.task.Labelled {
		lab[i] = r.wholeView(g)
	}
	if p.LabelledLogits, p.LabelledEmbeddings, err = r.predictViews(ctx, lab); err != nil {
		return nil, err
	}
	return p, nil
}
