package gnn

import (
	"math"
	"slices"
	"strings"
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
	run := func(e *Executable) []float32 {
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

// TestExecutableBoundedCache: an Executable keeps at most its bound of
// compiled shape signatures, dropping the least recently used; a dropped
// signature compiles again to the same graph (bit-equal outputs), a step's
// variable updates live in the store across drops, and Go values are
// taken as model.Exec takes them.
func TestExecutableBoundedCache(t *testing.T) {
	store := model.NewStore()
	execs := NewExecs(testBackend(t), store)
	defer execs.Close()
	fn := func(scope *model.Scope, in []*Node) []*Node {
		g := in[0].Graph()
		w := scope.VariableWithValue("w", float32(0.5))
		n := scope.VariableWithValue("n", float32(0))
		n.SetNodeValue(Add(n.NodeValue(g), ReduceAllSum(in[0])))
		return []*Node{Tanh(MulScalar(Mul(in[0], w.NodeValue(g)), 3))}
	}
	bounded, err := execs.Step(fn)
	if err != nil {
		t.Fatal(err)
	}
	bounded.max = 2
	shapes := map[string]*tensors.Tensor{
		"A": tensors.FromFlatDataAndDimensions([]float32{0.1, -0.7, 1.3}, 3),
		"B": tensors.FromFlatDataAndDimensions([]float32{0.2, 0.4, -0.9, 2.1}, 2, 2),
		"C": tensors.FromFlatDataAndDimensions([]float32{-1.5}, 1),
	}
	run := func(e *Executable, name string) []float32 {
		t.Helper()
		out, err := e.Exec(shapes[name])
		if err != nil {
			t.Fatal(err)
		}
		return tensors.MustCopyFlatData[float32](out[0])
	}
	first := run(bounded, "A")
	run(bounded, "B")
	run(bounded, "C") // drops A, the least recently used
	if c, k := bounded.Compiles(); c != 3 || k != 2 {
		t.Fatalf("after A, B, C: %d compiles, %d kept; want 3, 2", c, k)
	}
	again := run(bounded, "A") // compiles A again, drops B
	if c, k := bounded.Compiles(); c != 4 || k != 2 {
		t.Errorf("after A again: %d compiles, %d kept; want 4, 2", c, k)
	}
	if !slices.Equal(first, again) {
		t.Errorf("A recompiled gives %v, first %v", again, first)
	}
	took := bounded.CompileTime()
	if took <= 0 {
		t.Errorf("4 compilations took %v", took)
	}
	run(bounded, "C") // kept: no compile
	if c, _ := bounded.Compiles(); c != 4 {
		t.Errorf("C, kept, compiled again: %d compiles", c)
	}
	if bounded.CompileTime() != took {
		t.Errorf("a kept signature's call added %v of compilation", bounded.CompileTime()-took)
	}
	n, err := store.GetVariable("/n").Value()
	if err != nil {
		t.Fatal(err)
	}
	sum := func(name string) float32 {
		var s float32
		for _, v := range tensors.MustCopyFlatData[float32](shapes[name]) {
			s += v
		}
		return s
	}
	want := 2*sum("A") + sum("B") + 2*sum("C")
	if got := tensors.MustCopyFlatData[float32](n)[0]; math.Abs(float64(got-want)) > 1e-5 {
		t.Errorf("variable updated by 5 steps across drops: %v, want %v", got, want)
	}
	// An unbounded twin on the same shapes agrees bit for bit.
	unbounded, err := execs.Infer(func(scope *model.Scope, in []*Node) []*Node {
		return []*Node{Tanh(MulScalar(Mul(in[0], scope.VariableWithValue("w", float32(0.5)).NodeValue(in[0].Graph())), 3))}
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := run(unbounded, "A"); !slices.Equal(got, first) {
		t.Errorf("an inference twin gives %v, the bounded step %v", got, first)
	}
	if out, err := bounded.Exec([]float32{1, 2, 3}); err != nil || len(out) != 1 {
		t.Errorf("a Go slice argument: %v, %v", out, err)
	}
	if _, err := bounded.Exec(struct{}{}); err == nil || !strings.Contains(err.Error(), "argument 0") {
		t.Errorf("a bad argument: error %v, want one naming argument 0", err)
	}
}
