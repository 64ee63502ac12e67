package reports

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/reports/selection"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// cellRuns is one finished run per value of one cell, seeds from seed0 on.
func cellRuns(method, dataset, ratio string, seed0 int64, metric string, vals ...float64) []runs.Run {
	var out []runs.Run
	for i, v := range vals {
		r := mk(method, dataset, ratio, seed0+int64(i), 0)
		r.ID = int64(len(out) + 1)
		r.Metrics = map[string]float64{metric: v}
		out = append(out, r)
	}
	return out
}

// tCDF3 is the CDF of Student's t with 3 degrees of freedom in closed
// form: 1/2 + (1/π)(t/(√3(1+t²/3)) + atan(t/√3)).
func tCDF3(t float64) float64 {
	return 0.5 + (t/(math.Sqrt(3)*(1+t*t/3))+math.Atan(t/math.Sqrt(3)))/math.Pi
}

// TestCompareStatistics checks the tests' p-values and verdicts against
// values computed by hand.
func TestCompareStatistics(t *testing.T) {
	// Paired: differences 0.5, 0.1, 0.9, 0.2: mean 0.425, sample sd
	// sqrt(0.3875/3), t = 0.425·2/sd, 3 degrees of freedom.
	sd := math.Sqrt(0.3875 / 3)
	tStat := 0.425 * 2 / sd
	pairedWant := 2 * (1 - tCDF3(tStat))
	for _, c := range []struct {
		name       string
		old, new   []float64
		newSeed0   int64 // seeds of new start here (old: 0): ≠ 0 = unpaired
		test       string
		wantTest   string
		wantP      float64
		wantV      Verdict
		wantString string
	}{
		// U test, 4 vs 4, fully separated: U = 0, p = 2/C(8,4) = 2/70.
		{"u 4v4 separated", []float64{0.50, 0.51, 0.52, 0.53}, []float64{0.60, 0.61, 0.62, 0.63}, 10, TestAuto, TestU, 2.0 / 70, Changed, "+0.100 (+19.4%)"},
		// U = 1 (one old value above one new): p = 2·2/70.
		{"u 4v4 one swap", []float64{1, 2, 3, 5}, []float64{4, 6, 7, 8}, 10, TestAuto, TestU, 4.0 / 70, Unchanged, "~"},
		// 3 vs 3: the smallest p is 2/C(6,3) = 0.1, never below 0.05.
		{"u 3v3 separated", []float64{0.50, 0.51, 0.52}, []float64{0.60, 0.61, 0.62}, 10, TestAuto, TestU, 0.1, TooFewSeeds, "too few seeds (need ≥ 4)"},
		// 3 vs 4: smallest p 2/C(7,3) = 2/35 > 0.05.
		{"u 3v4 separated", []float64{0.50, 0.51, 0.52}, []float64{0.60, 0.61, 0.62, 0.63}, 10, TestAuto, TestU, 2.0 / 35, TooFewSeeds, "too few seeds (need ≥ 4)"},
		// All eight values equal: no change, p = 1.
		{"u all equal", []float64{0.5, 0.5, 0.5, 0.5}, []float64{0.5, 0.5, 0.5, 0.5}, 10, TestAuto, TestU, 1, Unchanged, "~"},
		// Same seeds: the paired t-test.
		{"paired 4", []float64{1, 2, 3, 4}, []float64{1.5, 2.1, 3.9, 4.2}, 0, TestAuto, TestPaired, pairedWant, Unchanged, "~"},
		// Same seeds, 3 pairs: held to the U test's 4 seeds.
		{"paired 3", []float64{0.50, 0.51, 0.52}, []float64{0.60, 0.62, 0.61}, 0, TestAuto, TestPaired, math.NaN(), TooFewSeeds, "too few seeds (need ≥ 4)"},
		// Forced U test on shared seeds.
		{"forced u", []float64{1, 2, 3, 4}, []float64{1.5, 2.1, 3.9, 4.2}, 0, TestU, TestU, math.NaN(), Unchanged, "~"},
	} {
		t.Run(c.name, func(t *testing.T) {
			old := cellRuns("ugnn", "COIL-DEL", "low", 0, "accuracy", c.old...)
			new := cellRuns("ugnn", "COIL-DEL", "low", c.newSeed0, "accuracy", c.new...)
			cs, _, err := Compare(old, new, CompareOptions{Metrics: []string{"accuracy"}, Test: c.test})
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != 1 {
				t.Fatalf("%d comparisons, want 1", len(cs))
			}
			got := cs[0]
			if got.Test != c.wantTest {
				t.Errorf("test %q, want %q", got.Test, c.wantTest)
			}
			if !math.IsNaN(c.wantP) && math.Abs(got.P-c.wantP) > 1e-9 {
				t.Errorf("p = %.9f, want %.9f", got.P, c.wantP)
			}
			if got.Verdict != c.wantV || got.String() != c.wantString {
				t.Errorf("verdict %d %q, want %d %q", got.Verdict, got.String(), c.wantV, c.wantString)
			}
		})
	}
}

func TestComparePairedConstantShift(t *testing.T) {
	// A deterministic method shifted by exactly 0.25 on every seed: the
	// differences have no variance, the t statistic is infinite, p = 0.
	old := cellRuns("wl", "COIL-DEL", "low", 0, "accuracy", 0.25, 0.5, 0.75, 1)
	new := cellRuns("wl", "COIL-DEL", "low", 0, "accuracy", 0.5, 0.75, 1, 1.25)
	cs, _, err := Compare(old, new, CompareOptions{Metrics: []string{"accuracy"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := cs[0]; c.Test != TestPaired || c.P != 0 || c.Verdict != Changed {
		t.Errorf("got %s p=%v verdict %d, want paired p=0 changed", c.Test, c.P, c.Verdict)
	}
}

func TestCompareMissingAndWarnings(t *testing.T) {
	old := append(cellRuns("gin-topk", "COIL-DEL", "low", 0, "accuracy", 0.5, 0.51, 0.52, 0.53),
		cellRuns("gin-topk", "MNIST", "low", 0, "accuracy", 0.9, 0.91, 0.92, 0.93)...)
	new := cellRuns("gin-topk", "COIL-DEL", "low", 0, "accuracy", 0.5, 0.51, 0.52)
	new = append(new, mk("gin-topk", "COIL-DEL", "low", 3, 0))
	new[3].Status, new[3].Metrics = runs.StatusFailed, nil
	cs, warns, err := Compare(old, new, CompareOptions{Metrics: []string{"accuracy"}, Test: TestPaired})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[1].Verdict != Missing || cs[1].String() != "missing in new" {
		t.Fatalf("comparisons %+v; want the MNIST cell missing in new", cs)
	}
	got := strings.Join(warningStrings(warns), "\n")
	for _, want := range []string{
		"gin-topk/COIL-DEL/low: new: 1 of 4 seeds missing (seed 3 failed)",
		"gin-topk/COIL-DEL/low: the sides do not share their seeds; unpaired U test instead of the paired test",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
}

func TestCompareErrors(t *testing.T) {
	for _, o := range []CompareOptions{{Alpha: 1.5}, {Test: "wilcoxon"}} {
		if _, _, err := Compare(nil, nil, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestCompareGolden renders a comparison of the fixture against itself
// shifted, in every format.
func TestCompareGolden(t *testing.T) {
	old := fixtureRuns()
	var new []runs.Run
	for _, r := range fixtureRuns() {
		if r.Metrics != nil {
			m := map[string]float64{}
			for k, v := range r.Metrics {
				m[k] = v
			}
			if r.Spec.Method == "ugnn" {
				m[suite.MetricAccuracy] += 0.03 + 0.001*float64(r.Spec.Seed)
			}
			r.Metrics = m
		}
		new = append(new, r)
	}
	cs, warns, err := Compare(old, new, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ext := map[string]string{"text": "txt", "md": "md", "latex": "tex", "csv": "csv"}
	for _, format := range table.Formats() {
		var buf bytes.Buffer
		for _, p := range CompareTables(cs, "fixture", "fixture+ugnn") {
			if err := table.RenderPlain(&buf, p, format); err != nil {
				t.Fatal(err)
			}
		}
		if format != "csv" {
			for _, w := range warns {
				buf.WriteString("warning: " + w.String() + "\n")
			}
		}
		golden(t, "compare."+ext[format]+".golden", buf.Bytes())
	}
}

// TestCompareScores: two sides of the same runs that differ in score
// compare the scores run by run: a paired test on the per-run
// differences knn − native.
func TestCompareScores(t *testing.T) {
	rs := scoredFixtureRuns()
	old, err := selection.ParseSide("method=gin-topk,score=native")
	if err != nil {
		t.Fatal(err)
	}
	new, err := selection.ParseSide("method=gin-topk,score=knn")
	if err != nil {
		t.Fatal(err)
	}
	if old.Score != NativeScore || new.Score != "knn" {
		t.Fatalf("scores %q, %q", old.Score, new.Score)
	}
	o, n := selection.AlignSides(old, new, old.Select(rs), new.Select(rs))
	cs, warns, err := Compare(o, n, CompareOptions{Metrics: []string{suite.MetricAccuracy, suite.MetricOODAUROC}, OldScore: old.Score, NewScore: new.Score})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 8 {
		t.Fatalf("%d comparisons, want 2 metrics × 4 cells", len(cs))
	}
	for _, c := range cs {
		if c.Key.Method != "gin-topk" || c.Test != TestPaired || c.Old.Metric != c.Metric || c.New.Metric != "knn:"+c.Metric {
			t.Errorf("%s %v: test %s, metrics %s / %s; want paired, %s / knn:%s", c.Metric, c.Key, c.Test, c.Old.Metric, c.New.Metric, c.Metric, c.Metric)
			continue
		}
		// The fixture's knn is native + 0.02 + 0.01·seed on every run.
		for i, s := range c.Old.Seeds {
			if c.New.Seeds[i] != s || math.Abs(c.New.Values[i]-c.Old.Values[i]-(0.02+0.01*float64(s))) > 1e-12 {
				t.Errorf("%s %v seed %d: %v − %v, want a difference of %.2f", c.Metric, c.Key, s, c.New.Values[i], c.Old.Values[i], 0.02+0.01*float64(s))
			}
		}
		if c.Key.Dataset == "COIL-DEL" && c.Key.Ratio == "low" {
			continue // seeds 0, 1 (seed 2 failed)
		}
		// Differences 0.02, 0.03, 0.04: t = 0.03/(0.01/√3) on 2 degrees of
		// freedom, two-sided p = 1 − t/√(2+t²).
		tt := 0.03 / (0.01 / math.Sqrt(3))
		if want := 1 - tt/math.Sqrt(2+tt*tt); math.Abs(c.P-want) > 1e-6 || c.Verdict != TooFewSeeds || math.Abs(c.Delta-0.03) > 1e-12 {
			t.Errorf("%s %v: p %.6f, delta %.4f, verdict %v; want p %.6f, delta 0.03, too few seeds", c.Metric, c.Key, c.P, c.Delta, c.Verdict, want)
		}
	}
	for _, w := range warns {
		if !strings.Contains(w.Text, "seed 2 failed") {
			t.Errorf("unexpected warning %s", w)
		}
	}
}
