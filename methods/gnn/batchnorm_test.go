package gnn

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
)

// f32 packs values into a float32 tensor of dims.
func f32(dims []int, v ...float64) *tensors.Tensor {
	flat := make([]float32, len(v))
	for i, x := range v {
		flat[i] = float32(x)
	}
	return tensors.FromFlatDataAndDimensions(flat, dims...)
}

// varValues reads a float32 variable of store by its path.
func varValues(t *testing.T, store *model.Store, path string) []float32 {
	t.Helper()
	v := store.GetVariable(path)
	if v == nil {
		t.Fatalf("no variable %s", path)
	}
	val, err := v.Value()
	if err != nil {
		t.Fatal(err)
	}
	return tensors.MustCopyFlatData[float32](val)
}

// The hand-made batch of the BatchNorm tests: three real rows [1, 2],
// [3, 6], [5, 4] and a padding row (weight 0). Per column μ = [3, 4], the
// deviations are [−2, −2], [0, 2], [2, 0], so the biased variance is
// σ² = 8/3 in both columns and the unbiased one 4.
var bnRows = [][2]float64{{1, 2}, {3, 6}, {5, 4}}

// TestMaskedBatchNorm: MaskedBatchNorm (training mode, no running
// statistics) of the hand-made batch, laid out as rows [4, 2] with the
// padding row [100, 100] in the middle, and as a dense batch [2, 2, 2]
// whose slot 1 node 1 is the padding row [100, −100]: at γ = 1, β = 0 the
// real rows become (x − μ)/√(8/3 + 1e-5) (PyTorch's BatchNorm1d in
// training mode gives the same), the padding row does not move them and
// stays finite.
func TestMaskedBatchNorm(t *testing.T) {
	for _, c := range []struct {
		name string
		x, w *tensors.Tensor
		real []int // the flat row index of bnRows[i]
	}{
		{"rows", f32([]int{4, 2}, 1, 2, 100, 100, 3, 6, 5, 4), f32([]int{4}, 1, 0, 1, 1), []int{0, 2, 3}},
		{"dense", f32([]int{2, 2, 2}, 1, 2, 3, 6, 5, 4, 100, -100), f32([]int{2, 2}, 1, 1, 1, 0), []int{0, 1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := model.NewExec(testBackend(t), model.NewStore(), func(scope *model.Scope, in []*Node) []*Node {
				return []*Node{MaskedBatchNorm(scope.At("bn"), in[0], in[1])}
			})
			if err != nil {
				t.Fatal(err)
			}
			out, err := e.Exec(c.x, c.w)
			if err != nil {
				t.Fatal(err)
			}
			got := tensors.MustCopyFlatData[float32](out[0])
			sd := math.Sqrt(8.0/3 + BatchNormEps)
			for i, r := range c.real {
				for k := range 2 {
					want := (bnRows[i][k] - []float64{3, 4}[k]) / sd
					if g := float64(got[2*r+k]); math.Abs(g-want) > 1e-6 {
						t.Errorf("row %d col %d = %v, want %v", r, k, g, want)
					}
				}
			}
			for _, v := range got {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Errorf("non-finite output %v (all %v)", v, got)
				}
			}
		})
	}
}

// TestBatchNormRunningStatistics: BatchNorm on the hand-made batch, as
// edge-list rows [4, D], as a dense batch [2, 2, D], and as two parts
// (size chunks) normalised together. Each training step normalises the
// real rows with the batch's statistics, (x − μ)/√(8/3 + 1e-5), and moves
// the running statistics by momentum 0.1 from (0, 1): after one step
// running_mean = 0.1·μ = [0.3, 0.4], running_var = 0.9 + 0.1·4 = 1.3 (the
// unbiased variance), after two 0.9·0.3 + 0.1·3 = 0.57, 0.9·0.4 + 0.4 =
// 0.76 and 0.9·1.3 + 0.4 = 1.57. An inference graph then normalises every
// row, the padding row too, with the running statistics and moves
// nothing, so one row alone gets what it gets in the batch.
func TestBatchNormRunningStatistics(t *testing.T) {
	rows := f32([]int{4, 2}, 1, 2, 3, 6, 5, 4, 100, -100)
	rowsW := f32([]int{4}, 1, 1, 1, 0)
	for _, c := range []struct {
		name string
		in   []any // xs then ws, as many of each
		real [][]int
	}{
		{"rows", []any{rows, rowsW}, [][]int{{0, 0}, {0, 1}, {0, 2}}},
		{"dense", []any{f32([]int{2, 2, 2}, 1, 2, 3, 6, 5, 4, 100, -100), f32([]int{2, 2}, 1, 1, 1, 0)}, [][]int{{0, 0}, {0, 1}, {0, 2}}},
		{"parts", []any{f32([]int{1, 2}, 3, 6), f32([]int{3, 2}, 100, -100, 1, 2, 5, 4), f32([]int{1}, 1), f32([]int{3}, 0, 1, 1)},
			[][]int{{1, 1}, {0, 0}, {1, 2}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := model.NewStore()
			execs := NewExecs(testBackend(t), store)
			defer execs.Close()
			fn := func(scope *model.Scope, in []*Node) []*Node {
				k := len(in) / 2
				return BatchNorm(scope.In("bn"), in[:k], in[k:])
			}
			step, err := execs.Step(fn)
			if err != nil {
				t.Fatal(err)
			}
			infer, err := execs.Infer(fn)
			if err != nil {
				t.Fatal(err)
			}
			out, err := step.Exec(c.in...)
			if err != nil {
				t.Fatal(err)
			}
			sd := math.Sqrt(8.0/3 + BatchNormEps)
			for i, pr := range c.real {
				got := tensors.MustCopyFlatData[float32](out[pr[0]])
				for k := range 2 {
					want := (bnRows[i][k] - []float64{3, 4}[k]) / sd
					if g := float64(got[2*pr[1]+k]); math.Abs(g-want) > 1e-6 {
						t.Errorf("training: row %d col %d = %v, want %v", i, k, g, want)
					}
				}
			}
			checkVar := func(name string, want ...float64) {
				t.Helper()
				got := varValues(t, store, "/bn/"+name)
				for k, w := range want {
					if math.Abs(float64(got[k])-w) > 1e-6 {
						t.Errorf("%s = %v, want %v", name, got, want)
						break
					}
				}
			}
			checkVar("running_mean", 0.3, 0.4)
			checkVar("running_var", 1.3, 1.3)
			if _, err := step.Exec(c.in...); err != nil {
				t.Fatal(err)
			}
			checkVar("running_mean", 0.57, 0.76)
			checkVar("running_var", 1.57, 1.57)
			if store.GetVariable("/bn/running_mean").Trainable || !store.GetVariable("/bn/gamma").Trainable {
				t.Error("running_mean trainable or gamma not")
			}
			// Inference: the running statistics, every row; nothing moves.
			out, err = infer.Exec(rows, rowsW)
			if err != nil {
				t.Fatal(err)
			}
			got := tensors.MustCopyFlatData[float32](out[0])
			mean, sdr := []float64{0.57, 0.76}, math.Sqrt(1.57+BatchNormEps)
			for i, v := range [][2]float64{{1, 2}, {3, 6}, {5, 4}, {100, -100}} {
				for k := range 2 {
					want := (v[k] - mean[k]) / sdr
					if g := float64(got[2*i+k]); math.Abs(g-want) > 1e-5*max(1, math.Abs(want)) {
						t.Errorf("inference: row %d col %d = %v, want %v", i, k, g, want)
					}
				}
			}
			checkVar("running_mean", 0.57, 0.76)
			one, err := infer.Exec(f32([]int{1, 2}, 5, 4), f32([]int{1}, 1))
			if err != nil {
				t.Fatal(err)
			}
			if g := tensors.MustCopyFlatData[float32](one[0]); g[0] != got[4] || g[1] != got[5] {
				t.Errorf("inference: row [5, 4] alone gives %v, in the batch %v", g, got[4:6])
			}
		})
	}
}

// TestBatchNormChainsUpdates: a training graph that normalises two
// batches in one scope (UGNN's semi step: labelled batch, view 1, view 2)
// moves the running statistics twice, in call order: running_mean =
// 0.9·(0.1·μ) + 0.1·μ = 0.19·μ.
func TestBatchNormChainsUpdates(t *testing.T) {
	store := model.NewStore()
	execs := NewExecs(testBackend(t), store)
	defer execs.Close()
	step, err := execs.Step(func(scope *model.Scope, in []*Node) []*Node {
		a := BatchNorm(scope.At("bn"), in[:1], in[1:])
		b := BatchNorm(scope.At("bn"), in[:1], in[1:])
		return append(a, b...)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := step.Exec(f32([]int{4, 2}, 1, 2, 3, 6, 5, 4, 100, -100), f32([]int{4}, 1, 1, 1, 0)); err != nil {
		t.Fatal(err)
	}
	got := varValues(t, store, "/bn/running_mean")
	if math.Abs(float64(got[0])-0.57) > 1e-6 || math.Abs(float64(got[1])-0.76) > 1e-6 {
		t.Errorf("running_mean = %v, want [0.57 0.76]", got)
	}
}

// ginBNReference is GINConvBN at ε = 0, γ = 1, β = 0 in float64, in
// training mode: z = h + A·h over graphs (features x[g] [n][D]), then
// Linear (W0 [Din][H], b0) → BatchNorm over all real nodes of all graphs
// → ReLU → Linear (W1 [H][H], b1) → BatchNorm → ReLU. It returns every
// graph's node rows [n][H].
func ginBNReference(graphs []datasets.Graph, x [][]float32, din, hidden int, w0, b0, w1, b1 []float32) [][][]float64 {
	var rows [][]float64 // all real nodes, graph by graph
	for gi, g := range graphs {
		z := make([][]float64, g.NumNodes)
		for v := range z {
			z[v] = make([]float64, din)
			for k := range din {
				z[v][k] = float64(x[gi][v*din+k])
			}
		}
		agg := make([][]float64, g.NumNodes)
		for v := range agg {
			agg[v] = append([]float64(nil), z[v]...)
		}
		for e := range g.Src {
			for k := range din {
				agg[g.Dst[e]][k] += z[g.Src[e]][k]
			}
		}
		rows = append(rows, agg...)
	}
	linear := func(in [][]float64, w, b []float32, nin int) [][]float64 {
		out := make([][]float64, len(in))
		for r, row := range in {
			out[r] = make([]float64, hidden)
			for j := range hidden {
				s := float64(b[j])
				for k := range nin {
					s += row[k] * float64(w[k*hidden+j])
				}
				out[r][j] = s
			}
		}
		return out
	}
	bnReLU := func(in [][]float64) [][]float64 {
		n := float64(len(in))
		for j := range hidden {
			var mean, sq float64
			for _, row := range in {
				mean += row[j] / n
			}
			for _, row := range in {
				sq += (row[j] - mean) * (row[j] - mean) / n
			}
			for _, row := range in {
				row[j] = max(0, (row[j]-mean)/math.Sqrt(sq+BatchNormEps))
			}
		}
		return in
	}
	rows = bnReLU(linear(bnReLU(linear(rows, w0, b0, din)), w1, b1, hidden))
	out := make([][][]float64, len(graphs))
	for gi, g := range graphs {
		out[gi], rows = rows[:g.NumNodes], rows[g.NumNodes:]
	}
	return out
}

// TestGINConvBNLayouts: one training-mode GINConvBN on a hand-made batch
// (a 3-node path and a 2-node edge, 2 features, in B = 8 slots: six
// padding slots, each a zero node with mask 1 and slot weight 0), dense
// (GINConvBN with RealNodes) and edge list (GINConvBNEdges with
// RealNodesEdges), each in its own store from the same seed: both match a
// float64 hand computation whose BatchNorm statistics cover the 5 real
// nodes only (the padding slots' nodes, Linear(0) = b₀ after the first
// layer, would move them), padding rows (mask 0) are 0, and both layouts
// leave the same running statistics.
func TestGINConvBNLayouts(t *testing.T) {
	g0 := undirected(3, [][2]int32{{0, 1}, {1, 2}}, []float32{1, -1, 0.5, 2, -0.3, 0.7})
	g1 := undirected(2, [][2]int32{{0, 1}}, []float32{1.5, 0.2, -2, 0.5})
	graphs := []datasets.Graph{g0, g1}
	feats := &Features{Dim: 2, Nodes: [][]float32{g0.Features, g1.Features}}
	const hidden = 3
	type result struct {
		rows        [][][]float32 // per graph, node rows [n][hidden]
		padding     []float32     // every padding row's values
		mean, vari  []float32     // the running statistics of "bn"
		w0, b0, w1s []float32
		b1          []float32
	}
	run := func(edges bool) result {
		store := model.NewStore()
		if err := SetSeed(store, 1); err != nil {
			t.Fatal(err)
		}
		execs := NewExecs(testBackend(t), store)
		defer execs.Close()
		var in []any
		var weight *tensors.Tensor
		var slots int
		if edges {
			b := NewEdgeBatch(graphs, feats, []int{0, 1}, 8)
			for _, x := range b.Tensors() {
				in = append(in, x)
			}
			weight, slots = tensors.FromFlatDataAndDimensions(b.Weight, b.B), b.B
		} else {
			b := NewBatch(graphs, feats, []int{0, 1}, 8)
			x, a, m := b.Tensors()
			in = []any{x, a, m}
			weight, slots = tensors.FromFlatDataAndDimensions(b.Weight, b.B), b.B
		}
		if slots != 8 {
			t.Fatalf("%d slots, want 8", slots)
		}
		step, err := execs.Step(func(scope *model.Scope, in []*Node) []*Node {
			w := in[len(in)-1]
			if edges {
				ei := NewEdgeInputs(in[:6], w.Shape().Dim(0))
				e := NewEdgeGraph(ei.Src, ei.Dst, ei.EdgeWeight, ei.Graph, ei.NumGraphs)
				return GINConvBNEdges(scope.In("conv"), []*Node{ei.X}, []EdgeGraph{e}, []*Node{ei.Mask}, []*Node{RealNodesEdges(ei.Mask, w, e)}, hidden)
			}
			return GINConvBN(scope.In("conv"), in[:1], in[1:2], in[2:3], []*Node{RealNodes(in[2], w)}, hidden)
		})
		if err != nil {
			t.Fatal(err)
		}
		out, err := step.Exec(append(in, weight)...)
		if err != nil {
			t.Fatal(err)
		}
		h := tensors.MustCopyFlatData[float32](out[0])
		var r result
		var mask []float32
		if edges {
			mask = tensors.MustCopyFlatData[float32](in[5].(*tensors.Tensor))
		} else {
			mask = tensors.MustCopyFlatData[float32](in[2].(*tensors.Tensor))
		}
		for v, m := range mask { // padding rows; a padding slot's node has mask 1
			if m == 0 {
				r.padding = append(r.padding, h[v*hidden:(v+1)*hidden]...)
			}
		}
		if edges {
			n := 0
			for _, g := range graphs {
				var rows [][]float32
				for v := range g.NumNodes {
					rows = append(rows, h[(n+v)*hidden:(n+v+1)*hidden])
				}
				r.rows, n = append(r.rows, rows), n+g.NumNodes
			}
		} else {
			n := len(mask) / slots // padded nodes per slot
			for s, g := range graphs {
				var rows [][]float32
				for v := range g.NumNodes {
					rows = append(rows, h[(s*n+v)*hidden:(s*n+v+1)*hidden])
				}
				r.rows = append(r.rows, rows)
			}
		}
		r.mean, r.vari = varValues(t, store, "/conv/bn/running_mean"), varValues(t, store, "/conv/bn/running_var")
		r.w0, r.b0 = varValues(t, store, "/conv/mlp/layer_0/weights"), varValues(t, store, "/conv/mlp/layer_0/biases")
		r.w1s, r.b1 = varValues(t, store, "/conv/mlp/layer_1/weights"), varValues(t, store, "/conv/mlp/layer_1/biases")
		return r
	}
	dense, edges := run(false), run(true)
	want := ginBNReference(graphs, feats.Nodes, 2, hidden, dense.w0, dense.b0, dense.w1s, dense.b1)
	for name, r := range map[string]result{"dense": dense, "edges": edges} {
		for gi := range graphs {
			for v, row := range want[gi] {
				for j, w := range row {
					if g := float64(r.rows[gi][v][j]); math.Abs(g-w) > 1e-5*max(1, math.Abs(w)) {
						t.Errorf("%s: graph %d node %d col %d = %v, want %v", name, gi, v, j, g, w)
					}
				}
			}
		}
		for i, v := range r.padding {
			if v != 0 {
				t.Errorf("%s: padding value %d = %v, want 0", name, i, v)
				break
			}
		}
		for j := range hidden {
			if math.Abs(float64(r.mean[j]-dense.mean[j])) > 1e-6 || math.Abs(float64(r.vari[j]-dense.vari[j])) > 1e-6 {
				t.Errorf("%s: running statistics %v %v, dense %v %v", name, r.mean, r.vari, dense.mean, dense.vari)
				break
			}
		}
	}
	// The statistics saw real nodes: the second BatchNorm's input had
	// batch mean μ, so running_mean = 0.1·μ, not 0 and not what the
	// padding nodes would add.
	var moved bool
	for _, m := range dense.mean {
		moved = moved || m != 0
	}
	if !moved {
		t.Error("running_mean did not move")
	}
}
