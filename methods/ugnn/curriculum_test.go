package ugnn

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestMeanStd: s~ = μ − σ with the population σ (1/I).
func TestMeanStd(t *testing.T) {
	for _, c := range []struct {
		s         []float64
		mu, sigma float64
		sTilde    float64 // μ − σ, written out
	}{
		// μ = 0.8, σ² = (0.01 + 0.01 + 0)/3 = 2/300 → σ = 0.0816497 (the
		// sample σ would be 0.1 and give 0.7).
		{[]float64{0.9, 0.7, 0.8}, 0.8, math.Sqrt(2.0 / 300), 0.7183503},
		{[]float64{0.37, 0.37, 0.37}, 0.37, 0, 0.37},
		{[]float64{0.42}, 0.42, 0, 0.42},
		{[]float64{1, 0}, 0.5, 0.5, 0},
		{[]float64{1, 0.5, 0.5, 0}, 0.5, math.Sqrt(0.125), 0.5 - math.Sqrt(0.125)}, // σ² = (0.25 + 0 + 0 + 0.25)/4
	} {
		mu, sigma := MeanStd(c.s)
		if !near(mu, c.mu, 1e-12) || !near(sigma, c.sigma, 1e-12) || !near(mu-sigma, c.sTilde, 1e-7) {
			t.Errorf("MeanStd(%v) = %.7f, %.7f (μ − σ %.7f); want %.7f, %.7f (%.7f)", c.s, mu, sigma, mu-sigma, c.mu, c.sigma, c.sTilde)
		}
	}
}

// TestCurriculumThresholdHand: scores with known order, n = 10.
func TestCurriculumThresholdHand(t *testing.T) {
	scores := []float64{0.55, 0.1, 0.9, 0.3, 0.75, 0.2, 0.65, 0.45, 0.8, 0.05}
	// sorted: 0.05 0.1 0.2 0.3 0.45 0.55 0.65 0.75 0.8 0.9
	for _, c := range []struct {
		name    string
		k       int
		alpha   float64
		t, T    int
		want    float64
		wantSet []int
	}{
		{"K=3 α=1 t=T", 3, 1, 4, 4, 0.2, []int{1, 5, 9}},
		{"K=3 α=1 t=1", 3, 1, 1, 4, 0.05, []int{9}},
		{"K=3 α=1 t=2", 3, 1, 2, 4, 0.1, []int{1, 9}},
		{"K=3 α=1 t=3", 3, 1, 3, 4, 0.15000000000000002, []int{1, 9}},
		{"K=3 α=1.4 → 5th", 3, 1.4, 5, 5, 0.45, []int{1, 3, 5, 7, 9}},
		{"K=3 α=0.8 → 3rd", 3, 0.8, 1, 1, 0.2, []int{1, 5, 9}},
		{"K=5 α=0.8 → 4th", 5, 0.8, 2, 2, 0.3, []int{1, 3, 5, 9}},
		{"K=5 α=1.4 → 7th", 5, 1.4, 2, 2, 0.65, []int{0, 1, 3, 5, 6, 7, 9}},
		{"K=10 α=1.1 → 11th, clamped to n", 10, 1.1, 1, 1, 0.9, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"K=10 α=0.7 → 7th", 10, 0.7, 1, 1, 0.65, []int{0, 1, 3, 5, 6, 7, 9}},
		{"K=0 → clamped to the 1st", 0, 1, 3, 3, 0.05, []int{9}},
		{"K=40 > n → the largest", 40, 1, 1, 2, 0.45, []int{1, 3, 5, 7, 9}},
	} {
		got := CurriculumThreshold(scores, c.k, c.alpha, c.t, c.T)
		if !near(got, c.want, 1e-12) {
			t.Errorf("%s: δ_t = %v, want %v", c.name, got, c.want)
		}
		if set := OODSet(scores, got); !slices.Equal(set, c.wantSet) {
			t.Errorf("%s: OOD set %v, want %v", c.name, set, c.wantSet)
		}
	}
	// α·K in float64 can land just above an integer: 1.1·50 =
	// 55.00000000000001, and ⌈αK⌉ must still be 55, not 56.
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(99-i) / 100
	}
	if got := CurriculumThreshold(hundred, 50, 1.1, 1, 1); got != 0.54 {
		t.Errorf("K 50 α 1.1: δ = %v, want the 55th smallest 0.54", got)
	}
	if got := CurriculumThreshold(nil, 3, 1, 1, 1); !math.IsInf(got, -1) {
		t.Errorf("no scores: δ = %v, want −Inf", got)
	}
	if got := OODSet([]float64{0.3, 0.2, 0.3, 0.4}, 0.3); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("OODSet with ties at the threshold = %v, want [0 1 2] (≤)", got)
	}
}

// TestCurriculumOverCycles: on 200 distinct random scores, for K = 40,
// T = 5 and α ∈ {0.8, 1, 1.4}: δ is the ⌈αK⌉-th smallest score, δ_t =
// (t/T)δ, the OOD sets are exactly {i : s_i ≤ δ_t} in ascending order,
// their sizes never shrink, and at t = T the set has ⌈αK⌉ graphs.
func TestCurriculumOverCycles(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	scores := make([]float64, 200)
	for i := range scores {
		scores[i] = 0.1 + 0.9*rng.Float64()
	}
	sorted := slices.Clone(scores)
	sort.Float64s(sorted)
	const K, T = 40, 5
	for _, c := range []struct {
		alpha float64
		k     int
	}{{0.8, 32}, {1, 40}, {1.4, 56}} {
		delta := sorted[c.k-1]
		prev := 0
		for tt := 1; tt <= T; tt++ {
			thr := CurriculumThreshold(scores, K, c.alpha, tt, T)
			if want := float64(tt) / T * delta; !near(thr, want, 1e-15) {
				t.Fatalf("α %g t %d: δ_t = %v, want %v", c.alpha, tt, thr, want)
			}
			set := OODSet(scores, thr)
			var want []int
			for i, s := range scores {
				if s <= thr {
					want = append(want, i)
				}
			}
			if !slices.Equal(set, want) {
				t.Fatalf("α %g t %d: OOD set %v, want %v", c.alpha, tt, set, want)
			}
			if len(set) < prev {
				t.Errorf("α %g t %d: OOD set shrank from %d to %d", c.alpha, tt, prev, len(set))
			}
			prev = len(set)
		}
		if prev != c.k {
			t.Errorf("α %g: OOD set at t = T has %d graphs, want ⌈αK⌉ = %d", c.alpha, prev, c.k)
		}
	}
}
