package reports

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// TestChooseDu: the score with the highest du_accuracy, ties to native and
// then to the first label, NaN and infinities skipped, du_choice's own
// metrics never candidates.
func TestChooseDu(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name    string
		metrics map[string]float64
		want    string
		ok      bool
	}{
		{"scorer wins", map[string]float64{"du_accuracy": 0.4, "knn:du_accuracy": 0.6, "msp:du_accuracy": 0.5}, "knn", true},
		{"native wins", map[string]float64{"du_accuracy": 0.7, "knn:du_accuracy": 0.6}, NativeScore, true},
		{"tie goes to native", map[string]float64{"energy:du_accuracy": 0.6, "du_accuracy": 0.6, "knn:du_accuracy": 0.6}, NativeScore, true},
		{"tie between scorers goes to the first label", map[string]float64{"knn_k10:du_accuracy": 0.6, "knn:du_accuracy": 0.6, "du_accuracy": 0.1}, "knn", true},
		{"NaN and Inf skipped", map[string]float64{"du_accuracy": nan, "knn:du_accuracy": math.Inf(1), "msp:du_accuracy": 0.2}, "msp", true},
		{"test metrics ignored", map[string]float64{"du_accuracy": 0.3, "knn:accuracy": 0.9, "knn:du_ood_auroc": 0.9}, NativeScore, true},
		{"own metrics ignored", map[string]float64{"du_choice:du_accuracy": 0.9, "knn:du_accuracy": 0.2}, "knn", true},
		{"nothing", map[string]float64{"accuracy": 0.5}, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := chooseDu(c.metrics)
			if got != c.want || ok != c.ok {
				t.Errorf("chooseDu = %q, %v; want %q, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

// TestResolveScore: du_choice copies each run's chosen score's metrics
// under its label (not the chance ones), leaves the input runs untouched,
// and notes the choices per cell; other scores are checked and passed
// through.
func TestResolveScore(t *testing.T) {
	run := func(seed int, m map[string]float64) runs.Run {
		return runs.Run{Status: runs.StatusFinished, Metrics: m,
			Spec: suite.RunSpec{Method: "gin-topk", Dataset: "Letter-high", RatioName: "low", Seed: int64(seed)}}
	}
	rs := []runs.Run{
		run(0, map[string]float64{"accuracy": 0.40, "du_accuracy": 0.30, "knn:accuracy": 0.50, "knn:du_accuracy": 0.35, "chance_accuracy": 0.17}),
		run(1, map[string]float64{"accuracy": 0.45, "du_accuracy": 0.40, "knn:accuracy": 0.44, "knn:du_accuracy": 0.38, "chance_accuracy": 0.17}),
		run(2, map[string]float64{"accuracy": 0.42, "du_accuracy": 0.20, "knn:accuracy": 0.47, "knn:du_accuracy": 0.25, "chance_accuracy": 0.17}),
	}
	out, notes, err := ResolveScore(rs, DuChoice)
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]float64{
		{"du_choice:accuracy": 0.50, "du_choice:du_accuracy": 0.35},
		{"du_choice:accuracy": 0.45, "du_choice:du_accuracy": 0.40},
		{"du_choice:accuracy": 0.47, "du_choice:du_accuracy": 0.25},
	}
	for i, r := range out {
		got := map[string]float64{}
		for k, v := range r.Metrics {
			if strings.HasPrefix(k, DuChoice+":") {
				got[k] = v
			}
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("run %d: du_choice metrics %v, want %v", i, got, want[i])
		}
		if _, ok := rs[i].Metrics["du_choice:accuracy"]; ok {
			t.Errorf("run %d: the input run was changed", i)
		}
	}
	if len(notes) != 1 || notes[0] != "du_choice: gin-topk Letter-high low: knn ×2, native ×1" {
		t.Errorf("notes %q", notes)
	}
	if got, _, err := ResolveScore(rs, "knn"); err != nil || &got[0] != &rs[0] {
		t.Errorf("ResolveScore(knn) = %v, %v: want rs itself", got, err)
	}
	if _, _, err := ResolveScore(rs, "energy"); err == nil || !strings.Contains(err.Error(), "scores present: native, knn") {
		t.Errorf("ResolveScore(energy): err %v", err)
	}
	if _, _, err := ResolveScore([]runs.Run{run(0, map[string]float64{"accuracy": 0.4})}, DuChoice); err == nil {
		t.Error("ResolveScore(du_choice) without any du_accuracy: no error")
	}
}
