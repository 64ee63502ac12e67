package supervised

import (
	"context"
	"math"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

// TestGINTopKLetterHigh runs gin-topk end to end through the suite's runner
// on real Letter-high (low ratio, seed 0) with a small budget (defaults would need ~100 epochs): the loss must
// fall (gradients flow through GIN, TopK pooling and the readout), every
// metric must be present and finite, and the known-class accuracy must beat
// chance (1/10) clearly.
func TestGINTopKLetterHigh(t *testing.T) {
	dir := datasetstest.Dir()
	if dir == "" {
		t.Skip("no data directory")
	}
	_ = datasetstest.Load(t, "Letter-high") // skips if absent
	name, ratio, err := datasets.ResolveRatio("Letter-high", "low")
	if err != nil {
		t.Fatal(err)
	}
	p := backbone{conv: gnn.ConvGIN, pool: gnn.PoolTopK}.Defaults()
	// A small budget: 30 epochs of batches of 32 (≈ 300 steps) at lr 0.01.
	p["epochs"] = 30
	p["hidden"] = 64
	p["batch_size"] = 32
	p["lr"] = 0.01
	r := &suite.Runner{DataDir: dir, Backend: "go"}
	res, err := r.Run(context.Background(), suite.RunSpec{
		Method: "gin-topk", Dataset: "Letter-high", RatioName: name, Ratio: ratio, Seed: 0,
		Params: p, Protocol: suite.DefaultProtocol(),
	}, "cpu", nil)
	if err != nil {
		t.Fatal(err)
	}
	var losses []float64
	for _, c := range res.Curves {
		if c.Name == "loss" {
			losses = append(losses, c.Value)
		}
	}
	if len(losses) != 30 {
		t.Fatalf("logged %d loss points, want 30", len(losses))
	}
	if !(losses[len(losses)-1] < 0.8*losses[0]) {
		t.Errorf("loss did not fall: first %.3f, last %.3f", losses[0], losses[len(losses)-1])
	}
	for _, m := range []string{suite.MetricAccuracy, suite.MetricOODF1, suite.MetricUnknownAcc, suite.MetricKnownAcc, suite.MetricOODAUROC} {
		v, ok := res.Metrics[m]
		if !ok || math.IsNaN(v) || v < 0 || v > 1 {
			t.Errorf("%s = %v (present %v), want in [0, 1]", m, v, ok)
		}
	}
	if res.Metrics[suite.MetricKnownAcc] < 0.2 {
		t.Errorf("known_acc = %.3f after 30 epochs, want > 0.2 (chance 0.1)", res.Metrics[suite.MetricKnownAcc])
	}
	t.Logf("30 epochs: loss %.3f → %.3f, metrics %v, %.1fs", losses[0], losses[len(losses)-1], res.Metrics, res.Seconds)
}
