package gnn

import (
	"slices"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
)

// TestRowGatherScatterKnownAnswers: the row gathers and scatters of the
// edge-list layout (Gather of [N, D] and [N] by [E, 1] indices; ScatterSum
// and ScatterMax into [N, D], [N, 1] and [N], repeated indices included)
// give the values computed by hand, whichever executor runs them (`make`
// builds with contrib/compute-patch's row executors, plain `go test` with
// the module's generic ones).
func TestRowGatherScatterKnownAnswers(t *testing.T) {
	backend := testBackend(t)
	h := []float32{0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42} // [5, 3]
	v := []float32{5, 6, 7, 8, 9}                                           // [5]
	idx := []int32{3, 0, 3, 4}                                              // [4, 1]
	upd := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2, -3}                 // [4, 3]
	updV := []float32{1, -2, 4, 8}                                          // [4]
	outs := MustExecOnceN(backend, func(h, v, idx, upd, updV *Node) []*Node {
		g := h.Graph()
		return []*Node{
			Gather(h, idx), // [4, 3]
			Gather(v, idx), // [4]
			ScatterSum(Zeros(g, h.Shape()), idx, upd, false, false),                                  // [5, 3]
			ScatterMax(Zeros(g, h.Shape()), idx, upd, false, false),                                  // [5, 3]
			ScatterSum(Zeros(g, v.Shape()), idx, updV, false, false),                                 // [5]
			ScatterMax(Zeros(g, v.Shape()), idx, updV, false, false),                                 // [5]
			ScatterSum(Zeros(g, InsertAxes(v, -1).Shape()), idx, InsertAxes(updV, -1), false, false), // [5, 1]
		}
	}, tensors.FromFlatDataAndDimensions(h, 5, 3), tensors.FromFlatDataAndDimensions(v, 5),
		tensors.FromFlatDataAndDimensions(idx, 4, 1), tensors.FromFlatDataAndDimensions(upd, 4, 3),
		tensors.FromFlatDataAndDimensions(updV, 4))
	want := [][]float32{
		{30, 31, 32, 0, 1, 2, 30, 31, 32, 40, 41, 42},
		{8, 5, 8, 9},
		{4, 5, 6, 0, 0, 0, 0, 0, 0, 8, 10, 12, -1, -2, -3}, // row 3 = (1,2,3) + (7,8,9)
		{4, 5, 6, 0, 0, 0, 0, 0, 0, 7, 8, 9, 0, 0, 0},      // max with the zeros it starts from
		{-2, 0, 0, 5, 8},
		{0, 0, 0, 4, 8},
		{-2, 0, 0, 5, 8},
	}
	for i, o := range outs {
		if got := tensors.MustCopyFlatData[float32](o); !slices.Equal(got, want[i]) {
			t.Errorf("output %d = %v, want %v", i, got, want[i])
		}
	}
}
