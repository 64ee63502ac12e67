package stats

import (
	"math"
	"testing"
)

func TestMeanStd(t *testing.T) {
	mean, std := MeanStd([]float64{0.5, 0.6, 0.7})
	if math.Abs(mean-0.6) > 1e-12 || math.Abs(std-0.1) > 1e-12 {
		t.Errorf("MeanStd(0.5,0.6,0.7) = %v, %v; want 0.6, 0.1", mean, std)
	}
	// Sample std (n−1): 1, 2, 3, 4 → var = 5/3.
	if _, std := MeanStd([]float64{1, 2, 3, 4}); math.Abs(std-math.Sqrt(5.0/3)) > 1e-12 {
		t.Errorf("std(1,2,3,4) = %v, want sqrt(5/3)", std)
	}
	if mean, std := MeanStd([]float64{0.42}); mean != 0.42 || std != 0 {
		t.Errorf("MeanStd(0.42) = %v, %v; want 0.42, 0", mean, std)
	}
	if mean, _ := MeanStd(nil); !math.IsNaN(mean) {
		t.Errorf("MeanStd(nil) mean = %v, want NaN", mean)
	}
}

func TestTests(t *testing.T) {
	if n := UTestNeed(0.05); n != 4 {
		t.Errorf("UTestNeed(0.05) = %d, want 4 (2/C(6,3) = 0.1, 2/C(8,4) ≈ 0.029)", n)
	}
	if p := MinUTestP(4, 4); math.Abs(p-2.0/70) > 1e-12 {
		t.Errorf("MinUTestP(4, 4) = %v, want 2/70", p)
	}
	if p := UTestP([]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}); math.Abs(p-2.0/70) > 1e-12 {
		t.Errorf("UTestP of separated samples = %v, want 2/70", p)
	}
	if p := UTestP([]float64{1, 1}, []float64{1, 1}); p != 1 {
		t.Errorf("UTestP of equal samples = %v, want 1", p)
	}
	if p := PairedP([]float64{1, 2, 3}, []float64{2, 3, 4}); p != 0 {
		t.Errorf("PairedP of a constant shift = %v, want 0", p)
	}
	if p := PairedP([]float64{1, 2, 3}, []float64{1, 2, 3}); p != 1 {
		t.Errorf("PairedP of no change = %v, want 1", p)
	}
}
