package ugnn

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

// curveLog keeps every epoch's logged values, in order.
type curveLog struct{ points []map[string]float64 }

func (l *curveLog) Epoch(_, _ int, values map[string]float64) {
	l.points = append(l.points, maps.Clone(values))
}

// layoutRun is what TestLayoutsSameRun compares of one Fit.
type layoutRun struct {
	curves []map[string]float64
	ood    [][]int                // the OOD set of every cycle
	scores []map[string][]float64 // the unknown scores of every cycle
	pred   *suite.Predictions
}

// twinFree reports whether no two nodes of graph g (features x, dim wide)
// can be equal in exact arithmetic, in g or in any subgraph of it (the
// node-deleted views and the pooled graphs): no two nodes have the same
// features, and no two are closed twins (N[i] = N[j], which GIN gives the
// same value while its ε is 0, before the first step). Such nodes may tie
// exactly in one layout and differ by an ulp in the other, and at a tie
// GoMLX's max gives every tied node the full gradient: the layouts then
// take different valid subgradients (gnn.EncodeEdges), which no float
// tolerance can compare. Open twins with different features stay apart.
func twinFree(g datasets.Graph, x []float32, dim int) bool {
	closed := make([]map[int32]bool, g.NumNodes)
	for v := range closed {
		closed[v] = map[int32]bool{int32(v): true}
	}
	for e := range g.Src {
		closed[g.Dst[e]][g.Src[e]] = true
	}
	for i := 0; i < g.NumNodes; i++ {
		for j := i + 1; j < g.NumNodes; j++ {
			if slices.Equal(x[i*dim:(i+1)*dim], x[j*dim:(j+1)*dim]) || maps.Equal(closed[i], closed[j]) {
				return false
			}
		}
	}
	return true
}

// keepTwinFree restricts task's D^l, D^u and Eval (= D^u) to the
// twin-free graphs (twinFree).
func keepTwinFree(task *suite.Task) {
	free := func(g int) bool { return twinFree(task.Graphs[g], task.Graphs[g].Features, task.FeatureDim) }
	var lab, labels []int
	for i, g := range task.Labelled {
		if free(g) {
			lab, labels = append(lab, g), append(labels, task.Labels[i])
		}
	}
	task.Labelled, task.Labels = lab, labels
	task.Unlabelled = slices.DeleteFunc(slices.Clone(task.Unlabelled), func(g int) bool { return !free(g) })
	task.Eval = task.Unlabelled
}

// runLayout fits ugnn on task (its D^l and D^u restricted to twin-free
// graphs) with params p in layout layout and records what the run reports.
func runLayout(t *testing.T, lt *protocolTask, p suite.Params, layout gnn.Layout) layoutRun {
	t.Helper()
	p = p.Clone()
	p["layout"] = string(layout)
	var out layoutRun
	task := lt.task(p, 1, &out.ood)
	keepTwinFree(task)
	log := &curveLog{}
	task.Log = log
	task.ReportScores = func(_ int, _ []int, parts map[string][]float64) error {
		out.scores = append(out.scores, parts)
		return nil
	}
	cfg, err := configFrom(p, task.NumKnown)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRun(task, cfg, Variants[0])
	if err != nil {
		t.Fatal(err)
	}
	r.net.close()
	if r.cfg.Layout != layout {
		t.Fatalf("layout %q resolved to %q", layout, r.cfg.Layout)
	}
	if out.pred, err = (method{Variants[0]}).Fit(context.Background(), task); err != nil {
		t.Fatalf("%s: %v", layout, err)
	}
	out.curves = log.points
	return out
}

// relClose reports whether |a − b| ≤ tol·max(1, |a|).
func relClose(a, b, tol float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(a)) }

// TestLayoutsSameRun: one ugnn run (embedded Letter-high, low ratio, seed 0,
// a small budget: 6 warm-up steps, 2 cycles of 9 semi-supervised steps, 2
// subgraphs, size chunks 3; as the paper's GIN, and on ugnn-plus's SAGE
// with the augment_labelled lever, whose labelled batches are views) in
// the dense and in the edge-list layout
// (forced: Letter-high is dense under auto) gives the same loss curves,
// the same OOD sets, the same unknown scores every cycle and the same
// predictions (softmax, embeddings, classes), within float tolerance: the
// layouts compute the same function and differ only in summation order.
// Graphs whose nodes may tie exactly are left out (twinFree: 843 of D^u's
// 1,560). Tolerances: the losses of the first epoch 1e-6 (relative), later
// ones 1e-5, unknown scores and softmax 1e-5, embeddings 1e-4 (absolute).
// Rounding differences grow with training (Adam's step m/(√v+ε) can turn
// one in a near-zero gradient component into an lr-sized update,
// gnn.TestTrainLayoutsSameLoss); measured over these 24 steps: losses
// ≤ 6e-7 relative, scores and softmax ≤ 1e-7, embeddings ≤ 3.4e-6. With
// the twin graphs kept, the embeddings differ by 0.02, the softmax by 9e-5
// and the OOD sets differ, which these tolerances catch.
//
// With the batch_norm lever (gin-batchnorm) the run is compared at lr 1e-6
// and pool_ratio 1; TestBatchNormChunksAndLayouts compares the layouts
// step by step from the same weights at the defaults. At lr 1e-3, two
// things, neither a difference of function, make BatchNorm runs drift
// apart in the two layouts. The Linear biases before a BatchNorm have a
// gradient of exactly 0 in exact arithmetic (BatchNorm subtracts the mean
// they shift), so Adam's m/(√v+ε) turns each layout's rounding noise into
// its own lr-sized step; training-mode outputs never see it, but the
// running mean (momentum 0.1) follows the biases with a lag that eval
// outputs see (without those biases the cycle-1 scores agree to 2e-9,
// with them to 3e-5). And BatchNorm changes which nodes TopK keeps and
// which features are exact zeros, so the pooled graphs and the
// node-deleted views hold closed twins (twinFree checks the input graphs
// only) whose values tie in one layout and not in the other, where the
// max readout takes different subgradients (with a mean-only readout the
// gradients agree to rounding). Measured at lr 1e-3 and pool_ratio 0.8:
// losses 6e-3 apart (relative), softmax 0.05, embeddings 0.5, other OOD
// sets and classes; at pool_ratio 1 the drift shrinks with lr (softmax
// 7e-3, 2.7e-4, 3e-5, 3.9e-6 at lr 1e-3, 1e-4, 1e-5, 1e-6); at lr 1e-6
// and pool_ratio 1: losses 6.2e-7, scores and softmax 4.3e-6, embeddings
// 3.8e-5.
func TestLayoutsSameRun(t *testing.T) {
	lt := newLetterTask(t)
	for name, levers := range map[string]suite.Params{
		"gin":           {},
		"sage-augment":  {"conv": "sage", "unknown_mass": true, "augment_labelled": true},
		"gin-batchnorm": {"batch_norm": true, "lr": 1e-6, "pool_ratio": 1.0},
	} {
		t.Run(name, func(t *testing.T) {
			p := lt.params(2)
			p["steps"], p["warmup_frac"], p["subgraphs"] = 24, 0.25, 2
			maps.Copy(p, levers)
			sameRun(t, runLayout(t, lt, p, gnn.LayoutDense), runLayout(t, lt, p, gnn.LayoutEdges))
		})
	}
}

// sameRun compares the dense and the edge-list run (TestLayoutsSameRun).
func sameRun(t *testing.T, dense, edges layoutRun) {
	t.Helper()
	compareCurves(t, dense.curves, edges.curves, 1e-5)
	if len(dense.ood) != 2 || !slices.EqualFunc(dense.ood, edges.ood, slices.Equal) {
		t.Errorf("OOD sets differ: dense %d sets, edges %d, equal %v", len(dense.ood), len(edges.ood),
			slices.EqualFunc(dense.ood, edges.ood, slices.Equal))
	}
	if len(dense.scores) != len(edges.scores) {
		t.Errorf("scores reported %d times dense, %d edges", len(dense.scores), len(edges.scores))
	}
	for c := range min(len(dense.scores), len(edges.scores)) {
		compareScores(t, fmt.Sprintf("cycle %d", c+1), dense.scores[c], edges.scores[c], 1e-5)
	}
	d, e := dense.pred, edges.pred
	compareScores(t, "final", d.ExtraScores, e.ExtraScores, 1e-5)
	compareRows(t, "logits (softmax)", softmaxRows(d.Logits), softmaxRows(e.Logits), 1e-5)
	compareRows(t, "labelled logits (softmax)", softmaxRows(d.LabelledLogits), softmaxRows(e.LabelledLogits), 1e-5)
	compareRows(t, "embeddings", d.Embeddings, e.Embeddings, 1e-4)
	compareRows(t, "labelled embeddings", d.LabelledEmbeddings, e.LabelledEmbeddings, 1e-4)
	if !slices.Equal(d.Class, e.Class) {
		t.Error("the layouts predict other classes")
	}
	t.Logf("%d epochs, %d eval graphs", len(dense.curves), len(d.Class))
}

// compareCurves checks the logged losses of two runs epoch by epoch, to
// 1e-6 (relative) in the first epoch and tol later (TestLayoutsSameRun).
func compareCurves(t *testing.T, dense, edges []map[string]float64, tol float64) {
	t.Helper()
	if len(dense) != len(edges) || len(dense) == 0 {
		t.Fatalf("%d epochs dense, %d edges", len(dense), len(edges))
	}
	worst := 0.0
	for i := range dense {
		for _, k := range []string{"loss", "loss_ce", "loss_u", "steps"} {
			dv, ok := dense[i][k]
			if !ok {
				continue
			}
			tolI := tol
			if i == 0 {
				tolI = 1e-6
			}
			ev, ok := edges[i][k]
			if !ok || !relClose(dv, ev, tolI) {
				t.Errorf("epoch %d %s: dense %v, edges %v", i+1, k, dv, ev)
			}
			worst = max(worst, math.Abs(dv-ev)/max(1, math.Abs(dv)))
		}
	}
	if first, last := dense[0]["loss"], dense[len(dense)-1]["loss"]; first == last {
		t.Errorf("loss did not move: %v", first)
	}
	t.Logf("losses: largest relative difference %.3g", worst)
}

// compareScores checks named score vectors within tol (relative, floor 1).
func compareScores(t *testing.T, what string, dense, edges map[string][]float64, tol float64) {
	t.Helper()
	if len(dense) == 0 || !slices.Equal(slices.Sorted(maps.Keys(dense)), slices.Sorted(maps.Keys(edges))) {
		t.Fatalf("%s: score names dense %v, edges %v", what, slices.Sorted(maps.Keys(dense)), slices.Sorted(maps.Keys(edges)))
	}
	for name, dv := range dense {
		worst := 0.0
		for i := range dv {
			worst = max(worst, math.Abs(dv[i]-edges[name][i]))
		}
		if len(dv) != len(edges[name]) || worst > tol {
			t.Errorf("%s score %s: %d vs %d graphs, largest difference %.3g", what, name, len(dv), len(edges[name]), worst)
		}
		t.Logf("%s score %s: largest difference %.3g", what, name, worst)
	}
}

// compareRows checks rows [n][d] elementwise within tol (absolute).
func compareRows(t *testing.T, what string, dense, edges [][]float32, tol float64) {
	t.Helper()
	if len(dense) == 0 || len(dense) != len(edges) {
		t.Fatalf("%s: %d rows dense, %d edges", what, len(dense), len(edges))
	}
	worst := 0.0
	for i := range dense {
		for k := range dense[i] {
			worst = max(worst, math.Abs(float64(dense[i][k]-edges[i][k])))
		}
	}
	if worst > tol {
		t.Errorf("%s: largest difference %.3g", what, worst)
	}
	t.Logf("%s: largest difference %.3g", what, worst)
}

// softmaxRows is the softmax of every row of logits.
func softmaxRows(logits [][]float32) [][]float32 {
	out := make([][]float32, len(logits))
	for i, l := range logits {
		top, sum := slices.Max(l), 0.0
		out[i] = make([]float32, len(l))
		for k, v := range l {
			e := math.Exp(float64(v - top))
			out[i][k], sum = float32(e), sum+e
		}
		for k := range out[i] {
			out[i][k] /= float32(sum)
		}
	}
	return out
}

// bigGraph is a ring of n nodes with dim features each.
func bigGraph(n, dim int) datasets.Graph {
	g := datasets.Graph{NumNodes: n, Features: make([]float32, n*dim)}
	for v := range n {
		g.Features[v*dim] = float32(v)
		w := int32((v + 1) % n)
		g.Src, g.Dst = append(g.Src, int32(v), w), append(g.Dst, w, int32(v))
	}
	return g
}

// TestLayoutAuto: layout auto (the legacy rule of ugnn and ugnn-plus) resolves
// to the dense layout on Letter-high (≤ 9 nodes) and to the edge list once
// the task holds a graph above gnn.DenseMaxNodes = 100 nodes (COLORS-3 has
// 200), where the run predicts that graph; an explicit layout is kept.
func TestLayoutAuto(t *testing.T) {
	lt := newLetterTask(t)
	big := slices.Clone(lt.ds.Graphs)
	big = append(big, bigGraph(gnn.DenseMaxNodes+1, lt.ds.FeatureDim))
	for _, c := range []struct {
		name   string
		conv   string
		layout gnn.Layout
		graphs []datasets.Graph
		want   gnn.Layout
	}{
		{"letter", "gin", gnn.LayoutAuto, lt.ds.Graphs, gnn.LayoutDense},
		{"big", "gin", gnn.LayoutAuto, big, gnn.LayoutEdges},
		{"big-sage", "sage", gnn.LayoutAuto, big, gnn.LayoutEdges},
		{"big-forced-dense", "gin", gnn.LayoutDense, big, gnn.LayoutDense},
		{"letter-forced-edges", "sage", gnn.LayoutEdges, lt.ds.Graphs, gnn.LayoutEdges},
	} {
		p := lt.params(1)
		p["conv"], p["layout"] = c.conv, string(c.layout)
		var reported [][]int
		task := lt.task(p, 1, &reported)
		task.Graphs = c.graphs
		r := startRun(t, task, Variants[0])
		if r.cfg.Layout != c.want {
			t.Errorf("%s: layout %q resolved to %q, want %q", c.name, c.layout, r.cfg.Layout, c.want)
		}
		if len(c.graphs) == len(big) {
			logits, emb, err := r.predictViews(context.Background(), []view{r.wholeView(len(big) - 1), r.wholeView(0)})
			if err != nil || len(logits) != 2 || len(emb[0]) != 2*r.cfg.Hidden {
				t.Errorf("%s: predict the %d-node graph: %v", c.name, gnn.DenseMaxNodes+1, err)
			}
		}
	}
}

// methodNames are the registered UGNN methods: ugnn-plus and the variants.
func methodNames() []string {
	names := []string{PlusName}
	for _, v := range Variants {
		names = append(names, v.Name)
	}
	return names
}

// TestLayoutParam: every registered UGNN method (the variants and
// ugnn-plus) declares layout, default edges, whose legacy value auto
// hashes as if the parameter were absent (the runs stored before it),
// while the default and a forced layout hash differently.
func TestLayoutParam(t *testing.T) {
	for _, name := range methodNames() {
		m, err := suite.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		set := suite.ParamsOf(m)
		sp, ok := set.Lookup("layout")
		if !ok || sp.Default != string(gnn.LayoutEdges) || sp.Legacy != string(gnn.LayoutAuto) {
			t.Errorf("%s: layout declared %v, default %v, legacy %v; want edges, auto", name, ok, sp.Default, sp.Legacy)
			continue
		}
		spec := defaultSpec(name)
		spec.Params = m.Defaults()
		byDefault := spec.Hash()
		spec.Params["layout"] = string(gnn.LayoutAuto)
		without := spec
		without.Params = spec.Params.Clone()
		delete(without.Params, "layout")
		forced := spec
		forced.Params = spec.Params.Clone()
		forced.Params["layout"] = string(gnn.LayoutDense)
		if spec.Hash() != without.Hash() || forced.Hash() == spec.Hash() || byDefault == spec.Hash() {
			t.Errorf("%s: layout=auto hashes as without it: %v; layout=dense differently: %v; the default differently: %v", name, spec.Hash() == without.Hash(), forced.Hash() != spec.Hash(), byDefault != spec.Hash())
		}
	}
}
