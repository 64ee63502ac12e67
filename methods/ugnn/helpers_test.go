package ugnn

import (
	"math"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/ugbench/ugbench/methods/gnn"
)

// testBackend is the process-wide pure-Go backend (shared, never finalised).
func testBackend(t testing.TB) compute.Backend {
	t.Helper()
	b, err := gnn.NewBackend("go")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tensor2D packs rows [R][C] (float64 in the test, float32 in the graph).
func tensor2D(rows [][]float64) *tensors.Tensor {
	c := len(rows[0])
	flat := make([]float32, 0, len(rows)*c)
	for _, r := range rows {
		for _, v := range r {
			flat = append(flat, float32(v))
		}
	}
	return tensors.FromFlatDataAndDimensions(flat, len(rows), c)
}

func tensor1D(v []float64) *tensors.Tensor {
	flat := make([]float32, len(v))
	for i, x := range v {
		flat[i] = float32(x)
	}
	return tensors.FromFlatDataAndDimensions(flat, len(v))
}

// rows2D reads a float32 tensor [R, C] into float64 rows.
func rows2D(t *tensors.Tensor) [][]float64 {
	flat := tensors.MustCopyFlatData[float32](t)
	r, c := t.Shape().Dim(0), t.Shape().Dim(1)
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
		for j := range out[i] {
			out[i][j] = float64(flat[i*c+j])
		}
	}
	return out
}

func scalarOf(t *tensors.Tensor) float64 { return float64(tensors.MustCopyFlatData[float32](t)[0]) }

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
