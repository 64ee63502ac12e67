package gnn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
)

func testBackend(t testing.TB) compute.Backend {
	t.Helper()
	b, err := NewBackend("go")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// undirected builds a Graph from an undirected edge list, with one feature
// per node equal to feat[v].
func undirected(n int, edges [][2]int32, feat []float32) datasets.Graph {
	g := datasets.Graph{NumNodes: n, Features: feat}
	for _, e := range edges {
		g.Src = append(g.Src, e[0], e[1])
		g.Dst = append(g.Dst, e[1], e[0])
	}
	return g
}

func TestKeepCount(t *testing.T) {
	for _, c := range []struct {
		ratio float64
		n     int
		want  int
	}{{0.8, 5, 4}, {0.8, 4, 4}, {0.8, 3, 3}, {0.8, 1, 1}, {0.5, 7, 4}, {0.8, 10, 8}, {1, 6, 6}, {0.8, 20, 16}} {
		if got := KeepCount(c.ratio, c.n); got != c.want {
			t.Errorf("KeepCount(%g, %d) = %d, want %d", c.ratio, c.n, got, c.want)
		}
	}
}

func TestBuckets(t *testing.T) {
	for _, c := range []struct{ n, want int }{{1, 4}, {4, 4}, {5, 8}, {9, 12}, {33, 48}, {77, 80}, {200, 256}, {513, 768}} {
		if got := BucketNodes(c.n); got != c.want {
			t.Errorf("BucketNodes(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	for _, c := range []struct{ b, maxB, want int }{{1, 256, 8}, {9, 256, 16}, {200, 256, 256}, {44, 256, 64}, {100, 100, 100}, {70, 100, 100}} {
		if got := BucketGraphs(c.b, c.maxB); got != c.want {
			t.Errorf("BucketGraphs(%d, %d) = %d, want %d", c.b, c.maxB, got, c.want)
		}
	}
}

func TestNewBatchLayout(t *testing.T) {
	// Directed edge 1→0 must land at A[0][1] (row = receiver).
	g := undirected(2, [][2]int32{{0, 1}}, []float32{1, 2})
	b := NewBatch([]datasets.Graph{g}, &Features{Dim: 1, Nodes: [][]float32{{1, 2}}}, []int{0}, 8)
	if b.B != 8 || b.N != 4 {
		t.Fatalf("B, N = %d, %d; want 8, 4", b.B, b.N)
	}
	if b.A[0*4+1] != 1 || b.A[1*4+0] != 1 || b.A[0] != 0 {
		t.Errorf("adjacency block = %v", b.A[:16])
	}
	if b.Weight[0] != 1 || b.Weight[1] != 0 || b.Mask[1*4] != 1 || b.Mask[1*4+1] != 0 {
		t.Errorf("padding slot: weight %v mask %v", b.Weight[:2], b.Mask[4:8])
	}
}

func TestGINAggregate(t *testing.T) {
	// Path 0-1-2, h = [1, 10, 100], ε = 0.5:
	// (1+ε)h + Σ neighbours = [1.5+10, 15+1+100, 150+10] = [11.5, 116, 160].
	backend := testBackend(t)
	g := undirected(3, [][2]int32{{0, 1}, {1, 2}}, []float32{1, 10, 100})
	b := NewBatch([]datasets.Graph{g}, &Features{Dim: 1, Nodes: [][]float32{g.Features}}, []int{0}, 8)
	x, a, _ := b.Tensors()
	out := MustExecOnce(backend, func(x, a *Node) *Node {
		return GINAggregate(x, a, Const(x.Graph(), float32(0.5)))
	}, x, a)
	got := tensors.MustCopyFlatData[float32](out)
	want := []float32{11.5, 116, 160, 0}
	for i, w := range want {
		if math.Abs(float64(got[i]-w)) > 1e-5 {
			t.Fatalf("aggregate = %v, want %v", got[:4], want)
		}
	}
}

func TestTopKPoolPerGraph(t *testing.T) {
	// Graph 0: path 0-1-2-3-4 with scores = features [5, 1, 4, 2, 3]:
	// keeps ⌈0.8·5⌉ = 4 nodes {0, 2, 4, 3} in score order; induced edges
	// among them: 2-3 and 3-4 only.
	// Graph 1: triangle with scores [0.1, 0.3, 0.2]: keeps ⌈0.8·3⌉ = 3.
	backend := testBackend(t)
	g0 := undirected(5, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 4}}, []float32{5, 1, 4, 2, 3})
	g1 := undirected(3, [][2]int32{{0, 1}, {1, 2}, {0, 2}}, []float32{0.1, 0.3, 0.2})
	graphs := []datasets.Graph{g0, g1}
	feats := &Features{Dim: 1, Nodes: [][]float32{g0.Features, g1.Features}}
	b := NewBatch(graphs, feats, []int{0, 1}, 8)
	x, a, m := b.Tensors()
	outs := MustExecOnceN(backend, func(x, a, m *Node) []*Node {
		score := Reshape(x, x.Shape().Dim(0), x.Shape().Dim(1))
		p := TopKPool(x, a, m, score, 0.8)
		return []*Node{p.H, p.Adj, p.Mask}
	}, x, a, m)
	K := KeepCount(0.8, b.N)
	h := tensors.MustCopyFlatData[float32](outs[0])
	adj := tensors.MustCopyFlatData[float32](outs[1])
	mask := tensors.MustCopyFlatData[float32](outs[2])
	sum := func(s int) (n float32) {
		for k := 0; k < K; k++ {
			n += mask[s*K+k]
		}
		return
	}
	if sum(0) != 4 || sum(1) != 3 || sum(2) != 1 {
		t.Fatalf("kept per graph = %v, %v, %v; want 4, 3, 1", sum(0), sum(1), sum(2))
	}
	// Kept nodes of graph 0 in order: original ids 0, 2, 4, 3 (scores 5, 4, 3, 2),
	// each gated by tanh(score).
	wantH := []float64{5 * math.Tanh(5), 4 * math.Tanh(4), 3 * math.Tanh(3), 2 * math.Tanh(2)}
	for k, w := range wantH {
		if math.Abs(float64(h[k])-w) > 1e-5 {
			t.Errorf("graph 0 slot %d: h = %v, want %v", k, h[k], w)
		}
	}
	// Induced adjacency among slots (0→id0, 1→id2, 2→id4, 3→id3): edges 2-3 → slots 1-3, 3-4 → slots 3-2.
	wantAdj := map[[2]int]bool{{1, 3}: true, {3, 1}: true, {2, 3}: true, {3, 2}: true}
	for i := 0; i < K; i++ {
		for j := 0; j < K; j++ {
			got := adj[i*K+j] == 1
			if got != wantAdj[[2]int{i, j}] {
				t.Errorf("graph 0 pooled A[%d][%d] = %v", i, j, adj[i*K+j])
			}
		}
	}
	// Graph 1: all three nodes kept, all three edges kept (6 directed).
	var e1 float32
	for i := 0; i < K*K; i++ {
		e1 += adj[K*K+i]
	}
	if e1 != 6 {
		t.Errorf("graph 1 pooled edges = %v, want 6", e1)
	}
}

// TestTopKSelection checks the sort-free selection against OneHot(TopK) —
// what it replaced — on scores with ties and -1e30 padding, and on a
// hand-made row.
func TestTopKSelection(t *testing.T) {
	backend := testBackend(t)
	// Hand-made: s = [0.5, 2, 0.5, -1e30, 3], k = 3 → nodes 4, 1, 0 (the
	// tie 0.5 goes to the lower index 0).
	s := tensors.FromFlatDataAndDimensions([]float32{0.5, 2, 0.5, -1e30, 3}, 1, 5)
	got := tensors.MustCopyFlatData[float32](MustExecOnce(backend, func(s *Node) *Node { return TopKSelection(s, 3) }, s))
	want := []float32{
		0, 0, 0, 0, 1,
		0, 1, 0, 0, 0,
		1, 0, 0, 0, 0,
	}
	if !slices.Equal(got, want) {
		t.Errorf("TopKSelection hand-made = %v, want %v", got, want)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ b, n, k int }{{1, 1, 1}, {4, 7, 6}, {16, 20, 16}, {8, 64, 52}, {3, 9, 9}} {
		data := make([]float32, c.b*c.n)
		for i := range data {
			switch r := rng.IntN(10); {
			case r < 3:
				data[i] = float32(rng.IntN(3)) // frequent ties
			case r < 4:
				data[i] = -1e30 // padding
			default:
				data[i] = float32(rng.NormFloat64())
			}
		}
		s := tensors.FromFlatDataAndDimensions(data, c.b, c.n)
		outs := MustExecOnceN(backend, func(s *Node) []*Node {
			_, idx := TopK(s, c.k, 1)
			return []*Node{TopKSelection(s, c.k), OneHot(idx, c.n, s.DType())}
		}, s)
		got, want := tensors.MustCopyFlatData[float32](outs[0]), tensors.MustCopyFlatData[float32](outs[1])
		if !slices.Equal(got, want) {
			t.Errorf("B=%d N=%d K=%d: TopKSelection differs from OneHot(TopK)", c.b, c.n, c.k)
		}
	}
}

// TestPropagateGradient checks Propagate's custom gradient against the
// plain Einsum's on a directed, weighted adjacency: same value, same
// gradients with respect to h and adj.
func TestPropagateGradient(t *testing.T) {
	backend := testBackend(t)
	rng := rand.New(rand.NewPCG(5, 6))
	const b, n, d = 3, 5, 4
	adjData := make([]float32, b*n*n)
	for i := range adjData {
		if rng.IntN(3) == 0 {
			adjData[i] = float32(rng.Float64()) // directed: adj ≠ adjᵀ
		}
	}
	hData := make([]float32, b*n*d)
	wData := make([]float32, b*n*d)
	for i := range hData {
		hData[i], wData[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	adj := tensors.FromFlatDataAndDimensions(adjData, b, n, n)
	h := tensors.FromFlatDataAndDimensions(hData, b, n, d)
	w := tensors.FromFlatDataAndDimensions(wData, b, n, d)
	outs := MustExecOnceN(backend, func(adj, h, w *Node) []*Node {
		// A loss that is not linear in the output, so v varies per entry.
		loss := func(y *Node) *Node { return ReduceAllSum(Mul(Square(y), w)) }
		custom, plain := Propagate(adj, h), Einsum("bij,bjd->bid", adj, h)
		gc := Gradient(loss(custom), h, adj)
		gp := Gradient(loss(plain), h, adj)
		return []*Node{custom, plain, gc[0], gp[0], gc[1], gp[1]}
	}, adj, h, w)
	for i, name := range []string{"value", "gradient w.r.t. h", "gradient w.r.t. adj"} {
		got, want := tensors.MustCopyFlatData[float32](outs[2*i]), tensors.MustCopyFlatData[float32](outs[2*i+1])
		for j := range want {
			if math.Abs(float64(got[j]-want[j])) > 1e-4*(1+math.Abs(float64(want[j]))) {
				t.Fatalf("%s [%d]: Propagate %v, Einsum %v", name, j, got[j], want[j])
			}
		}
	}
}

// TestReLU checks ReLU's values against GoMLX's activation.Relu and its
// gradient against the known answer (w where x ≥ 0, 0 where x < 0) on
// negatives, zero and positives, and that a NaN input stays NaN (the suite
// relies on NaN losses surfacing as failed runs). At x = 0 our gradient is 1;
// GoMLX's fused Relu (v0.28.16 with compute v0.1.14) gives 0 there, as
// PyTorch does, so the gradients are not compared with it.
func TestReLU(t *testing.T) {
	backend := testBackend(t)
	xData := []float32{-3, -0.5, -1e-7, 0, 1e-7, 0.5, 2, 100}
	wData := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	x := tensors.FromFlatDataAndDimensions(xData, len(xData))
	w := tensors.FromFlatDataAndDimensions(wData, len(wData))
	outs := MustExecOnceN(backend, func(x, w *Node) []*Node {
		ours, theirs := ReLU(x), activation.Relu(x)
		return []*Node{ours, theirs, Gradient(ReduceAllSum(Mul(ours, w)), x)[0]}
	}, x, w)
	if got, want := tensors.MustCopyFlatData[float32](outs[0]), tensors.MustCopyFlatData[float32](outs[1]); !slices.Equal(got, want) {
		t.Errorf("ReLU = %v, activation.Relu = %v", got, want)
	}
	wantGrad := []float32{0, 0, 0, 4, 5, 6, 7, 8}
	if got := tensors.MustCopyFlatData[float32](outs[2]); !slices.Equal(got, wantGrad) {
		t.Errorf("ReLU gradient = %v, want %v", got, wantGrad)
	}

	nan := float32(math.NaN())
	xn := tensors.FromFlatDataAndDimensions([]float32{-1, nan, 0, 2}, 4)
	got := tensors.MustCopyFlatData[float32](MustExecOnce(backend, func(x *Node) *Node { return ReLU(x) }, xn))
	if got[0] != 0 || !math.IsNaN(float64(got[1])) || got[2] != 0 || got[3] != 2 {
		t.Errorf("ReLU([-1, NaN, 0, 2]) = %v, want [0, NaN, 0, 2]", got)
	}
}

// TestLinearKnownAnswer checks Linear and LinearReLU (one fused dense op)
// on x of rank 2 and 3: the value and the gradients of Σ c·y with respect to
// x, W and b against a float64 computation from the stored variables. The
// "tiles" cases have 37 rows of 20 inputs and 40 outputs, so that the weight
// gradient's transpose of x has whole 8×8 tiles and ragged edges (the
// tiled loop of contrib/compute-patch, under `make`).
func TestLinearKnownAnswer(t *testing.T) {
	hand := []float32{1, -2, 0.5, 3, 0, -1, 2, 1, -0.5, 0.25, -3, 1.5}
	handC := []float32{1, -1, 2, 0.5, -2, 1, 3, -0.5}
	for _, c := range []struct {
		name string
		dims []int
		out  int
		relu bool
	}{
		{"rank2", []int{4, 3}, 2, false},
		{"rank2-relu", []int{4, 3}, 2, true},
		{"rank3", []int{2, 2, 3}, 2, false},
		{"rank3-relu", []int{2, 2, 3}, 2, true},
		{"tiles", []int{37, 20}, 40, false},
		{"tiles-relu", []int{37, 20}, 40, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, out := c.dims[len(c.dims)-1], c.out
			rows := 1
			for _, d := range c.dims[:len(c.dims)-1] {
				rows *= d
			}
			xData, cData := hand, handC
			if rows*in != len(hand) { // values in [-2, 2] with both signs, no pattern of 8
				xData, cData = make([]float32, rows*in), make([]float32, rows*out)
				for i := range xData {
					xData[i] = float32((i*37)%29-14) / 7
				}
				for i := range cData {
					cData[i] = float32((i*13)%23-11) / 5
				}
			}
			store := model.NewStore()
			if err := SetSeed(store, 5); err != nil {
				t.Fatal(err)
			}
			outDims := append(slices.Clone(c.dims[:len(c.dims)-1]), out)
			exec := model.MustNewExec(testBackend(t), store, func(scope *model.Scope, inputs []*Node) []*Node {
				x, cw := inputs[0], inputs[1]
				s := scope.In("lin")
				var y *Node
				if c.relu {
					y = LinearReLU(s, x, out)
				} else {
					y = Linear(s, x, out)
				}
				loss := ReduceAllSum(Mul(y, Reshape(cw, outDims...)))
				g := x.Graph()
				grads := Gradient(loss, x, s.GetVariable("weights").NodeValue(g), s.GetVariable("biases").NodeValue(g))
				return append([]*Node{y}, grads...)
			})
			outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(xData, c.dims...), tensors.FromFlatDataAndDimensions(cData, rows*out))
			if err != nil {
				t.Fatal(err)
			}
			if got := outs[0].Shape().Dimensions; !slices.Equal(got, outDims) {
				t.Fatalf("output shape %v, want %v", got, outDims)
			}
			var w, b []float32
			for v := range store.IterVariables() {
				val, err := v.Value()
				if err != nil {
					t.Fatal(err)
				}
				switch v.Scope() + "/" + v.Name() {
				case "/lin/weights":
					w = tensors.MustCopyFlatData[float32](val)
				case "/lin/biases":
					b = tensors.MustCopyFlatData[float32](val)
				}
			}
			wantY := make([]float64, rows*out)
			wantDx := make([]float64, rows*in)
			wantDw := make([]float64, in*out)
			wantDb := make([]float64, out)
			for r := range rows {
				for o := range out {
					z := float64(b[o])
					for i := range in {
						z += float64(xData[r*in+i]) * float64(w[i*out+o])
					}
					dz := float64(cData[r*out+o])
					if c.relu && z <= 0 {
						z, dz = 0, 0
					}
					wantY[r*out+o] = z
					wantDb[o] += dz
					for i := range in {
						wantDx[r*in+i] += dz * float64(w[i*out+o])
						wantDw[i*out+o] += dz * float64(xData[r*in+i])
					}
				}
			}
			for k, want := range [][]float64{wantY, wantDx, wantDw, wantDb} {
				got := tensors.MustCopyFlatData[float32](outs[k])
				for j := range want {
					if math.Abs(float64(got[j])-want[j]) > 1e-5*(1+math.Abs(want[j])) {
						t.Errorf("%s [%d] = %v, want %v", []string{"y", "dL/dx", "dL/dW", "dL/db"}[k], j, got[j], want[j])
					}
				}
			}
		})
	}
}

// TestMeanMaxReadout checks the readout's value and its gradient, in both
// layouts (MeanMaxReadoutEdges on the same rows), on graphs with negative
// features and junk in the padding rows: mean and max run over
// the real nodes only, the mean's gradient is 1/count on real rows, the
// max's goes to the arg max, and padding rows get none.
func TestMeanMaxReadout(t *testing.T) {
	for _, c := range []struct {
		name           string
		h, mask        []float32 // h [2, 3, 2], mask [2, 3]
		want, wantGrad []float32 // [2, 4]; d(Σ out)/dh [2, 3, 2]
	}{
		{
			name: "negative-and-junk-padding",
			h:    []float32{-1, -4, -3, 2, 100, 100, -2, -5, 50, 50, 60, 60},
			mask: []float32{1, 1, 0, 1, 0, 0},
			want: []float32{-2, -1, -1, 2, -2, -5, -2, -5},
			// graph 0: mean ½ each + max on row 0 (col 0) and row 1 (col 1); graph 1: one node.
			wantGrad: []float32{1.5, 0.5, 0.5, 1.5, 0, 0, 2, 2, 0, 0, 0, 0},
		},
		{
			name: "all-real",
			h:    []float32{1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 1},
			mask: []float32{1, 1, 1, 1, 1, 1},
			want: []float32{3, 2, 5, 4, 0, 1.0 / 3, 0, 1},
			// graph 1, column 0: a three-way tie at 0, each tied node gets the max's full gradient.
			wantGrad: []float32{1.0 / 3, 1.0 / 3, 1.0 / 3, 4.0 / 3, 4.0 / 3, 1.0 / 3, 4.0 / 3, 1.0 / 3, 4.0 / 3, 1.0 / 3, 4.0 / 3, 4.0 / 3},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs := MustExecOnceN(testBackend(t), func(h, mask *Node) []*Node {
				r := MeanMaxReadout(h, mask)
				return []*Node{r, Gradient(ReduceAllSum(r), h)[0]}
			}, tensors.FromFlatDataAndDimensions(c.h, 2, 3, 2), tensors.FromFlatDataAndDimensions(c.mask, 2, 3))
			// The edge-list readout on the same rows as [6, 2] (slot 0's three
			// rows, then slot 1's) plus one padding row of junk in slot B = 2.
			graphIDs := tensors.FromFlatDataAndDimensions([]int32{0, 0, 0, 1, 1, 1, 2}, 7)
			noEdge := tensors.FromFlatDataAndDimensions([]int32{6}, 1)
			edgeOuts := MustExecOnceN(testBackend(t), func(h, mask, gid, ends *Node) []*Node {
				e := NewEdgeGraph(ends, ends, ZerosLike(ConvertDType(ends, h.DType())), gid, 2)
				r := MeanMaxReadoutEdges(h, mask, e)
				return []*Node{r, Gradient(ReduceAllSum(r), h)[0]}
			}, tensors.FromFlatDataAndDimensions(append(slices.Clone(c.h), 99, 99), 7, 2),
				tensors.FromFlatDataAndDimensions(append(slices.Clone(c.mask), 0), 7), graphIDs, noEdge)
			for layout, o := range [][]*tensors.Tensor{outs, edgeOuts} {
				for k, want := range [][]float32{c.want, c.wantGrad} {
					got := tensors.MustCopyFlatData[float32](o[k])
					for j := range want {
						if math.Abs(float64(got[j]-want[j])) > 1e-6 {
							t.Fatalf("%s %s = %v, want %v", []string{"dense", "edges"}[layout], []string{"readout", "gradient"}[k], got, want)
						}
					}
				}
			}
		})
	}
}

// TestL2NormalizeEps checks L2NormalizeEps against GoMLX's
// L2NormalizeWithEpsilon: equal values and gradients, bit for bit, on
// nonzero rows; on an exactly zero row a zero value and the finite
// gradient v/(1+eps), where L2NormalizeWithEpsilon's gradient is NaN (the
// NaN that stopped UGNN+ runs on COIL-DEL).
func TestL2NormalizeEps(t *testing.T) {
	backend := testBackend(t)
	const eps = 1e-12
	xData := []float32{3, -4, 0.5, 1e-3, 2e-3, -7, 0, 0, 0, 10, 0, 0}
	vData := []float32{1, 2, -1, 0.5, -3, 2, 4, -2, 1, 1, 1, 1}
	x := tensors.FromFlatDataAndDimensions(xData, 4, 3)
	v := tensors.FromFlatDataAndDimensions(vData, 4, 3)
	outs := MustExecOnceN(backend, func(x, v *Node) []*Node {
		ours, theirs := L2NormalizeEps(x, eps), L2NormalizeWithEpsilon(x, eps, -1)
		return []*Node{ours, theirs,
			Gradient(ReduceAllSum(Mul(ours, v)), x)[0], Gradient(ReduceAllSum(Mul(theirs, v)), x)[0]}
	}, x, v)
	val, ref := tensors.MustCopyFlatData[float32](outs[0]), tensors.MustCopyFlatData[float32](outs[1])
	grad, refGrad := tensors.MustCopyFlatData[float32](outs[2]), tensors.MustCopyFlatData[float32](outs[3])
	for i := range xData {
		row := i / 3
		if row == 2 { // the zero row
			if val[i] != 0 {
				t.Errorf("value[%d] = %v on a zero row, want 0", i, val[i])
			}
			if want := vData[i] / (1 + eps); grad[i] != want {
				t.Errorf("gradient[%d] = %v on a zero row, want %v", i, grad[i], want)
			}
			if !math.IsNaN(float64(refGrad[i])) {
				t.Errorf("L2NormalizeWithEpsilon's gradient[%d] = %v on a zero row: no longer NaN, L2NormalizeEps may be dropped", i, refGrad[i])
			}
			continue
		}
		if math.Float32bits(val[i]) != math.Float32bits(ref[i]) || math.Float32bits(grad[i]) != math.Float32bits(refGrad[i]) {
			t.Errorf("element %d: value %v gradient %v, L2NormalizeWithEpsilon %v %v", i, val[i], grad[i], ref[i], refGrad[i])
		}
	}
	if n := math.Hypot(3, -4); math.Abs(float64(val[0])-3/math.Sqrt(n*n+0.25)) > 1e-6 {
		t.Errorf("value[0] = %v, want %v", val[0], 3/math.Sqrt(n*n+0.25))
	}
}
