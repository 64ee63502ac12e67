package semisup

import (
	"context"
	"math"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/suite"
)

// runLetterHigh runs method end to end through the suite's runner on real
// Letter-high (low ratio, seed 0) with its defaults overridden by set, and
// checks what every row must satisfy: one "loss" point and (curve_every =
// 1) one D^u closed-accuracy point per pass over D^l
// whose "steps" add up to the budget, finite losses that fall, and every headline metric
// present and in [0, 1].
func runLetterHigh(t *testing.T, method string, set suite.Params) suite.Result {
	t.Helper()
	dir := datasetstest.DirFor(t, "Letter-high")
	name, ratio, err := datasets.ResolveRatio("Letter-high", "low")
	if err != nil {
		t.Fatal(err)
	}
	p := params(t, method, set)
	r := &suite.Runner{DataDir: dir, Backend: "go"}
	res, err := r.Run(context.Background(), suite.RunSpec{
		Method: method, Dataset: "Letter-high", RatioName: name, Ratio: ratio, Seed: 0,
		Params: p, Protocol: suite.DefaultProtocol(),
	}, "cpu", nil)
	if err != nil {
		t.Fatal(err)
	}
	var losses, steps, du []float64
	for _, c := range res.Curves {
		switch c.Name {
		case suite.CurveDUClosedAcc:
			du = append(du, c.Value)
		case "loss":
			losses = append(losses, c.Value)
		case "steps":
			steps = append(steps, c.Value)
		}
	}
	total := 0.0
	for _, s := range steps {
		total += s
	}
	if len(losses) == 0 || len(steps) != len(losses) || int(total) != p.Int("steps") {
		t.Fatalf("logged %d loss and %d steps points, steps %v; want one per pass summing to %d", len(losses), len(steps), steps, p.Int("steps"))
	}
	if len(du) != len(losses) {
		t.Errorf("%d %s points for %d passes (curve_every = 1)", len(du), suite.CurveDUClosedAcc, len(losses))
	}
	for _, l := range losses {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			t.Fatalf("loss curve %v", losses)
		}
	}
	// Strictly lower, not by a factor: GLA's loss carries its alignment term
	// (≈ −1/τ at its minimum), which a factor would misread.
	if !(losses[len(losses)-1] < losses[0]) {
		t.Errorf("supervised loss did not fall: %v (the optimizer's updates must reach the next step)", losses)
	}
	for _, k := range []string{suite.MetricAccuracy, suite.MetricOODF1, suite.MetricUnknownAcc, suite.MetricKnownAcc, suite.MetricOODAUROC} {
		v, ok := res.Metrics[k]
		if !ok || math.IsNaN(v) || v < 0 || v > 1 {
			t.Errorf("%s = %v (present %v), want in [0, 1]", k, v, ok)
		}
	}
	t.Logf("%s: loss %.3f → %.3f over %d passes, metrics %v, %.1fs", method, losses[0], losses[len(losses)-1], len(losses), res.Metrics, res.Seconds)
	return res
}

// params are method's defaults overridden by set.
func params(t *testing.T, method string, set suite.Params) suite.Params {
	t.Helper()
	m, err := suite.Lookup(method)
	if err != nil {
		t.Fatal(err)
	}
	p := m.Defaults()
	for k, v := range set {
		p[k] = v
	}
	return p
}

// small is a small budget for end-to-end tests: 24 supervised steps of
// batches of 32 at lr 0.01, hidden 32, D^u classes reported every pass.
func small(extra suite.Params) suite.Params {
	p := suite.Params{"steps": 24, "batch_size": 32, "hidden": 32, "lr": 0.01, "curve_every": 1}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// TestGraphCLLetterHigh: graphcl end to end with 2 pretraining epochs; the
// pretraining loss is logged once per epoch.
func TestGraphCLLetterHigh(t *testing.T) {
	res := runLetterHigh(t, "graphcl", small(suite.Params{"pretrain_epochs": 2}))
	n := 0
	for _, c := range res.Curves {
		if c.Name == "pretrain_loss" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d pretrain_loss points, want 2", n)
	}
	for _, phase := range []string{"pretrain", "finetune"} {
		if v, ok := res.Metrics[suite.EpochSecondsMetric+"_"+phase]; !ok || !(v > 0) {
			t.Errorf("%s_%s = %v (present %v), want > 0", suite.EpochSecondsMetric, phase, v, ok)
		}
	}
}

// TestGLALetterHigh: gla end to end with both proj_norm values; the
// unlabelled pass runs before every labelled pass and logs its loss (E4,
// ≥ −1/τ = −2).
func TestGLALetterHigh(t *testing.T) {
	for _, norm := range []string{"none", "batch"} {
		t.Run(norm, func(t *testing.T) {
			res := runLetterHigh(t, "gla", small(suite.Params{"lr": 1e-3, "proj_norm": norm}))
			var u []float64
			for _, c := range res.Curves {
				if c.Name == "unlabelled_loss" {
					u = append(u, c.Value)
				}
			}
			if len(u) == 0 {
				t.Fatal("no unlabelled_loss points")
			}
			t.Logf("unlabelled_loss %v", u)
			for _, v := range u {
				if !(v >= -2-1e-5 && v <= 2+1e-5) {
					t.Errorf("unlabelled_loss %v outside [−2, 2] (E4 at τ = 0.5)", u)
				}
			}
		})
	}
}

// TestInfoGraphLetterHigh: infograph end to end with a small budget.
func TestInfoGraphLetterHigh(t *testing.T) {
	runLetterHigh(t, "infograph", small(nil))
}

// TestRGCLLetterHigh: rgcl end to end with 2 pretraining epochs; at
// rho = 0.9 every Letter-high graph (≤ 9 nodes) keeps all its nodes, so
// unchanged_views counts every pool graph of a pass (⌊0.1n⌋ = 0 in
// float64 for n ≤ 10; docs/methods.md).
func TestRGCLLetterHigh(t *testing.T) {
	res := runLetterHigh(t, "rgcl", small(suite.Params{"pretrain_epochs": 2}))
	for _, c := range res.Curves {
		if c.Name == "unchanged_views" && c.Value < 1000 {
			t.Errorf("epoch %d: %v unchanged rationale views, want every pool graph", c.Epoch, c.Value)
		}
	}
}
