// Package ugnn is UGNN, the method of "Towards Semi-supervised Universal
// Graph Classification" (§4, Algorithm 1), and its four ablations (§5.3).
// Equation numbers below are those of the paper's LaTeX source.
//
// Training: a warm-up on the labelled graphs (cross-entropy + supervised
// contrastive loss), then T cycles. Each cycle (1) scores every unlabelled
// graph by s~ = μ − σ of the max-softmax confidence over I node-deleted
// subgraphs, (2) takes the graphs with s~ ≤ δ_t = (t/T)·δ as the OOD set,
// δ being the ⌈αK⌉-th smallest s~ (K known, as in the paper's experiments),
// (3) initialises prototypes: known-class means of labelled embeddings
// (eq. 8) and R k-means centroids of the OOD set, (4) trains with
// L = L^l + L^u (eq. 15) plus the supervised contrastive term, which the
// paper's §5.1 keeps "during optimization". L^u is the cross-entropy
// between Sinkhorn-Knopp assignments of an edge-deleted view and the
// prototype softmax of a node-deleted view (eqs. 9–13), with momentum
// prototype updates (eq. 14).
// Output: the classifier's class on the whole graph, unknown score 1 − s~
// (the paper's −s~ shifted by 1; all scores are computed in float64 from
// the logits, gnn.MaxSoftmax, so confident graphs do not tie).
// Diagnostics for the suite: each cycle reports 1 − s~ and its parts 1 − μ
// and σ (Task.ReportScores), and the predictions keep 1 − s~, 1 − μ, σ and
// the whole graph's 1 − max softmax as extra scores, so the OOD AUROC of
// each is stored.
// Embeddings (for bench plot tsne): Φ's readout of the whole graph,
// L2-normalised (2·hidden wide), the space of the prototypes.
//
// Choices where the paper is silent (each a named hyper-parameter): hidden
// 128; 2 GIN layers per stage; a one-GIN-layer scoring GNN; kept nodes gated
// by tanh(score); one view per graph in the supervised contrastive loss
// (τ_sup = 0.1, weight 1), on the encoder's normalised embedding without a
// projection head; an epoch of the semi-supervised phase is one pass over
// all unlabelled graphs (the OOD set included), each batch paired with the
// next labelled batch, and w/o P keeps that schedule without the unlabelled
// half (so it takes as many L^l steps as UGNN; it only drops L^u and the
// prototypes); the momentum update uses the edge-deleted view's
// embeddings of the batch; edge deletion drops 20% of edges; if the OOD set
// has fewer than R graphs, the R least confident graphs seed k-means.
//
// Choices where the paper reads two ways: T counts cycles, among which the
// epochs after warm-up are split evenly (§4.4: "the number of total cycles
// is T"; §4.2 calls it iterations), default 5. δ_t scales the score, not a
// count of graphs, as the formula is written: with s~ in (0, 1] the early
// cycles often select no graph at all and fall back to the R least
// confident ones. The Sinkhorn input is exp(2HᵀZ/ε) as the paper writes
// it; SwAV's exp(HᵀZ/ε) is the same with sinkhorn_eps doubled.
//
// Node deletion keeps ⌈(1−node_drop)·n⌉ nodes, so with the default 0.2 a
// graph of at most 4 nodes is left whole: its I subgraphs are identical
// (σ = 0) and its node-deleted view is the graph itself. That is 956 of
// Letter-high's 2,250 graphs (42%).
//
// Levers beyond the paper, each a hyper-parameter off by default (so the
// defaults are the paper's method and stored runs keep their hashes; see
// Levers): unknown_mass (Sinkhorn's unknown-prototype mass α·K/|D^u|),
// curriculum=count (⌈(t/T)·α·K⌉ graphs per cycle), proj_head (a
// projection head before the normalised space), pseudo_label and
// pseudo_weight (FixMatch-style pseudo-labels on ψ), conv=sage (the
// GraphSAGE backbone), swap (SwAV's swapped prediction), augment_labelled
// (perturbed views of the labelled graphs in L^l) and batch_norm (the
// official GIN code's BatchNorm in every GIN layer, masked, with running
// statistics for prediction).
//
// Batch layout (parameter layout, Config.Layout): every batch of a run —
// labelled batches and their size chunks, the augment_labelled views, the
// two perturbed views of D^u, the node-deleted subgraphs of s~, the
// predictions and embeddings handed to the scorers — is laid out either as
// padded dense blocks (x [B,N,D], adj [B,N,N]) or as one edge list
// (gnn.NewEdgeBatch), and Φ is compiled for that layout (encode or
// encodeEdges, the same variables). The default is the edge list, the
// faster of the two (gnn.ParamLayout); auto, the legacy rule, takes the
// edge list when the task's largest graph has more than gnn.DenseMaxNodes
// = 100 nodes and the dense layout of the stored runs otherwise
// (gnn.ChooseLayout). The two compute the same function and differ at
// float rounding.
package ugnn

import (
	"context"
	"fmt"
	"math"

	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

// Config holds UGNN's hyper-parameters (docs/protocol.md §5 defaults).
//
// The budget is counted in optimizer steps on labelled batches (the
// protocol's supervised step budget, docs/protocol.md §5, the same for every
// GNN method on a dataset): WarmupSteps = round(WarmupFrac·Steps) warm-up
// steps (passes over D^l, the last cut short; the paper's 50 of 100 epochs
// give WarmupFrac 0.5), then SemiSteps = Steps − WarmupSteps steps of the
// semi-supervised phase, each on one batch of unlabelled graphs and the
// next labelled batch, split evenly over the T cycles. Cycles (T) is capped
// at SemiSteps when that is ≥ 1, so a tiny budget runs one step per cycle
// instead of being rejected.
type Config struct {
	Steps, WarmupSteps, SemiSteps int     // from steps and warmup_frac
	WarmupFrac                    float64 // 0.5
	Cycles                        int     // T = 5 (capped at SemiSteps)
	CurveEvery                    int     // report D^u classes every N epochs (0 = never)
	// BatchSize is the labelled batch of every supervised step (warm-up
	// and semi-supervised); UnlabelledBatch the batch of unlabelled graphs
	// of a semi-supervised step (the paper's 256), over which Sinkhorn-Knopp
	// balances the prototypes.
	BatchSize, UnlabelledBatch int
	LR                         float64
	Hidden, Layers             int
	PoolRatio                  float64
	Classes                    int
	Subgraphs                  int     // I = 3
	NodeDrop, EdgeDrop         float64 // 0.2, 0.2
	UnknownPrototypes          int     // R = 3
	Alpha                      float64 // OOD multiplier α: the protocol's (Task.Alpha)
	SinkhornEps                float64 // ε = 0.05
	SinkhornIters              int     // 3
	Tau                        float64 // τ = 0.1
	Eta                        float64 // η = 0.99
	SupConTau, SupConWeight    float64
	KMeansIters                int
	// Chunks splits every batch into size-sorted chunks padded separately
	// (gnn.SizeChunks; same loss and gradient, less padding).
	Chunks int
	// Layout is how every batch is laid out (layout, gnn.ParamLayout):
	// gnn.LayoutDense pads each graph to the batch's largest (x [B,N,D],
	// adj [B,N,N], mask [B,N]); gnn.LayoutEdges concatenates the graphs
	// into one edge list (gnn.NewEdgeBatch: x [Nodes,D], src/dst [E]),
	// memory O(Nodes + E) instead of O(B·N²); gnn.LayoutAuto picks one by
	// the task's largest graph (gnn.ChooseLayout: edges above
	// gnn.DenseMaxNodes = 100 nodes). newRun resolves it, so a run's
	// Config holds LayoutDense or LayoutEdges. Both layouts compute the
	// same function and differ at float rounding (summation order); every
	// batch of a run (labelled, views, subgraphs, predictions) and every
	// compiled step follow it.
	Layout gnn.Layout
	Levers
}

// encoder is the gnn.EncoderConfig that describes Φ's layout needs to
// gnn.ChooseLayout: the conv lever's convolution and TopK pooling (Φ's own
// scoring GNN is not gnn.Encode's, but it has an edge-list path too).
func (c Config) encoder() gnn.EncoderConfig {
	return gnn.EncoderConfig{Conv: c.Conv, Pool: gnn.PoolTopK, Hidden: c.Hidden, LayersPerStage: c.Layers, PoolRatio: c.PoolRatio}
}

// Levers are changes beyond the paper, each a hyper-parameter whose
// default is the paper's (faithful) behaviour; stored runs hash as if they
// did not exist (method.LegacyParams).
type Levers struct {
	// UnknownMass (unknown_mass, default false): Sinkhorn-Knopp's
	// prototype marginal gives the R unknown prototypes the total mass
	// α·K/|D^u| (the unknown share of D^u the curriculum assumes; clamped
	// to [0.001, 0.999]), split evenly, and the C known prototypes the
	// rest, split evenly, instead of 1/(C+R) each (the paper's
	// equipartition, eq. 9). Optimal transport with a non-uniform
	// marginal is the same Sinkhorn-Knopp iteration (Cuturi 2013); SwAV
	// (Caron et al. 2020) uses the uniform one because its classes are
	// balanced, which D^u's known and unknown graphs are not. Only when
	// both kinds of prototypes exist (not in w/o KP, w/o UP).
	UnknownMass bool
	// Curriculum (curriculum, default "scale"): how cycle t of T selects
	// the OOD set. "scale" is the paper's formula as written (§4.2,
	// δ_t = (t/T)·δ scales the score; early cycles often select nothing
	// and fall back to the R least confident graphs); "count" takes the
	// ⌈(t/T)·α·K⌉ least confident graphs (CountOODSet), the same
	// easy-to-hard schedule counted in graphs, so that every cycle's
	// unknown prototypes are k-means centroids of a real set (curriculum
	// learning, Bengio et al. 2009).
	Curriculum string
	// ProjHead (proj_head, default false): a projection head g, Linear
	// (2H→2H) → ReLU → Linear (2H→H), no final ReLU, maps the readout z to
	// the space that is L2-normalised and used by the supervised
	// contrastive loss, the prototypes and L^u (SimCLR, Chen et al. 2020;
	// SupCon, Khosla et al. 2020; SwAV, Caron et al. 2020); the classifier
	// ψ still reads z. Without it that space is z itself, which is ≥ 0
	// (a mean‖max readout of ReLU outputs), so every cosine is ≥ 0. The
	// papers' heads put BatchNorm after the first Linear; this one has
	// none: the head also runs outside training (prototypes, embeddings),
	// where BatchNorm needs running statistics, which the suite's layers
	// did not keep when the lever was added (gnn.BatchNorm, added with
	// batch_norm, keeps them).
	ProjHead bool
	// PseudoLabel (pseudo_label, default 0 = off) and PseudoWeight
	// (pseudo_weight, default 1): FixMatch's unlabelled loss (Sohn et al.
	// 2020, eq. 4) on the classifier ψ, which L^u never trains otherwise.
	// An unlabelled graph whose Sinkhorn code q (from view 1) puts its
	// largest share on known prototype c, at least PseudoLabel, gets
	// target c for ψ's prediction on view 2; graphs whose largest share is
	// an unknown prototype, or below the threshold, are left out. The
	// term, weighted by PseudoWeight, averages over all real unlabelled
	// graphs of the step, as FixMatch's does (PseudoLabelLoss). Needs the
	// known prototypes (not in w/o KP, w/o P).
	PseudoLabel, PseudoWeight float64
	// Conv (conv, default "gin"): the message-passing layer of every
	// stage of Φ, the scoring GNN included: "gin" is GIN-ε (Xu et al.
	// 2019), "sage" GraphSAGE with the mean aggregator (Hamilton et al.
	// 2017; gnn.SAGEConv, unnormalised), the backbone of the suite's
	// strongest baseline row; the paper's encoder is "an MPNN".
	Conv gnn.Conv
	// Swap (swap, default false): SwAV's swapped prediction (Caron et al.
	// 2020, eq. 1): L^u = ½[ℓ(q1, p2) + ℓ(q2, p1)], each view's Sinkhorn
	// code the target of the other view's prototype softmax, instead of
	// the paper's one direction ℓ(q1, p2) (eq. 12: q from the edge-deleted
	// view 1, p from the node-deleted view 2).
	Swap bool
	// AugmentLabelled (augment_labelled, default false): L^l and the
	// supervised contrastive term read perturbed views of the labelled
	// graphs instead of the whole graphs, each graph at each step a
	// node-deleted view (node_drop) or an edge-deleted one (edge_drop),
	// with equal chance: GraphCL's augmentations (You et al. 2020) in the
	// supervised loss, as FixMatch's weak augmentation of the labelled
	// batch (Sohn et al. 2020). UGNN's unknown score (§4.2) asks ψ about
	// node-deleted subgraphs, which the paper's ψ never sees in training.
	AugmentLabelled bool
	// BatchNorm (batch_norm, default false): BatchNorm in every GIN layer
	// of Φ (both stages and the scoring GNN), where the official GIN code
	// has it (Xu et al. 2019, "How Powerful are Graph Neural Networks?";
	// github.com/weihua916/powerful-gnns models/mlp.py:48 and
	// models/graphcnn.py:163-167): Linear → BatchNorm → ReLU → Linear →
	// BatchNorm → ReLU instead of Linear → ReLU → Linear → ReLU
	// (gnn.GINConvBN, gnn.GINConvBNEdges). PyTorch's BatchNorm1d
	// (momentum 0.1, eps 1e-5, learnt γ, β; gnn.BatchNorm), masked: the
	// statistics are over the real nodes of the batch only, not the
	// padding rows, the nodes the pooling dropped or the zero nodes of
	// padding graph slots, and over all size chunks of a batch together.
	// The training steps normalise with each forward pass's batch
	// statistics and move the running mean and variance once per pass
	// (labelled batch, view 1, view 2: three moves per semi-supervised
	// step); every prediction (the OOD scores, the prototypes, the
	// embeddings, the final predictions) normalises with the running
	// statistics, PyTorch's eval mode. GIN only: configFrom rejects it
	// with conv = sage, which has no MLP.
	BatchNorm bool
}

// The values of Levers.Curriculum.
const (
	CurriculumScale = "scale"
	CurriculumCount = "count"
)

// Variant switches the parts of UGNN that the ablations of Table 4 remove.
type Variant struct {
	Name, Doc string
	// SubgraphOOD: OOD set and unknown score from I subgraphs (else from
	// the full graph's max softmax: "w/o S").
	SubgraphOOD bool
	// Prototypes: prototype-aware semi-supervised learning (else L^l +
	// contrastive only: "w/o P", on the same step schedule: one step per
	// batch of unlabelled graphs, each on the next labelled batch).
	Prototypes bool
	// KnownPrototypes / UnknownPrototypes: which prototypes exist ("w/o KP"
	// keeps only unknown ones, "w/o UP" only known ones).
	KnownPrototypes, UnknownPrototypes bool
}

// Variants are the full method and its four ablations.
var Variants = []Variant{
	{"ugnn", "UGNN: subgraph-based OOD detection + prototype-aware semi-supervised learning (the paper's method)", true, true, true, true},
	{"ugnn-wo-s", "UGNN w/o S: OOD set and unknown score from the full graph's max softmax instead of subgraphs", false, true, true, true},
	{"ugnn-wo-p", "UGNN w/o P: no prototype learning (L^l + supervised contrastive loss only, on UGNN's steps)", true, false, false, false},
	{"ugnn-wo-kp", "UGNN w/o KP: unknown-class prototypes only", true, true, false, true},
	{"ugnn-wo-up", "UGNN w/o UP: known-class prototypes only", true, true, true, false},
}

// ugnnPaper is the source of every variant's row.
const ugnnPaper = "Luo et al. 2023, Towards Semi-supervised Universal Graph Classification"

func init() {
	info := []suite.Info{ // index-aligned with Variants
		{Row: "UGNN", Family: suite.FamilyUGNN, Source: ugnnPaper},
		{Row: "w/o S", Family: suite.FamilyAblation, Order: 1, Source: ugnnPaper},
		{Row: "w/o P", Family: suite.FamilyAblation, Order: 2, Source: ugnnPaper},
		{Row: "w/o KP", Family: suite.FamilyAblation, Order: 3, Source: ugnnPaper},
		{Row: "w/o UP", Family: suite.FamilyAblation, Order: 4, Source: ugnnPaper},
	}
	for i, v := range Variants {
		suite.Register(method{v}, info[i])
	}
	suite.Register(plus{method{Variants[0]}}, suite.Info{Row: "UGNN+", Family: suite.FamilyUGNN, Order: 1,
		Source: "this suite: UGNN with the levers that held on D^u (docs/ugnn-plus.md)"})
}

// PlusName is the registry name of UGNN+.
const PlusName = "ugnn-plus"

// plusParams are ugnn-plus's parameters: UGNN's, with the levers that the
// screening kept (docs/ugnn-plus.md, docs/ugnn-levers.md: Letter-high,
// both ratios, split seeds 0–2, paired; chosen on D^u figures only) on by
// default, and no legacy values (no run of it predates a parameter). The
// figures are the second screening's (edge-list layout, binary of
// f3b78ea); the first (dense layout) chose the same levers:
//
//   - conv = sage, the GraphSAGE-mean backbone (Hamilton et al. 2017)
//     instead of GIN-ε. Alone against faithful ugnn: du_accuracy +0.145 /
//     +0.171 (low / high, p ≤ 0.02), du_closed_acc +0.222 / +0.251,
//     du_ood_auroc +0.138 / +0.147, knn:du_accuracy +0.245 / +0.221.
//   - unknown_mass = true, Sinkhorn's unknown prototypes get the unknown
//     share α·K/|D^u| of the mass (SwAV's marginal, Caron et al. 2020). On
//     top of conv = sage the native score's D^u figures rise in both cells,
//     if little: du_accuracy +0.038 / +0.036, du_ood_auroc +0.047 / +0.059
//     (p 0.06–0.12); du_closed_acc and knn:du_accuracy do not move (within
//     ±0.008); alone (GIN) it moved nothing consistently.
//
// The other levers (curriculum = count, proj_head, pseudo_label, swap,
// batch_norm) moved no D^u figure consistently, alone or on top of conv =
// sage, and stay off; augment_labelled lowered knn:du_accuracy alone and
// every D^u figure but du_closed_acc on top of the two kept levers, and
// stays off. They remain parameters of ugnn-plus.
//
// Parameters added after ugnn-plus (augment_labelled, layout, batch_norm)
// keep their legacy values, so that its stored runs keep their hashes.
// batch_norm needs conv = gin (Levers.BatchNorm).
var plusParams = params.Replace(conv.WithDefault(string(gnn.ConvSAGE)), unknownMass.WithDefault(true)).WithoutLegacy().
	Replace(augLabelled, gnn.ParamLayout, batchNorm)

// plus is UGNN+ (ugnn-plus): the full UGNN with plusParams' defaults.
type plus struct{ method }

func (plus) Name() string { return PlusName }
func (plus) Doc() string {
	return "UGNN+: UGNN on the GraphSAGE backbone with the unknown prototypes' mass at the unknown share, the levers that held on D^u (docs/ugnn-plus.md); score it with the post-hoc knn"
}

// Defaults are plusParams'.
func (plus) Defaults() suite.Params { return plusParams.Defaults() }

// ParamSet declares ugnn-plus's parameters (suite.ParamSetter).
func (plus) ParamSet() suite.ParamSet { return plusParams }

// LegacyParams are plusParams' legacy values: those of the parameters
// added after ugnn-plus (augment_labelled, layout, batch_norm); the suite
// reads them
// from ParamSet.
func (plus) LegacyParams() suite.Params { return plusParams.Legacy() }

type method struct{ v Variant }

func (m method) Name() string { return m.v.Name }
func (m method) Doc() string  { return m.v.Doc }

// UGNN's own parameters (docs/protocol.md §5 defaults; see Config and
// Levers). The levers were added after runs were stored with the paper's
// behaviour, their defaults and legacy values; curve_every (added with
// protocol v2) only reports D^u's accuracy during training and changes
// nothing a run computes, so at 0 it hashes as if absent, and
// unlabelled_batch_size (added with it) was batch_size before, 256.
// layout (gnn.ParamLayout, Config.Layout; added after the levers) is the
// edge list by default; its legacy value is auto, the dense layout of
// every run stored before it on Letter-* and COIL-DEL (≤ 100 nodes), so
// those keep their hashes and their numbers.
var (
	warmupFrac    = suite.Float("warmup_frac", 0.5, suite.UnitInterval, "fraction of steps spent in the warm-up")
	cycles        = suite.Int("cycles", 5, suite.AtLeastOne, "curriculum cycles T (capped at the semi-supervised steps)")
	subgraphs     = suite.Int("subgraphs", 3, suite.AtLeastOne, "node-deleted subgraphs I scored per graph")
	nodeDrop      = suite.Float("node_drop", 0.2, suite.DropRate, "fraction of nodes a node-deleted view drops")
	edgeDrop      = suite.Float("edge_drop", 0.2, suite.DropRate, "fraction of edges an edge-deleted view drops")
	unknownProtos = suite.Int("unknown_prototypes", 3, suite.AtLeastOne, "unknown-class prototypes R")
	sinkhornEps   = suite.Float("sinkhorn_eps", 0.05, suite.Positive, "Sinkhorn-Knopp ε")
	sinkhornIters = suite.Int("sinkhorn_iters", 3, suite.NonNegative, "Sinkhorn-Knopp iterations")
	tau           = suite.Float("tau", 0.1, suite.Positive, "temperature τ of the prototype softmax")
	eta           = suite.Float("eta", 0.99, suite.UnitInterval, "momentum η of the prototype updates")
	supConTau     = suite.Float("supcon_tau", 0.1, suite.Positive, "temperature of the supervised contrastive loss")
	supConWeight  = suite.Float("supcon_weight", 1.0, suite.NonNegative, "weight of the supervised contrastive loss")
	kmeansIters   = suite.Int("kmeans_iters", 100, suite.NonNegative, "k-means iterations for the unknown prototypes")

	unknownMass  = suite.Bool("unknown_mass", false, "lever: Sinkhorn gives the unknown prototypes mass α·K/|D^u|").WithLegacy(false)
	curriculum   = suite.Enum("curriculum", CurriculumScale, "lever: OOD set per cycle by the paper's score scale or a graph count", CurriculumScale, CurriculumCount).WithLegacy(CurriculumScale)
	projHead     = suite.Bool("proj_head", false, "lever: a projection head before the normalised space").WithLegacy(false)
	pseudoLabel  = suite.Float("pseudo_label", 0.0, suite.UnitInterval, "lever: FixMatch pseudo-label threshold on ψ (0 = off)").WithLegacy(0.0)
	pseudoWeight = suite.Float("pseudo_weight", 1.0, suite.NonNegative, "lever: weight of the pseudo-label loss").WithLegacy(1.0)
	conv         = suite.Enum("conv", string(gnn.ConvGIN), "lever: message-passing layer, gin or sage", string(gnn.ConvGIN), string(gnn.ConvSAGE)).WithLegacy(string(gnn.ConvGIN))
	swap         = suite.Bool("swap", false, "lever: SwAV's swapped prediction in L^u").WithLegacy(false)
	augLabelled  = suite.Bool("augment_labelled", false, "lever: node- or edge-deleted views of the labelled graphs in L^l").WithLegacy(false)
	batchNorm    = suite.Bool("batch_norm", false, "lever: BatchNorm in the GIN layers' MLPs, as the official GIN code (masked; running statistics for prediction)").WithLegacy(false)

	// params are UGNN's, shared by all five variants; its labelled
	// batch must hold two graphs (the supervised contrastive loss).
	params = suite.Declare(gnn.ParamSteps, warmupFrac, cycles,
		gnn.ParamBatchSize.WithRange(suite.Range{Min: 2, Max: math.Inf(1)}),
		gnn.ParamUnlabelledBatchSize.WithLegacy(256), gnn.ParamLR, gnn.ParamCurveEvery.WithLegacy(0),
		gnn.ParamHidden, gnn.ParamLayers, gnn.ParamPoolRatio,
		subgraphs, nodeDrop, edgeDrop, unknownProtos, sinkhornEps, sinkhornIters, tau, eta,
		supConTau, supConWeight, kmeansIters, gnn.ParamSizeChunks, gnn.ParamLayout,
		unknownMass, curriculum, projHead, pseudoLabel, pseudoWeight, conv, swap, augLabelled, batchNorm)
)

// Defaults are params', shared by all five variants.
func (m method) Defaults() suite.Params { return params.Defaults() }

// ParamSet declares UGNN's parameters (suite.ParamSetter).
func (m method) ParamSet() suite.ParamSet { return params }

// LegacyParams are params' legacy values (suite.ParamSpec.Legacy; the
// suite reads them from ParamSet).
func (m method) LegacyParams() suite.Params { return params.Legacy() }

// configFrom reads and validates the Config of params p (classes known
// classes); Cycles comes back capped at the semi-supervised steps (see
// Config).
func configFrom(p suite.Params, classes int) (Config, error) {
	if err := params.Check(p); err != nil {
		return Config{}, err
	}
	c := Config{
		Steps: gnn.ParamSteps.Get(p), WarmupFrac: warmupFrac.Get(p), Cycles: cycles.Get(p), CurveEvery: gnn.ParamCurveEvery.Get(p),
		BatchSize: gnn.ParamBatchSize.Get(p), UnlabelledBatch: gnn.ParamUnlabelledBatchSize.Get(p), LR: gnn.ParamLR.Get(p),
		Hidden: gnn.ParamHidden.Get(p), Layers: gnn.ParamLayers.Get(p), PoolRatio: gnn.ParamPoolRatio.Get(p), Classes: classes,
		Subgraphs: subgraphs.Get(p), NodeDrop: nodeDrop.Get(p), EdgeDrop: edgeDrop.Get(p), UnknownPrototypes: unknownProtos.Get(p),
		SinkhornEps: sinkhornEps.Get(p), SinkhornIters: sinkhornIters.Get(p),
		Tau: tau.Get(p), Eta: eta.Get(p), SupConTau: supConTau.Get(p), SupConWeight: supConWeight.Get(p),
		KMeansIters: kmeansIters.Get(p), Chunks: gnn.ParamSizeChunks.Get(p), Layout: gnn.Layout(gnn.ParamLayout.Get(p)),
		Levers: Levers{UnknownMass: unknownMass.Get(p), Curriculum: curriculum.Get(p),
			ProjHead: projHead.Get(p), PseudoLabel: pseudoLabel.Get(p), PseudoWeight: pseudoWeight.Get(p),
			Conv: gnn.Conv(conv.Get(p)), Swap: swap.Get(p), AugmentLabelled: augLabelled.Get(p), BatchNorm: batchNorm.Get(p)},
	}
	if c.BatchNorm && c.Conv != gnn.ConvGIN {
		return Config{}, fmt.Errorf("batch_norm: BatchNorm sits in GIN's MLPs; conv %q has none (want conv %q)", c.Conv, gnn.ConvGIN)
	}
	c.WarmupSteps = int(math.Round(c.WarmupFrac * float64(c.Steps)))
	c.SemiSteps = c.Steps - c.WarmupSteps
	if c.SemiSteps >= 1 {
		c.Cycles = min(c.Cycles, c.SemiSteps) // every cycle gets ≥ 1 step
	}
	return c, nil
}

// Fit trains UGNN (or an ablation) on task and predicts task.Eval. It reads
// task.NumUnknown (K), as the paper's curriculum assumes K known, and the
// protocol's α (task.Alpha): the curriculum selects ⌈α·K⌉ graphs at its last
// cycle, the same number the suite declares unknown (the paper's α
// sensitivity study varies both; sweep it with bench grid --alpha). With
// task.Resume it saves after every epoch of the cycles when due, and an
// interrupted run continues from its last save (run.restore).
func (m method) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	cfg, err := configFrom(task.Params, task.NumKnown)
	if err != nil {
		return nil, err
	}
	r, err := newRun(task, cfg, m.v)
	if err != nil {
		return nil, err
	}
	defer r.net.close()
	resumed, err := r.restore()
	if err != nil {
		return nil, err
	}
	if !resumed { // a resumed run saved during the cycles, warm-up done
		if err := r.warmup(ctx); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	if err := r.cycles(ctx); err != nil {
		return nil, err
	}
	return r.predictions(ctx)
}
