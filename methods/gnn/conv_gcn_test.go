package gnn

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/ugbench/ugbench/datasets"
)

// batchOf pads graphs (their own Features, dim columns) into one batch.
func batchOf(dim, maxBatch int, graphs ...datasets.Graph) *Batch {
	feats := &Features{Dim: dim}
	idx := make([]int, len(graphs))
	for i := range graphs {
		feats.Nodes = append(feats.Nodes, graphs[i].Features)
		idx[i] = i
	}
	return NewBatch(graphs, feats, idx, maxBatch)
}

// directed builds a Graph from directed edges src → dst.
func directed(n int, edges [][2]int32, feat []float32) datasets.Graph {
	g := datasets.Graph{NumNodes: n, Features: feat}
	for _, e := range edges {
		g.Src = append(g.Src, e[0])
		g.Dst = append(g.Dst, e[1])
	}
	return g
}

// checkRows compares the first len(want) rows (of width len(want[0])) of
// slot 0 of a [B, N, D] result.
func checkRows(t *testing.T, name string, got []float32, n, d int, want [][]float64) {
	t.Helper()
	for i, row := range want {
		for c, w := range row {
			if g := float64(got[i*d+c]); math.Abs(g-w) > 1e-5 {
				t.Errorf("%s: row %d col %d = %v, want %v", name, i, c, g, w)
			}
		}
	}
	for i := len(want); i < n; i++ { // padding rows of slot 0
		for c := 0; c < d; c++ {
			if got[i*d+c] != 0 {
				t.Errorf("%s: padding row %d = %v, want 0", name, i, got[i*d:(i+1)*d])
				break
			}
		}
	}
}

func TestGCNPropagate(t *testing.T) {
	s6 := math.Sqrt(6)
	s2 := math.Sqrt(2)
	for _, c := range []struct {
		name string
		g    datasets.Graph
		want [][]float64
	}{{
		// P3 0-1-2 with self-loops: degrees 2, 3, 2;
		// out_i = Σ_j Â_ij h_j / √(d_i d_j).
		name: "path P3",
		g:    undirected(3, [][2]int32{{0, 1}, {1, 2}}, []float32{1, 10, 100}),
		want: [][]float64{{1.0/2 + 10/s6}, {1/s6 + 10.0/3 + 100/s6}, {10/s6 + 100.0/2}},
	}, {
		// An isolated node keeps its own value (Â = 1, degree 1).
		name: "isolated node",
		g:    undirected(3, [][2]int32{{0, 1}}, []float32{2, 4, 7}),
		want: [][]float64{{2.0/2 + 4.0/2}, {2.0/2 + 4.0/2}, {7}},
	}, {
		// Directed edge 0 → 1 only: node 1's in-degree is 2 (edge + loop),
		// node 0's is 1; out_1 = h_0/√(1·2) + h_1/2, out_0 = h_0.
		name: "directed edge",
		g:    directed(2, [][2]int32{{0, 1}}, []float32{3, 5}),
		want: [][]float64{{3}, {3/s2 + 5.0/2}},
	}, {
		// An existing self-loop keeps its weight 1 (no second loop):
		// node 0 has loop + edge from 1 → degree 2, same as without it.
		name: "existing self-loop",
		g:    directed(2, [][2]int32{{0, 0}, {1, 0}, {0, 1}}, []float32{1, 3}),
		want: [][]float64{{1.0/2 + 3.0/2}, {1.0/2 + 3.0/2}},
	}} {
		t.Run(c.name, func(t *testing.T) {
			b := batchOf(1, 8, c.g)
			x, a, m := b.Tensors()
			out := MustExecOnce(testBackend(t), func(x, a, m *Node) *Node { return GCNPropagate(x, a, m) }, x, a, m)
			checkRows(t, c.name, tensors.MustCopyFlatData[float32](out), b.N, 1, c.want)
		})
	}
}

func TestGCNDegreePaddingZero(t *testing.T) {
	b := batchOf(1, 8, undirected(3, [][2]int32{{0, 1}, {1, 2}}, []float32{1, 2, 3}))
	_, a, m := b.Tensors()
	outs := MustExecOnceN(testBackend(t), func(a, m *Node) []*Node {
		fill, dinv := GCNDegreeInvSqrt(a, m)
		return []*Node{fill, dinv}
	}, a, m)
	fill := tensors.MustCopyFlatData[float32](outs[0])
	dinv := tensors.MustCopyFlatData[float32](outs[1])
	want := []float64{1 / math.Sqrt(2), 1 / math.Sqrt(3), 1 / math.Sqrt(2), 0}
	for i, w := range want {
		if math.Abs(float64(dinv[i])-w) > 1e-6 {
			t.Errorf("dinv[%d] = %v, want %v", i, dinv[i], w)
		}
	}
	if fill[3] != 0 || fill[0] != 1 {
		t.Errorf("self-loop fill = %v, want 1 on real nodes and 0 on padding", fill[:4])
	}
	for i, v := range dinv {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatalf("dinv[%d] = %v", i, v)
		}
	}
}
