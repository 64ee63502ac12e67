package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// TestRescoreEqualsFreshRun: on real Letter-high, a small grid (wl and a
// short gin-topk) stores every default scorer's metrics and the outputs;
// bench rescore recomputes them from the stored outputs to the same values,
// and adds a scorer the grid did not run.
func TestRescoreEqualsFreshRun(t *testing.T) {
	dir := datasetstest.DirFor(t, "Letter-high")
	db := filepath.Join(t.TempDir(), "runs.db")
	grid := []string{"--methods", "wl,gin-topk", "--datasets", "Letter-high", "--ratios", "low",
		"--seeds", "0", "--steps", "12", "--set", "gin-topk.hidden=32", "--db", db, "--data-dir", dir, "--quiet"}
	var out bytes.Buffer
	if err := runGrid(grid, &out); err != nil {
		t.Fatal(err)
	}
	fresh := storedMetrics(t, db)
	if err := runRescore([]string{"--db", db, "--scores", strings.Join(append(suite.DefaultScorers(), "knn:k=3"), ",")}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "rescored 2 run(s)") {
		t.Errorf("rescore said %q", out.String())
	}
	again := storedMetrics(t, db)
	for method, m := range fresh {
		scorerMetrics := 0
		for name, v := range m {
			if w, ok := again[method][name]; !ok || !(w == v || math.IsNaN(w) && math.IsNaN(v)) {
				t.Errorf("%s: %s fresh %v, rescored %v (present %v)", method, name, v, w, ok)
			}
			if strings.Contains(name, suite.ScorerSep) {
				scorerMetrics++
			}
		}
		if scorerMetrics == 0 {
			t.Errorf("%s: no scorer metrics stored", method)
		}
	}
	// gin-topk has embeddings: knn_k3 was added; wl has none: no knn metrics.
	if _, ok := again["gin-topk"]["knn_k3:ood_auroc"]; !ok {
		t.Errorf("gin-topk: rescore added no knn_k3 metrics")
	}
	for name := range again["wl"] {
		if strings.HasPrefix(name, "knn") || strings.HasPrefix(name, "mahalanobis") {
			t.Errorf("wl (no embeddings) has %s", name)
		}
	}
	if _, ok := again["wl"]["energy:ood_auroc"]; !ok {
		t.Errorf("wl: the SVM decision values got no energy score")
	}
	if err := runRescore([]string{"--db", db, "--scores", "knn:k=0"}, &out); err == nil || !strings.Contains(err.Error(), "--scores") {
		t.Errorf("rescore with a bad scorer: err %v, want one naming --scores", err)
	}
}

// storedMetrics reads every finished run's metrics by method.
func storedMetrics(t *testing.T, db string) map[string]map[string]float64 {
	t.Helper()
	store, err := runs.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rs, err := store.List(runs.Filter{Status: []runs.Status{runs.StatusFinished}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]float64{}
	for _, r := range rs {
		out[r.Spec.Method] = r.Metrics
	}
	return out
}

// TestDryRunShowsSplitSeed: with two split seeds the dry run's lines of one
// run seed differ by their split=, so no two lines look the same.
func TestDryRunShowsSplitSeed(t *testing.T) {
	dir := datasetstest.DirFor(t, "Letter-high")
	var out bytes.Buffer
	err := runGrid([]string{"--methods", "wl", "--datasets", "Letter-high", "--ratios", "low", "--seeds", "0",
		"--split-seeds", "0,1", "--db", filepath.Join(t.TempDir(), "runs.db"), "--data-dir", dir, "--dry-run"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{" split=0  seed=0 ", " split=1  seed=0 "} {
		if strings.Count(out.String(), want) != 1 {
			t.Errorf("dry run has not exactly one line with %q:\n%s", want, out.String())
		}
	}
}
