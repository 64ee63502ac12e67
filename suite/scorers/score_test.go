package scorers_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/suite/scorers"
)

func mustParse(t *testing.T, spec string) scorers.Scorer {
	t.Helper()
	s, err := scorers.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fitScore parses spec, fits it on (labelled, labels, numKnown) and scores
// eval, failing the test on any error.
func fitScore(t *testing.T, spec string, labelled scorers.Outputs, labels []int, numKnown int, eval scorers.Outputs) []float64 {
	t.Helper()
	s := mustParse(t, spec)
	if err := s.Fit(labelled, labels, numKnown); err != nil {
		t.Fatal(err)
	}
	got, err := s.Score(eval)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func checkScores(t *testing.T, spec string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d scores, want %d", spec, len(got), len(want))
	}
	for i := range want {
		if !near(got[i], want[i], tol) {
			t.Errorf("%s: score %d = %.17g, want %.17g", spec, i, got[i], want[i])
		}
	}
}

// Logit rows, C = 3:
//
//	A = (2, 1, 0): argmax 0, S = e⁻¹ + e⁻² = 0.36787944117144233 + 0.1353352832366127
//	  = 0.503214724408055; msp = S/(1+S) = 0.3347590442251781; maxlogit −2;
//	  energy T=1: −(2 + log(1 + e⁻¹ + e⁻²)) = −(2 + 0.4076059644443804) = −2.4076059644443806;
//	  energy T=2: −2·logsumexp(1, 0.5, 0) = −(2 + 2·log(1 + e^−½ + e⁻¹))
//	  = −(2 + 2·0.6802696706417346) = −3.360539341283469.
//	B = (0, 0, 0): msp = 2/3 (S = 2); maxlogit 0; energy T=1: −log 3 = −1.0986122886681098,
//	  T=2: −2·log 3 = −2.1972245773362196.
//	D = (−1, −3, −2) = A − 3 reordered: msp as A (shift invariant); maxlogit 1;
//	  energy T=1: −(−1 + 0.4076059644443804) = 0.5923940355556196,
//	  T=2: −(−1 + 2·0.6802696706417346) = −0.3605393412834692.
//	E = (30, 0, 0): S = 2e⁻³⁰ = 1.871524593768035e-13, msp = S/(1+S) = 1.8715245937676846e-13
//	  (in float32, 1 − softmax would be exactly 0); maxlogit −30;
//	  energy T=1: −(30 + log(1 + 2e⁻³⁰)) = −30.00000000000019,
//	  T=2: −(30 + 2·log(1 + 2e⁻¹⁵)) = −30.00000122360891.
func TestLogitScorersHandComputed(t *testing.T) {
	logits := [][]float32{{2, 1, 0}, {0, 0, 0}, {-1, -3, -2}, {30, 0, 0}}
	cases := []struct {
		spec string
		want []float64
	}{
		{"msp", []float64{0.3347590442251781, 2.0 / 3, 0.3347590442251781, 1.8715245937676846e-13}},
		{"maxlogit", []float64{-2, 0, 1, -30}},
		{"energy", []float64{-2.4076059644443806, -1.0986122886681098, 0.5923940355556196, -30.00000000000019}},
		{"energy:t=2", []float64{-3.360539341283469, -2.1972245773362196, -0.3605393412834692, -30.00000122360891}},
	}
	labelled := scorers.Outputs{Logits: [][]float32{{1, 0, 0}}}
	for _, c := range cases {
		got := fitScore(t, c.spec, labelled, []int{0}, 3, scorers.Outputs{Logits: logits})
		checkScores(t, c.spec, got, c.want, 1e-14)
	}
}

// Labelled embeddings, 2 classes:
//
//	class 0: (−1,−1), (1,1) → μ₀ = (0,0);  class 1: (4,1), (4,−1) → μ₁ = (4,0).
//	Residuals (−1,−1), (1,1), (0,1), (0,−1):
//	Σ = ¼·[[1+1, 1+1], [1+1, 1+1+1+1]] = [[½,½],[½,1]], det ¼, Σ⁻¹ = [[4,−2],[−2,2]],
//	so (a,b)ᵀΣ⁻¹(a,b) = 4a² − 4ab + 2b². Scores (min over classes):
//	  (0,0): 0 vs (−4,0) → 64: 0          (1,0): 4 vs (−3,0) → 36: 4
//	  (0,1): 2 vs (−4,1) → 64+16+2 = 82: 2 (2,2): 16−16+8 = 8 vs (−2,2) → 16+16+8 = 40: 8
//	  (3,−1): 36+12+2 = 50 vs (−1,−1) → 4−4+2 = 2: 2
//	shrink ½: tr Σ / d = 1.5/2 = ¾; Σ' = ½Σ + ½·¾·I = [[5/8, ¼], [¼, 7/8]], det 35/64 − 4/64 = 31/64,
//	Σ'⁻¹ = (64/31)·[[7/8, −¼], [−¼, 5/8]] = [[56, −16], [−16, 40]]/31,
//	so the form is (56a² − 32ab + 40b²)/31:
//	  (0,0): 0                                 (1,0): 56 vs (−3,0) 504: 56/31
//	  (0,1): 40 vs (−4,1) 896+128+40 = 1064: 40/31
//	  (2,2): 224−128+160 = 256 vs (−2,2) 224+128+160 = 512: 256/31
//	  (3,−1): 504+96+40 = 640 vs (−1,−1) 56−32+40 = 64: 64/31
func TestMahalanobisHandComputed(t *testing.T) {
	labelled := scorers.Outputs{Embeddings: [][]float32{{-1, -1}, {1, 1}, {4, 1}, {4, -1}}}
	labels := []int{0, 0, 1, 1}
	eval := scorers.Outputs{Embeddings: [][]float32{{0, 0}, {1, 0}, {0, 1}, {2, 2}, {3, -1}}}
	cases := []struct {
		spec     string
		numKnown int
		want     []float64
	}{
		{"mahalanobis:shrink=0", 2, []float64{0, 4, 2, 8, 2}},
		{"mahalanobis:shrink=0.5", 2, []float64{0, 56.0 / 31, 40.0 / 31, 256.0 / 31, 64.0 / 31}},
		// A third known class without a labelled graph is skipped.
		{"mahalanobis:shrink=0", 3, []float64{0, 4, 2, 8, 2}},
	}
	for _, c := range cases {
		got := fitScore(t, c.spec, labelled, labels, c.numKnown, eval)
		checkScores(t, c.spec, got, c.want, 1e-12)
	}
}

func TestMahalanobisNotPositiveDefinite(t *testing.T) {
	cases := []struct {
		spec     string
		labelled [][]float32
		labels   []int
		wantErr  string // "" when Fit succeeds
	}{
		// Residuals (±1, ±1) span one direction: Σ = [[1,1],[1,1]] is singular.
		{"mahalanobis:shrink=0", [][]float32{{-1, -1}, {1, 1}}, []int{0, 0}, "raise shrink"},
		// Shrinkage makes it definite: ½Σ + ½·1·I = [[1, ½], [½, 1]].
		{"mahalanobis:shrink=0.5", [][]float32{{-1, -1}, {1, 1}}, []int{0, 0}, ""},
		// Every graph at its class mean: Σ = 0 and tr Σ = 0, no shrinkage helps.
		{"mahalanobis:shrink=1", [][]float32{{2, 3}, {2, 3}}, []int{0, 0}, "no within-class variance"},
		// One labelled graph per class: the same.
		{"mahalanobis:shrink=0.5", [][]float32{{-1, -1}, {1, 1}}, []int{0, 1}, "no within-class variance"},
	}
	for _, c := range cases {
		err := mustParse(t, c.spec).Fit(scorers.Outputs{Embeddings: c.labelled}, c.labels, 2)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s on %v: Fit error %v, want none", c.spec, c.labelled, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s on %v: Fit error %v, want one saying %q", c.spec, c.labelled, err, c.wantErr)
		}
	}
}

// Bank (normalised): (2,0) → (1,0); (0,3) → (0,1); (−1,0) → (−1,0); (0,0) stays (0,0).
//
//	eval (3,0) → (1,0): distances 0, √2, 2, 1 → sorted 0, 1, √2, 2.
//	eval (1,1) → (1/√2, 1/√2): to (1,0) and (0,1) √((1−1/√2)² + ½) = √(2−√2) = 0.7653668647301795,
//	  to (−1,0) √(2+√2) = 1.8477590650225735, to (0,0) 1 → sorted √(2−√2), √(2−√2), 1, √(2+√2).
//	eval (0,0) stays zero: distances 1, 1, 1, 0 → sorted 0, 1, 1, 1.
func TestKNNHandComputed(t *testing.T) {
	labelled := scorers.Outputs{Embeddings: [][]float32{{2, 0}, {0, 3}, {-1, 0}, {0, 0}}}
	eval := scorers.Outputs{Embeddings: [][]float32{{3, 0}, {1, 1}, {0, 0}}}
	r := 0.7653668647301795
	cases := []struct {
		spec string
		want []float64
	}{
		{"knn", []float64{0, r, 0}},
		{"knn:k=2", []float64{1, r, 1}},
		{"knn:k=3", []float64{math.Sqrt2, 1, 1}},
		{"knn:k=4", []float64{2, 1.8477590650225735, 1}},
	}
	for _, c := range cases {
		got := fitScore(t, c.spec, labelled, []int{0, 1, 0, 1}, 2, eval)
		checkScores(t, c.spec, got, c.want, 1e-15)
	}
	if err := mustParse(t, "knn:k=5").Fit(labelled, []int{0, 1, 0, 1}, 2); err == nil || !strings.Contains(err.Error(), "k=5") {
		t.Errorf("knn:k=5 on 4 labelled graphs: error %v", err)
	}
}
