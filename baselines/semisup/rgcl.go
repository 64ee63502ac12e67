package semisup

import (
	"context"
	"fmt"
	"math"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/methods/augment"
	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

func init() {
	suite.Register(rgcl{}, suite.Info{Row: "RGCL", Family: suite.FamilySemiSupervised, Order: 4, Source: "Li et al. 2022"})
}

// rgcl is RGCL, rationale-aware graph contrastive learning (Li et al.,
// ICML 2022; lsh0520/RGCL; docs/methods.md, "rgcl"): the contrastive stage of its
// unsupervised TU code, then the fine-tuning stage of its semi-supervised
// MNIST code.
//
// The rationale generator ψ ("explainer") is explainer_layers GIN-ε
// convolutions of width explainer_hidden and a Linear to one score s per
// node; p = per-graph softmax of s/explainer_temp over real nodes
// (RGCLExplainer). Node weights w = weight_floor + (1−weight_floor)·p /
// max_graph p ∈ [0.9, 1] (RGCLNodeWeights) multiply every first-stage
// convolution's output and, gathered through TopK's selection, every
// second-stage one (gnn.EncodeNodes): ψ's only gradient route, as in the
// official code.
//
//   - Stage 1, `pretrain_epochs` passes over D^l ∪ D^u (fewer where they
//     would exceed pretrain_step_cap × steps optimizer steps:
//     pretrainEpochs, docs/protocol.md §5): at the start of each,
//     ψ scores every graph without gradient; per batch the host samples
//     rationale views R(G) and complement views C(G) (one stream per (run
//     seed, purpose, epoch, graph, view)). Every view is encoded with ψ
//     recomputed (with gradient) on it, projected by proj =
//     Linear(2H→H)→ReLU→Linear(H→H) on the readout, and the loss of
//     `loss_form` (below) is minimised by Adam(pretrain_lr) on the encoder
//     and proj and Adam(pretrain_lr·explainer_lr_factor) on ψ. A batch with
//     fewer than 2 real graphs is skipped.
//   - Stage 2, `steps` steps on D^l: ψ frozen (scores computed once), a
//     fresh Adam(lr) on encoder and head; per batch two rationale views
//     (loss_form's probabilities and keep count) and CE(view1) + CE(view2)
//     (finetune_views=rationale, the official MNIST fine-tuning) or CE on
//     the original graph (original).
//   - Prediction: the full graph with ψ's weights through the head.
//
// The three official loss forms (lsh0520/RGCL unsupervised_TU/rgcl.py,
// transferLearning/chem/pretrain_rgcl.py, semisupervised_MNIST
// pre-training; C(G) always samples with
// augment.ComplementProbs):
//
//	loss_form  views      loss                             R(G) probabilities         nodes kept
//	tu         G, R, C    RGCLTULoss (cp_weight in log)    RationaleProbs (prob_eps)  KeepRatioCount(n, rho, min_drop)
//	chem       R1, R2, C  RGCLChemLoss (λ = cp_weight)     RationaleProbs (prob_eps)  DropRatioCount(n, 1−rho, min_drop)
//	mnist      R1, R2     GraphCLOneWay (E1)               SoftmaxRationaleProbs      DropRatioCount(n, 1−rho, min_drop)
//
// loss_form sets the form only: the official companions are tau 0.2 /
// 0.1 / 0.3 and rho 0.9 / 0.8 / 0.8 (set them with it, e.g. --set
// rgcl.loss_form=chem --set rgcl.tau=0.1 --set rgcl.rho=0.8). The chem and
// MNIST codes take the drop ratio 0.2 itself (⌊0.2n⌋ dropped: 5→4, 10→8),
// so 1−rho is rounded to 9 decimals for them (1−0.8 is
// 0.19999999999999996 in float64); tu keeps its code's float artefact
// (rho 0.8: 5→5, 10→9). Not reproduced from the MNIST code: its explainer
// (3 GCN layers on the first feature column, no softmax) and its node
// weights (1 + p/(10·max over the batch), last layer only); every form
// uses this ψ and RGCLNodeWeights.
//
// The official view sampling also removes nodes left
// without edges; this one keeps them. At rho = 0.9 every graph of ≤ 10
// nodes keeps all its nodes (all of Letter-high): the curve
// "unchanged_views" counts the graphs of a pass whose R(G) = G; min_drop
// forces drops.
//
// Layouts: like the other rows, RGCL runs in the layout `layout` picks
// (paramLayout). In the edge list ψ is RGCLExplainerEdges and the weights
// RGCLNodeWeightsEdges (the same functions, with the same variables) and
// the encoder gnn.EncodeNodesEdges, whose pooled nodes keep their rows,
// so a node's weight needs no gather through a selection.
type rgcl struct{}

func (rgcl) Name() string { return "rgcl" }

func (rgcl) Doc() string {
	return "RGCL: rationale-aware contrastive pretraining on D^l ∪ D^u (rationale/complement node sampling from a GIN explainer), then fine-tuning on rationale views (Li et al. 2022)"
}

// rgclParams: the backbone's plus the official TU code's
// (unsupervised_TU/arguments.py, rgcl.py, gin.py, aug.py).
var (
	rgclExplainerLR = suite.Float("explainer_lr_factor", 1.0, suite.Positive, "the explainer's pretraining learning rate, as a factor of pretrain_lr")
	rgclLossForm    = suite.Enum("loss_form", "tu", "form of the pretraining loss: the official TU, chem or MNIST code's", "tu", "chem", "mnist")
	rgclRho         = suite.Float("rho", 0.9, suite.Ratio, "fraction of nodes a rationale view keeps")
	rgclCPWeight    = suite.Float("cp_weight", 0.1, suite.NonNegative, "weight of the complement view's term")
	rgclExLayers    = suite.Int("explainer_layers", 3, suite.AtLeastOne, "GIN layers of the explainer ψ")
	rgclExHidden    = suite.Int("explainer_hidden", 32, suite.AtLeastOne, "hidden width of the explainer ψ")
	rgclExTemp      = suite.Float("explainer_temp", 5.0, suite.Positive, "softmax temperature of the explainer's node scores")
	rgclFloor       = suite.Float("weight_floor", 0.9, suite.UnitInterval, "lowest node weight in the GIN layers (RGCLNodeWeights)")
	rgclProbEps     = suite.Float("prob_eps", 0.001, suite.Positive, "floor of the node sampling probabilities")
	rgclFinetune    = suite.Enum("finetune_views", "rationale", "what fine-tuning trains on: rationale views or the original graphs", "rationale", "original")
	rgclMinDrop     = suite.Int("min_drop", 0, suite.NonNegative, "nodes a view drops at least (where the graph has more)")
	rgclParams      = backbone.With(paramPretrainEpoch.WithDefault(40), paramPretrainCap, paramPretrainLR, rgclExplainerLR, rgclLossForm, rgclRho,
		paramTau.WithDefault(0.2), rgclCPWeight, rgclExLayers, rgclExHidden, rgclExTemp, rgclFloor, rgclProbEps, rgclFinetune, rgclMinDrop)
)

// Defaults are rgclParams'.
func (rgcl) Defaults() suite.Params { return rgclParams.Defaults() }

// ParamSet declares RGCL's parameters (suite.ParamSetter).
func (rgcl) ParamSet() suite.ParamSet { return rgclParams }

// RGCLExplainer is ψ: layers GIN-ε convolutions of width hidden, a Linear
// to one score per node, then the per-graph softmax of score/temp over the
// real nodes (RGCL unsupervised_TU/gin.py:18-64, without BatchNorm).
// x [B, N, D], adj [B, N, N], mask [B, N] → p [B, N] (0 on padding).
func RGCLExplainer(scope *model.Scope, x, adj, mask *Node, layers, hidden int, temp float64) *Node {
	h := x
	for l := range layers {
		h = gnn.GINConv(scope.In("conv_%d", l), h, adj, mask, hidden)
	}
	s := DivScalar(Squeeze(gnn.Linear(scope.In("score"), h, 1), -1), temp)
	return NodeSoftmax(s, mask)
}

// NodeSoftmax is the softmax of s [B, N] over the nodes with mask > 0,
// 0 elsewhere.
func NodeSoftmax(s, mask *Node) *Node {
	isReal := GreaterThan(mask, ZerosLike(mask))
	s = Where(isReal, s, MulScalar(OnesLike(s), -1e30))
	e := Mul(Exp(Sub(s, StopGradient(InsertAxes(ReduceMax(s, -1), -1)))), mask)
	return Div(e, InsertAxes(ReduceSum(e, -1), -1))
}

// RGCLExplainerEdges is RGCLExplainer in the edge-list layout, with the
// same variables: the batch in (gnn.EdgeInputs) → p [Nodes], each graph
// slot's softmax over its real nodes (NodeSoftmaxEdges; 0 on padding).
func RGCLExplainerEdges(scope *model.Scope, in gnn.EdgeInputs, layers, hidden int, temp float64) *Node {
	e := gnn.NewEdgeGraph(in.Src, in.Dst, in.EdgeWeight, in.Graph, in.NumGraphs)
	h := in.X
	for l := range layers {
		h = gnn.GINConvEdges(scope.In("conv_%d", l), h, e, in.Mask, hidden)
	}
	s := DivScalar(Squeeze(gnn.Linear(scope.In("score"), h, 1), -1), temp)
	return NodeSoftmaxEdges(s, in)
}

// perSlot gathers a per-slot value x [B+1] (gnn.SegmentSum or SegmentMax
// over in's graph ids) back to every node of in: → [Nodes].
func perSlot(x *Node, in gnn.EdgeInputs) *Node {
	return Reshape(Gather(x, InsertAxes(in.Graph, -1)), -1)
}

// NodeSoftmaxEdges is NodeSoftmax in the edge-list layout: the softmax of
// s [Nodes] over the nodes with mask > 0 of each graph slot of the batch
// in (in.Mask, in.Graph), 0 elsewhere.
func NodeSoftmaxEdges(s *Node, in gnn.EdgeInputs) *Node {
	seg, n := InsertAxes(in.Graph, -1), in.NumGraphs+1
	s = Where(GreaterThan(in.Mask, ZerosLike(in.Mask)), s, MulScalar(OnesLike(s), -1e30))
	e := Mul(Exp(Sub(s, StopGradient(perSlot(gnn.SegmentMax(s, seg, n), in)))), in.Mask)
	sum := perSlot(gnn.SegmentSum(e, seg, n), in)
	return Div(e, Where(GreaterThan(sum, ZerosLike(sum)), sum, OnesLike(sum))) // slot B: padding nodes only
}

// RGCLNodeWeightsEdges is RGCLNodeWeights in the edge-list layout: p
// [Nodes] of the batch in → w [Nodes], floor + (1−floor)·p / max p over
// each graph slot's real nodes, 0 on padding nodes.
func RGCLNodeWeightsEdges(p *Node, in gnn.EdgeInputs, floor float64) *Node {
	m := perSlot(gnn.SegmentMax(Mul(p, in.Mask), InsertAxes(in.Graph, -1), in.NumGraphs+1), in)
	m = Where(GreaterThan(m, ZerosLike(m)), m, OnesLike(m)) // slot B: padding nodes only
	return Mul(AddScalar(MulScalar(Div(p, m), 1-floor), floor), in.Mask)
}

// rgclExplain is ψ on the chunk g in its layout (RGCLExplainer or
// RGCLExplainerEdges): p [B, N] dense, [Nodes] edge list.
func rgclExplain(scope *model.Scope, g graphIn, layers, hidden int, temp float64) *Node {
	if g.edges() {
		return RGCLExplainerEdges(scope, g.E, layers, hidden, temp)
	}
	return RGCLExplainer(scope, g.X, g.Adj, g.Mask, layers, hidden, temp)
}

// rgclWeights is the node weights of ψ's p on the chunk g in its layout
// (RGCLNodeWeights or RGCLNodeWeightsEdges).
func rgclWeights(p *Node, g graphIn, floor float64) *Node {
	if g.edges() {
		return RGCLNodeWeightsEdges(p, g.E, floor)
	}
	return RGCLNodeWeights(p, g.Mask, floor)
}

// RGCLNodeWeights is RGCL's node weight w = floor + (1−floor)·p / max_v p_v
// over each graph's real nodes (gin.py:96-97: 0.9 + p/(10·max)); the top
// node gets exactly 1; padding nodes get 0. p, mask [B, N] → [B, N].
func RGCLNodeWeights(p, mask *Node, floor float64) *Node {
	m := ReduceMax(Mul(p, mask), -1) // p ≥ 0
	return Mul(AddScalar(MulScalar(Div(p, InsertAxes(m, -1)), 1-floor), floor), mask)
}

// rgclRun is one RGCL Fit: the net, the parameters the host side reads
// and the four executables.
type rgclRun struct {
	n       *net
	lf, fv  string  // loss_form, finetune_views
	rho     float64 // rho
	eps     float64 // prob_eps
	minDrop int     // min_drop
	// score is ψ without gradient (x, adj, mask → p [B, N]); pretrain
	// and train are the two stages' steps, preNet, preEx and ft their
	// optimisers.
	score, pretrain, train *gnn.Executable
	preNet, preEx, ft      *adam
}

// newRGCLRun checks task's parameters, sets up the net and compiles the
// executables (nothing runs before their first Exec).
func newRGCLRun(task *suite.Task) (*rgclRun, error) {
	p := task.Params
	if err := rgclParams.Check(p); err != nil {
		return nil, err
	}
	n, err := newNet(task)
	if err != nil {
		return nil, err
	}
	r := &rgclRun{n: n, lf: rgclLossForm.Get(p), fv: rgclFinetune.Get(p), rho: rgclRho.Get(p), eps: rgclProbEps.Get(p), minDrop: rgclMinDrop.Get(p)}
	if err := r.build(); err != nil {
		n.close()
		return nil, err
	}
	return r, nil
}

// build compiles ψ's scores, the pretraining and fine-tuning steps and
// the prediction (n.predict).
func (r *rgclRun) build() error {
	n, p := r.n, r.n.task.Params
	tau, cp := paramTau.Get(p), rgclCPWeight.Get(p)
	exLayers, exHidden, exTemp, floor := rgclExLayers.Get(p), rgclExHidden.Get(p), rgclExTemp.Get(p), rgclFloor.Get(p)
	hidden, classes := n.enc.Hidden, n.task.NumKnown
	explain := func(scope *model.Scope, g graphIn) *Node {
		return rgclExplain(scope.At("explainer"), g, exLayers, exHidden, exTemp)
	}
	// embed encodes with ψ's weights: frozen stops ψ's gradient.
	embed := func(scope *model.Scope, g graphIn, frozen bool) *Node {
		pr := explain(scope, g)
		if frozen {
			pr = StopGradient(pr)
		}
		return encodeNodes(scope.At("net").At("encoder"), n.enc, g, rgclWeights(pr, g, floor)).Z
	}
	logitsOf := func(scope *model.Scope, g graphIn) *Node {
		_, l := head(scope.At("net").At("head"), embed(scope, g, true), hidden, classes)
		return l
	}
	var err error
	if r.score, err = n.execs.Infer(func(scope *model.Scope, in []*Node) []*Node {
		return []*Node{explain(scope, oneChunk(in))}
	}); err != nil {
		return err
	}
	r.preNet = newAdam("adam_pretrain", "/net", paramPretrainLR.Get(p))
	r.preEx = newAdam("adam_pretrain", "/explainer", paramPretrainLR.Get(p)*rgclExplainerLR.Get(p))
	if r.pretrain, err = n.execs.Step(func(scope *model.Scope, in []*Node) []*Node {
		// in: the first view's chunks, w, the second's [, the third's] (one
		// plan: rows aligned) — tu: G, R, C; chem: R1, R2, C; mnist: R1, R2.
		proj := func(g graphIn) *Node {
			return gnn.MLP(scope.At("net").At("proj"), embed(scope, g, false), hidden, hidden)
		}
		c := &cursor{in: in}
		c1, w := c.chunks(), c.next()
		v1, v2 := concatChunks(c1, proj), concatChunks(c.views(len(c1)), proj)
		var loss *Node
		switch r.lf {
		case "tu":
			loss = RGCLTULoss(v1, v2, concatChunks(c.views(len(c1)), proj), w, tau, cp)
		case "chem":
			loss = RGCLChemLoss(v1, v2, concatChunks(c.views(len(c1)), proj), w, tau, cp)
		default:
			loss = GraphCLOneWay(v1, v2, w, tau)
		}
		r.preNet.minimise(n.store, scope.At("net"), loss)
		r.preEx.minimise(n.store, scope.At("explainer"), loss)
		return []*Node{loss}
	}); err != nil {
		return err
	}
	r.ft = newAdam("adam_finetune", "/net", n.lr)
	if r.train, err = n.execs.Step(func(scope *model.Scope, in []*Node) []*Node {
		// in: view 1's chunks, w, y [, view 2's chunks] (one plan).
		logits := func(g graphIn) *Node { return logitsOf(scope, g) }
		c := &cursor{in: in}
		c1, w, y := c.chunks(), c.next(), c.next()
		loss := gnn.MaskedCrossEntropy(concatChunks(c1, logits), y, w)
		if c2 := c.chunks(); len(c2) > 0 {
			loss = Add(loss, gnn.MaskedCrossEntropy(concatChunks(c2, logits), y, w))
		}
		r.ft.minimise(n.store, scope.At("net"), loss)
		return []*Node{loss}
	}); err != nil {
		return err
	}
	n.predict, err = n.execs.Infer(func(scope *model.Scope, in []*Node) []*Node {
		z := embed(scope, oneChunk(in), true)
		_, logits := head(scope.At("net").At("head"), z, hidden, classes)
		return []*Node{logits, z}
	})
	return err
}

// scores runs ψ without gradient over the graphs idx: p per node.
func (r *rgclRun) scores(ctx context.Context, idx []int) (map[int][]float64, error) {
	n := r.n
	out := make(map[int][]float64, len(idx))
	err := n.sizeBatches(ctx, idx, func(_, part []int, in []any, rows nodeRows) error {
		res, err := r.score.Exec(in...)
		if err != nil {
			return fmt.Errorf("explainer: %w", err)
		}
		flat := tensors.MustCopyFlatData[float32](res[0])
		for s, g := range part {
			row := make([]float64, n.task.Graphs[g].NumNodes)
			for v := range row {
				row[v] = float64(flat[rows.at(s, v)])
			}
			out[g] = row
		}
		return nil
	})
	return out, err
}

// sample draws one view of every graph of idx from ψ's scores ps: a
// rationale view, or with complement a complement view; it also returns
// the number of graphs the view keeps whole.
func (r *rgclRun) sample(idx []int, ps map[int][]float64, complement bool, purpose string, a, view int) ([]datasets.Graph, [][]float32, int) {
	n := r.n
	graphs, nodes := make([]datasets.Graph, len(idx)), make([][]float32, len(idx))
	unchanged := 0
	for i, g := range idx {
		G := &n.task.Graphs[g]
		var probs []float64
		switch {
		case complement:
			probs = augment.ComplementProbs(ps[g], r.eps)
		case r.lf == "mnist":
			probs = augment.SoftmaxRationaleProbs(ps[g])
		default:
			probs = augment.RationaleProbs(ps[g], r.eps)
		}
		keep := augment.KeepRatioCount(G.NumNodes, r.rho, r.minDrop)
		if r.lf != "tu" {
			keep = augment.DropRatioCount(G.NumNodes, math.Round((1-r.rho)*1e9)/1e9, r.minDrop)
		}
		if keep >= G.NumNodes {
			unchanged++
		}
		graphs[i], nodes[i] = augment.SampleNodes(G, n.feats.Nodes[g], n.feats.Dim, probs, keep, augment.Stream(n.task.Seed, purpose, a, g, view))
	}
	return graphs, nodes, unchanged
}

// pretrainStep is one contrastive step of epoch ep on the graphs idx with
// ψ's scores ps; it returns the loss and the graphs whose rationale view
// is the whole graph. The tu form's streams are the ones its stored runs
// drew (rationale view 0, complement view 1); chem and mnist draw a
// second rationale view as view 2.
func (r *rgclRun) pretrainStep(ep int, idx []int, ps map[int][]float64) (float64, int, error) {
	n := r.n
	plan := n.plan(idx)
	rg, rn, unchanged := r.sample(idx, ps, false, "rgcl_rationale", ep, 0)
	rv := n.lay(rg, rn, plan)
	var args []any
	if r.lf == "tu" {
		args = n.layOriginal(idx, plan).args(rv.In...)
	} else {
		r2g, r2n, _ := r.sample(idx, ps, false, "rgcl_rationale", ep, 2)
		args = rv.args(n.lay(r2g, r2n, plan).In...)
	}
	if r.lf != "mnist" {
		cg, cn, _ := r.sample(idx, ps, true, "rgcl_complement", ep, 1)
		args = append(args, n.lay(cg, cn, plan).In...)
	}
	loss, err := n.step(r.pretrain, args, r.preNet, r.preEx)
	return loss, unchanged, err
}

// finetuneStep is one fine-tuning step of pass on the labelled graphs
// idx (ψ frozen, its scores ps): on two rationale views, or on the
// original graphs (finetune_views).
func (r *rgclRun) finetuneStep(pass int, idx []int, ps map[int][]float64) (float64, error) {
	n := r.n
	var args []any
	plan := n.plan(idx)
	if r.fv == "original" {
		c := n.layOriginal(idx, plan)
		args = c.args(n.labelsOf(idx, c))
	} else {
		g1, n1, _ := r.sample(idx, ps, false, "rgcl_finetune", pass, 0)
		g2, n2, _ := r.sample(idx, ps, false, "rgcl_finetune", pass, 1)
		v1 := n.lay(g1, n1, plan)
		args = v1.args(append([]any{n.labelsOf(idx, v1)}, n.lay(g2, n2, plan).In...)...)
	}
	return n.step(r.train, args, r.ft)
}

func (rgcl) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	r, err := newRGCLRun(task)
	if err != nil {
		return nil, err
	}
	n := r.n
	defer n.close()
	rng := n.tr.State.TrackRNG("batches", gnn.NewPCG(task.Seed, gnn.StreamBatches))
	if err := n.restore(); err != nil {
		return nil, err
	}
	var ps map[int][]float64 // ψ's node scores of the epoch
	unchanged := 0
	start := func(int) error {
		var err error
		ps, err = r.scores(ctx, pool(task))
		unchanged = 0
		return err
	}
	err = n.pretrain(ctx, pretrainEpochsOf(task), rng, start, func(ep int, idx []int) (float64, error) {
		loss, u, err := r.pretrainStep(ep, idx, ps)
		unchanged += u
		return loss, err
	}, func(v map[string]float64) { v["unchanged_views"] = float64(unchanged) })
	if err != nil {
		return nil, err
	}

	suite.Phase(task.Log, "finetune")
	if ps, err = r.scores(ctx, task.Labelled); err != nil { // ψ is frozen from here on
		return nil, err
	}
	err = n.supervisedSteps(ctx, rng, func(pass int, idx []int) (float64, error) {
		return r.finetuneStep(pass, idx, ps)
	}, nil)
	if err != nil {
		return nil, err
	}
	return n.predictMaxSoftmax(ctx)
}
