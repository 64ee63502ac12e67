package semisup

import (
	"context"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/methods/augment"
	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

func init() {
	suite.Register(graphCL{}, suite.Info{Row: "GraphCL", Family: suite.FamilySemiSupervised, Order: 2, Source: "You et al. 2020"})
}

// graphCL is GraphCL (You et al., NeurIPS 2020) as its official
// semi-supervised TU code does it (Shen-Lab/GraphCL semisupervised_TU;
// docs/methods.md, "graphcl"): contrastive pretraining, then fine-tuning.
//
//   - Stage 1, `pretrain_epochs` passes over D^l ∪ D^u (never the test
//     graphs; the official code pretrains on the whole dataset), fewer
//     where they would exceed pretrain_step_cap × steps optimizer steps
//     (pretrainEpochs; docs/protocol.md §5): each
//     graph gets view 1 = aug1(G, aug_ratio1) and view 2 = aug2(G,
//     aug_ratio2) (package augment, one stream per (run seed, "graphcl",
//     epoch, graph, view)); both are encoded, projected by proj =
//     Linear(H,H)→ReLU→Linear(H,H) on the head's hidden layer h =
//     ReLU(W0·z+b0) (proj_input=hidden, the official position after the FC
//     layer) or on the readout z (proj_input=readout), and the loss is
//     GraphCLOneWay (E1, τ = tau) at Adam(pretrain_lr). A batch with fewer
//     than 2 real graphs is skipped (no optimizer call).
//   - Stage 2: a fresh Adam(lr) trains encoder and head (W0 from stage 1,
//     W1 fresh) with cross-entropy on D^l for `steps` steps, without
//     augmentation; proj is unused.
//
// Deviations: no BatchNorm (the suite backbone has none), hidden 128
// batches of 256 (official 128), final weights instead of the best test
// epoch and checkpoint. Letter-high graphs of ≤ 4 nodes are unchanged by
// dropN and reduced to one node by subgraph at ratio 0.2 (⌊0.2n⌋ = 0 for
// n ≤ 4, as in the official aug.py).
type graphCL struct{}

func (graphCL) Name() string { return "graphcl" }

func (graphCL) Doc() string {
	return "GraphCL: contrastive pretraining on D^l ∪ D^u (random2 views, one-way NT-Xent E1), then supervised fine-tuning (You et al. 2020)"
}

// graphCLParams: the backbone's, plus stage 1's from the official code
// (semisupervised_TU/pre-training main.py, res_gcn.py).
var (
	graphCLAug1, graphCLAug2 = augParam("aug1"), augParam("aug2")
	graphCLRatio1            = suite.Float("aug_ratio1", 0.2, suite.UnitInterval, "strength of view 1's augmentation")
	graphCLRatio2            = suite.Float("aug_ratio2", 0.2, suite.UnitInterval, "strength of view 2's augmentation")
	graphCLProjInput         = suite.Enum("proj_input", "hidden",
		"what the projection reads: the head's hidden layer (official) or the readout", "hidden", "readout")
	graphCLParams = backbone.With(paramPretrainEpoch, paramPretrainCap, paramPretrainLR, graphCLAug1, graphCLAug2,
		graphCLRatio1, graphCLRatio2, paramTau, graphCLProjInput)
)

// augParam declares a view's augmentation (default random2).
func augParam(name string) suite.StringParam {
	choices := make([]string, len(augment.Augs))
	for i, a := range augment.Augs {
		choices[i] = string(a)
	}
	return suite.Enum(name, string(augment.AugRandom2), "GraphCL augmentation of the view (random2: dropN or subgraph per graph)", choices...)
}

// Defaults are graphCLParams'.
func (graphCL) Defaults() suite.Params { return graphCLParams.Defaults() }

// ParamSet declares GraphCL's parameters (suite.ParamSetter).
func (graphCL) ParamSet() suite.ParamSet { return graphCLParams }

// graphCLRun is one GraphCL Fit: the net, the views' augmentations and
// the two stages' steps and optimisers.
type graphCLRun struct {
	n               *net
	aug             [2]augment.Aug
	ratio           [2]float64
	pretrain, train *gnn.Executable
	pre, ft         *adam
}

// newGraphCLRun checks task's parameters, sets up the net and compiles the
// executables (nothing runs before their first Exec).
func newGraphCLRun(task *suite.Task) (*graphCLRun, error) {
	p := task.Params
	if err := graphCLParams.Check(p); err != nil {
		return nil, err
	}
	n, err := newNet(task)
	if err != nil {
		return nil, err
	}
	r := &graphCLRun{n: n, aug: [2]augment.Aug{augment.Aug(graphCLAug1.Get(p)), augment.Aug(graphCLAug2.Get(p))},
		ratio: [2]float64{graphCLRatio1.Get(p), graphCLRatio2.Get(p)}}
	if err := r.build(); err != nil {
		n.close()
		return nil, err
	}
	return r, nil
}

// build compiles the pretraining and fine-tuning steps and the prediction
// (n.predict).
func (r *graphCLRun) build() error {
	n, p := r.n, r.n.task.Params
	projInput, tau := graphCLProjInput.Get(p), paramTau.Get(p)
	hidden, classes := n.enc.Hidden, n.task.NumKnown
	project := func(scope *model.Scope, g graphIn) *Node {
		z := encode(scope.At("encoder"), n.enc, g)
		if projInput == "hidden" {
			z, _ = head(scope.At("head"), z, hidden, classes)
		}
		return gnn.MLP(scope.At("proj"), z, hidden, hidden)
	}
	r.pre = newAdam("adam_pretrain", "", paramPretrainLR.Get(p))
	var err error
	if r.pretrain, err = n.execs.Step(func(scope *model.Scope, in []*Node) []*Node {
		// in: view 1's chunks, w, view 2's chunks (one plan: rows aligned).
		c := &cursor{in: in}
		c1, w := c.chunks(), c.next()
		c2 := c.views(len(c1))
		proj := func(g graphIn) *Node { return project(scope, g) }
		loss := GraphCLOneWay(concatChunks(c1, proj), concatChunks(c2, proj), w, tau)
		r.pre.minimise(n.store, scope, loss)
		return []*Node{loss}
	}); err != nil {
		return err
	}
	// Only the head's first layer is in stage 1's graph; stage 2 creates
	// W1 fresh.
	r.ft = newAdam("adam_finetune", "", n.lr)
	if r.train, err = n.execs.Step(func(scope *model.Scope, in []*Node) []*Node {
		// in: chunks, w, y.
		c := &cursor{in: in}
		chunks, w, y := c.chunks(), c.next(), c.next()
		z := concatChunks(chunks, func(g graphIn) *Node { return encode(scope.At("encoder"), n.enc, g) })
		_, logits := head(scope.At("head"), z, hidden, classes)
		loss := gnn.MaskedCrossEntropy(logits, y, w)
		r.ft.minimise(n.store, scope, loss)
		return []*Node{loss}
	}); err != nil {
		return err
	}
	n.predict, err = n.execs.Infer(func(scope *model.Scope, in []*Node) []*Node {
		z := encode(scope.At("encoder"), n.enc, oneChunk(in))
		_, logits := head(scope.At("head"), z, hidden, classes)
		return []*Node{logits, z}
	})
	return err
}

// pretrainStep is one contrastive step of epoch ep on the graphs idx: two
// augmented views of every graph (one stream per (run seed, epoch, graph,
// view)), laid out by one plan so that rows align.
func (r *graphCLRun) pretrainStep(ep int, idx []int) (float64, error) {
	n := r.n
	var views [2][]datasets.Graph
	var nodes [2][][]float32
	for v := range 2 {
		views[v], nodes[v] = make([]datasets.Graph, len(idx)), make([][]float32, len(idx))
		for i, g := range idx {
			views[v][i], nodes[v][i] = r.aug[v].Apply(&n.task.Graphs[g], n.feats.Nodes[g], n.feats.Dim, r.ratio[v],
				augment.Stream(n.task.Seed, "graphcl", ep, g, v))
		}
	}
	plan := n.plan(idx)
	v1, v2 := n.lay(views[0], nodes[0], plan), n.lay(views[1], nodes[1], plan)
	return n.step(r.pretrain, v1.args(v2.In...), r.pre)
}

func (graphCL) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	r, err := newGraphCLRun(task)
	if err != nil {
		return nil, err
	}
	n := r.n
	defer n.close()
	rng := n.tr.State.TrackRNG("batches", gnn.NewPCG(task.Seed, gnn.StreamBatches))
	if err := n.restore(); err != nil {
		return nil, err
	}
	if err := n.pretrain(ctx, pretrainEpochsOf(task), rng, nil, r.pretrainStep, nil); err != nil {
		return nil, err
	}
	suite.Phase(task.Log, "finetune")
	err = n.supervisedSteps(ctx, rng, func(_ int, idx []int) (float64, error) {
		c := n.layOriginal(idx, n.plan(idx))
		return n.step(r.train, c.args(n.labelsOf(idx, c)), r.ft)
	}, nil)
	if err != nil {
		return nil, err
	}
	return n.predictMaxSoftmax(ctx)
}
