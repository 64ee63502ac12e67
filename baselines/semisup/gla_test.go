package semisup

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

// TestGLARadiusBase: z = [[3,0],[−3,0],[0,4],[0,−4]] has centroid 0 and
// mean distance c = 3.5; padding rows (weight 0) do not change it.
func TestGLARadiusBase(t *testing.T) {
	z := [][]float64{{3, 0}, {-3, 0}, {0, 4}, {0, -4}}
	got := scalar(MustExecOnce(testBackend(t), GLARadiusBase, tensorOf(z), vecOf([]float64{1, 1, 1, 1})))
	if math.Abs(got-3.5) > 1e-6 {
		t.Errorf("c = %v, want 3.5", got)
	}
	got = scalar(MustExecOnce(testBackend(t), GLARadiusBase, tensorOf(padded(z, []float64{100, 100}, []float64{0, 0})), vecOf([]float64{1, 1, 1, 1, 0, 0})))
	if math.Abs(got-3.5) > 1e-6 {
		t.Errorf("with padding c = %v, want 3.5", got)
	}
}

// TestGLASelect: the selection computed by hand with an identity
// classifier (logits = candidate), z = [0.5, 0], r = 1, reference class 0:
// of the five directions the first three flip the class, and the pick is
// the valid one least confident in class 0, index 4 (z̃ = [0.22, −0.96]).
// With only the first two directions (none valid) the pick is the
// candidate most confident in class 0, index 0.
func TestGLASelect(t *testing.T) {
	dirs := [][]float64{{-1, 0}, {-0.6, 0.8}, {0, 1}, {0.6, -0.8}, {-0.28, -0.96}}
	run := func(dirs [][]float64) (int32, float32) {
		cand := make([]float32, 0, 2*len(dirs))
		for _, d := range dirs {
			cand = append(cand, float32(0.5+d[0]), float32(d[1]))
		}
		out := MustExecOnceN(testBackend(t), func(l, ref *Node) []*Node {
			k, v := GLASelect(l, ref)
			return []*Node{k, v}
		}, tensors.FromFlatDataAndDimensions(cand, 1, len(dirs), 2), tensors.FromFlatDataAndDimensions([]int32{0}, 1))
		return tensors.MustCopyFlatData[int32](out[0])[0], tensors.MustCopyFlatData[float32](out[1])[0]
	}
	if k, valid := run(dirs); k != 4 || valid != 1 {
		t.Errorf("five directions: pick %d (any valid %v), want 4 (1)", k, valid)
	}
	if k, valid := run(dirs[:2]); k != 0 || valid != 0 {
		t.Errorf("two directions: pick %d (any valid %v), want 0 (0)", k, valid)
	}
}

// nopLog discards curves.
type nopLog struct{}

func (nopLog) Epoch(int, int, map[string]float64) {}

// tinyTask is a synthetic task of 24 random trees (5–8 nodes: one padding
// bucket of 8 nodes, so every batch of 4 has one shape), 2-d features,
// 12 labelled in 2 classes, 12 unlabelled, with method defaults overridden
// by set.
func tinyTask(t *testing.T, method string, set suite.Params) *suite.Task {
	t.Helper()
	return treeTask(t, method, set, rand.New(rand.NewPCG(11, 12)), 5, 8)
}

// variedTask is tinyTask with graphs of 2–25 nodes (node buckets 4 to
// 28), so that size chunks pad to different node counts.
func variedTask(t *testing.T, method string, set suite.Params) *suite.Task {
	t.Helper()
	return treeTask(t, method, set, rand.New(rand.NewPCG(5, 6)), 2, 25)
}

// treeTask is 24 random trees of minN–maxN nodes drawn from rng, with 2-d
// features shifted by the class (i mod 2), the first 12 labelled.
func treeTask(t *testing.T, method string, set suite.Params, rng *rand.Rand, minN, maxN int) *suite.Task {
	t.Helper()
	p := params(t, method, set)
	task := &suite.Task{FeatureDim: 2, NumKnown: 2, Params: p, Seed: 3, Backend: "go", Log: nopLog{}}
	for i := range 24 {
		n := minN + rng.IntN(maxN-minN+1)
		g := datasets.Graph{NumNodes: n}
		for v := 1; v < n; v++ {
			u := int32(rng.IntN(v))
			g.Src = append(g.Src, int32(v), u)
			g.Dst = append(g.Dst, u, int32(v))
		}
		for range 2 * n {
			g.Features = append(g.Features, float32(rng.NormFloat64()+float64(i%2)))
		}
		task.Graphs = append(task.Graphs, g)
		if i < 12 {
			task.Labelled = append(task.Labelled, i)
			task.Labels = append(task.Labels, i%2)
		} else {
			task.Unlabelled = append(task.Unlabelled, i)
		}
	}
	task.Eval = task.Unlabelled
	return task
}

// snapshot copies every variable of the run's store.
func snapshot(t *testing.T, n *net) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for v := range n.store.IterVariables() {
		val, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		val.ConstBytes(func(b []byte) { out[v.Path()] = slices.Clone(b) })
	}
	return out
}

// counter reads the float step counter of the Adam state named name.
func counter(t *testing.T, n *net, name string) float64 {
	t.Helper()
	for v := range n.store.IterVariables() {
		if strings.HasPrefix(v.Path(), "/"+name+"/") && strings.HasSuffix(v.Path(), "/step") {
			val, err := v.Value()
			if err != nil {
				t.Fatal(err)
			}
			return float64(tensors.ToScalar[float32](val))
		}
	}
	return 0
}

// TestGLASkipAndTwoOptimizers: after an unlabelled pass and some labelled
// steps, A_u's step counter equals the unlabelled steps taken and A_l's
// the labelled ones (two Adam states, sharing nothing); a batch whose
// filter keeps ≤ 1 graph (here: a batch of one graph) calls no optimizer
// and leaves every variable — parameters and both Adam states —
// bit-identical.
func TestGLASkipAndTwoOptimizers(t *testing.T) {
	task := tinyTask(t, "gla", suite.Params{"hidden": 8, "batch_size": 4, "unlabelled_batch_size": 4, "candidates": 5})
	r, err := newGLARun(task)
	if err != nil {
		t.Fatal(err)
	}
	defer r.n.close()
	rng := rand.New(rand.NewPCG(1, 1))
	v, err := r.unlabelledPass(context.Background(), 1, rng)
	if err != nil {
		t.Fatal(err)
	}
	takenU := 3 - v["unlabelled_skipped"]
	lrNow := func() float64 {
		val, err := r.n.store.GetVariable(r.optU.lrPath).Value()
		if err != nil {
			t.Fatal(err)
		}
		return float64(tensors.ToScalar[float32](val))
	}
	if got := lrNow(); math.Abs(got-2e-4) > 1e-9 {
		t.Errorf("learning rate during the unlabelled pass %v, want lr·0.2 = 2e-4", got)
	}
	takenL := 0.0
	for bi, idx := range [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}} {
		_, took, _, err := r.batchStep(true, 1, bi, idx)
		if err != nil {
			t.Fatal(err)
		}
		if took {
			takenL++
		}
	}
	if got := lrNow(); math.Abs(got-1e-3) > 1e-9 {
		t.Errorf("learning rate during the labelled steps %v, want 1e-3", got)
	}
	if takenU == 0 || takenL == 0 {
		t.Fatalf("steps taken: %v unlabelled, %v labelled; the test needs some of each", takenU, takenL)
	}
	if got := counter(t, r.n, "adam_unlabelled"); got != takenU {
		t.Errorf("A_u step counter %v, want %v", got, takenU)
	}
	if got := counter(t, r.n, "adam_labelled"); got != takenL {
		t.Errorf("A_l step counter %v, want %v", got, takenL)
	}
	before := snapshot(t, r.n)
	for _, labelled := range []bool{false, true} {
		loss, took, _, err := r.batchStep(labelled, 2, 0, []int{5})
		if err != nil || took || !math.IsNaN(loss) {
			t.Fatalf("labelled=%v, one graph: took %v, loss %v, err %v; want a skip", labelled, took, loss, err)
		}
	}
	after := snapshot(t, r.n)
	if len(after) != len(before) {
		t.Fatalf("%d variables before, %d after", len(before), len(after))
	}
	for k, b := range before {
		if !slices.Equal(b, after[k]) {
			t.Errorf("variable %s changed on a skipped step", k)
		}
	}
}

// TestPoolIsLabelledAndUnlabelled: the unsupervised parts' pool is
// D^l ∪ D^u, never a held-out Eval graph.
func TestPoolIsLabelledAndUnlabelled(t *testing.T) {
	task := &suite.Task{Labelled: []int{4, 1}, Unlabelled: []int{0, 2}, Eval: []int{0, 2, 3, 5}}
	got := pool(task)
	slices.Sort(got)
	if !slices.Equal(got, []int{0, 1, 2, 4}) {
		t.Errorf("pool = %v, want [0 1 2 4] (no test graph 3 or 5)", got)
	}
}

// TestGLARedraws: an unlabelled batch redraws (n₀, U) while some graph has
// no valid candidate. At eta 1e-6 no candidate leaves its class: no
// redraw in 4 passes. At eta 1e4 with one candidate the radius is 10⁴
// spreads, so the candidate's class is its direction's alone, the same for
// the whole batch, and a batch redraws unless that is every graph's
// predicted class: some redraws in 4 passes of 3 batches, at most
// max_redraws = 3 per batch.
func TestGLARedraws(t *testing.T) {
	for _, c := range []struct {
		eta      float64
		min, max float64
	}{{1e-6, 0, 0}, {1e4, 1, 4 * 3 * 3}} {
		task := tinyTask(t, "gla", suite.Params{"hidden": 8, "batch_size": 4, "unlabelled_batch_size": 4, "candidates": 1, "max_redraws": 3, "eta": c.eta})
		r, err := newGLARun(task)
		if err != nil {
			t.Fatal(err)
		}
		var total float64
		for pass := 1; pass <= 4; pass++ {
			v, err := r.unlabelledPass(context.Background(), pass, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			total += v["unlabelled_redraws"]
		}
		r.n.close()
		if total < c.min || total > c.max {
			t.Errorf("eta %g: %v redraws in 4 passes, want %v..%v", c.eta, total, c.min, c.max)
		}
	}
}
