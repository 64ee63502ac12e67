package suite

import (
	"math"
	"testing"
)

func TestScoreHandComputed(t *testing.T) {
	U := Unknown
	cases := []struct {
		name   string
		truth  []int
		class  []int
		score  []float64
		alpha  float64
		want   map[string]float64
		noKeys []string
	}{
		{
			// 6 graphs, K = 2 unknown (indices 4, 5). Top-2 scores: idx 5 (0.9), idx 1 (0.8).
			// Declared: {1, 5}. Known correct & not declared: idx 0 (0=0), idx 2 (1=1); idx 3 wrong class.
			// accuracy = (2 known + 1 unknown)/6 = 0.5; unknown_acc = 1/2; precision = 1/2 → F1 = 0.5;
			// known_acc = 2/4. AUROC: unknown scores {0.2, 0.9} vs known {0.1, 0.8, 0.3, 0.4}:
			// pairs won: 0.2>0.1 (1); 0.9 beats all 4 → 5 of 8 = 0.625.
			name:  "mixed",
			truth: []int{0, 1, 1, 2, U, U},
			class: []int{0, 1, 1, 0, 2, 2},
			score: []float64{0.1, 0.8, 0.3, 0.4, 0.2, 0.9},
			alpha: 1,
			// closed_acc counts idx 1 (right class, declared unknown): 3/4.
			want: map[string]float64{"accuracy": 0.5, "unknown_acc": 0.5, "ood_f1": 0.5, "known_acc": 0.5, "ood_auroc": 0.625, "closed_acc": 0.75},
		},
		{
			// α = 1.5: ⌈1.5·2⌉ = 3 declared: idx 5, 1, 3 → unknown still 1 of 2; precision 1/3 → F1 = 0.4;
			// known correct: idx 0, 2 → accuracy 3/6.
			name:  "alpha",
			truth: []int{0, 1, 1, 2, U, U},
			class: []int{0, 1, 1, 0, 2, 2},
			score: []float64{0.1, 0.8, 0.3, 0.4, 0.2, 0.9},
			alpha: 1.5,
			want:  map[string]float64{"accuracy": 0.5, "unknown_acc": 0.5, "ood_f1": 0.4, "known_acc": 0.5},
		},
		{
			// Ties: all scores equal → declared = lowest positions (idx 0), AUROC = 0.5.
			name:  "ties",
			truth: []int{0, U, 1},
			class: []int{0, 0, 1},
			score: []float64{0.5, 0.5, 0.5},
			alpha: 1,
			want:  map[string]float64{"accuracy": 1.0 / 3, "unknown_acc": 0, "ood_f1": 0, "known_acc": 0.5, "ood_auroc": 0.5, "closed_acc": 1},
		},
		{
			name:   "no unknown",
			truth:  []int{0, 1},
			class:  []int{0, 0},
			score:  []float64{0.5, 0.1},
			alpha:  1,
			want:   map[string]float64{"accuracy": 0.5, "known_acc": 0.5, "closed_acc": 0.5},
			noKeys: []string{"ood_f1", "unknown_acc", "ood_auroc"},
		},
		{
			name:  "perfect",
			truth: []int{U, 0, U, 1},
			class: []int{1, 0, 0, 1},
			score: []float64{3, 1, 2, 0},
			alpha: 1,
			want:  map[string]float64{"accuracy": 1, "unknown_acc": 1, "ood_f1": 1, "known_acc": 1, "ood_auroc": 1, "closed_acc": 1},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Score(c.truth, &Predictions{Class: c.class, UnknownScore: c.score}, c.alpha)
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range c.want {
				if math.Abs(got[k]-w) > 1e-12 {
					t.Errorf("%s = %v, want %v", k, got[k], w)
				}
			}
			for _, k := range c.noKeys {
				if _, ok := got[k]; ok {
					t.Errorf("%s present, want absent", k)
				}
			}
		})
	}
}

func TestScoreErrors(t *testing.T) {
	if _, err := Score([]int{0, 1}, &Predictions{Class: []int{0}, UnknownScore: []float64{0, 1}}, 1); err == nil {
		t.Error("length mismatch: want error")
	}
	if _, err := Score([]int{0}, &Predictions{Class: []int{0}, UnknownScore: []float64{math.NaN()}}, 1); err == nil {
		t.Error("NaN score: want error")
	}
}
