package ugnn

import (
	"testing"

	"github.com/ugbench/ugbench/suite"
	"github.com/ugbench/ugbench/suite/suitetest"
)

// TestResumeSameRun: UGNN and w/o P with the tiny budget (epochs 1–2
// warm-up, 3–4 cycle 1, 5–6 cycle 2), interrupted inside a cycle (after
// epoch 3: the prototypes as its steps moved them are restored) and
// between cycles (after epoch 4: cycle 2's start runs on the restored
// weights), continue to the uninterrupted run's curves and metrics, bit
// for bit; UGNN in the edge-list layout (layout=edges) too, and with the
// batch_norm lever, whose running statistics are saved with the weights.
func TestResumeSameRun(t *testing.T) {
	dir, name, ratio := letterHigh(t)
	for _, c := range []struct {
		method, layout string
		batchNorm      bool
	}{{"ugnn", "auto", false}, {"ugnn-wo-p", "auto", false}, {"ugnn", "edges", false}, {"ugnn", "edges", true}} {
		label := c.method + "/" + c.layout
		if c.batchNorm {
			label += "/batch_norm"
		}
		t.Run(label, func(t *testing.T) {
			p := tinyParams()
			p["layout"] = c.layout
			if c.batchNorm {
				p["batch_norm"] = true
			}
			suitetest.CheckResume(t, dir, suite.RunSpec{Method: c.method, Dataset: "Letter-high", RatioName: name, Ratio: ratio, Seed: 1,
				Params: p, Protocol: suite.DefaultProtocol()}, 3, 4)
		})
	}
}
