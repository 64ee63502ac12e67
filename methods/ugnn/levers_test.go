package ugnn

import (
	"context"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

// defaultSpecHashes are the hashes of each variant's default spec on
// Letter-high low (steps 500), computed on main before the levers existed:
// the runs stored then must keep their hashes (suite.LegacyParams).
var defaultSpecHashes = map[string]string{
	"ugnn": "1320e9d4f4387755", "ugnn-wo-s": "c0ff3e77c44e8795", "ugnn-wo-p": "185b279630d67432",
	"ugnn-wo-kp": "4e0cfb66030d0c4f", "ugnn-wo-up": "be819510b34cd346",
}

func defaultSpec(name string) suite.RunSpec {
	p := method{Variants[0]}.Defaults()
	p["steps"] = 500
	p["layout"] = string(gnn.LayoutAuto) // the stored runs' layout (legacy value)
	return suite.RunSpec{Method: name, Dataset: "Letter-high", RatioName: "low", Ratio: 0.2, Params: p,
		Protocol: suite.Protocol{ClassSplit: "first", TestFrac: 0.2, Alpha: 1}}
}

// leverValues holds a value other than the default for every lever.
var leverValues = map[string]any{
	"unknown_mass": true, "curriculum": CurriculumCount, "proj_head": true,
	"pseudo_label": 0.95, "pseudo_weight": 0.5, "conv": "sage",
	"swap": true, "augment_labelled": true, "batch_norm": true,
}

// TestDefaultSpecHash: the default spec of every variant, the levers at
// their defaults, hashes as before the levers existed; any lever set to
// another value hashes differently, and configFrom accepts it.
func TestDefaultSpecHash(t *testing.T) {
	for _, v := range Variants {
		if h, want := defaultSpec(v.Name).Hash(), defaultSpecHashes[v.Name]; h != want {
			t.Errorf("default %s spec hashes to %s, want %s", v.Name, h, want)
		}
	}
	legacy := method{Variants[0]}.LegacyParams()
	defaults := method{Variants[0]}.Defaults()
	for k, val := range leverValues {
		if legacy[k] != defaults[k] {
			t.Errorf("lever %s: legacy value %v, default %v", k, legacy[k], defaults[k])
		}
		s := defaultSpec("ugnn")
		s.Params[k] = val
		if s.Hash() == defaultSpecHashes["ugnn"] {
			t.Errorf("%s = %v hashes like the default", k, val)
		}
		if _, err := configFrom(s.Params, 10); err != nil {
			t.Errorf("%s = %v rejected: %v", k, val, err)
		}
	}
}

// TestPrototypeMarginal: unknown_mass's marginal by hand. Letter-high low's
// C = 10, R = 3, K = 600 of |D^u| = 1,560 at α = 1: the unknown prototypes
// share 600/1560 = 0.3846 (0.1282 each), the known ones 0.6154 (0.0615
// each); the mass is clamped to [0.001, 0.999]; nil without one kind.
func TestPrototypeMarginal(t *testing.T) {
	m := PrototypeMarginal(10, 3, 1, 600, 1560)
	var sum float64
	for e, x := range m {
		want := (1 - 600.0/1560) / 10
		if e >= 10 {
			want = 600.0 / 1560 / 3
		}
		if !near(x, want, 1e-12) {
			t.Errorf("m[%d] = %v, want %v", e, x, want)
		}
		sum += x
	}
	if len(m) != 13 || !near(sum, 1, 1e-12) {
		t.Errorf("%d entries summing to %v, want 13 summing to 1", len(m), sum)
	}
	if m := PrototypeMarginal(2, 2, 1.4, 100, 200); !near(m[2]+m[3], 0.7, 1e-12) || !near(m[0], 0.15, 1e-12) {
		t.Errorf("α 1.4, K 100, |D^u| 200: %v, want unknown mass 0.7", m)
	}
	if m := PrototypeMarginal(2, 1, 1, 0, 100); !near(m[2], unknownMassClamp, 1e-15) {
		t.Errorf("K = 0: unknown mass %v, want the clamp %v", m[2], unknownMassClamp)
	}
	if m := PrototypeMarginal(2, 1, 2, 100, 100); !near(m[2], 1-unknownMassClamp, 1e-15) {
		t.Errorf("αK > |D^u|: unknown mass %v, want %v", m[2], 1-unknownMassClamp)
	}
	if PrototypeMarginal(0, 3, 1, 10, 100) != nil || PrototypeMarginal(10, 0, 1, 10, 100) != nil {
		t.Error("a marginal without known or without unknown prototypes, want nil (uniform)")
	}
}

// runSinkhornMarginal evaluates SinkhornMarginal on scores [B][E], weight
// [B].
func runSinkhornMarginal(t *testing.T, scores [][]float64, weight, m []float64, eps float64, iters int) [][]float64 {
	t.Helper()
	out := MustExecOnce(testBackend(t), func(s, w *Node) *Node {
		return SinkhornMarginal(s, w, m, eps, iters)
	}, tensor2D(scores), tensor1D(weight))
	return rows2D(out)
}

// TestSinkhornMarginalMasses: on a 12×5 matrix with 2 padding rows, after
// 300 iterations prototype e holds m_e·B_real of the mass (every real row
// still sums to 1, padding rows are zero), where uniform Sinkhorn gives it
// B_real/5; with the uniform marginal spelled out it is Sinkhorn.
func TestSinkhornMarginalMasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := randomScores(rng, 12, 5, 1)
	w := realWeights(12, 10)
	m := []float64{0.1, 0.2, 0.3, 0.15, 0.25}
	q := runSinkhornMarginal(t, s, w, m, 0.5, 300)
	for e := range m {
		var col float64
		for i := range q {
			col += q[i][e]
		}
		if !near(col/10, m[e], 1e-3) {
			t.Errorf("prototype %d holds %.5f of the mass, want %v", e, col/10, m[e])
		}
	}
	for i, row := range q {
		var sum float64
		for _, v := range row {
			sum += v
		}
		if want := w[i]; !near(sum, want, 1e-5) {
			t.Errorf("row %d sums to %v, want %v", i, sum, want)
		}
	}
	if d := columnDeviation(q, 10); d < 0.2 {
		t.Errorf("masses within %.3f of uniform: the marginal made no difference", d)
	}
	uniform := runSinkhornMarginal(t, s, w, []float64{0.2, 0.2, 0.2, 0.2, 0.2}, 0.5, 3)
	ref := runSinkhorn(t, s, w, 0.5, 3)
	for i := range ref {
		for e := range ref[i] {
			if math.Abs(uniform[i][e]-ref[i][e]) > 1e-6 {
				t.Fatalf("uniform marginal: Q[%d][%d] = %v, Sinkhorn %v", i, e, uniform[i][e], ref[i][e])
			}
		}
	}
}

// TestUnknownMassWiring: with unknown_mass the run's Sinkhorn marginal is
// PrototypeMarginal of its task for ugnn and w/o S (C + R prototypes), and
// uniform (nil) for the variants with one kind of prototypes or none, and
// for every variant by default.
func TestUnknownMassWiring(t *testing.T) {
	lt := newLetterTask(t)
	for _, on := range []bool{false, true} {
		for _, v := range Variants {
			p := lt.params(1)
			p["unknown_mass"] = on
			var reported [][]int
			r := startRun(t, lt.task(p, 1, &reported), v)
			var want []float64
			if on && v.KnownPrototypes && v.UnknownPrototypes {
				want = PrototypeMarginal(lt.numKnown, 3, 1, lt.numUnknown, len(lt.split.Unlabelled))
			}
			if len(r.net.marginal) != len(want) {
				t.Fatalf("unknown_mass %v, %s: marginal %v, want %v", on, v.Name, r.net.marginal, want)
			}
			for e := range want {
				if r.net.marginal[e] != want[e] {
					t.Fatalf("unknown_mass %v, %s: marginal %v, want %v", on, v.Name, r.net.marginal, want)
				}
			}
		}
	}
}

// TestCurriculumCountHand: curriculum "count" selects exactly ⌈(t/T)·α·K⌉
// graphs, the least confident, in position order: 8 scores, K = 5, α = 1,
// T = 3 give 2, 4, 5 graphs at t = 1, 2, 3 (⌈5/3⌉, ⌈10/3⌉, 5); α = 1.4
// gives ⌈7/3⌉ = 3 at t = 1; tied scores are taken by position. The scale
// reading selects one graph at t = 1 on the same scores.
func TestCurriculumCountHand(t *testing.T) {
	s := []float64{0.9, 0.2, 0.5, 0.1, 0.8, 0.3, 0.95, 0.4}
	for _, c := range []struct {
		alpha float64
		t     int
		want  []int
	}{
		{1, 1, []int{1, 3}}, {1, 2, []int{1, 3, 5, 7}}, {1, 3, []int{1, 2, 3, 5, 7}}, {1.4, 1, []int{1, 3, 5}},
		{1e-6, 1, []int{3}}, {10, 3, []int{0, 1, 2, 3, 4, 5, 6, 7}},
	} {
		got := CountOODSet(s, 5, c.alpha, c.t, 3)
		if !slices.Equal(got, c.want) {
			t.Errorf("α %v, t %d: %v, want %v", c.alpha, c.t, got, c.want)
		}
		if n := int(math.Ceil(float64(c.t) / 3 * c.alpha * 5)); len(got) != min(max(n, 1), len(s)) {
			t.Errorf("α %v, t %d: %d graphs, want ⌈(t/T)αK⌉ = %d", c.alpha, c.t, len(got), n)
		}
	}
	if got := CountOODSet([]float64{0.5, 0.2, 0.2, 0.2}, 2, 1, 1, 1); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("ties: %v, want [1 2]", got)
	}
	if got := OODSet(s, CurriculumThreshold(s, 5, 1, 1, 3)); !slices.Equal(got, []int{3}) {
		t.Errorf("scale reading at t = 1: %v, want [3] (δ_1 = 0.5/3)", got)
	}
	p := method{Variants[0]}.Defaults()
	p["curriculum"] = "bogus"
	if _, err := configFrom(p, 10); err == nil {
		t.Error("curriculum bogus accepted")
	}
}

// TestCurriculumCountCycle: on Letter-high with an untrained network,
// cycle 1 of 5 under curriculum "count" reports ⌈αK/5⌉ graphs, the least
// confident of the same scores (the default reports its fallback of R).
func TestCurriculumCountCycle(t *testing.T) {
	lt := newLetterTask(t)
	p := lt.params(5)
	p["curriculum"] = CurriculumCount
	var reported [][]int
	r := startRun(t, lt.task(p, 1, &reported), Variants[0])
	if _, err := r.cycleStart(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if want := int(math.Ceil(float64(lt.numUnknown) / 5)); len(reported[0]) != want {
		t.Errorf("K %d: cycle 1 of 5 selected %d graphs, want ⌈K/5⌉ = %d", lt.numUnknown, len(reported[0]), want)
	}
}

// TestProjHead: proj_head adds the head's 4 variables (two Linear layers'
// weights and biases) and maps the embedding to H = 16 dimensions instead
// of the readout's 2H = 32, unit norm either way, with the same logits (ψ
// reads the readout; the head's variables do not move the others'
// initialisation); it changes the warm-up key, and the default keeps it.
func TestProjHead(t *testing.T) {
	lt := newLetterTask(t)
	ctx := context.Background()
	views := func(r *run) []view {
		v := make([]view, 20)
		for i := range v {
			v[i] = r.wholeView(lt.split.Unlabelled[i])
		}
		return v
	}
	type out struct {
		vars        int
		logits, emb [][]float32
		key         string
	}
	res := map[bool]out{}
	for _, on := range []bool{false, true} {
		p := lt.params(1)
		p["proj_head"] = on
		var reported [][]int
		r := startRun(t, lt.task(p, 1, &reported), Variants[0])
		logits, emb, err := r.predictViews(ctx, views(r))
		if err != nil {
			t.Fatal(err)
		}
		res[on] = out{vars: r.net.store.NumVariables(), logits: logits, emb: emb, key: r.warmupKey()}
	}
	if d := res[true].vars - res[false].vars; d != 4 {
		t.Errorf("proj_head adds %d variables, want 4", d)
	}
	for on, want := range map[bool]int{false: 32, true: 16} {
		for i, e := range res[on].emb {
			var n float64
			for _, x := range e {
				n += float64(x) * float64(x)
			}
			if len(e) != want || !near(n, 1, 1e-4) {
				t.Fatalf("proj_head %v: embedding %d has %d dimensions and squared norm %v, want %d and 1", on, i, len(e), n, want)
			}
		}
		for i := range res[on].logits {
			if !slices.Equal(res[on].logits[i], res[!on].logits[i]) {
				t.Fatalf("graph %d: logits differ with and without the head", i)
			}
		}
	}
	if res[true].key == res[false].key {
		t.Error("proj_head keeps the warm-up key")
	}
}

// leverRun runs ugnn through the suite's runner on Letter-high low with
// the tiny budget and the given levers, and checks that every loss curve
// is finite and the headline metrics are in [0, 1].
func leverRun(t *testing.T, levers suite.Params) suite.Result {
	t.Helper()
	dir, _, _ := letterHigh(t)
	p := tinyParams()
	for k, v := range levers {
		p[k] = v
	}
	res := runSpec(t, &suite.Runner{DataDir: dir, Backend: "go"}, "ugnn", 0, p)
	for _, c := range res.Curves {
		if len(c.Name) >= 4 && c.Name[:4] == "loss" && (!finite(c.Value) || c.Value < 0) {
			t.Errorf("%s at epoch %d = %v", c.Name, c.Epoch, c.Value)
		}
	}
	for _, m := range []string{suite.MetricAccuracy, suite.MetricClosedAcc, suite.MetricOODAUROC} {
		if v, ok := res.Metrics[m]; !ok || !(v >= 0 && v <= 1) {
			t.Errorf("%s = %v (present %v)", m, v, ok)
		}
	}
	if len(points(res, "loss_u")) == 0 {
		t.Error("no L^u logged")
	}
	return res
}

// TestProjHeadRun: a tiny ugnn run with proj_head finishes with finite
// losses.
func TestProjHeadRun(t *testing.T) {
	res := leverRun(t, suite.Params{"proj_head": true})
	t.Logf("loss_u %v, metrics %v, %.1fs", points(res, "loss_u"), res.Metrics, res.Seconds)
}

// TestPseudoLabelLossHand: 2 known and 2 unknown prototypes, 3 real rows
// and a padding row. At threshold 0.5 only row 0 (known prototype 0,
// 0.7) is pseudo-labelled: row 1's largest share is an unknown prototype,
// row 2's (known 1) is 0.4; loss = log(1 + e^−2)/3 for logits (2, 0), and
// 1/3 of the rows. At 0.3 row 2 joins with target 1: + log(1 + e^−1)/3.
func TestPseudoLabelLossHand(t *testing.T) {
	q := [][]float64{{0.7, 0.1, 0.1, 0.1}, {0.1, 0.2, 0.6, 0.1}, {0.3, 0.4, 0.2, 0.1}, {0.9, 0, 0, 0.1}}
	logits := [][]float64{{2, 0}, {5, -5}, {0, 1}, {-9, 9}}
	w := []float64{1, 1, 1, 0}
	a, b := math.Log1p(math.Exp(-2)), math.Log1p(math.Exp(-1))
	for _, c := range []struct{ thr, loss, frac float64 }{{0.5, a / 3, 1.0 / 3}, {0.3, (a + b) / 3, 2.0 / 3}, {0.8, 0, 0}} {
		out := MustExecOnceN(testBackend(t), func(q, l, w *Node) []*Node {
			loss, frac := PseudoLabelLoss(q, l, w, 2, c.thr)
			return []*Node{loss, frac}
		}, tensor2D(q), tensor2D(logits), tensor1D(w))
		if got := scalarOf(out[0]); !near(got, c.loss, 1e-6) {
			t.Errorf("threshold %v: loss %v, want %v", c.thr, got, c.loss)
		}
		if got := scalarOf(out[1]); !near(got, c.frac, 1e-6) {
			t.Errorf("threshold %v: share %v, want %v", c.thr, got, c.frac)
		}
	}
}

// TestPseudoLabelRun: a tiny ugnn run with pseudo_label logs the term and
// its share, in [0, 1], every semi epoch; the default logs neither.
func TestPseudoLabelRun(t *testing.T) {
	res := leverRun(t, suite.Params{"pseudo_label": 0.5})
	pl, frac := points(res, "loss_pl"), points(res, "pl_frac")
	if len(pl) != len(points(res, "loss_u")) || len(frac) != len(pl) {
		t.Fatalf("%d loss_pl and %d pl_frac points for %d loss_u", len(pl), len(frac), len(points(res, "loss_u")))
	}
	for _, f := range frac {
		if !(f >= 0 && f <= 1) {
			t.Errorf("pl_frac %v", frac)
		}
	}
	t.Logf("loss_pl %v, pl_frac %v", pl, frac)
	if runs, err := tinyRuns(t); err == nil && len(points(runs["ugnn"], "loss_pl")) != 0 {
		t.Error("the default run logs loss_pl")
	}
}

// TestConvSAGE: conv sage builds Φ from SAGE layers (lin_neigh, lin_self
// in every stage, the scoring GNN included; no GIN variable), changes the
// warm-up key, rejects other names, and a tiny run finishes with finite
// losses.
func TestConvSAGE(t *testing.T) {
	lt := newLetterTask(t)
	keys := map[string]string{}
	for _, conv := range []string{"gin", "sage"} {
		p := lt.params(1)
		p["conv"] = conv
		var reported [][]int
		r := startRun(t, lt.task(p, 1, &reported), Variants[0])
		if _, _, err := r.predictViews(context.Background(), []view{r.wholeView(lt.split.Unlabelled[0])}); err != nil {
			t.Fatal(err)
		}
		var sage, other int
		for v := range r.net.store.IterVariables() {
			switch path := v.Scope(); {
			case strings.Contains(path, "lin_neigh") || strings.Contains(path, "lin_self"):
				sage++
			case strings.Contains(path, "conv1_") || strings.Contains(path, "conv2_") || strings.Contains(path, "score_gnn"):
				other++
			}
		}
		// Layers = 1: conv1_0, score_gnn, conv2_0; SAGE: 2 + 1 variables each.
		if conv == "sage" && (sage != 9 || other != 0) {
			t.Errorf("sage: %d SAGE variables and %d others in the conv scopes, want 9 and 0", sage, other)
		}
		if conv == "gin" && (sage != 0 || other == 0) {
			t.Errorf("gin: %d SAGE variables and %d others in the conv scopes", sage, other)
		}
		keys[conv] = r.warmupKey()
	}
	if keys["gin"] == keys["sage"] {
		t.Error("conv sage keeps the warm-up key")
	}
	p := method{Variants[0]}.Defaults()
	p["conv"] = "gcn"
	if _, err := configFrom(p, 10); err == nil {
		t.Error("conv gcn accepted")
	}
	res := leverRun(t, suite.Params{"conv": "sage"})
	t.Logf("loss_u %v, metrics accuracy %v", points(res, "loss_u"), res.Metrics[suite.MetricAccuracy])
}

// TestSwapWiring: with swap, one semi step on real Letter-high graphs
// reports L^u = ½[luRef(z1, z2) + luRef(z2, z1)] from the embeddings the
// predict pass gives its two views (SwAV's swapped prediction), which the
// tolerance tells apart from the paper's one direction luRef(z1, z2).
func TestSwapWiring(t *testing.T) {
	lt := newLetterTask(t)
	p := lt.params(1)
	p["swap"] = true
	var reported [][]int
	r := startRun(t, lt.task(p, 1, &reported), Variants[0])
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(0, 1))
	for range 4 { // train the embeddings apart (see TestSemiStepWiring)
		if _, err := r.labelledEpoch(ctx, rng, 1<<30); err != nil {
			t.Fatal(err)
		}
	}
	protos, err := r.cycleStart(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	part := lt.split.Unlabelled[:100]
	args, kl, chunks := r.semiInputs(lt.split.Labelled[:64], part, protos, 0)
	var v1, v2 []view
	for _, c := range chunks {
		for _, g := range c.graphs {
			v1 = append(v1, r.edgeDropView(g, "view1", r.tr.Epoch, 0))
			v2 = append(v2, r.nodeDropView(g, "view2", r.tr.Epoch, 0))
		}
	}
	_, z1, err := r.predictViews(ctx, v1)
	if err != nil {
		t.Fatal(err)
	}
	_, z2, err := r.predictViews(ctx, v2)
	if err != nil {
		t.Fatal(err)
	}
	semi, err := r.net.semi(kl)
	if err != nil {
		t.Fatal(err)
	}
	out, err := semi.Exec(args...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := gnn.CheckedScalar(out[2], "L^u")
	if err != nil {
		t.Fatal(err)
	}
	c := r.cfg
	one := luRef(z1, z2, protos, 2, c.SinkhornEps, c.Tau, c.SinkhornIters)
	want := (one + luRef(z2, z1, protos, 2, c.SinkhornEps, c.Tau, c.SinkhornIters)) / 2
	tol := 1e-4 * max(1, math.Abs(want))
	if math.Abs(got-want) > tol {
		t.Errorf("L^u = %.6f, swapped reference %.6f (one direction %.6f)", got, want, one)
	}
	if math.Abs(one-want) <= 3*tol {
		t.Errorf("one direction %.6f within the tolerance of the swapped %.6f: the test cannot tell them apart", one, want)
	}
	t.Logf("L^u %.6f, swapped reference %.6f, one direction %.6f", got, want, one)
}

// TestAllLeversRun: a tiny ugnn run with every lever on finishes with
// finite losses and logs the pseudo-label term; batch_norm needs conv =
// gin, so the levers run twice: every one but batch_norm (conv = sage),
// and every one but conv = sage (batch_norm).
func TestAllLeversRun(t *testing.T) {
	for name, drop := range map[string]string{"sage": "batch_norm", "batch_norm": "conv"} {
		t.Run(name, func(t *testing.T) {
			levers := maps.Clone(leverValues)
			delete(levers, drop)
			res := leverRun(t, levers)
			if len(points(res, "loss_pl")) == 0 {
				t.Error("no loss_pl logged")
			}
			t.Logf("loss_u %v, loss_pl %v, accuracy %v", points(res, "loss_u"), points(res, "loss_pl"), res.Metrics[suite.MetricAccuracy])
		})
	}
}

// TestAugmentLabelled: with augment_labelled the labelled batch of a step
// holds perturbed views (fewer nodes or fewer edges than the whole graphs,
// never more, the labels unchanged), the same for the same (epoch, step)
// and other ones at another step; without it the batch is the whole
// graphs, whatever the step.
func TestAugmentLabelled(t *testing.T) {
	lt := newLetterTask(t)
	idx := lt.split.Labelled[:16]
	batch := func(on bool, step int) []any {
		p := lt.params(1)
		p["augment_labelled"] = on
		p["layout"] = string(gnn.LayoutDense) // reads the dense inputs: x, adj, mask, …
		var reported [][]int
		r := startRun(t, lt.task(p, 1, &reported), Variants[0])
		args, kl := r.labelledBatch(idx, step)
		if kl != len(args)/5 {
			t.Fatalf("%d chunks for %d inputs", kl, len(args))
		}
		return args
	}
	flat := func(args []any, i int) []float32 { return tensors.MustCopyFlatData[float32](args[i].(*tensors.Tensor)) }
	sum := func(v []float32) (s float64) {
		for _, x := range v {
			s += float64(x)
		}
		return s
	}
	same := func(a, b []any) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i].(*tensors.Tensor).Shape().String() != b[i].(*tensors.Tensor).Shape().String() {
				return false
			}
			if i%5 == 3 { // labels: int32
				if !slices.Equal(tensors.MustCopyFlatData[int32](a[i].(*tensors.Tensor)), tensors.MustCopyFlatData[int32](b[i].(*tensors.Tensor))) {
					return false
				}
				continue
			}
			if !slices.Equal(flat(a, i), flat(b, i)) {
				return false
			}
		}
		return true
	}
	whole0, whole1 := batch(false, 0), batch(false, 1)
	if !same(whole0, whole1) {
		t.Error("without the lever the batch depends on the step")
	}
	aug0, aug0b, aug1 := batch(true, 0), batch(true, 0), batch(true, 1)
	if !same(aug0, aug0b) {
		t.Error("augment_labelled: the same step gave other views")
	}
	if same(aug0, aug1) {
		t.Error("augment_labelled: steps 0 and 1 gave the same views")
	}
	if same(aug0, whole0) {
		t.Fatal("augment_labelled: the batch is the whole graphs")
	}
	if len(aug0) != len(whole0) {
		t.Fatalf("%d inputs with the lever, %d without", len(aug0), len(whole0))
	}
	for c := 0; c+4 < len(aug0); c += 5 {
		// adjacency (c+1) and node mask (c+2): a view has at most the
		// whole graph's edges and nodes, and some view has fewer.
		if a, w := sum(flat(aug0, c+1)), sum(flat(whole0, c+1)); a > w {
			t.Errorf("chunk %d: %v edges in the views, %v in the graphs", c/5, a, w)
		}
		if a, w := sum(flat(aug0, c+2)), sum(flat(whole0, c+2)); a > w {
			t.Errorf("chunk %d: %v nodes in the views, %v in the graphs", c/5, a, w)
		}
		if !slices.Equal(tensors.MustCopyFlatData[int32](aug0[c+3].(*tensors.Tensor)), tensors.MustCopyFlatData[int32](whole0[c+3].(*tensors.Tensor))) {
			t.Errorf("chunk %d: labels changed", c/5)
		}
	}
}
