package semisup

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/methods/augment"
	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

func init() {
	suite.Register(gla{}, suite.Info{Row: "GLA", Family: suite.FamilySemiSupervised, Order: 3, Source: "Yue et al. 2022"})
}

// gla is GLA, label-invariant augmentation in representation space (Yue et
// al., NeurIPS 2022), as its official code does it
// (brandeis-machine-learning/GLA res_gcn.py, train_eval.py; docs/methods.md,
// "gla"). One
// joint stage; every pass over D^l is preceded by a pass over D^u (cut
// to unlabelled_per_labelled graphs per graph of D^l where D^u is larger:
// MNIST; docs/protocol.md §5), with
// two Adam states over the same parameters: A_u at lr·lr_unlabelled_factor
// (halved every lr_decay_step passes) and A_l at lr.
//
// Per batch: z = Encode(G); the radius base c = mean over real graphs of
// ‖z_i − z̄‖ (GLARadiusBase), ε = η·c; r = ε(1 + radius_std·n₀), n₀ ~ N(0,1),
// and `candidates` unit directions U (normalised U(−½,½)^{2H}) shared by
// the batch; candidate z_i + r·U_k. The reference class is argmax head(z_i)
// (unlabelled) or y_i (labelled); the pick is GLASelect's (the valid
// candidate least confident in the reference class, else the most
// confident). Unlabelled batches redraw (n₀, U) up to max_redraws times
// while some real graph has no valid candidate (the official loop never
// stops). The filter I keeps real graphs whose argmax head(z̃) = argmax
// head(z); if |I| ≤ 1 the step is skipped (no optimizer call). Loss: the
// unlabelled pass minimises AlignmentOnly (E4, τ = tau) between proj(h)
// and proj(h̃) over I (negatives=true: GraphCLOneWay instead, the paper's
// text); the labelled pass adds CE(head(z), y) over the batch and
// CE(head(z̃), y) over I.
//
// Deviation (docs/methods.md, "gla"): candidates are checked with the full head (W0,
// ReLU, W1) on the readout, because the suite head's W1 cannot apply to z;
// the official code checks with lin_class alone on the pre-FC vector.
//
// `eta` defaults to 0.3, not the official 1.0. With the check above the
// pick is the hardest class-preserving candidate for the very classifier
// being trained (the official lin_class-on-g check is not), and at eta 1
// the radius is the batch's whole spread: on COIL-DEL (80 known classes)
// the labelled pass's CE on z̃ then stops the training loss from falling
// after ~35 passes (the same with the unlabelled pass off,
// lr_unlabelled_factor 1e-9), and the run ends at closed_acc 0.24 against
// gin-topk's 0.58. 0.3 is the protocol's rule (docs/protocol.md: the D^u
// known-class accuracy du_closed_acc, never the test set) over eta 0.1,
// 0.3, 1: mean du_closed_acc 0.564, 0.569, 0.452 over COIL-DEL low (one
// seed, 2,000 steps: 0.491, 0.522, 0.209, the last with the unlabelled
// pass off; the full run at eta 1 ended at 0.218) and Letter-high low / high
// (three seeds: 0.563 / 0.637, 0.558 / 0.627, 0.568 / 0.580): 0.3 has the
// highest mean and is the closer of the two close ones to the official.
// It is not a cure: in the full-budget COIL-DEL runs at 0.3 (low, seeds
// 0–2) the training loss falls to ~−1 by pass 60 and then spikes every
// 10–20 passes (to 4–11); the runs end at closed_acc 0.556 / 0.559 / 0.589
// (gin-topk: 0.580 / 0.570 / 0.541) and accuracy 0.456 / 0.450 / 0.473.
// Their classifier is so confident that a float32 softmax would tie most
// graphs at max probability 1; the unknown score is therefore computed
// from the logits (gnn.MaxSoftmax).
//
// `proj_norm` (none | batch) is what proj sees. The official proj_head
// reads bn_hidden's output, a training-mode BatchNorm over the batch
// (res_gcn.py:270-277), so the two views' projections are batch-centred
// before the cosine. The suite head has no BatchNorm, and with `none`
// E4 sits at its floor −1/τ (cos(proj(h), proj(h̃)) ≈ 1) from the first
// unlabelled pass on Letter-high and COIL-DEL alike. `batch` puts
// gnn.MaskedBatchNorm (its own γ, β; each view normalised over its own batch,
// as the official two forward passes are) between h and proj; the
// classifier still reads h. The default stays none until it is measured.
// The supervised budget `steps` counts labelled batches, taken or skipped.
type gla struct{}

func (gla) Name() string { return "gla" }

func (gla) Doc() string {
	return "GLA: label-invariant augmentation in representation space, alignment-only loss on D^u then D^l (Yue et al. 2022)"
}

// glaParams: the backbone's plus the official code's (GLA main.py,
// res_gcn.py, train_eval.py), except eta (above) and max_redraws (the
// official redraw loop never stops). proj_norm was added after runs were
// stored with none, its legacy value.
var (
	glaLRUnlabelled = suite.Float("lr_unlabelled_factor", 0.2, suite.Positive, "Adam learning rate of the D^u pass, as a factor of lr")
	glaLRDecay      = suite.Float("lr_decay_factor", 0.5, suite.Positive, "learning-rate decay factor")
	glaLRDecayStep  = suite.Int("lr_decay_step", 500, suite.AtLeastOne, "passes between learning-rate decays")
	glaEta          = suite.Float("eta", 0.3, suite.Positive, "perturbation radius η, as a factor of the mean distance to the batch centroid")
	glaCandidates   = suite.Int("candidates", 50, suite.AtLeastOne, "random directions drawn per graph")
	glaRadiusStd    = suite.Float("radius_std", 0.04, suite.NonNegative, "standard deviation of the radius around η")
	glaMaxRedraws   = suite.Int("max_redraws", 10, suite.NonNegative, "redraws of a batch without a valid candidate")
	glaNegatives    = suite.Bool("negatives", false, "add other graphs as negatives to the alignment loss")
	glaProjNorm     = suite.Enum("proj_norm", "none", "what the projection sees: h (none) or h batch-normalised (batch)",
		"none", "batch").WithLegacy("none")
	// glaUnlabelledCap is the protocol's rule for GLA's pass over D^u
	// (docs/protocol.md §5, "Unsupervised passes"; unlabelledBatchCap).
	// Like pretrain_step_cap its legacy value is its default: it binds on
	// neither Letter-high nor COIL-DEL (TestGLAUnlabelledCapKeepsOfficialRecipe).
	glaUnlabelledCap = suite.Float("unlabelled_per_labelled", 8, suite.NonNegative,
		"cap on each pass over D^u: at most this many unlabelled graphs per labelled graph (0 = no cap: all of D^u)").WithLegacy(8)
	glaParams = backbone.With(glaLRUnlabelled, glaLRDecay, glaLRDecayStep, glaEta, glaCandidates, glaRadiusStd,
		paramTau, glaMaxRedraws, glaNegatives, glaProjNorm, glaUnlabelledCap)
)

// Defaults are glaParams'.
func (gla) Defaults() suite.Params { return glaParams.Defaults() }

// ParamSet declares GLA's parameters (suite.ParamSetter).
func (gla) ParamSet() suite.ParamSet { return glaParams }

// GLARadiusBase is c = Σ_i w_i ‖z_i − z̄‖ / Σ_i w_i with z̄ the weighted
// mean of the real rows: z [B, D], weight [B] → scalar (no gradient is
// stopped here).
func GLARadiusBase(z, weight *Node) *Node {
	w := InsertAxes(weight, -1)
	tot := Max(ReduceAllSum(weight), ScalarOne(z.Graph(), z.DType()))
	mean := Div(ReduceSum(Mul(z, w), 0), tot)
	d := Sqrt(Add(ReduceSum(Square(Sub(z, InsertAxes(mean, 0))), -1), Scalar(z.Graph(), z.DType(), 1e-12)))
	return Div(ReduceAllSum(Mul(d, weight)), tot)
}

// GLASelect picks each graph's candidate: logitsC [B, K, C] are the
// classifier's logits of the K candidates, ref [B] int32 the reference
// class. q_ik = log softmax(logitsC)[ref_i], valid_ik = (argmax = ref_i),
// key = q if valid else 1 − q, k*_i = argmin_k key (ties to the lower
// k). Returns k* [B] int32 and anyValid [B] (1 if some candidate of i is
// valid), without gradient.
func GLASelect(logitsC, ref *Node) (kStar, anyValid *Node) {
	logitsC = StopGradient(logitsC)
	c := logitsC.Shape().Dim(-1)
	onehot := InsertAxes(OneHot(ref, c, logitsC.DType()), 1) // [B, 1, C]
	q := ReduceSum(Mul(LogSoftmax(logitsC, -1), onehot), -1) // [B, K]
	valid := Equal(ConvertDType(ArgMax(logitsC, -1), dtypes.Int32), InsertAxes(ref, -1))
	key := Where(valid, q, OneMinus(q))
	kStar = ConvertDType(ArgMin(key, -1), dtypes.Int32)
	anyValid = ReduceMax(ConvertDType(valid, logitsC.DType()), -1)
	return kStar, anyValid
}

// glaRun is one GLA run: the model, its executables and its two
// optimizers.
type glaRun struct {
	n                          *net
	k, dim, redraws            int
	factor, decay              float64
	decayStep                  int
	ucap                       int // batches of D^u a pass takes at most (0: all)
	selectExec, trainU, trainL *gnn.Executable
	optU, optL                 *adam
}

func newGLARun(task *suite.Task) (*glaRun, error) {
	p := task.Params
	if err := glaParams.Check(p); err != nil {
		return nil, err
	}
	k, eta, std, tau := glaCandidates.Get(p), glaEta.Get(p), glaRadiusStd.Get(p), paramTau.Get(p)
	redraws, negatives, projNorm := glaMaxRedraws.Get(p), glaNegatives.Get(p), glaProjNorm.Get(p)
	factor, decay, decayStep := glaLRUnlabelled.Get(p), glaLRDecay.Get(p), glaLRDecayStep.Get(p)
	n, err := newNet(task)
	if err != nil {
		return nil, err
	}
	r := &glaRun{n: n, k: k, dim: n.enc.EmbeddingDim(), redraws: redraws, factor: factor, decay: decay, decayStep: decayStep,
		ucap: unlabelledBatchCap(glaUnlabelledCap.Get(p), len(task.Labelled), n.ubatch)}
	if err := r.build(eta, std, tau, negatives, projNorm == "batch"); err != nil {
		n.close()
		return nil, err
	}
	return r, nil
}

func (r *glaRun) build(eta, std, tau float64, negatives, projBN bool) error {
	n, k := r.n, r.k
	hidden, classes := n.enc.Hidden, n.task.NumKnown
	// forward builds the shared part of both passes and of the selection:
	// in = the batch's chunks (see chunked), w [B], n0 [], U [K, 2H],
	// y [B] int32, then the extra inputs (returned), B = ΣB_s slots.
	type fwd struct{ z, h, logits, r, logitsC, w, u, y *Node }
	forward := func(scope *model.Scope, in []*Node) (fwd, []*Node) {
		c := &cursor{in: in}
		chunks, w, n0, u, y := c.chunks(), c.next(), c.next(), c.next(), c.next()
		z := concatChunks(chunks, func(g graphIn) *Node { return encode(scope.At("encoder"), n.enc, g) })
		h, logits := head(scope.At("head"), z, hidden, classes)
		eps := StopGradient(MulScalar(GLARadiusBase(z, w), eta))
		rad := Mul(eps, OnePlus(MulScalar(n0, std)))
		zc := Add(InsertAxes(z, 1), InsertAxes(Mul(rad, u), 0)) // [B, K, 2H]
		_, logitsC := head(scope.At("head"), zc, hidden, classes)
		return fwd{z, h, logits, rad, logitsC, w, u, y}, in[c.i:]
	}
	predClass := func(logits *Node) *Node { return ConvertDType(ArgMax(logits, -1), dtypes.Int32) }
	var err error
	// selection (no optimizer): chunks, w, n0, U, y, labelled flag []
	// → k*, anyValid, I.
	r.selectExec, err = n.execs.Infer(func(scope *model.Scope, in []*Node) []*Node {
		f, extra := forward(scope, in)
		flag := extra[0]
		ref := Where(GreaterThan(flag, ZerosLike(flag)), f.y, predClass(f.logits))
		kStar, anyValid := GLASelect(f.logitsC, ref)
		zt := Add(f.z, Mul(f.r, Einsum("bk,kd->bd", OneHot(kStar, k, f.z.DType()), f.u)))
		_, lt := head(scope.At("head"), zt, hidden, classes)
		keep := Mul(f.w, ConvertDType(Equal(predClass(f.logits), predClass(lt)), f.z.DType()))
		return []*Node{kStar, anyValid, keep}
	})
	if err != nil {
		return err
	}
	// training steps: chunks, w, n0, U, y, k* [B] int32, I [B] → loss.
	step := func(opt *adam, labelled bool) (*gnn.Executable, error) {
		return n.execs.Step(func(scope *model.Scope, in []*Node) []*Node {
			f, extra := forward(scope, in)
			kStar, keep := extra[0], extra[1]
			zt := Add(f.z, Mul(f.r, Einsum("bk,kd->bd", OneHot(kStar, k, f.z.DType()), f.u)))
			ht, lt := head(scope.At("head"), zt, hidden, classes)
			ph, pht := f.h, ht
			if projBN {
				ph, pht = gnn.MaskedBatchNorm(scope.At("proj_bn"), ph, f.w), gnn.MaskedBatchNorm(scope.At("proj_bn"), pht, f.w)
			}
			u := gnn.MLP(scope.At("proj"), ph, hidden, hidden)
			v := gnn.MLP(scope.At("proj"), pht, hidden, hidden)
			var loss *Node
			if negatives {
				loss = GraphCLOneWay(u, v, keep, tau)
			} else {
				loss = AlignmentOnly(u, v, keep, tau)
			}
			if labelled {
				loss = Add(loss, Add(gnn.MaskedCrossEntropy(f.logits, f.y, f.w), gnn.MaskedCrossEntropy(lt, f.y, keep)))
			}
			opt.minimise(n.store, scope, loss)
			return []*Node{loss}
		})
	}
	r.optU, r.optL = newAdam("adam_unlabelled", "", n.lr*r.factor), newAdam("adam_labelled", "", n.lr)
	if r.trainU, err = step(r.optU, false); err != nil {
		return err
	}
	if r.trainL, err = step(r.optL, true); err != nil {
		return err
	}
	n.predict, err = n.execs.Infer(func(scope *model.Scope, in []*Node) []*Node {
		z := encode(scope.At("encoder"), n.enc, oneChunk(in))
		_, logits := head(scope.At("head"), z, hidden, classes)
		return []*Node{logits, z}
	})
	return err
}

// draw is (n₀, U) of one (purpose, pass, batch, attempt) stream: n₀ ~
// N(0, 1) and K directions normalise(U(−½, ½)^{2H}).
func (r *glaRun) draw(purpose string, pass, batch, attempt int) (*tensors.Tensor, *tensors.Tensor) {
	rng := augment.Stream(r.n.task.Seed, purpose, pass, batch, attempt)
	n0 := float32(rng.NormFloat64())
	u := make([]float32, r.k*r.dim)
	for i := 0; i < r.k; i++ {
		row := u[i*r.dim : (i+1)*r.dim]
		var norm float64
		for j := range row {
			row[j] = float32(rng.Float64() - 0.5)
			norm += float64(row[j]) * float64(row[j])
		}
		norm = math.Sqrt(max(norm, 1e-24))
		for j := range row {
			row[j] = float32(float64(row[j]) / norm)
		}
	}
	return tensors.FromScalar(n0), tensors.FromFlatDataAndDimensions(u, r.k, r.dim)
}

// batchStep runs the selection (with redraws for unlabelled batches) on
// batch bi of pass and, unless the filter keeps ≤ 1 graph, one step of
// A_l (labelled) or A_u. It returns the loss (NaN when skipped: then no
// optimizer was called), whether it stepped and the number of redraws.
func (r *glaRun) batchStep(labelled bool, pass, bi int, idx []int) (loss float64, took bool, redraws int, err error) {
	n := r.n
	c := n.layOriginal(idx, n.plan(idx))
	opt, exec, purpose := r.optU, r.trainU, "gla_unlabelled"
	var y *tensors.Tensor
	flag := float32(0)
	if labelled {
		opt, exec, purpose = r.optL, r.trainL, "gla_labelled"
		y, flag = n.labelsOf(idx, c), 1
	} else {
		y = tensors.FromFlatDataAndDimensions(make([]int32, len(c.Pos)), len(c.Pos))
	}
	var args []any
	var sel []*tensors.Tensor
	for attempt := 0; ; attempt++ {
		n0, u := r.draw(purpose, pass, bi, attempt)
		args = c.args(n0, u, y)
		out, err := r.selectExec.Exec(append(args, tensors.FromScalar(flag))...)
		if err != nil {
			return 0, false, attempt, err
		}
		sel = out
		ok := true
		for s, v := range tensors.MustCopyFlatData[float32](out[1]) {
			ok = ok && (v > 0 || c.Pos[s] < 0)
		}
		if labelled || ok || attempt >= r.redraws {
			redraws = attempt
			break
		}
	}
	var kept int
	for _, v := range tensors.MustCopyFlatData[float32](sel[2]) {
		if v > 0 {
			kept++
		}
	}
	if kept <= 1 {
		return math.NaN(), false, redraws, nil
	}
	loss, err = n.step(exec, append(args, sel[0], sel[2]), opt)
	return loss, err == nil, redraws, err
}

// unlabelledPass is one pass over D^u with A_u at its decayed rate, cut to
// its first r.ucap batches where D^u has more (unlabelledBatchCap). It
// logs unlabelled_loss, unlabelled_skipped (batches whose filter kept ≤ 1
// graph) and unlabelled_redraws (draws of (n₀, U) beyond the first, summed
// over the pass: each costs one more selection; many mean the radius
// often flips the class of every candidate of some graph).
func (r *glaRun) unlabelledPass(ctx context.Context, pass int, rng *rand.Rand) (map[string]float64, error) {
	n := r.n
	r.optU.lr = n.lr * r.factor * math.Pow(r.decay, float64((pass-1)/r.decayStep))
	batches, err := gnn.EpochBatches(n.task.Graphs, n.task.Unlabelled, n.ubatch, gnn.BatchingRandom, rng)
	if err != nil {
		return nil, err
	}
	if r.ucap > 0 && len(batches) > r.ucap {
		batches = batches[:r.ucap]
	}
	var skipped, redraws int
	loss, err := gnn.Pass(ctx, batches, func(bi int, idx []int) (float64, error) {
		loss, took, rd, err := r.batchStep(false, pass, bi, idx)
		if err != nil {
			return 0, err
		}
		redraws += rd
		if !took {
			skipped++
			return math.NaN(), nil
		}
		return loss, nil
	})
	if err != nil {
		return nil, err
	}
	return map[string]float64{"unlabelled_loss": loss, "unlabelled_skipped": float64(skipped), "unlabelled_redraws": float64(redraws)}, nil
}

func (gla) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	r, err := newGLARun(task)
	if err != nil {
		return nil, err
	}
	defer r.n.close()
	rng := r.n.tr.State.TrackRNG("batches", gnn.NewPCG(task.Seed, gnn.StreamBatches))
	skippedL, labelledBatch := 0, 0
	r.n.tr.State.TrackCounter("labelled_skipped", &skippedL)
	r.n.tr.State.TrackCounter("labelled_batch", &labelledBatch)
	if err := r.n.restore(); err != nil {
		return nil, err
	}
	err = r.n.supervisedSteps(ctx, rng, func(pass int, idx []int) (float64, error) {
		labelledBatch++
		loss, took, _, err := r.batchStep(true, pass, labelledBatch, idx)
		if err == nil && !took {
			skippedL++
		}
		return loss, err // NaN when skipped: left out of the pass mean
	}, func(pass int) (map[string]float64, error) {
		v, err := r.unlabelledPass(ctx, pass, rng)
		if v != nil {
			v["labelled_skipped"] = float64(skippedL)
		}
		return v, err
	})
	if err != nil {
		return nil, err
	}
	return r.n.predictMaxSoftmax(ctx)
}
