package ugnn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

// TestBatchNormParam: every registered UGNN method (the variants and
// ugnn-plus) declares batch_norm, default and legacy false, so false
// hashes as if the parameter were absent (the runs stored before it) and
// true differently; configFrom rejects it on the SAGE backbone (ugnn-plus's
// default conv), which has no MLP, and accepts it on GIN.
func TestBatchNormParam(t *testing.T) {
	for _, name := range methodNames() {
		m, err := suite.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		sp, ok := suite.ParamsOf(m).Lookup("batch_norm")
		if !ok || sp.Default != false || sp.Legacy != false {
			t.Errorf("%s: batch_norm declared %v, default %v, legacy %v; want false, false", name, ok, sp.Default, sp.Legacy)
			continue
		}
		spec := defaultSpec(name)
		spec.Params = m.Defaults()
		off := spec.Hash()
		without := spec
		without.Params = spec.Params.Clone()
		delete(without.Params, "batch_norm")
		on := spec
		on.Params = spec.Params.Clone()
		on.Params["batch_norm"] = true
		if off != without.Hash() || on.Hash() == off {
			t.Errorf("%s: batch_norm=false hashes as without it: %v; true differently: %v", name, off == without.Hash(), on.Hash() != off)
		}
		for _, c := range []struct {
			conv string
			ok   bool
		}{{"gin", true}, {"sage", false}} {
			p := m.Defaults()
			p["batch_norm"], p["conv"] = true, c.conv
			if _, err := configFrom(p, 10); (err == nil) != c.ok {
				t.Errorf("%s: batch_norm with conv %s: error %v, want accepted %v", name, c.conv, err, c.ok)
			}
		}
	}
}

// bnRun starts a ugnn run on Letter-high low with the tiny budget,
// batch_norm on, in layout layout with size_chunks chunks; with twinless
// its D^l and D^u hold only twin-free graphs (keepTwinFree).
func bnRun(t *testing.T, lt *protocolTask, layout gnn.Layout, chunks int, twinless bool) *run {
	t.Helper()
	p := lt.params(1)
	p["batch_norm"], p["layout"], p["size_chunks"] = true, string(layout), chunks
	var reported [][]int
	task := lt.task(p, 1, &reported)
	if twinless {
		keepTwinFree(task)
	}
	return startRun(t, task, Variants[0])
}

// storeVar reads a float32 variable of r's store.
func storeVar(t *testing.T, r *run, path string) []float32 {
	t.Helper()
	v := r.net.store.GetVariable(path)
	if v == nil {
		t.Fatalf("no variable %s", path)
	}
	val, err := v.Value()
	if err != nil {
		t.Fatal(err)
	}
	return tensors.MustCopyFlatData[float32](val)
}

// bnVars are BatchNorm's running statistics in the first GIN layer (its
// MLP's and the one after it) and in the last of the second stage.
var bnVars = []string{
	"/encoder/conv1_0/mlp/bn_0/running_mean", "/encoder/conv1_0/mlp/bn_0/running_var",
	"/encoder/conv1_0/bn/running_mean", "/encoder/conv1_0/bn/running_var",
	"/encoder/score_gnn/bn/running_var", "/encoder/conv2_0/bn/running_var",
}

// closeRows reports the first element of a and b that differ by more than
// tol·max(1, |a|), or "" when none does.
func closeRows(a, b [][]float32, tol float64) string {
	for i := range a {
		for k := range a[i] {
			if d := math.Abs(float64(a[i][k] - b[i][k])); d > tol*max(1, math.Abs(float64(a[i][k]))) {
				return fmt.Sprintf("row %d col %d: %v vs %v", i, k, a[i][k], b[i][k])
			}
		}
	}
	return ""
}

// TestBatchNormChunksAndLayouts: with batch_norm, the size chunks of a
// batch are normalised together, and the dense and the edge-list layout
// compute the same function, on Letter-high's twin-free graphs
// (keepTwinFree: in the others nodes may tie exactly in one layout only,
// gnn.EncodeEdges) with the default pool ratio.
// From the same initial weights (same seed), one warm-up step on a batch
// of 60 labelled graphs (padding slots in every chunk) gives the same loss and moves the running
// statistics to the same values (to float rounding: 1e-5) whether the
// batch is padded as 1 chunk or as 3 (normalising each chunk on its own
// would not: its statistics would be the chunk's), in both layouts, and
// each running statistic moved once from (0, 1). Then the other runs take
// the dense 3-chunk run's variables (weights, running statistics, Adam's
// state): the two layouts predict the same logits and embeddings for 64
// unlabelled graphs (eval mode), and one semi-supervised step from the
// same prototypes (its 64 unlabelled graphs' two views, each view's
// chunks normalised together) gives the same losses and running
// statistics in all four. (Whole
// runs in the two layouts drift apart with BatchNorm at the default
// learning rate; TestLayoutsSameRun says why.)
func TestBatchNormChunksAndLayouts(t *testing.T) {
	lt := newLetterTask(t)
	ctx := context.Background()
	type started struct {
		r     *run
		loss  float64
		stats [][]float32
	}
	var first []started // dense 1 and 3 chunks, edges 1 and 3 chunks
	for _, layout := range []gnn.Layout{gnn.LayoutDense, gnn.LayoutEdges} {
		for _, chunks := range []int{1, 3} {
			r := bnRun(t, lt, layout, chunks, true)
			idx := r.task.Labelled[:60] // 1 chunk: 64 slots; 3 chunks: 30, 15, 15 graphs in 32, 16, 16
			loss, _, err := r.labelledStep(ctx, idx, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, kl := r.labelledBatch(idx, 0); kl != chunks {
				t.Fatalf("%d chunks, want %d", kl, chunks)
			}
			s := started{r: r, loss: loss}
			for _, path := range bnVars {
				s.stats = append(s.stats, storeVar(t, r, path))
			}
			first = append(first, s)
		}
	}
	names := []string{"dense, 1 chunk", "dense, 3 chunks", "edges, 1 chunk", "edges, 3 chunks"}
	for i, s := range first {
		if !relClose(first[0].loss, s.loss, 1e-5) {
			t.Errorf("%s: loss %v, dense in 1 chunk %v", names[i], s.loss, first[0].loss)
		}
		for v, path := range bnVars {
			if d := closeRows([][]float32{first[0].stats[v]}, [][]float32{s.stats[v]}, 1e-5); d != "" {
				t.Errorf("%s: %s differs from dense in 1 chunk: %s", names[i], path, d)
			}
			init := float32(v % 2) // running_mean from 0, running_var from 1
			if slices.Index(s.stats[v], init) >= 0 && slices.IndexFunc(s.stats[v], func(x float32) bool { return x != init }) < 0 {
				t.Errorf("%s: %s did not move: %v", names[i], path, s.stats[v])
			}
		}
	}
	dense, edges := first[1].r, first[3].r // 3 chunks, the default
	for _, other := range first {
		if other.r == dense {
			continue
		}
		for v := range dense.net.store.IterVariables() {
			val, err := v.Value()
			if err != nil {
				t.Fatal(err)
			}
			clone, err := val.Clone()
			if err != nil {
				t.Fatal(err)
			}
			if err := other.r.net.store.GetVariable(v.Path()).SetValue(clone); err != nil {
				t.Fatal(err)
			}
		}
	}
	views := make([]view, 64)
	for i := range views {
		views[i] = dense.wholeView(dense.task.Unlabelled[i])
	}
	ld, ed, err := dense.predictViews(ctx, views)
	if err != nil {
		t.Fatal(err)
	}
	le, ee, err := edges.predictViews(ctx, views)
	if err != nil {
		t.Fatal(err)
	}
	if d := closeRows(ld, le, 1e-5); d != "" {
		t.Errorf("predicted logits differ between the layouts: %s", d)
	}
	if d := closeRows(ed, ee, 1e-5); d != "" {
		t.Errorf("predicted embeddings differ between the layouts: %s", d)
	}
	protos, err := dense.cycleStart(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	var semi []map[string]float64
	for _, s := range first {
		own := make([][]float32, len(protos)) // semiEpoch moves them in place
		for i, p := range protos {
			own[i] = slices.Clone(p)
		}
		values, err := s.r.semiEpoch(ctx, rand.New(rand.NewPCG(3, 4)), own, 1)
		if err != nil {
			t.Fatal(err)
		}
		semi = append(semi, values)
	}
	for i, s := range first {
		for _, k := range []string{"loss", "loss_ce", "loss_u"} {
			if !relClose(semi[0][k], semi[i][k], 1e-5) {
				t.Errorf("%s: semi step %s %v, dense in 1 chunk %v", names[i], k, semi[i][k], semi[0][k])
			}
		}
		for _, path := range bnVars {
			if d := closeRows([][]float32{storeVar(t, first[0].r, path)}, [][]float32{storeVar(t, s.r, path)}, 1e-5); d != "" {
				t.Errorf("%s: after the semi step %s differs from dense in 1 chunk: %s", names[i], path, d)
			}
		}
	}
}

// TestBatchNormPredictsWithRunningStatistics: with batch_norm, after two
// warm-up steps and two semi-supervised steps (which move the running
// statistics), a graph predicted alone gets the logits and embedding it
// gets among 32 graphs (the running statistics, not the batch's), in both
// layouts, and predicting moves no running statistic.
func TestBatchNormPredictsWithRunningStatistics(t *testing.T) {
	lt := newLetterTask(t)
	for _, layout := range []gnn.Layout{gnn.LayoutDense, gnn.LayoutEdges} {
		t.Run(string(layout), func(t *testing.T) {
			r := bnRun(t, lt, layout, 3, false)
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(1, 2))
			if _, err := r.labelledEpoch(ctx, rng, 2); err != nil {
				t.Fatal(err)
			}
			protos, err := r.cycleStart(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.semiEpoch(ctx, rng, protos, 2); err != nil {
				t.Fatal(err)
			}
			before := storeVar(t, r, bnVars[1])
			views := make([]view, 32)
			for i := range views {
				views[i] = r.wholeView(lt.split.Unlabelled[i])
			}
			logits, emb, err := r.predictViews(ctx, views)
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range []int{0, 7, 31} {
				l1, e1, err := r.predictViews(ctx, views[i:i+1])
				if err != nil {
					t.Fatal(err)
				}
				for k := range l1[0] {
					if d := math.Abs(float64(l1[0][k] - logits[i][k])); d > 1e-5*max(1, math.Abs(float64(logits[i][k]))) {
						t.Errorf("graph %d: logit %d alone %v, in the batch %v", i, k, l1[0][k], logits[i][k])
					}
				}
				for k := range e1[0] {
					if d := math.Abs(float64(e1[0][k] - emb[i][k])); d > 1e-5 {
						t.Errorf("graph %d: embedding %d alone %v, in the batch %v", i, k, e1[0][k], emb[i][k])
						break
					}
				}
			}
			if !slices.Equal(before, storeVar(t, r, bnVars[1])) {
				t.Error("predicting moved the running statistics")
			}
		})
	}
}

// TestBatchNormRun: a tiny ugnn run with batch_norm at the defaults
// otherwise (edge list, lr 1e-3; Letter-high low, 24 steps: 6 warm-up, 2
// cycles of 9) finishes, every logged loss is finite and the loss moved,
// and every unknown score, logit and embedding it predicts is finite.
func TestBatchNormRun(t *testing.T) {
	lt := newLetterTask(t)
	p := lt.params(2)
	p["steps"], p["warmup_frac"], p["batch_norm"] = 24, 0.25, true
	var reported [][]int
	task := lt.task(p, 1, &reported)
	log := &curveLog{}
	task.Log = log
	pred, err := (method{Variants[0]}).Fit(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	var losses []float64
	for i, pt := range log.points {
		for _, k := range []string{"loss", "loss_ce", "loss_u"} {
			if v, ok := pt[k]; ok && !finite(v) {
				t.Errorf("epoch %d: %s = %v", i+1, k, v)
			}
		}
		losses = append(losses, pt["loss"])
	}
	if len(losses) < 2 || losses[0] == losses[len(losses)-1] {
		t.Errorf("losses %v: too few epochs or the loss did not move", losses)
	}
	if len(reported) != 2 {
		t.Errorf("%d OOD sets reported, want 2", len(reported))
	}
	for i, s := range pred.UnknownScore {
		if !finite(s) {
			t.Fatalf("unknown score %d = %v", i, s)
		}
	}
	for name, rows := range map[string][][]float32{"logits": pred.Logits, "embeddings": pred.Embeddings} {
		for i, row := range rows {
			for _, v := range row {
				if !finite(float64(v)) {
					t.Fatalf("%s of graph %d: %v", name, i, row)
				}
			}
		}
	}
	t.Logf("losses %v", losses)
}
