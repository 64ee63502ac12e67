package semisup

import (
	"context"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

func init() {
	suite.Register(infoGraph{}, suite.Info{Row: "InfoGraph", Family: suite.FamilySemiSupervised, Order: 1, Source: "Sun et al. 2020"})
}

// infoGraph is InfoGraph* (Sun et al., ICLR 2020) as its official
// semi-supervised code does it (fanyun-sun/InfoGraph semi-supervised/,
// QM9 regression there; docs/methods.md, "infograph"), on the suite backbone with cross-entropy
// for the regression loss. Two encoders with separate weights: φ
// ("sup_encoder", feeding the classifier head) and ϕ ("unsup_encoder").
// Each step draws a labelled batch B_l from D^l and a batch B_u from
// D^l ∪ D^u (an independent shuffle, cycling) and minimises
//
//	CE(head(z_φ(B_l)), y) + L_lg(ϕ; B_u) + λ·L_gg(φ, ϕ; B_u)
//
// with L_lg = LocalGlobalJSD between local_d(H2_ϕ) — FF(H→H) on the final
// stage's node states, the readout's input — and global_d(z_ϕ) — FF(2H→H)
// — and L_gg = GlobalGlobalJSD between ff1(z_φ) and ff2(z_ϕ), both
// FF(2H→H). FF is three Linear→ReLU layers plus a linear shortcut
// (model.py:62-76). One Adam(lr) over every variable; prediction uses φ
// and the head only. An "epoch" is one pass over D^l (the official zip
// ends with the labelled loader): the `steps` budget counts these joint
// steps. Deviations: no BatchNorm, GIN-TopK instead of NNConv+GRU+Set2Set,
// default init instead of Xavier, no learning-rate scheduler (the
// protocol has no validation set). An epoch_unit=all (an epoch as
// one pass over D^l ∪ D^u) is not a parameter: under the step budget both
// units take the same `steps` joint steps on the same batches (the
// labelled batches reshuffle every pass over D^l, the unlabelled ones
// cycle through D^l ∪ D^u on their own), so it would only rename the
// logging unit.
type infoGraph struct{}

func (infoGraph) Name() string { return "infograph" }

func (infoGraph) Doc() string {
	return "InfoGraph*: supervised encoder + unsupervised encoder with local-global JSD MI on D^l ∪ D^u and λ-weighted global-global JSD between them (Sun et al. 2020)"
}

// infoGraphParams: the backbone's plus lambda = 0.001 (the official
// semi-supervised/arguments.py).
var (
	infoGraphLambda = suite.Float("lambda", 0.001, suite.NonNegative, "weight λ of the global-global JSD between the two encoders")
	infoGraphParams = backbone.With(infoGraphLambda)
)

// Defaults are infoGraphParams'.
func (infoGraph) Defaults() suite.Params { return infoGraphParams.Defaults() }

// ParamSet declares InfoGraph's parameters (suite.ParamSetter).
func (infoGraph) ParamSet() suite.ParamSet { return infoGraphParams }

// ff is InfoGraph's FF block: three Linear→ReLU layers plus a linear
// shortcut of x, all of width out. x [..., in] → [..., out].
func ff(scope *model.Scope, x *Node, out int) *Node {
	h := x
	for i := range 3 {
		h = gnn.ReLU(gnn.Linear(scope.At("layer_%d", i), h, out))
	}
	return Add(h, gnn.Linear(scope.At("shortcut"), x, out))
}

// infoGraphLosses are InfoGraph*'s three terms: the cross-entropy of the
// supervised encoder φ ("sup_encoder") and head on the labelled batch,
// L_lg of the unsupervised encoder ϕ ("unsup_encoder") with local_d and
// global_d on the unlabelled batch, and L_gg between ff1(z_φ) and ff2(z_ϕ)
// on the unlabelled batch. in: the labelled batch's chunks, weight,
// labels; the unlabelled batch's chunks, weight (see chunked).
func infoGraphLosses(scope *model.Scope, enc gnn.EncoderConfig, classes int, in []*Node) (ce, lg, gg *Node) {
	hidden := enc.Hidden
	c := &cursor{in: in}
	lc, wl, y := c.chunks(), c.next(), c.next()
	uc, w := c.chunks(), c.next()
	sup := func(g graphIn) *Node { return encode(scope.At("sup_encoder"), enc, g) }
	_, logits := head(scope.At("head"), concatChunks(lc, sup), hidden, classes)
	ce = gnn.MaskedCrossEntropy(logits, y, wl)
	var locals []LocalPatches
	var zu []*Node
	for _, ch := range uc {
		u := encodeNodes(scope.At("unsup_encoder"), enc, ch, nil)
		locals = append(locals, LocalPatches{Local: ff(scope.At("local_d"), u.H, hidden), Mask: u.Mask, Graph: u.Graph, NumGraphs: u.B})
		zu = append(zu, u.Z)
	}
	uz := zu[0]
	if len(zu) > 1 {
		uz = Concatenate(zu, 0)
	}
	zs := concatChunks(uc, sup)
	lg = LocalGlobalJSDParts(locals, ff(scope.At("global_d"), uz, hidden), w)
	gg = GlobalGlobalJSD(ff(scope.At("ff1"), zs, hidden), ff(scope.At("ff2"), uz, hidden), w)
	return ce, lg, gg
}

func (infoGraph) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	if err := infoGraphParams.Check(task.Params); err != nil {
		return nil, err
	}
	lambda := infoGraphLambda.Get(task.Params)
	n, err := newNet(task)
	if err != nil {
		return nil, err
	}
	defer n.close()
	hidden, classes := n.enc.Hidden, task.NumKnown
	opt := newAdam("adam", "", n.lr)
	train, err := n.execs.Step(func(scope *model.Scope, in []*Node) []*Node {
		ce, lg, gg := infoGraphLosses(scope, n.enc, classes, in)
		loss := Add(ce, Add(lg, MulScalar(gg, lambda)))
		opt.minimise(n.store, scope, loss)
		return []*Node{loss}
	})
	if err != nil {
		return nil, err
	}
	n.predict, err = n.execs.Infer(func(scope *model.Scope, in []*Node) []*Node {
		z := encode(scope.At("sup_encoder"), n.enc, oneChunk(in))
		_, logits := head(scope.At("head"), z, hidden, classes)
		return []*Node{logits, z}
	})
	if err != nil {
		return nil, err
	}
	rng := n.tr.State.TrackRNG("batches", gnn.NewPCG(task.Seed, gnn.StreamBatches))
	urng := n.tr.State.TrackRNG("unlabelled", gnn.NewPCG(task.Seed, gnn.StreamUnlabelledBatches))
	all := pool(task)
	var ubatches [][]int
	n.tr.State.TrackBatches("unlabelled", &ubatches)
	if err := n.restore(); err != nil {
		return nil, err
	}
	err = n.supervisedSteps(ctx, rng, func(_ int, idx []int) (float64, error) {
		if len(ubatches) == 0 {
			if ubatches, err = gnn.EpochBatches(task.Graphs, all, n.ubatch, gnn.BatchingRandom, urng); err != nil {
				return 0, err
			}
		}
		uidx := ubatches[0]
		ubatches = ubatches[1:]
		l := n.layOriginal(idx, n.plan(idx))
		u := n.layOriginal(uidx, n.plan(uidx))
		return n.step(train, l.args(append([]any{n.labelsOf(idx, l)}, u.args()...)...))
	}, nil)
	if err != nil {
		return nil, err
	}
	return n.predictMaxSoftmax(ctx)
}
