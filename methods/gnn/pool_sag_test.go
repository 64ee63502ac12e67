package gnn

import (
	"fmt"
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
)

// poolGraphs is a padded batch of graphs of different sizes (5, 3, 7, 1
// nodes; N = 8, B = 8 with four padding slots), two features per node.
func poolGraphs() []datasets.Graph {
	feat := func(n int, seed float32) []float32 {
		f := make([]float32, 2*n)
		for i := range f {
			f[i] = float32(math.Sin(float64(seed) + 1.7*float64(i)))
		}
		return f
	}
	return []datasets.Graph{
		undirected(5, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 2}}, feat(5, 0.3)),
		undirected(3, [][2]int32{{0, 1}, {1, 2}, {0, 2}}, feat(3, 1.1)),
		undirected(7, [][2]int32{{0, 1}, {0, 2}, {0, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 3}}, feat(7, 2.9)),
		undirected(1, nil, feat(1, 4.2)),
	}
}

// argmaxRows returns, for sel [B, K, N] flat, the node of every slot.
func argmaxRows(sel []float32, b, k, n int) [][]int {
	out := make([][]int, b)
	for s := 0; s < b; s++ {
		out[s] = make([]int, k)
		for kk := 0; kk < k; kk++ {
			best := 0
			for j := 0; j < n; j++ {
				if sel[(s*k+kk)*n+j] > sel[(s*k+kk)*n+best] {
					best = j
				}
			}
			out[s][kk] = best
		}
	}
	return out
}

// TestSAGPoolPerGraph: SAGPool keeps exactly ⌈ρn⌉ nodes of every graph of
// a padded batch, the highest-scoring real ones, gated by tanh(score), and
// exactly the edges among them.
func TestSAGPoolPerGraph(t *testing.T) {
	graphs := poolGraphs()
	b := batchOf(2, 8, graphs...)
	x, a, m := b.Tensors()
	for _, ratio := range []float64{0.8, 0.5} {
		t.Run(fmt.Sprint(ratio), func(t *testing.T) {
			store := model.NewStore()
			if err := SetSeed(store, 11); err != nil {
				t.Fatal(err)
			}
			exec := model.MustNewExec(testBackend(t), store, func(scope *model.Scope, in []*Node) []*Node {
				ps := scope.In("pool")
				p := SAGPool(ps, in[0], in[1], in[2], ratio)
				score := SAGScore(ps, in[0], in[1], in[2]) // same variables
				return []*Node{p.H, p.Adj, p.Mask, p.Select, score}
			})
			outs, err := exec.Exec(x, a, m)
			if err != nil {
				t.Fatal(err)
			}
			h := tensors.MustCopyFlatData[float32](outs[0])
			adj := tensors.MustCopyFlatData[float32](outs[1])
			mask := tensors.MustCopyFlatData[float32](outs[2])
			score := tensors.MustCopyFlatData[float32](outs[4])
			N, K, D := b.N, KeepCount(ratio, b.N), b.D
			idx := argmaxRows(tensors.MustCopyFlatData[float32](outs[3]), b.B, K, N)
			for s := 0; s < b.B; s++ {
				n := b.NumNodes[s]
				want := KeepCount(ratio, n)
				var kept int
				for k := 0; k < K; k++ {
					if mask[s*K+k] == 1 {
						kept++
					} else if mask[s*K+k] != 0 {
						t.Fatalf("slot %d mask %v", s, mask[s*K:(s+1)*K])
					}
				}
				if kept != want {
					t.Errorf("slot %d (n = %d): kept %d, want ⌈%g·%d⌉ = %d", s, n, kept, ratio, n, want)
				}
				in := map[int]bool{}
				lowest := math.Inf(1)
				for k := 0; k < kept; k++ {
					v := idx[s][k]
					if v >= n || in[v] {
						t.Fatalf("slot %d keeps node %d twice or a padding node (n = %d): %v", s, v, n, idx[s])
					}
					in[v] = true
					lowest = min(lowest, float64(score[s*N+v]))
					gate := math.Tanh(float64(score[s*N+v]))
					for c := 0; c < D; c++ {
						w := float64(b.X[(s*N+v)*D+c]) * gate
						if got := float64(h[(s*K+k)*D+c]); math.Abs(got-w) > 1e-5 {
							t.Errorf("slot %d pooled node %d feature %d = %v, want x·tanh(score) = %v", s, k, c, got, w)
						}
					}
				}
				for v := 0; v < n; v++ {
					if !in[v] && float64(score[s*N+v]) > lowest {
						t.Errorf("slot %d dropped node %d (score %v) above a kept one (%v)", s, v, score[s*N+v], lowest)
					}
				}
				for k := 0; k < K; k++ {
					for l := 0; l < K; l++ {
						want := float32(0)
						if k < kept && l < kept {
							want = b.A[s*N*N+idx[s][k]*N+idx[s][l]]
						}
						if got := adj[s*K*K+k*K+l]; got != want {
							t.Errorf("slot %d pooled A[%d][%d] = %v, want %v (induced edges only)", s, k, l, got, want)
						}
					}
				}
			}
		})
	}
}
