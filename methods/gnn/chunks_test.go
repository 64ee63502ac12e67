package gnn

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
)

func TestSizeChunks(t *testing.T) {
	sizes := []int{9, 3, 7, 1, 5, 2, 8, 4}
	graphs := make([]datasets.Graph, len(sizes))
	for i, n := range sizes {
		graphs[i].NumNodes = n
	}
	idx := []int{0, 1, 2, 3, 4, 5, 6, 7}
	for _, c := range []struct {
		k    int
		want [][]int
	}{
		{1, [][]int{idx}},
		{2, [][]int{{3, 5, 1, 7}, {4, 2, 6, 0}}},
		{3, [][]int{{3, 5, 1, 7}, {4, 2}, {6, 0}}},
	} {
		got := SizeChunks(graphs, idx, c.k)
		if len(got) != len(c.want) {
			t.Fatalf("k=%d: %v, want %v", c.k, got, c.want)
		}
		for i := range got {
			for j := range got[i] {
				if got[i][j] != c.want[i][j] {
					t.Fatalf("k=%d: %v, want %v", c.k, got, c.want)
				}
			}
		}
	}
	if got := SizeChunks(graphs, []int{4}, 3); len(got) != 1 || got[0][0] != 4 {
		t.Errorf("one graph: %v", got)
	}
}

// TestChunkedLossEqualsBatchLoss: the cross-entropy of a batch split into
// size chunks equals the one of the whole padded batch (same weights).
func TestChunkedLossEqualsBatchLoss(t *testing.T) {
	backend := testBackend(t)
	var graphs []datasets.Graph
	var nodes [][]float32
	for i, n := range []int{3, 12, 5, 20, 4, 9} {
		var edges [][2]int32
		for v := int32(1); v < int32(n); v++ {
			edges = append(edges, [2]int32{v - 1, v})
		}
		f := make([]float32, n)
		for v := range f {
			f[v] = float32((v*7+i)%5) / 5
		}
		graphs = append(graphs, undirected(n, edges, f))
		nodes = append(nodes, f)
	}
	feats := &Features{Dim: 1, Nodes: nodes}
	labels := []int32{0, 1, 2, 0, 1, 2}
	cfg := EncoderConfig{Conv: ConvGIN, Hidden: 8, LayersPerStage: 1, PoolRatio: 0.8}
	store := model.NewStore()
	if err := SetSeed(store, 3); err != nil {
		t.Fatal(err)
	}
	exec := model.MustNewExec(backend, store, func(scope *model.Scope, in []*Node) []*Node {
		var logits, ys, ws []*Node
		for s := 0; s+4 < len(in); s += 5 {
			z := Encode(scope.At("encoder"), cfg, in[s], in[s+1], in[s+2])
			logits = append(logits, MLP(scope.At("head"), z, 3))
			ys, ws = append(ys, in[s+3]), append(ws, in[s+4])
		}
		return []*Node{ChunkedCrossEntropy(logits, ys, ws)}
	})
	exec.SetMaxCache(-1)
	loss := func(chunks [][]int) float64 {
		var args []any
		for _, c := range chunks {
			b := NewBatch(graphs, feats, c, 8)
			y := make([]int32, b.B)
			for s, g := range c {
				y[s] = labels[g]
			}
			x, a, m := b.Tensors()
			args = append(args, x, a, m, tensors.FromFlatDataAndDimensions(y, b.B), tensors.FromFlatDataAndDimensions(b.Weight, b.B))
		}
		out, err := exec.Exec(args...)
		if err != nil {
			t.Fatal(err)
		}
		return float64(tensors.MustCopyFlatData[float32](out[0])[0])
	}
	all := []int{0, 1, 2, 3, 4, 5}
	whole := loss([][]int{all})
	split := loss(SizeChunks(graphs, all, 3))
	if math.Abs(whole-split) > 1e-5 || whole <= 0 {
		t.Errorf("whole batch loss %v, chunked %v", whole, split)
	}
}
