package supervised

import (
	"context"
	"math"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/suite"
)

// TestBackboneRowsLetterHigh runs each convolution and pooling row end to
// end through the suite's runner on real Letter-high (low ratio, seed 0)
// with a small budget (20 epochs, batch 32, lr 0.01, hidden 32): the loss
// must fall — gradients flow through the row's convolution and pooling —
// and every metric must be present and in [0, 1].
func TestBackboneRowsLetterHigh(t *testing.T) {
	dir := datasetstest.Dir()
	if dir == "" {
		t.Skip("no data directory")
	}
	_ = datasetstest.Load(t, "Letter-high") // skips if absent
	name, ratio, err := datasets.ResolveRatio("Letter-high", "low")
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"gcn-topk", "sage-topk", "gin-sag", "gin-asap"} {
		t.Run(method, func(t *testing.T) {
			m, err := suite.Lookup(method)
			if err != nil {
				t.Fatal(err)
			}
			p := m.Defaults()
			if p["pool_ratio"] != 0.8 {
				t.Errorf("pool_ratio default = %v, want the protocol's 0.8", p["pool_ratio"])
			}
			const epochs = 20
			p["epochs"] = epochs
			p["hidden"] = 32
			p["batch_size"] = 32
			p["lr"] = 0.01
			r := &suite.Runner{DataDir: dir, Backend: "go"}
			res, err := r.Run(context.Background(), suite.RunSpec{
				Method: method, Dataset: "Letter-high", RatioName: name, Ratio: ratio, Seed: 0,
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
			if len(losses) != epochs {
				t.Fatalf("logged %d loss points, want %d", len(losses), epochs)
			}
			if !(losses[len(losses)-1] < 0.8*losses[0]) {
				t.Errorf("loss did not fall: first %.3f, last %.3f", losses[0], losses[len(losses)-1])
			}
			for _, k := range []string{suite.MetricAccuracy, suite.MetricOODF1, suite.MetricUnknownAcc, suite.MetricKnownAcc, suite.MetricOODAUROC} {
				v, ok := res.Metrics[k]
				if !ok || math.IsNaN(v) || v < 0 || v > 1 {
					t.Errorf("%s = %v (present %v), want in [0, 1]", k, v, ok)
				}
			}
			t.Logf("%d epochs: loss %.3f → %.3f, known_acc %.3f, accuracy %.3f, %.1fs", epochs, losses[0], losses[len(losses)-1],
				res.Metrics[suite.MetricKnownAcc], res.Metrics[suite.MetricAccuracy], res.Seconds)
		})
	}
}
