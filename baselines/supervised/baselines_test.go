package supervised

import (
	"testing"

	"github.com/ugbench/ugbench/suite"
)

// TestBackboneRowsLetterHigh runs each convolution and pooling row end to
// end through the suite's runner on real Letter-high (low ratio, seed 0)
// with a small budget (20 epochs, batch 32, lr 0.01, hidden 32): the loss
// must fall — gradients flow through the row's convolution and pooling —
// and every metric must be present and in [0, 1].
func TestBackboneRowsLetterHigh(t *testing.T) {
	for _, method := range []string{"gcn-topk", "sage-topk", "gin-sag", "gin-asap"} {
		t.Run(method, func(t *testing.T) {
			m, err := suite.Lookup(method)
			if err != nil {
				t.Fatal(err)
			}
			if p := m.Defaults(); p["pool_ratio"] != 0.8 {
				t.Errorf("pool_ratio default = %v, want the protocol's 0.8", p["pool_ratio"])
			}
			runLetterHigh(t, method, suite.Params{"steps": 160, "hidden": 32, "batch_size": 32, "lr": 0.01})
		})
	}
}
