package kernels

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

func dense(v ...float64) SparseVector {
	var s SparseVector
	for j, x := range v {
		if x != 0 {
			s.Index = append(s.Index, int32(j))
			s.Value = append(s.Value, x)
		}
	}
	return s
}

// TestSVMHardMarginKnownAnswer: x=+1 labelled +1 and x=−1 labelled −1,
// no intercept, large C: the dual optimum has α1+α2 = 1, so w = 1 and
// f(x) = x.
func TestSVMHardMarginKnownAnswer(t *testing.T) {
	for _, sq := range []bool{false, true} {
		cfg := SVMConfig{C: 1e6, SquaredHinge: sq, Tol: 1e-6, MaxIter: 10000}
		m, err := TrainLinearSVM(context.Background(), []SparseVector{dense(1), dense(-1)}, []int8{1, -1}, 1, cfg, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(m.W[0]-1) > 1e-3 || m.B != 0 || !m.Converged {
			t.Errorf("squared=%v: w=%v b=%v converged=%v, want w=1 b=0", sq, m.W, m.B, m.Converged)
		}
	}
	// With C = 0.1 (hinge), both α are capped at C: w = 0.2.
	cfg := SVMConfig{C: 0.1, Tol: 1e-6, MaxIter: 1000}
	m, err := TrainLinearSVM(context.Background(), []SparseVector{dense(1), dense(-1)}, []int8{1, -1}, 1, cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(m.W[0]-0.2) > 1e-9 {
		t.Errorf("C=0.1: w=%v, want 0.2", m.W)
	}
}

// toySet is three linearly separable classes: class c has its mass on
// feature c, plus a little of the other features.
func toySet(n int, seed uint64) ([]SparseVector, []int) {
	r := rand.New(rand.NewPCG(seed, 0))
	var x []SparseVector
	var y []int
	for i := range n {
		c := i % 3
		v := make([]float64, 4)
		for j := range v {
			v[j] = 0.3 * r.Float64()
		}
		v[c] += 1 + r.Float64()
		x = append(x, dense(v...))
		y = append(y, c)
	}
	return x, y
}

func TestOneVsRestSeparable(t *testing.T) {
	x, y := toySet(60, 7)
	model, err := TrainOneVsRest(context.Background(), x, y, 3, 4, DefaultSVMConfig(), 42)
	if err != nil {
		t.Fatal(err)
	}
	tx, ty := toySet(60, 8)
	for i := range tx {
		c, d := model.Predict(tx[i])
		if c != ty[i] {
			t.Errorf("point %d: predicted %d, want %d", i, c, ty[i])
		}
		ds := model.Decisions(tx[i])
		if ds[c] != d {
			t.Errorf("Predict value %v != Decisions[%d] %v", d, c, ds[c])
		}
		for k, v := range ds {
			if (k == ty[i]) != (v > 0) {
				t.Errorf("point %d class %d: decision %v has the wrong sign", i, k, v)
			}
		}
	}
	// A point far along feature 1 is confidently class 1; the origin is
	// claimed by no class (all decisions negative).
	if c, d := model.Predict(dense(0, 5, 0, 0)); c != 1 || d <= 1 {
		t.Errorf("far point: class %d decision %v", c, d)
	}
	if _, d := model.Predict(SparseVector{}); d >= 0 {
		t.Errorf("origin: max decision %v, want < 0", d)
	}

	// Deterministic given the seed.
	again, err := TrainOneVsRest(context.Background(), x, y, 3, 4, DefaultSVMConfig(), 42)
	if err != nil {
		t.Fatal(err)
	}
	for c := range model.Classes {
		if !reflect.DeepEqual(model.Classes[c], again.Classes[c]) {
			t.Errorf("class %d: retraining with the same seed differs", c)
		}
	}
}

func TestSVMErrorsAndCancel(t *testing.T) {
	x, y := toySet(30, 1)
	ctx := context.Background()
	if _, err := TrainOneVsRest(ctx, x, y, 2, 4, DefaultSVMConfig(), 1); err == nil {
		t.Error("label ≥ numClasses: no error")
	}
	cfg := DefaultSVMConfig()
	cfg.C = 0
	if _, err := TrainOneVsRest(ctx, x, y, 3, 4, cfg, 1); err == nil {
		t.Error("C = 0: no error")
	}
	if _, err := TrainOneVsRest(ctx, x, y, 3, 2, DefaultSVMConfig(), 1); err == nil {
		t.Error("feature ≥ dim: no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := TrainOneVsRest(cctx, x, y, 3, 4, DefaultSVMConfig(), 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}
