package semisup

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
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

// letterTask is Letter-high's low-ratio task (split seed 0; the embedded
// copy, always available) cut to 96 labelled graphs, 160 unlabelled and
// 40 evaluated, with method's defaults overridden by set.
func letterTask(t *testing.T, method string, set suite.Params) *suite.Task {
	t.Helper()
	ds := datasetstest.Load(t, "Letter-high")
	info, _ := datasets.LookupInfo("Letter-high")
	split, err := datasets.MakeSplit(ds.Labels, ds.NumClasses, datasets.SplitConfig{Known: info.Known, Ratio: info.Low, Seed: 0})
	if err != nil {
		t.Fatal(err)
	}
	return &suite.Task{
		Graphs: ds.Graphs, FeatureDim: ds.FeatureDim, NumKnown: len(split.KnownClasses),
		Labelled: split.Labelled[:96], Labels: split.LabelledY[:96], Unlabelled: split.Unlabelled[:160],
		Eval: split.Unlabelled[:40], Params: params(t, method, set), Seed: 0, Backend: "go", Log: nopLog{}, Dataset: "Letter-high",
	}
}

// layoutRun is what TestLayoutsSameRun compares of one run: every logged
// value by name, and the logits of the evaluated graphs.
type layoutRun struct {
	log    recordLog
	logits [][]float32
}

// fitLayout runs method on the cut Letter-high task with layout forced.
func fitLayout(t *testing.T, method string, set suite.Params, layout gnn.Layout) layoutRun {
	t.Helper()
	p := suite.Params{"steps": 4, "batch_size": 32, "unlabelled_batch_size": 64, "hidden": 16, "layout": string(layout)}
	for k, v := range set {
		p[k] = v
	}
	task := letterTask(t, method, p)
	log := recordLog{}
	task.Log = log
	m, err := suite.Lookup(method)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := m.Fit(context.Background(), task)
	if err != nil {
		t.Fatalf("layout %s: %v", layout, err)
	}
	return layoutRun{log: log, logits: pred.Logits}
}

// TestLayoutsSameRun: every row run for a tiny budget (4 supervised
// steps; one pretraining epoch of 4 batches) in the dense and in the
// edge-list layout (same seed, hence the same batches, chunks and
// augmented views) logs the same values (losses, skips, redraws) and
// predicts the same softmax for 40 graphs, within float tolerance: the
// layouts compute the same function but sum in different orders.
//
// Two regimes. Frozen (every learning rate 1e-12, so the weights stay at
// their initial values): the logged values and the softmax must agree to
// 1e-6 (measured ≤ 4e-8), which checks the function of every step and of
// the prediction. Trained (the rows' learning rates): 2e-4 relative for
// the logged values and 2e-3 for the softmax (measured ≤ 6e-5 and
// ≤ 6e-4), because, as in gnn.TestTrainLayoutsSameLoss, Adam's normalised
// step m/(√v+ε) turns a rounding-level difference in a near-zero gradient
// component into an lr-sized update, and every logged value after the
// first step carries such updates.
func TestLayoutsSameRun(t *testing.T) {
	for _, tc := range []struct {
		name, method string
		set          suite.Params
	}{
		{"graphcl", "graphcl", suite.Params{"pretrain_epochs": 1}},
		{"infograph", "infograph", nil},
		{"gla", "gla", nil},
		{"rgcl", "rgcl", suite.Params{"pretrain_epochs": 1, "min_drop": 1}},
		{"rgcl-chem", "rgcl", suite.Params{"pretrain_epochs": 1, "loss_form": "chem", "rho": 0.8}},
	} {
		for _, frozen := range []bool{true, false} {
			name, set, logTol, softTol := tc.name+"/trained", maps.Clone(tc.set), 2e-4, 2e-3
			if frozen {
				name, logTol, softTol = tc.name+"/frozen", 1e-6, 1e-6
				set = frozenLR(tc.method, set)
			}
			t.Run(name, func(t *testing.T) {
				d := fitLayout(t, tc.method, set, gnn.LayoutDense)
				e := fitLayout(t, tc.method, set, gnn.LayoutEdges)
				sameLogs(t, d.log, e.log, logTol)
				worst := 0.0
				for i := range d.logits {
					a, b := softmax(d.logits[i]), softmax(e.logits[i])
					for c := range a {
						worst = max(worst, math.Abs(a[c]-b[c]))
					}
				}
				if len(d.logits) != 40 || len(e.logits) != 40 || worst > softTol {
					t.Errorf("%d and %d graphs predicted; softmax differs by up to %.2g, want ≤ %g", len(d.logits), len(e.logits), worst, softTol)
				}
				t.Logf("loss dense %v, edges %v; softmax differs by up to %.2g", d.log["loss"], e.log["loss"], worst)
			})
		}
	}
}

// frozenLR sets every learning rate of method's run to 1e-12 in a copy
// of set (a nil set gives a new one).
func frozenLR(method string, set suite.Params) suite.Params {
	out := suite.Params{"lr": 1e-12}
	if method == "graphcl" || method == "rgcl" {
		out["pretrain_lr"] = 1e-12
	}
	for k, v := range set {
		out[k] = v
	}
	return out
}

// sameLogs fails t unless the runs d and e logged the same names, the
// same number of points and values within tol relative (to max(1, |d|);
// NaN matches NaN).
func sameLogs(t *testing.T, d, e recordLog, tol float64) {
	t.Helper()
	if !slices.Equal(slices.Sorted(maps.Keys(d)), slices.Sorted(maps.Keys(e))) {
		t.Fatalf("logged names differ: dense %v, edges %v", slices.Sorted(maps.Keys(d)), slices.Sorted(maps.Keys(e)))
	}
	for _, k := range slices.Sorted(maps.Keys(d)) {
		dv, ev := d[k], e[k]
		if len(dv) != len(ev) {
			t.Errorf("%s: %d points dense, %d edges", k, len(dv), len(ev))
			continue
		}
		for i := range dv {
			same := math.Abs(dv[i]-ev[i]) <= tol*max(1, math.Abs(dv[i])) || math.IsNaN(dv[i]) && math.IsNaN(ev[i])
			if !same {
				t.Errorf("%s differs at point %d: dense %v, edges %v (tolerance %g)", k, i, dv, ev, tol)
				break
			}
		}
	}
}

// softmax is the softmax of one row of logits, in float64.
func softmax(l []float32) []float64 {
	top := float64(slices.Max(l))
	out, sum := make([]float64, len(l)), 0.0
	for i, v := range l {
		out[i] = math.Exp(float64(v) - top)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// TestLayoutAuto: layout auto resolves to the edge list on a task with a
// graph above gnn.DenseMaxNodes nodes and to the dense layout on one
// without; an explicit layout wins, an unknown one is an error naming
// the parameter; and a row runs end to end on the large graphs under
// auto.
func TestLayoutAuto(t *testing.T) {
	big := func(set suite.Params) *suite.Task {
		return treeTask(t, "graphcl", set, rand.New(rand.NewPCG(7, 8)), 90, 130)
	}
	largest := 0
	for _, g := range big(nil).Graphs {
		largest = max(largest, g.NumNodes)
	}
	if largest <= gnn.DenseMaxNodes {
		t.Fatalf("largest graph %d nodes, want > %d", largest, gnn.DenseMaxNodes)
	}
	for _, c := range []struct {
		name   string
		task   *suite.Task
		layout string
		want   gnn.Layout
	}{
		{"big-auto", big(nil), "auto", gnn.LayoutEdges},
		{"big-dense", big(nil), "dense", gnn.LayoutDense},
		{"small-auto", variedTask(t, "graphcl", nil), "auto", gnn.LayoutDense},
		{"small-edges", variedTask(t, "graphcl", nil), "edges", gnn.LayoutEdges},
	} {
		c.task.Params["layout"] = c.layout
		n, err := newNet(c.task)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n.layout != c.want {
			t.Errorf("%s: layout %q, want %q", c.name, n.layout, c.want)
		}
		n.close()
	}
	if _, err := newNet(big(suite.Params{"layout": "sparse"})); err == nil || !strings.Contains(err.Error(), "layout") {
		t.Errorf("layout sparse: error %v, want one naming layout", err)
	}
	set := suite.Params{"steps": 2, "batch_size": 12, "unlabelled_batch_size": 12, "hidden": 8, "pretrain_epochs": 1}
	p, err := (graphCL{}).Fit(context.Background(), big(set))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range p.UnknownScore {
		if math.IsNaN(s) || s < 0 || s > 1 {
			t.Fatalf("graph %d: unknown score %v", i, s)
		}
	}
}

// edgeInputsOf runs f on the edge-list batch of graphs of n_i nodes (no
// edges, zero features, 8 slots) with one extra [Nodes] input x (padded
// with pad) and returns f's output [Nodes] and the batch.
func edgeInputsOf(t *testing.T, sizes []int, x []float64, pad float32, f func(x *Node, in gnn.EdgeInputs) *Node) ([]float32, *gnn.EdgeBatch) {
	t.Helper()
	graphs := make([]datasets.Graph, len(sizes))
	feats := &gnn.Features{Dim: 1, Nodes: make([][]float32, len(sizes))}
	idx := make([]int, len(sizes))
	for i, n := range sizes {
		graphs[i], feats.Nodes[i], idx[i] = datasets.Graph{NumNodes: n}, make([]float32, n), i
	}
	b := gnn.NewEdgeBatch(graphs, feats, idx, 8)
	xs := make([]float32, b.Nodes)
	for v := range xs {
		xs[v] = pad
		if v < len(x) {
			xs[v] = float32(x[v])
		}
	}
	args := []any{tensors.FromFlatDataAndDimensions(xs, b.Nodes)}
	for _, tt := range b.Tensors() {
		args = append(args, tt)
	}
	e := model.MustNewExec(testBackend(t), model.NewStore(), func(_ *model.Scope, in []*Node) []*Node {
		return []*Node{f(in[0], gnn.NewEdgeInputs(in[1:], b.B))}
	})
	return tensors.MustCopyFlatData[float32](e.MustExec(args...)[0]), b
}

// TestNodeSoftmaxEdges: TestNodeSoftmax's scores [1, 2, 3] in graph 0 give
// the same softmax(s/5); a one-node graph and every empty slot's node get
// 1, padding nodes (with large scores) 0.
func TestNodeSoftmaxEdges(t *testing.T) {
	got, b := edgeInputsOf(t, []int{3, 1}, []float64{1, 2, 3, 7}, 40, func(s *Node, in gnn.EdgeInputs) *Node {
		return NodeSoftmaxEdges(DivScalar(s, 5), in)
	})
	for v, want := range []float64{0.26930749918, 0.32893292229, 0.40175957853, 1} {
		if math.Abs(float64(got[v])-want) > 1e-6 {
			t.Errorf("p[%d] = %v, want %v", v, got[v], want)
		}
	}
	for v := 4; v < b.Nodes; v++ {
		if want := b.Mask[v]; got[v] != want {
			t.Errorf("node %d (slot %d): p = %v, want %v", v, b.Graph[v], got[v], want)
		}
	}
}

// TestRGCLNodeWeightsEdges: TestRGCLNodeWeights's p = [0.2, 0.5, 0.3] in
// graph 0 give w = [0.94, 1, 0.96], the top node exactly 1; a one-node
// graph's node gets 1, padding nodes 0 (finite).
func TestRGCLNodeWeightsEdges(t *testing.T) {
	got, b := edgeInputsOf(t, []int{3, 1}, []float64{0.2, 0.5, 0.3, 0.4}, 0.9, func(p *Node, in gnn.EdgeInputs) *Node {
		return RGCLNodeWeightsEdges(p, in, 0.9)
	})
	for v, want := range []float64{0.94, 1, 0.96, 1} {
		if math.Abs(float64(got[v])-want) > 1e-6 {
			t.Errorf("w[%d] = %v, want %v", v, got[v], want)
		}
	}
	if got[1] != 1 {
		t.Errorf("top node weight %v, want exactly 1", got[1])
	}
	for v := b.Offset[b.B]; v < b.Nodes; v++ {
		if got[v] != 0 {
			t.Errorf("padding node %d: w = %v, want 0", v, got[v])
		}
	}
}

// TestLayoutLegacyHash: the stored Letter-high graphcl run of
// TestSizeChunksLegacyHash (size_chunks 1) hashes the same with layout
// auto, the legacy value; dense and edges are new configurations.
func TestLayoutLegacyHash(t *testing.T) {
	p := suite.Params{"aug1": "random2", "aug2": "random2", "aug_ratio1": 0.2, "aug_ratio2": 0.2, "batch_size": 64,
		"curve_every": 0, "hidden": 128, "layers": 2, "lr": 0.001, "pool_ratio": 0.8, "pretrain_epochs": 100,
		"pretrain_lr": 0.001, "proj_input": "hidden", "steps": 500, "tau": 0.5, "unlabelled_batch_size": 256, "size_chunks": 1}
	for layout, same := range map[string]bool{"auto": true, "dense": false, "edges": false} {
		s := suite.RunSpec{Method: "graphcl", Dataset: "Letter-high", RatioName: "low", Ratio: 0.2, Params: p.Clone(),
			Protocol: suite.Protocol{ClassSplit: "first", TestFrac: 0.2, Alpha: 1}}
		s.Params["layout"] = layout
		if got := s.Hash() == "3a9440fcce5d797d"; got != same {
			t.Errorf("layout %s: same hash as the stored run = %v, want %v", layout, got, same)
		}
	}
}
