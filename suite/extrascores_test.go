package suite

import (
	"math"
	"strings"
	"testing"
)

// truthOfTable maps graph g to truth[g] (Unknown or a known class).
func truthOfTable(truth []int) func(int) int { return func(g int) int { return truth[g] } }

// scoreTop scores the subset of eval with the top-⌈K⌉ rule (α = 1), extra
// scores included.
func scoreTop(eval, subset []int, pred *Predictions, truthOf func(int) int) (map[string]float64, error) {
	s, err := scoreSubset(eval, subset, pred, truthOf)
	if err != nil {
		return nil, err
	}
	k := 0
	for _, t := range s.truth {
		if t == Unknown {
			k++
		}
	}
	return s.score(DeclaredUnknown(s.pred.UnknownScore, k, 1))
}

// TestExtraScoresMetrics checks Predictions.ExtraScores on hand-made
// scores: each becomes ood_auroc_<name> over the scored subset only, under
// the subset's prefix; a NaN score gives a NaN metric; the other metrics
// are those of the predictions without extra scores.
func TestExtraScoresMetrics(t *testing.T) {
	U := Unknown
	// Graphs 0..5; eval = all; graph 5 is held out (the "test" subset).
	truth := []int{0, U, 1, U, 0, U}
	eval := []int{0, 1, 2, 3, 4, 5}
	plain := &Predictions{
		Class:        []int{0, 0, 1, 0, 0, 0},
		UnknownScore: []float64{0, 1, 0, 1, 0, 1},
	}
	pred := *plain
	pred.ExtraScores = map[string][]float64{
		// Unlabelled 0..4: unknown {0.2, 0.9} vs known {0.1, 0.8, 0.3}:
		// 0.2 beats 0.1; 0.9 beats all 3 → 4 of 6 pairs.
		"a": {0.1, 0.2, 0.8, 0.9, 0.3, 5},
		// The same ranking reversed → 2 of 6.
		"b_2": {-0.1, -0.2, -0.8, -0.9, -0.3, 5},
		// NaN on graph 3 (in the unlabelled subset, not in {0, 1}) and on
		// graph 5 (alone in the test subset, where AUROC is undefined).
		"c": {0, 1, 0, math.NaN(), 0, math.NaN()},
	}
	unlabelled := []int{0, 1, 2, 3, 4}
	m, err := scoreTop(eval, unlabelled, &pred, truthOfTable(truth))
	if err != nil {
		t.Fatal(err)
	}
	base, err := scoreTop(eval, unlabelled, plain, truthOfTable(truth))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"ood_auroc_a": 4.0 / 6, "ood_auroc_b_2": 2.0 / 6, "ood_auroc_c": math.NaN()}
	for k, v := range base {
		want[k] = v
	}
	if len(m) != len(want) {
		t.Errorf("metrics %v, want %v", m, want)
	}
	for k, w := range want {
		if got, ok := m[k]; !ok || !(math.Abs(got-w) < 1e-12 || math.IsNaN(got) && math.IsNaN(w)) {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, w)
		}
	}
	// The test subset {5} has only an unknown graph: AUROC undefined, left out.
	m, err = scoreTop(eval, []int{5}, &pred, truthOfTable(truth))
	if err != nil {
		t.Fatal(err)
	}
	for k := range m {
		if strings.HasPrefix(k, "ood_auroc") {
			t.Errorf("%s = %v present for a subset without known graphs", k, m[k])
		}
	}
	m, err = scoreTop(eval, []int{0, 1}, &pred, truthOfTable(truth))
	if err != nil {
		t.Fatal(err)
	}
	if m["ood_auroc_a"] != 1 || m["ood_auroc_b_2"] != 0 || m["ood_auroc_c"] != 1 {
		t.Errorf("test subset {0, 1}: metrics %v, want ood_auroc_a 1, _b_2 0, _c 1", m)
	}

	bad := []struct {
		name   string
		scores map[string][]float64
		errHas string
	}{
		{"bad name", map[string][]float64{"Max-Softmax": make([]float64, 6)}, `"Max-Softmax"`},
		{"empty name", map[string][]float64{"": make([]float64, 6)}, "empty"},
		{"short", map[string][]float64{"a": make([]float64, 5)}, "5 values for 6"},
	}
	for _, tc := range bad {
		p := *plain
		p.ExtraScores = tc.scores
		if _, err := scoreTop(eval, []int{0, 1, 2}, &p, truthOfTable(truth)); err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.errHas)
		}
	}
}

// TestReportScoresCurves checks Task.ReportScores' logging: one
// ood_auroc_<name> point per defined score (NaN for a NaN score), none for
// a set of one kind, and an error that logs nothing for a bad call.
func TestReportScoresCurves(t *testing.T) {
	U := Unknown
	truth := []int{0, U, 1, U, 2}
	l := &curveLog{}
	if err := l.scores(3, []int{0, 1, 2, 3}, map[string][]float64{
		"x": {0.1, 0.9, 0.5, 0.4}, // unknown {0.9, 0.4} vs known {0.1, 0.5}: 3 of 4
		"y": {1, 1, 1, 1},         // all ties: 0.5
	}, truthOfTable(truth)); err != nil {
		t.Fatal(err)
	}
	if err := l.scores(4, []int{1, 3}, map[string][]float64{"x": {0, 1}}, truthOfTable(truth)); err != nil { // only unknown: no point
		t.Fatal(err)
	}
	if err := l.scores(5, []int{0, 1}, map[string][]float64{"z": {math.NaN(), 1}}, truthOfTable(truth)); err != nil {
		t.Fatal(err)
	}
	// A NaN over graphs of one kind: undefined, no point (not a NaN one).
	if err := l.scores(5, []int{1, 3}, map[string][]float64{"z": {math.NaN(), 1}}, truthOfTable(truth)); err != nil {
		t.Fatal(err)
	}
	want := []CurvePoint{{3, "ood_auroc_x", 0.75}, {3, "ood_auroc_y", 0.5}}
	if len(l.points) != len(want)+1 {
		t.Fatalf("points %v, want %v and a NaN at epoch 5", l.points, want)
	}
	for i, p := range want {
		if l.points[i] != p {
			t.Errorf("point %d = %v, want %v", i, l.points[i], p)
		}
	}
	if p := l.points[2]; p.Epoch != 5 || p.Name != "ood_auroc_z" || !math.IsNaN(p.Value) {
		t.Errorf("point 2 = %v, want NaN ood_auroc_z at epoch 5", p)
	}
	n := len(l.points)
	for _, tc := range []struct {
		scores map[string][]float64
		errHas string
	}{
		{map[string][]float64{"ok": {1, 2}, "x": {1}}, "epoch 6: score x: 1 values for 2 graphs"},
		{map[string][]float64{"ok": {1, 2}, "X": {1, 2}}, `"X"`},
	} {
		err := l.scores(6, []int{0, 1}, tc.scores, truthOfTable(truth))
		if err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("error %v, want one with %q", err, tc.errHas)
		}
	}
	if len(l.points) != n {
		t.Errorf("bad calls logged points: %v", l.points[n:])
	}
}
