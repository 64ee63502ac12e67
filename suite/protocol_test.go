package suite

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/ugbench/ugbench/datasets"
)

// handDataset is a Letter-high-shaped dataset (15 classes, 10 known) of
// hand-made labels: class c has 5+c graphs, so classes differ in size.
func handDataset() *datasets.Dataset {
	ds := &datasets.Dataset{Name: "Letter-high", NumClasses: 15, FeatureDim: 1}
	for c := 0; c < 15; c++ {
		for i := 0; i < 5+c; i++ {
			ds.Labels = append(ds.Labels, c)
			ds.Graphs = append(ds.Graphs, datasets.Graph{NumNodes: 1, Features: []float32{float32(len(ds.Graphs))}})
		}
	}
	return ds
}

// TestSplitProtocolV2 checks the split of docs/protocol.md §2 on hand-made
// labels: the test set holds round(0.2·n_c) graphs of every class, known
// and unknown; it is disjoint from D^l and D^u, which with it cover every
// graph; the labelled ratio applies to the pool outside the test set; the
// lists do not depend on the run seed and change with the split seed.
func TestSplitProtocolV2(t *testing.T) {
	ds := handDataset()
	spec := RunSpec{Dataset: "Letter-high", Ratio: 0.4, Protocol: DefaultProtocol()}
	ref, err := MakeSplit(ds, spec)
	if err != nil {
		t.Fatal(err)
	}
	perClass := func(idx []int) map[int]int {
		m := map[int]int{}
		for _, g := range idx {
			m[ds.Labels[g]]++
		}
		return m
	}
	test, lab := perClass(ref.Test), perClass(ref.Labelled)
	for c := 0; c < 15; c++ {
		n := 5 + c
		if want := int(math.Round(0.2 * float64(n))); test[c] != want {
			t.Errorf("class %d (%d graphs): %d test graphs, want %d", c, n, test[c], want)
		}
		wantLab := 0
		if c < 10 {
			wantLab = int(math.Round(0.4 * float64(n-test[c])))
		}
		if lab[c] != wantLab {
			t.Errorf("class %d: %d labelled, want round(0.4 × %d pool graphs) = %d", c, lab[c], n-test[c], wantLab)
		}
	}
	seen := map[int]string{}
	for name, idx := range map[string][]int{"test": ref.Test, "labelled": ref.Labelled, "unlabelled": ref.Unlabelled} {
		for _, g := range idx {
			if prev, dup := seen[g]; dup {
				t.Fatalf("graph %d in %s and %s", g, prev, name)
			}
			seen[g] = name
		}
	}
	if len(seen) != len(ds.Labels) {
		t.Errorf("the three sets hold %d of %d graphs", len(seen), len(ds.Labels))
	}
	for _, seed := range []int64{1, 2, 99} {
		s := spec
		s.Seed = seed
		got, err := MakeSplit(ds, s)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, ref) {
			t.Errorf("run seed %d changed the split", seed)
		}
	}
	s := spec
	s.SplitSeed = 1
	other, err := MakeSplit(ds, s)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(other.Test, ref.Test) || slices.Equal(other.Labelled, ref.Labelled) {
		t.Error("split seed 1 gives the same test or labelled set as split seed 0")
	}
	for _, frac := range []float64{0, 1, -0.1} {
		s := spec
		s.Protocol.TestFrac = frac
		if _, err := MakeSplit(ds, s); err == nil {
			t.Errorf("test_frac %g accepted", frac)
		}
	}
}

// TestNewTaskHidesTestLabels: the Task of a split is the same whatever the
// labels of its test graphs, so no method can read them.
func TestNewTaskHidesTestLabels(t *testing.T) {
	ds := handDataset()
	spec := RunSpec{Dataset: "Letter-high", Ratio: 0.2, Seed: 3, Protocol: DefaultProtocol()}
	split, err := MakeSplit(ds, spec)
	if err != nil {
		t.Fatal(err)
	}
	ref := NewTask(ds, split, spec, Params{"x": 1})
	relabelled := *ds
	relabelled.Labels = slices.Clone(ds.Labels)
	for i, g := range split.Test {
		relabelled.Labels[g] = (ds.Labels[g] + 1 + i) % 15 // known ↔ unknown too
	}
	got := NewTask(&relabelled, split, spec, Params{"x": 1})
	strip := func(t *Task) Task {
		c := *t
		c.ReportOODSet, c.ReportScores, c.ReportClasses, c.Warn = nil, nil, nil, nil
		return c
	}
	if !reflect.DeepEqual(strip(got), strip(ref)) {
		t.Error("changing the test graphs' labels changed the Task")
	}
	if len(ref.Eval) != len(split.Unlabelled)+len(split.Test) || !slices.IsSorted(ref.Eval) {
		t.Errorf("Eval has %d graphs, want D^u and the test set (%d), ascending", len(ref.Eval), len(split.Unlabelled)+len(split.Test))
	}
	for _, g := range ref.TrainPool() {
		if _, inTest := slices.BinarySearch(split.Test, g); inTest {
			t.Fatalf("test graph %d in TrainPool", g)
		}
	}
}

// TestThresholdRule checks docs/protocol.md §3 on hand-made scores: the
// threshold is the lowest of the ⌈α·K_u⌉ highest D^u scores (ties counted
// once), and a test score equal to it is declared.
func TestThresholdRule(t *testing.T) {
	du := []float64{0.9, 0.1, 0.5, 0.5, 0.7, 0.2}
	for _, c := range []struct {
		k     int
		alpha float64
		want  float64
	}{
		{2, 1, 0.7},         // 0.9, 0.7
		{3, 1, 0.5},         // 0.9, 0.7, 0.5 (the first of the tied pair)
		{4, 1, 0.5},         // both 0.5s
		{2, 1.4, 0.5},       // ⌈2.8⌉ = 3
		{2, 0.5, 0.9},       // ⌈1⌉ = 1
		{0, 1, math.Inf(1)}, // nothing declared
		{6, 1, 0.1},         // everything
		{9, 1, 0.1},         // more than there are
		{5, 1, 0.2},
	} {
		if got := Threshold(du, c.k, c.alpha); got != c.want {
			t.Errorf("K=%d α=%g: threshold %v, want %v", c.k, c.alpha, got, c.want)
		}
	}
	test := []float64{0.5, 0.49, 0.7, 1.0, -1}
	if got, want := DeclaredAtThreshold(test, 0.5), []bool{true, false, true, true, false}; !slices.Equal(got, want) {
		t.Errorf("declared at 0.5: %v, want %v", got, want)
	}
	if got := DeclaredAtThreshold(test, math.Inf(1)); slices.Contains(got, true) {
		t.Errorf("declared at +Inf: %v, want none", got)
	}
}

// TestScoreRunTransfersThreshold checks ScoreRun on a hand-made split: the
// threshold comes from D^u's top-K_u and the test set's own K is never
// used, so declared_ratio differs from 1; D^u's figures carry du_, the
// chance figures chance_.
func TestScoreRunTransfersThreshold(t *testing.T) {
	U := Unknown
	// Graphs 0..3 labelled; D^u = 4..9 (2 unknown); test = 10..14 (2 unknown).
	truth := []int{0, 1, 0, 1, 0, U, 1, U, 0, 1, U, 0, 1, U, 0}
	split := &datasets.Split{KnownClasses: []int{0, 1}, Labelled: []int{0, 1, 2, 3}, LabelledY: []int{0, 1, 0, 0},
		Unlabelled: []int{4, 5, 6, 7, 8, 9}, Test: []int{10, 11, 12, 13, 14}}
	eval := []int{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}
	pred := &Predictions{
		//                 4    5    6    7    8    9    10   11   12   13   14
		Class:        []int{0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0},
		UnknownScore: []float64{0.1, 0.8, 0.3, 0.6, 0.2, 0.6, 0.9, 0.6, 0.5, 0.7, 0.1},
	}
	m, err := ScoreRun(eval, split, pred, func(g int) int { return truth[g] }, 1)
	if err != nil {
		t.Fatal(err)
	}
	// D^u: K_u = 2, top-2 = graphs 5 (0.8) and 7/9 tied at 0.6 → 7 (lower
	// index): both unknown. Threshold 0.6. Known 4 (pred 0 ✓), 6 (1 ✓),
	// 8 (1 ✗), 9 (1 ✓, not declared).
	// Test: declared = scores ≥ 0.6: 10 (U ✓), 11 (known, ✗), 13 (U ✓);
	// 12 (0.5, pred 1 ✓), 14 (0.1, pred 0 ✓). 4 of 5 right; 3 declared for
	// K_test = 2.
	want := map[string]float64{
		"accuracy": 4.0 / 5, "unknown_acc": 1, "known_acc": 2.0 / 3, "closed_acc": 1,
		"ood_f1": 2 * (2.0 / 3) * 1 / (2.0/3 + 1), "declared_ratio": 1.5,
		// Every unknown test score (0.9, 0.7) beats every known one.
		"ood_auroc":   1,
		"du_accuracy": 5.0 / 6, "du_unknown_acc": 1, "du_known_acc": 3.0 / 4, "du_closed_acc": 3.0 / 4,
		"du_ood_f1": 1, "du_declared_ratio": 1,
	}
	for k, w := range want {
		if got, ok := m[k]; !ok || math.Abs(got-w) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, w)
		}
	}
	for _, k := range HeadlineMetrics {
		if _, ok := m[PrefixChance+k]; !ok {
			t.Errorf("%s%s missing", PrefixChance, k)
		}
	}
}

// TestChanceMetrics checks the chance row's expected values on a hand-made
// test set: 10 graphs, 4 unknown, 4 of the majority class 1, 2 of class 0;
// D^u has 9 graphs of which 3 are declared, so p = 3/10.
func TestChanceMetrics(t *testing.T) {
	U := Unknown
	truth := []int{U, U, U, U, 1, 1, 1, 1, 0, 0}
	m := ChanceMetrics(truth, 1, 9, 3)
	p := 0.3
	want := map[string]float64{
		"unknown_acc": p,
		"closed_acc":  4.0 / 6,
		"known_acc":   (1 - p) * 4.0 / 6,
		"accuracy":    (p*4 + (1-p)*4) / 10,
		"ood_f1":      2 * p * 4 / (p*10 + 4),
		"ood_auroc":   0.5,
		// p·n/U: 3 of 10 expected declared, 4 unknowns.
		"declared_ratio": p * 10 / 4,
	}
	for k, w := range want {
		if got, ok := m[k]; !ok || math.Abs(got-w) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, w)
		}
	}
	if len(m) != len(want) {
		t.Errorf("metrics %v, want exactly %v", m, want)
	}
	// The expectation of unknown_acc holds for a real random score: the
	// fraction of test scores at or above the 3rd highest of 9 uniforms,
	// averaged over many draws, is 3/10.
	var sum float64
	const draws = 20000
	r := newTestRNG()
	for i := 0; i < draws; i++ {
		du := make([]float64, 9)
		for j := range du {
			du[j] = r.Float64()
		}
		thr := Threshold(du, 3, 1)
		if r.Float64() >= thr {
			sum++
		}
	}
	if got := sum / draws; math.Abs(got-p) > 0.01 {
		t.Errorf("simulated declared fraction %.4f, want %.2f", got, p)
	}
	if got := MajorityClass([]int{2, 0, 2, 1, 0}); got != 0 {
		t.Errorf("MajorityClass tie: %d, want the smallest (0)", got)
	}
}

func newTestRNG() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
