package gnn

import (
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/ugbench/ugbench/datasets"
)

func TestSAGEMean(t *testing.T) {
	for _, c := range []struct {
		name string
		g    datasets.Graph
		want [][]float64
	}{{
		// Path 0-1-2 plus isolated node 3 (mean of nothing = 0).
		name: "path and isolated node",
		g:    undirected(4, [][2]int32{{0, 1}, {1, 2}}, []float32{1, 10, 100, 1000}),
		want: [][]float64{{10}, {(1 + 100) / 2.0}, {10}, {0}},
	}, {
		// Star centre 0 with leaves 1..3.
		name: "star",
		g:    undirected(4, [][2]int32{{0, 1}, {0, 2}, {0, 3}}, []float32{6, 1, 2, 3}),
		want: [][]float64{{2}, {6}, {6}, {6}},
	}, {
		// Directed 0 → 1 and 2 → 1: node 1 averages 0 and 2; others have none.
		name: "directed in-neighbours",
		g:    directed(3, [][2]int32{{0, 1}, {2, 1}}, []float32{4, 100, 8}),
		want: [][]float64{{0}, {6}, {0}},
	}} {
		t.Run(c.name, func(t *testing.T) {
			b := batchOf(1, 8, c.g)
			x, a, _ := b.Tensors()
			out := MustExecOnce(testBackend(t), func(x, a *Node) *Node { return SAGEMean(x, a) }, x, a)
			checkRows(t, c.name, tensors.MustCopyFlatData[float32](out), b.N, 1, c.want)
		})
	}
}

// TestSAGEConvKnownAnswer checks SAGEConv against W_neigh·mean + b + W_self·h
// computed here from the layer's own variables, with and without the L2
// normalisation.
func TestSAGEConvKnownAnswer(t *testing.T) {
	g := undirected(3, [][2]int32{{0, 1}, {1, 2}}, []float32{1, -2, 0.5, 3, -1, 0})
	b := batchOf(2, 8, g)
	x, a, m := b.Tensors()
	for _, normalize := range []bool{false, true} {
		store := model.NewStore()
		if err := SetSeed(store, 3); err != nil {
			t.Fatal(err)
		}
		const hidden = 4
		exec := model.MustNewExec(testBackend(t), store, func(scope *model.Scope, in []*Node) []*Node {
			return []*Node{SAGEConv(scope.In("sage"), in[0], in[1], in[2], hidden, normalize)}
		})
		out, err := exec.Exec(x, a, m)
		if err != nil {
			t.Fatal(err)
		}
		got := tensors.MustCopyFlatData[float32](out[0])
		vars := map[string][]float32{}
		for v := range store.IterVariables() {
			val, err := v.Value()
			if err != nil {
				t.Fatal(err)
			}
			if val.DType() != dtypes.Float32 {
				continue // the RNG state
			}
			vars[v.Scope()+"/"+v.Name()] = tensors.MustCopyFlatData[float32](val)
		}
		wn, bn, ws := vars["/sage/lin_neigh/weights"], vars["/sage/lin_neigh/biases"], vars["/sage/lin_self/weights"]
		if wn == nil || bn == nil || ws == nil {
			t.Fatalf("variables: %v", vars)
		}
		feat := [][]float64{{1, -2}, {0.5, 3}, {-1, 0}}
		mean := [][]float64{{0.5, 3}, {0, -1}, {0.5, 3}}
		for i := 0; i < 3; i++ {
			z := make([]float64, hidden)
			var norm float64
			for o := 0; o < hidden; o++ {
				z[o] = float64(bn[o])
				for c := 0; c < 2; c++ {
					z[o] += mean[i][c]*float64(wn[c*hidden+o]) + feat[i][c]*float64(ws[c*hidden+o])
				}
				norm += z[o] * z[o]
			}
			for o := 0; o < hidden; o++ {
				w := z[o]
				if normalize {
					w /= math.Sqrt(norm)
				}
				w = max(w, 0)
				if gv := float64(got[i*hidden+o]); math.Abs(gv-w) > 1e-5 {
					t.Errorf("normalize=%v node %d out %d = %v, want %v", normalize, i, o, gv, w)
				}
			}
		}
		for i := 3; i < b.N; i++ {
			for o := 0; o < hidden; o++ {
				if got[i*hidden+o] != 0 {
					t.Errorf("padding row %d = %v", i, got[i*hidden:(i+1)*hidden])
				}
			}
		}
	}
}
