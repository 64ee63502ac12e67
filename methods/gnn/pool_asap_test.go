package gnn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

// membership returns Â's pattern of a batch as [B, N, N] float32: A plus a
// self-loop on every real node.
func membership(b *Batch) *tensors.Tensor {
	m := make([]float32, len(b.A))
	for s := 0; s < b.B; s++ {
		for i := 0; i < b.N; i++ {
			for j := 0; j < b.N; j++ {
				k := s*b.N*b.N + i*b.N + j
				if b.A[k] != 0 || (i == j && b.Mask[s*b.N+i] != 0) {
					m[k] = 1
				}
			}
		}
	}
	return tensors.FromFlatDataAndDimensions(m, b.B, b.N, b.N)
}

func TestEdgeList(t *testing.T) {
	b := batchOf(1, 8, undirected(3, [][2]int32{{0, 1}, {1, 2}}, []float32{1, 2, 3}),
		directed(2, [][2]int32{{1, 0}}, []float32{4, 5}))
	mem := membership(b)
	flat := tensors.MustCopyFlatData[float32](mem)
	// Expected pairs in row-major (b, i, j) order.
	var wantDst, wantSrc []int32
	for s := 0; s < b.B; s++ {
		for i := 0; i < b.N; i++ {
			for j := 0; j < b.N; j++ {
				if flat[s*b.N*b.N+i*b.N+j] != 0 {
					wantDst = append(wantDst, int32(s*b.N+i))
					wantSrc = append(wantSrc, int32(s*b.N+j))
				}
			}
		}
	}
	// Path: 7 entries; edge 1→0 + 2 loops: 3; six padding slots: 1 each.
	if len(wantDst) != 16 {
		t.Fatalf("test batch has %d non-zeros, want 16", len(wantDst))
	}
	dump := int32(b.B * b.N)
	for _, capacity := range []int{16, 20, 10} {
		t.Run(fmt.Sprint(capacity), func(t *testing.T) {
			outs := MustExecOnceN(testBackend(t), func(m *Node) []*Node {
				d, s := EdgeList(m, capacity)
				return []*Node{d, s}
			}, mem)
			dst := tensors.MustCopyFlatData[int32](outs[0])
			src := tensors.MustCopyFlatData[int32](outs[1])
			for e := 0; e < capacity; e++ {
				wd, ws := dump, dump
				if e < len(wantDst) {
					wd, ws = wantDst[e], wantSrc[e]
				}
				if dst[e] != wd || src[e] != ws {
					t.Fatalf("edge %d = (%d ← %d), want (%d ← %d); all dst %v src %v", e, dst[e], src[e], wd, ws, dst, src)
				}
			}
		})
	}
}

func TestClusterMax(t *testing.T) {
	// Path 0-1-2 with h = (1,5), (3,2), (2,7): clusters {0,1}, {0,1,2}, {1,2}.
	// A single node with negative features: its max is itself, not 0.
	g0 := undirected(3, [][2]int32{{0, 1}, {1, 2}}, []float32{1, 5, 3, 2, 2, 7})
	g1 := undirected(1, nil, []float32{-1, -2})
	b := batchOf(2, 8, g0, g1)
	x, _, m := b.Tensors()
	mem := membership(b)
	want := map[[2]int][]float32{{0, 0}: {3, 5}, {0, 1}: {3, 7}, {0, 2}: {3, 7}, {1, 0}: {-1, -2}}
	for _, c := range []struct {
		name string
		fn   func(h, member, mask *Node) *Node
	}{
		{"dense", func(h, member, mask *Node) *Node { return ClusterMaxDense(h, member, mask) }},
		{"edges", func(h, member, mask *Node) *Node {
			return ClusterMaxEdges(h, member, mask, NewEdgeBudget([]datasets.Graph{g0, g1}).Capacity(b.B, b.N))
		}},
		{"edges N(N-1)", func(h, member, mask *Node) *Node {
			return ClusterMaxEdges(h, member, mask, EdgeBudget(nil).Capacity(b.B, b.N))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := MustExecOnce(testBackend(t), func(h, member, mask *Node) *Node {
				return c.fn(h, GreaterThan(member, ZerosLike(member)), mask)
			}, x, mem, m)
			got := tensors.MustCopyFlatData[float32](out)
			for s := 0; s < b.B; s++ {
				for i := 0; i < b.N; i++ {
					w := want[[2]int{s, i}]
					if w == nil {
						w = []float32{0, 0} // padding nodes and padding slots' zero node
					}
					row := got[(s*b.N+i)*2 : (s*b.N+i)*2+2]
					if !slices.Equal(row, w) {
						t.Errorf("slot %d node %d: max = %v, want %v", s, i, row, w)
					}
				}
			}
		})
	}
}

// asapVars returns the float32 variables of store by "scope/name".
func floatVars(t *testing.T, store *model.Store) map[string][]float32 {
	t.Helper()
	vars := map[string][]float32{}
	for v := range store.IterVariables() {
		val, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		if val.DType() != dtypes.Float32 {
			continue
		}
		vars[v.Scope()+"/"+v.Name()] = tensors.MustCopyFlatData[float32](val)
	}
	return vars
}

// TestASAPool checks ASAP on a padded batch against a float64 computation
// from its own variables: α is the softmax over each cluster of
// LeakyReLU(w·[W_q·max_cluster h + b_q ‖ h_j] + b) and sums to 1; the
// ⌈ρn⌉ fittest clusters are kept; h' = (Σ_j α_cj h_j)·φ_c; and
// A' = Sᵀ Â S (S[j, c] = α_cj, PyG's orientation: A[j, k] = weight of
// j → k) without self-loops. Graph 0 is directed so a transposition shows.
func TestASAPool(t *testing.T) {
	g0 := directed(5, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {2, 0}, {1, 3}},
		[]float32{0.5, -1, 1, 0.2, -0.3, 0.8, 2, 1, -1.5, 0.1})
	g1 := undirected(3, [][2]int32{{0, 1}, {1, 2}}, []float32{1, 1, -2, 0.5, 0.3, -0.7})
	b := batchOf(2, 8, g0, g1)
	x, a, m := b.Tensors()
	const ratio = 0.6
	for _, limit := range []int{1 << 30, 0} {
		t.Run(fmt.Sprintf("dense-limit-%d", limit), func(t *testing.T) {
			store := model.NewStore()
			if err := SetSeed(store, 5); err != nil {
				t.Fatal(err)
			}
			exec := model.MustNewExec(testBackend(t), store, func(scope *model.Scope, in []*Node) []*Node {
				p := ASAPool(scope.In("pool"), in[0], in[1], in[2], ratio, ASAPOptions{Dropout: 0.1, Edges: NewEdgeBudget([]datasets.Graph{g0, g1}), DenseClusterMax: limit})
				return []*Node{p.H, p.Adj, p.Mask, p.Select, p.Alpha, p.Fitness}
			})
			outs, err := exec.Exec(x, a, m)
			if err != nil {
				t.Fatal(err)
			}
			checkASAP(t, b, ratio, floatVars(t, store), outs)
		})
	}
}

func checkASAP(t *testing.T, b *Batch, ratio float64, vars map[string][]float32, outs []*tensors.Tensor) {
	h := tensors.MustCopyFlatData[float32](outs[0])
	adj := tensors.MustCopyFlatData[float32](outs[1])
	mask := tensors.MustCopyFlatData[float32](outs[2])
	alpha := tensors.MustCopyFlatData[float32](outs[4])
	fit := tensors.MustCopyFlatData[float32](outs[5])
	N, D, K := b.N, b.D, KeepCount(ratio, b.N)
	idx := argmaxRows(tensors.MustCopyFlatData[float32](outs[3]), b.B, K, N)
	wq, bq := vars["/pool/lin/weights"], vars["/pool/lin/biases"]
	wa, ba := vars["/pool/att/weights"], vars["/pool/att/biases"]
	if wq == nil || bq == nil || wa == nil || ba == nil {
		t.Fatalf("variables: %v", vars)
	}
	const tol = 1e-4
	for s := 0; s < 2; s++ { // the two real graphs
		n := b.NumNodes[s]
		X := func(j, c int) float64 { return float64(b.X[(s*N+j)*D+c]) }
		ahat := func(i, j int) float64 { // Â[i][j]: weight of j → i
			if i == j {
				return 1
			}
			return float64(b.A[s*N*N+i*N+j])
		}
		// Attention by hand.
		al := make([][]float64, n)
		for i := 0; i < n; i++ {
			xq := make([]float64, D)
			for c := range xq {
				xq[c] = math.Inf(-1)
				for j := 0; j < n; j++ {
					if ahat(i, j) != 0 {
						xq[c] = max(xq[c], X(j, c))
					}
				}
			}
			u := float64(ba[0])
			for o := 0; o < D; o++ {
				q := float64(bq[o])
				for c := 0; c < D; c++ {
					q += xq[c] * float64(wq[c*D+o])
				}
				u += q * float64(wa[o])
			}
			al[i] = make([]float64, n)
			var z float64
			for j := 0; j < n; j++ {
				if ahat(i, j) == 0 {
					continue
				}
				e := u
				for c := 0; c < D; c++ {
					e += X(j, c) * float64(wa[D+c])
				}
				if e < 0 {
					e *= 0.2
				}
				al[i][j] = math.Exp(e)
				z += al[i][j]
			}
			var sum float64
			for j := 0; j < N; j++ {
				got := float64(alpha[s*N*N+i*N+j])
				sum += got
				want := 0.0
				if j < n {
					want = al[i][j] / z
				}
				if math.Abs(got-want) > tol {
					t.Errorf("graph %d α[%d][%d] = %v, want %v", s, i, j, got, want)
				}
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Errorf("graph %d cluster %d: attention sums to %v, want 1", s, i, sum)
			}
			al[i] = al[i][:n]
			for j := range al[i] {
				al[i][j] /= z
			}
		}
		// Selection: ⌈ρn⌉ fittest.
		kept := 0
		for k := 0; k < K; k++ {
			kept += int(mask[s*K+k])
		}
		if kept != KeepCount(ratio, n) {
			t.Fatalf("graph %d kept %d clusters, want %d", s, kept, KeepCount(ratio, n))
		}
		isKept := map[int]bool{}
		lowest := math.Inf(1)
		for k := 0; k < kept; k++ {
			isKept[idx[s][k]] = true
			lowest = min(lowest, float64(fit[s*N+idx[s][k]]))
		}
		for c := 0; c < n; c++ {
			if !isKept[c] && float64(fit[s*N+c]) > lowest {
				t.Errorf("graph %d dropped cluster %d fitter than a kept one", s, c)
			}
		}
		// Features and adjacency.
		for k := 0; k < kept; k++ {
			c := idx[s][k]
			for f := 0; f < D; f++ {
				var w float64
				for j := 0; j < n; j++ {
					w += al[c][j] * X(j, f)
				}
				w *= float64(fit[s*N+c])
				if got := float64(h[(s*K+k)*D+f]); math.Abs(got-w) > tol {
					t.Errorf("graph %d pooled cluster %d feature %d = %v, want %v", s, c, f, got, w)
				}
			}
			for l := 0; l < kept; l++ {
				c2 := idx[s][l]
				// PyG: A'_pyg[c][c'] = Σ_{j,k} S[j][c] A_pyg[j][k] S[k][c'], A_pyg[j][k] = Â[k][j];
				// ours is row = receiver: Adj[k][l] = A'_pyg[c2][c].
				var w float64
				if c != c2 {
					for j := 0; j < n; j++ {
						for jj := 0; jj < n; jj++ {
							w += al[c2][j] * ahat(jj, j) * al[c][jj]
						}
					}
				}
				if got := float64(adj[s*K*K+k*K+l]); math.Abs(got-w) > tol {
					t.Errorf("graph %d A'[%d][%d] (clusters %d, %d) = %v, want SᵀÂS = %v", s, k, l, c, c2, got, w)
				}
			}
		}
		for k := 0; k < K; k++ {
			for l := 0; l < K; l++ {
				if (k >= kept || l >= kept) && adj[s*K*K+k*K+l] != 0 {
					t.Errorf("graph %d A'[%d][%d] = %v outside the kept clusters", s, k, l, adj[s*K*K+k*K+l])
				}
			}
		}
	}
}

// encoderCombos are every convolution with every pooling.
func encoderCombos() []EncoderConfig {
	var out []EncoderConfig
	for _, conv := range []Conv{ConvGIN, ConvGCN, ConvSAGE} {
		for _, pool := range []Pool{PoolTopK, PoolSAG, PoolASAP} {
			out = append(out, EncoderConfig{Conv: conv, Pool: pool, Hidden: 8, LayersPerStage: 2, PoolRatio: 0.8, ASAPDropout: 0.1})
		}
	}
	return out
}

// TestEncodePaddingInvariantAll: for every convolution and pooling (and
// both ClusterMax paths of ASAP), a graph encoded alone and inside a padded
// batch next to a larger graph gives the same embedding.
func TestEncodePaddingInvariantAll(t *testing.T) {
	backend := testBackend(t)
	small := undirected(4, [][2]int32{{0, 1}, {1, 2}, {2, 3}}, []float32{0.1, -0.5, 0.3, 0.9, 1, 0, 0.2, -0.2})
	var bigEdges [][2]int32
	for i := int32(0); i < 19; i++ {
		bigEdges = append(bigEdges, [2]int32{i, i + 1})
	}
	bigEdges = append(bigEdges, [2]int32{0, 10}, [2]int32{3, 17})
	bigFeat := make([]float32, 40)
	for i := range bigFeat {
		bigFeat[i] = float32(i%7) / 7
	}
	big := undirected(20, bigEdges, bigFeat)
	graphs := []datasets.Graph{small, big}
	feats := &Features{Dim: 2, Nodes: [][]float32{small.Features, big.Features}}
	for _, cfg := range encoderCombos() {
		limits := []int{0}
		if cfg.Pool == PoolASAP {
			limits = append(limits, 1<<30)
			cfg.ASAPEdges = NewEdgeBudget(graphs)
		}
		for _, limit := range limits {
			t.Run(fmt.Sprintf("%s-%s-%d", cfg.Conv, cfg.Pool, limit), func(t *testing.T) {
				cfg.ASAPDenseClusterMax = limit
				if err := cfg.Validate(); err != nil {
					t.Fatal(err)
				}
				store := model.NewStore()
				if err := SetSeed(store, 7); err != nil {
					t.Fatal(err)
				}
				exec := model.MustNewExec(backend, store, func(scope *model.Scope, in []*Node) []*Node {
					return []*Node{Encode(scope.In("encoder"), cfg, in[0], in[1], in[2])}
				})
				exec.SetMaxCache(-1)
				embed := func(idx []int) []float32 {
					b := NewBatch(graphs, feats, idx, 8)
					x, a, m := b.Tensors()
					out, err := exec.Exec(x, a, m)
					if err != nil {
						t.Fatal(err)
					}
					return tensors.MustCopyFlatData[float32](out[0])
				}
				alone := embed([]int{0})
				inBatch := embed([]int{1, 0})
				d := cfg.EmbeddingDim()
				var nonzero bool
				for k := 0; k < d; k++ {
					if math.Abs(float64(alone[k]-inBatch[d+k])) > 1e-4 {
						t.Fatalf("embedding differs at %d: alone %v, in batch %v", k, alone[:d], inBatch[d:2*d])
					}
					nonzero = nonzero || alone[k] != 0
				}
				if !nonzero {
					t.Errorf("embedding is all zero")
				}
			})
		}
	}
}

// TestEncoderTrainsEveryVariable: a few Adam steps of the supervised
// classifier on a small synthetic task move every variable of every
// convolution and pooling — gradients reach ASAP's query, attention and
// LEConv, SAGPool's GCN scorer and every convolution (training mode, so
// ASAP's attention dropout is on).
func TestEncoderTrainsEveryVariable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var graphs []datasets.Graph
	var labelled, labels []int
	for i := 0; i < 24; i++ {
		n := 3 + rng.IntN(6)
		var edges [][2]int32
		for v := 1; v < n; v++ {
			edges = append(edges, [2]int32{int32(rng.IntN(v)), int32(v)})
		}
		feat := make([]float32, 2*n)
		for k := range feat {
			feat[k] = float32(rng.NormFloat64()) + float32(i%2)
		}
		graphs = append(graphs, undirected(n, edges, feat))
		labelled = append(labelled, i)
		labels = append(labels, i%2)
	}
	for _, enc := range encoderCombos() {
		t.Run(fmt.Sprintf("%s-%s", enc.Conv, enc.Pool), func(t *testing.T) {
			enc.ASAPEdges = NewEdgeBudget(graphs)
			task := &suite.Task{Graphs: graphs, FeatureDim: 2, NumKnown: 2, Labelled: labelled, Labels: labels,
				Eval: labelled, Seed: 1, Backend: "go", Log: discardLog{}}
			c, err := NewClassifier(task, SupervisedConfig{Encoder: enc, Steps: 2, BatchSize: 8, LR: 0.01})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// Variables are created on the first step; take them after it.
			if _, err := c.TrainEpoch(context.Background(), rng); err != nil {
				t.Fatal(err)
			}
			before := floatVars(t, c.store)
			for ep := 0; ep < 2; ep++ {
				if _, err := c.TrainEpoch(context.Background(), rng); err != nil {
					t.Fatal(err)
				}
			}
			after := floatVars(t, c.store)
			var n int
			for name, v0 := range before {
				if !isModelVar(name) {
					continue
				}
				n++
				if slices.Equal(v0, after[name]) {
					t.Errorf("variable %s did not change: no gradient", name)
				}
			}
			if n == 0 {
				t.Fatalf("no model variables among %d", len(before))
			}
			t.Logf("%d model variables all moved", n)
		})
	}
}

// isModelVar tells the model's variables from the optimizer's state.
func isModelVar(name string) bool {
	return len(name) > 9 && (name[:9] == "/encoder/" || (len(name) > 6 && name[:6] == "/head/"))
}

func TestEdgeBudget(t *testing.T) {
	path := func(n int) datasets.Graph { // n−1 undirected edges: 2(n−1) directed
		var e [][2]int32
		for i := 1; i < n; i++ {
			e = append(e, [2]int32{int32(i - 1), int32(i)})
		}
		return undirected(n, e, make([]float32, n))
	}
	loop := directed(2, [][2]int32{{0, 0}, {0, 1}, {1, 0}}, make([]float32, 2)) // the self-loop does not count
	budget := NewEdgeBudget([]datasets.Graph{path(3), path(4), path(1), loop})
	if want := (EdgeBudget{0, 6, 10, 12, 12}); !slices.Equal(budget, want) {
		t.Fatalf("budget = %v, want %v", budget, want)
	}
	for _, c := range []struct {
		budget     EdgeBudget
		b, n, want int
	}{
		{budget, 2, 4, 10}, // the two largest graphs
		{budget, 8, 3, 12}, // more slots than graphs: all edges
		{budget, 1, 2, 2},  // n(n−1) is smaller
		{budget, 1, 1, 1},  // never 0
		{nil, 2, 3, 12},    // no budget: b·n(n−1)
		{EdgeBudget{0}, 4, 4, 1},
	} {
		if got := c.budget.Capacity(c.b, c.n); got != c.want {
			t.Errorf("%v.Capacity(%d, %d) = %d, want %d", c.budget, c.b, c.n, got, c.want)
		}
	}
}
