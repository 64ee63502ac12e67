package suite

import (
	"math"
	"strings"
	"testing"
)

// truthOfTable maps graph g to truth[g] (Unknown or a known class).
func truthOfTable(truth []int) func(int) int { return func(g int) int { return truth[g] } }

// TestExtraScoresMetrics checks Predictions.ExtraScores on hand-made
// scores: each becomes ood_auroc_<name> over the scored subset only, with
// the subset's prefix, and leaves the other metrics alone.
func TestExtraScoresMetrics(t *testing.T) {
	U := Unknown
	// Graphs 0..5; eval = all; graph 5 is held out (the "test" subset).
	truth := []int{0, U, 1, U, 0, U}
	eval := []int{0, 1, 2, 3, 4, 5}
	pred := &Predictions{
		Class:        []int{0, 0, 1, 0, 0, 0},
		UnknownScore: []float64{0, 1, 0, 1, 0, 1},
		ExtraScores: map[string][]float64{
			// Unlabelled 0..4: unknown {0.2, 0.9} vs known {0.1, 0.8, 0.3}:
			// 0.2 beats 0.1; 0.9 beats all 3 → 4 of 6.
			"a": {0.1, 0.2, 0.8, 0.9, 0.3, 5},
			// Reversed ranking → 1 − 4/6; ties with 0.5 per pair where equal.
			"b_2": {-0.1, -0.2, -0.8, -0.9, -0.3, 5},
		},
	}
	m, err := scoreSubset(eval, []int{0, 1, 2, 3, 4}, pred, truthOfTable(truth), 1, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"ood_auroc": 1, "ood_auroc_a": 4.0 / 6, "ood_auroc_b_2": 2.0 / 6}
	for k, w := range want {
		if math.Abs(m[k]-w) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, m[k], w)
		}
	}
	// The test subset has only an unknown graph: AUROC undefined, left out.
	m, err = scoreSubset(eval, []int{5}, pred, truthOfTable(truth), 1, "test_")
	if err != nil {
		t.Fatal(err)
	}
	for k := range m {
		if strings.HasPrefix(k, "test_ood_auroc") {
			t.Errorf("%s = %v present for a subset without known graphs", k, m[k])
		}
	}
	m, err = scoreSubset(eval, []int{0, 1}, pred, truthOfTable(truth), 1, "test_")
	if err != nil {
		t.Fatal(err)
	}
	if m["test_ood_auroc_a"] != 1 || m["test_ood_auroc_b_2"] != 0 {
		t.Errorf("test subset {0, 1}: metrics %v, want test_ood_auroc_a 1 and _b_2 0", m)
	}

	bad := []struct {
		name   string
		scores map[string][]float64
		errHas string
	}{
		{"bad name", map[string][]float64{"Max-Softmax": make([]float64, 6)}, `"Max-Softmax"`},
		{"empty name", map[string][]float64{"": make([]float64, 6)}, "empty"},
		{"short", map[string][]float64{"a": make([]float64, 5)}, "5 scores for 6"},
		{"NaN", map[string][]float64{"a": {0, math.NaN(), 0, 0, 0, 0}}, "NaN"},
	}
	for _, tc := range bad {
		p := *pred
		p.ExtraScores = tc.scores
		if _, err := scoreSubset(eval, []int{0, 1, 2}, &p, truthOfTable(truth), 1, ""); err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.errHas)
		}
	}
}

// TestReportScoresCurves checks Task.ReportScores' logging: one
// ood_auroc_<name> point per defined score, none for a set of one kind, and
// the first bad call kept as the run's error.
func TestReportScoresCurves(t *testing.T) {
	U := Unknown
	truth := []int{0, U, 1, U, 2}
	l := &curveLog{}
	l.scores(3, []int{0, 1, 2, 3}, map[string][]float64{
		"x": {0.1, 0.9, 0.5, 0.4}, // unknown {0.9, 0.4} vs known {0.1, 0.5}: 3 of 4
		"y": {1, 1, 1, 1},         // all ties: 0.5
	}, truthOfTable(truth))
	l.scores(4, []int{1, 3}, map[string][]float64{"x": {0, 1}}, truthOfTable(truth)) // only unknown: no point
	want := []CurvePoint{{3, "ood_auroc_x", 0.75}, {3, "ood_auroc_y", 0.5}}
	if len(l.points) != len(want) {
		t.Fatalf("points %v, want %v", l.points, want)
	}
	for i, p := range want {
		if l.points[i] != p {
			t.Errorf("point %d = %v, want %v", i, l.points[i], p)
		}
	}
	if l.err != nil {
		t.Fatalf("err %v after good calls", l.err)
	}
	l.scores(5, []int{0, 1}, map[string][]float64{"x": {1}}, truthOfTable(truth))
	l.scores(6, []int{0, 1}, map[string][]float64{"X": {1, 2}}, truthOfTable(truth))
	if l.err == nil || !strings.Contains(l.err.Error(), "epoch 5") || !strings.Contains(l.err.Error(), "1 scores for 2 graphs") {
		t.Errorf("err = %v, want the first bad call (epoch 5, length)", l.err)
	}
	if len(l.points) != len(want) {
		t.Errorf("bad calls logged points: %v", l.points[len(want):])
	}
}
