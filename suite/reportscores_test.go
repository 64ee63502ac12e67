package suite_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/ugbench/ugbench/suite"
)

// registerScoreFakes registers "test-scores", which reports two unknown
// scores after epoch 1 and returns two extra scores with known AUROCs: a
// constant (all ties: 0.5) and a copy of its unknown score (= ood_auroc);
// with param bad = 1 it reports a score under a bad name and returns the
// error it gets.
var registerScoreFakes = sync.OnceFunc(func() {
	suite.Register(fakeMethod{"test-scores", suite.Params{"bad": 0},
		func(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
			if err := checkTask(task); err != nil {
				return nil, err
			}
			task.Log.Epoch(1, 1, map[string]float64{"loss": 1})
			p := sizePredictions(task, 1)
			name := "same"
			if task.Params.Int("bad") == 1 {
				name = "Same"
			}
			byGraph := map[int]float64{}
			for i, g := range task.Eval {
				byGraph[g] = p.UnknownScore[i]
			}
			same := make([]float64, len(task.Unlabelled))
			for i, g := range task.Unlabelled {
				same[i] = byGraph[g]
			}
			if err := task.ReportScores(1, task.Unlabelled, map[string][]float64{
				"const": make([]float64, len(task.Unlabelled)), name: same,
			}); err != nil {
				return nil, fmt.Errorf("report: %w", err)
			}
			p.ExtraScores = map[string][]float64{
				"const": make([]float64, len(task.Eval)),
				"same":  append([]float64(nil), p.UnknownScore...),
			}
			return p, nil
		}})
})

// TestRunnerExtraScores runs "test-scores" through the runner on real data:
// the reported scores become curves at their epoch and the extra scores
// metrics, both with their known AUROCs; a bad report fails the run with
// the method's error.
func TestRunnerExtraScores(t *testing.T) {
	e := newEnv(t)
	registerScoreFakes()
	spec := suite.RunSpec{Method: "test-scores", Dataset: testDataset, RatioName: "low", Ratio: 0.1, Seed: 1,
		Params: suite.Params{"bad": 0}, Protocol: suite.DefaultProtocol()}
	res, err := e.runner.Run(context.Background(), spec, "cpu", nil)
	if err != nil {
		t.Fatal(err)
	}
	auroc := res.Metrics[suite.MetricOODAUROC]
	if !(auroc > 0 && auroc < 1) || auroc == 0.5 {
		t.Fatalf("ood_auroc = %v: the size score should be informative but not perfect", auroc)
	}
	want := map[string]float64{"ood_auroc_const": 0.5, "ood_auroc_same": auroc}
	for k, w := range want {
		if got, ok := res.Metrics[k]; !ok || math.Abs(got-w) > 1e-12 {
			t.Errorf("metric %s = %v (present %v), want %v", k, got, ok, w)
		}
	}
	// The reported scores are D^u's, so their curves match D^u's metrics.
	duAUROC := res.Metrics[suite.PrefixDU+suite.MetricOODAUROC]
	want = map[string]float64{"ood_auroc_const": 0.5, "ood_auroc_same": duAUROC}
	if got := res.Metrics[suite.PrefixDU+"ood_auroc_same"]; got != duAUROC {
		t.Errorf("du_ood_auroc_same = %v, want du_ood_auroc %v", got, duAUROC)
	}
	curves := map[string]suite.CurvePoint{}
	for _, c := range res.Curves {
		curves[c.Name] = c
	}
	for k, w := range want {
		if c, ok := curves[k]; !ok || c.Epoch != 1 || math.Abs(c.Value-w) > 1e-12 {
			t.Errorf("curve %s = %+v (present %v), want %v at epoch 1", k, c, ok, w)
		}
	}

	spec.Params = suite.Params{"bad": 1}
	if _, err := e.runner.Run(context.Background(), spec, "cpu", nil); err == nil || !strings.Contains(err.Error(), `"Same"`) {
		t.Errorf("bad report: error %v, want one naming \"Same\"", err)
	}
}
