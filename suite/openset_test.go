package suite

import (
	"math"
	"testing"
)

const unk = Unknown

// openSetCases are hand-computed; each comment derives every value.
var openSetCases = []struct {
	name                     string
	truth, class             []int
	scores                   []float64
	auprOut, auprIn, fpr, os float64
}{
	{
		// Knowns 0.1, 0.2, 0.3 (graph 1 misclassified), unknowns 0.8, 0.9.
		// AUPR_out: 0.9 → P=1, R=½; 0.8 → P=1, R=1: ½·1 + ½·1 = 1.
		// AUPR_in (−score): the three knowns first, P=1 throughout: 1.
		// FPR95: all 3 knowns accepted at t=0.3 (100·3 ≥ 95·3), no unknown: 0.
		// OSCR: (0,0) → (0,⅓) → (0,⅓) → (0,⅔) → (½,⅔) → (1,⅔): area = closed acc ⅔.
		name:  "perfect",
		truth: []int{0, 1, 0, unk, unk}, class: []int{0, 0, 0, 0, 0},
		scores:  []float64{0.1, 0.2, 0.3, 0.8, 0.9},
		auprOut: 1, auprIn: 1, fpr: 0, os: 2.0 / 3,
	},
	{
		// Knowns 0.8, 0.9, 0.7, unknowns 0.1, 0.2, all classes right.
		// AUPR_out: 0.9, 0.8, 0.7 add no recall; 0.2 → R=½, P=¼; 0.1 → R=1, P=⅖:
		// ½·¼ + ½·⅖ = 0.125 + 0.2 = 0.325.
		// AUPR_in (−score desc −0.1, −0.2, −0.7, −0.8, −0.9): knowns at ranks 3, 4, 5:
		// ⅓·(⅓ + 2/4 + ⅗) = ⅓·43/30 = 43/90.
		// FPR95: 3 knowns need t=0.9, where both unknowns are accepted: 1.
		// OSCR: (0,0) → (½,0) → (1,0) → (1,⅓) → (1,⅔) → (1,1): area 0.
		name:  "reversed",
		truth: []int{0, 1, 2, unk, unk}, class: []int{0, 1, 2, 0, 0},
		scores:  []float64{0.8, 0.9, 0.7, 0.1, 0.2},
		auprOut: 0.325, auprIn: 43.0 / 90, fpr: 1, os: 0,
	},
	{
		// All five scores 0.5: one threshold, everything flagged at once.
		// AUPR_out = R 1 · P ⅖ = prevalence ⅖; AUPR_in = ⅗.
		// FPR95: t=0.5 accepts both unknowns: 1.
		// OSCR: one segment (0,0) → (1,1): ½.
		name:  "all tied",
		truth: []int{0, 0, unk, 1, unk}, class: []int{0, 0, 1, 1, 0},
		scores:  []float64{0.5, 0.5, 0.5, 0.5, 0.5},
		auprOut: 0.4, auprIn: 0.6, fpr: 1, os: 0.5,
	},
	{
		// As above with graph 3 misclassified: OSCR segment (0,0) → (1,⅔): ⅓.
		name:  "all tied, one misclassified",
		truth: []int{0, 0, unk, 1, unk}, class: []int{0, 0, 1, 0, 0},
		scores:  []float64{0.5, 0.5, 0.5, 0.5, 0.5},
		auprOut: 0.4, auprIn: 0.6, fpr: 1, os: 1.0 / 3,
	},
	{
		// Tie groups mixing known and unknown graphs:
		//   0.2: known 0 (right), unknown 1;  0.5: known 2 (wrong), unknown 3,
		//   known 4 (right);  0.9: unknown 5.
		// AUPR_out (desc): 0.9 → tp 1, n 1: R ⅓, P 1 → ⅓;
		//   0.5 → tp 2, n 4: ΔR ⅓, P ½ → ⅙;  0.2 → tp 3, n 6: ΔR ⅓, P ½ → ⅙.  Sum ⅔.
		// AUPR_in (−score desc): −0.2 → tp 1, n 2: R ⅓, P ½ → ⅙;
		//   −0.5 → tp 3, n 5: ΔR ⅔, P ⅗ → ⅖;  −0.9 → ΔR 0.  Sum ⅙ + ⅖ = 17/30.
		// FPR95: t=0.2 accepts 1 of 3 knowns; t=0.5 all 3, with unknowns 1 and 3: ⅔.
		// OSCR: points (0,0), (⅓,⅓), (⅔,⅔), (1,⅔):
		//   ⅓·(0+⅓)/2 + ⅓·(⅓+⅔)/2 + ⅓·(⅔+⅔)/2 = 1/18 + 3/18 + 4/18 = 4/9.
		name:  "ties across classes",
		truth: []int{0, unk, 1, unk, 0, unk}, class: []int{0, 0, 0, 0, 0, 0},
		scores:  []float64{0.2, 0.2, 0.5, 0.5, 0.5, 0.9},
		auprOut: 2.0 / 3, auprIn: 17.0 / 30, fpr: 2.0 / 3, os: 4.0 / 9,
	},
}

func TestOpenSetMetricsHandComputed(t *testing.T) {
	for _, c := range openSetCases {
		t.Run(c.name, func(t *testing.T) {
			check := func(metric string, got float64, ok bool, want float64) {
				t.Helper()
				if !ok || math.Abs(got-want) > 1e-12 {
					t.Errorf("%s = %v (ok %v), want %v", metric, got, ok, want)
				}
			}
			v, ok := AUPROut(c.truth, c.scores)
			check("AUPROut", v, ok, c.auprOut)
			v, ok = AUPRIn(c.truth, c.scores)
			check("AUPRIn", v, ok, c.auprIn)
			v, ok = FPRAt95TPR(c.truth, c.scores)
			check("FPRAt95TPR", v, ok, c.fpr)
			v, ok = OSCR(c.truth, c.class, c.scores)
			check("OSCR", v, ok, c.os)
		})
	}
}

func TestFPRAt95TPRCountsExactly(t *testing.T) {
	cases := []struct {
		name     string
		numKnown int
		unknown  []float64
		want     float64
	}{
		// Knowns score 1..20; 19/20 = 0.95 suffices, so t = 19: unknowns 2.5 and 18.5
		// are accepted, 19.5 and 25 are not: 2/4. (Requiring all 20 would give ¾,
		// stopping at 18 would give ¼.)
		{"19 of 20", 20, []float64{19.5, 18.5, 2.5, 25}, 0.5},
		// Knowns score 1..10; 9/10 < 0.95, so all 10 are needed, t = 10: both
		// unknowns (9.5, 0.5) accepted: 1. (A floor(0.95·10) = 9 rule would give ½.)
		{"10 of 10", 10, []float64{9.5, 0.5}, 1},
	}
	for _, c := range cases {
		var truth []int
		var scores []float64
		for i := 1; i <= c.numKnown; i++ {
			truth = append(truth, i%3)
			scores = append(scores, float64(i))
		}
		for _, s := range c.unknown {
			truth = append(truth, unk)
			scores = append(scores, s)
		}
		if v, ok := FPRAt95TPR(truth, scores); !ok || v != c.want {
			t.Errorf("%s: FPRAt95TPR = %v (ok %v), want %v", c.name, v, ok, c.want)
		}
	}
}

func TestOpenSetMetricsUndefined(t *testing.T) {
	cases := []struct {
		name  string
		truth []int
	}{
		{"empty", nil},
		{"no unknown", []int{0, 1, 0}},
		{"no known", []int{unk, unk}},
	}
	for _, c := range cases {
		scores := make([]float64, len(c.truth))
		class := make([]int, len(c.truth))
		if _, ok := AUPROut(c.truth, scores); ok {
			t.Errorf("%s: AUPROut ok", c.name)
		}
		if _, ok := AUPRIn(c.truth, scores); ok {
			t.Errorf("%s: AUPRIn ok", c.name)
		}
		if _, ok := FPRAt95TPR(c.truth, scores); ok {
			t.Errorf("%s: FPRAt95TPR ok", c.name)
		}
		if _, ok := OSCR(c.truth, class, scores); ok {
			t.Errorf("%s: OSCR ok", c.name)
		}
	}
}

// The metrics depend on the ranking only: a strictly increasing transform
// of the scores changes nothing.
func TestOpenSetMetricsRankOnly(t *testing.T) {
	c := openSetCases[4]
	exp := make([]float64, len(c.scores))
	for i, s := range c.scores {
		exp[i] = math.Exp(3*s) - 7
	}
	a1, _ := AUPROut(c.truth, exp)
	a2, _ := AUPRIn(c.truth, exp)
	a3, _ := FPRAt95TPR(c.truth, exp)
	a4, _ := OSCR(c.truth, c.class, exp)
	if math.Abs(a1-c.auprOut) > 1e-12 || math.Abs(a2-c.auprIn) > 1e-12 || a3 != c.fpr || math.Abs(a4-c.os) > 1e-12 {
		t.Errorf("after exp: %v %v %v %v, want %v %v %v %v", a1, a2, a3, a4, c.auprOut, c.auprIn, c.fpr, c.os)
	}
}

func TestHScore(t *testing.T) {
	cases := []struct{ known, unknown, want float64 }{
		{0, 0, 0},
		{1, 1, 1},
		{1, 0, 0},
		{0, 1, 0},
		{0.5, 1, 2.0 / 3},  // 2·0.5/1.5
		{0.6, 0.3, 0.4},    // 2·0.18/0.9
		{0.25, 0.25, 0.25}, // equal inputs: the mean itself
	}
	for _, c := range cases {
		if got := HScore(c.known, c.unknown); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("HScore(%v, %v) = %v, want %v", c.known, c.unknown, got, c.want)
		}
	}
}

func TestOpenSetMetricsPanicOnLengths(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for 2 scores and 3 graphs")
		}
	}()
	AUPROut([]int{0, unk, 0}, []float64{1, 2})
}
