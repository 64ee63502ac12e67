package gnn

import (
	"slices"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:staticcheck // GoMLX idiom
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// TestExecsInferReadsVariablesWithoutDropout: an Execs.Infer graph reads
// the variables' current values at every run (no constants frozen at its
// compilation) and applies no ASAP dropout, which an Execs.Step graph of
// the same function does.
func TestExecsInferReadsVariablesWithoutDropout(t *testing.T) {
	g0 := undirected(4, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 0}}, []float32{1, -1, 0.5, 2, -0.3, 0.7, 1.5, 0.2})
	g1 := undirected(3, [][2]int32{{0, 1}, {1, 2}}, []float32{1, 1, -2, 0.5, 0.3, -0.7})
	b := batchOf(2, 6, g0, g1)
	x, a, m := b.Tensors()
	store := model.NewStore()
	if err := SetSeed(store, 3); err != nil {
		t.Fatal(err)
	}
	execs := NewExecs(testBackend(t), store)
	defer execs.Close()
	fn := func(scope *model.Scope, in []*Node) []*Node {
		return []*Node{ASAPool(scope.In("pool"), in[0], in[1], in[2], 0.6, ASAPOptions{Dropout: 0.5}).Alpha}
	}
	infer, err := execs.Infer(fn)
	if err != nil {
		t.Fatal(err)
	}
	step, err := execs.Step(fn)
	if err != nil {
		t.Fatal(err)
	}
	run := func(e *model.Exec) []float32 {
		out, err := e.Exec(x, a, m)
		if err != nil {
			t.Fatal(err)
		}
		return tensors.MustCopyFlatData[float32](out[0])
	}
	first := run(infer)
	if again := run(infer); !slices.Equal(first, again) {
		t.Fatal("two inference runs differ: dropout in an inference graph")
	}
	if dropped := run(step); slices.Equal(first, dropped) {
		t.Error("the step graph's attention equals the inference graph's: no dropout while training")
	}
	w := store.GetVariable("/pool/att/weights")
	if w == nil {
		t.Fatal("no variable /pool/att/weights")
	}
	val, err := w.Value()
	if err != nil {
		t.Fatal(err)
	}
	flat := tensors.MustCopyFlatData[float32](val)
	for i := range flat {
		flat[i] *= -3
	}
	if err := w.SetValue(tensors.FromFlatDataAndDimensions(flat, val.Shape().Dimensions...)); err != nil {
		t.Fatal(err)
	}
	if after := run(infer); slices.Equal(first, after) {
		t.Error("the inference graph's output did not change with its variables: stale weights")
	}
}
