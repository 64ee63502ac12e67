package gnn

import (
	"math"
	"testing"
)

// TestMaxSoftmax: class and 1 − max softmax from logits, with hand-computed
// answers, including logit gaps where a float32 softmax rounds the max
// probability to exactly 1 (score 0 for all of them): here the scores stay
// positive and ordered by the gap.
func TestMaxSoftmax(t *testing.T) {
	e := math.Exp
	ln3 := float32(math.Log(3))
	cases := []struct {
		name    string
		logits  []float32
		class   int
		unknown float64
	}{
		{"uniform pair", []float32{0, 0}, 0, 0.5},
		{"first of ties", []float32{1, 3, 3}, 1, (e(-2) + 1) / (2 + e(-2))},
		{"3:1", []float32{0, ln3}, 1, 1 / (1 + e(float64(ln3)))}, // ≈ 0.25
		{"single class", []float32{-7}, 0, 0},
		{"gap 20", []float32{20, 0, 0}, 0, 2 * e(-20) / (1 + 2*e(-20))},
		{"gap 40", []float32{0, 40, 0, 0}, 1, 3 * e(-40) / (1 + 3*e(-40))},
		{"gap 100", []float32{-50, 50}, 1, e(-100) / (1 + e(-100))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			class, q := MaxSoftmax(c.logits)
			if class != c.class || math.Abs(q-c.unknown) > 1e-12*c.unknown+1e-15 {
				t.Fatalf("MaxSoftmax(%v) = %d, %.17g; want %d, %.17g", c.logits, class, q, c.class, c.unknown)
			}
		})
	}
	// float32 rounds 1/(1+2e⁻²⁰) to 1: the tie the float64 score removes.
	if p := float32(1) / (1 + 2*float32(e(-20))); p != 1 {
		t.Fatalf("float32 max softmax at gap 20 is %v, expected the rounding to 1 this test guards against", p)
	}
	_, q20 := MaxSoftmax([]float32{20, 0, 0})
	_, q40 := MaxSoftmax([]float32{40, 0, 0})
	if !(q20 > q40 && q40 > 0) {
		t.Errorf("scores at gaps 20 and 40 are %g, %g; want 0 < gap-40 < gap-20", q20, q40)
	}
	p := MaxSoftmaxPredictions([][]float32{{0, 2}, {5, 1}})
	if p.Class[0] != 1 || p.Class[1] != 0 || math.Abs(p.UnknownScore[0]-1/(1+e(2))) > 1e-15 || math.Abs(p.UnknownScore[1]-e(-4)/(1+e(-4))) > 1e-15 {
		t.Errorf("MaxSoftmaxPredictions = %v, %v", p.Class, p.UnknownScore)
	}
}
